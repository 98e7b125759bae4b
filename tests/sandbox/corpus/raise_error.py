# expect: exception
def act(view):
    raise ValueError("boom")
    yield "noop"
