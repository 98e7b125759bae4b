# expect: invalid_output
def act(view):
    yield None
