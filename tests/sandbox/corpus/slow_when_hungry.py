# expect: ok
# validation starts every state with full vitals: this behaves there, and crawls in training
# (tests/sandbox/test_training_watchdog.py disables it there, for its CPU)
def act(view):
    for _ in range(20):
        if view.vitals["food"] < 9:
            total = 0
            for i in range(3_000_000):
                total += i % 7
        yield "noop"
