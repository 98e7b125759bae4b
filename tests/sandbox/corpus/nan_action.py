# expect: invalid_output
def act(view):
    yield float("nan")
