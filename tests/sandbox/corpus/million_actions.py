# expect: invalid_output
def act(view):
    yield ["do"] * 1_000_000
