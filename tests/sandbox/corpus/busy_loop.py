# expect: timeout
def act(view):
    while True:
        pass
    yield "noop"
