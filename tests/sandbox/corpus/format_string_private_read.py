# expect: gate
def act(view):
    yield "{0._flat}".format(view)
