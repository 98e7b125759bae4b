# expect: ok
def act(view):
    print("x" * 50_000_000)
    yield "noop"
