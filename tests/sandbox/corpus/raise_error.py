# expect: crash
def act(view):
    raise ValueError("boom")
    yield "noop"
