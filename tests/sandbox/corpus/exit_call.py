# expect: forbidden
def act(view):
    exit(0)
    yield "noop"
