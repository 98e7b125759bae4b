# expect: invalid_action
def act(view):
    yield "{0._flat}".format(view)
