# expect: exception
def act(view):
    def deeper(n):
        return deeper(n + 1) + 1
    yield "noop" if deeper(0) else "do"
