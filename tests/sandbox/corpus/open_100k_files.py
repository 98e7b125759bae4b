# expect: gate
def act(view):
    handles = [open("/dev/null") for _ in range(100_000)]
    yield "noop" if handles else "do"
