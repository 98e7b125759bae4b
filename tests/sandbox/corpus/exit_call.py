# expect: gate
def act(view):
    exit(0)
    yield "noop"
