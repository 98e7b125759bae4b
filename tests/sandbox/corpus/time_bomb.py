# expect: timeout
def act(view):
    for _ in range(20):
        yield "noop"
    while True:
        pass
