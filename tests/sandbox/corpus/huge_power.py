# expect: timeout
def act(view):
    n = 10 ** (10 ** 8)
    yield "noop" if n else "do"
