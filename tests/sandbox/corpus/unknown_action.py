# expect: invalid_output
def act(view):
    yield "fly_up"
