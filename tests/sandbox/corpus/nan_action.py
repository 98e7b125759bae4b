# expect: invalid_action
def act(view):
    yield float("nan")
