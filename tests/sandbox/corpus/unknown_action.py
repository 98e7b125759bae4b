# expect: invalid_action
def act(view):
    yield "fly_up"
