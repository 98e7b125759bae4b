# expect: invalid_action
def act(view):
    yield None
