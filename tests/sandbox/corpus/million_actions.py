# expect: invalid_action
def act(view):
    yield ["do"] * 1_000_000
