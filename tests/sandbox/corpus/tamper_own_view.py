# expect: ok
def act(view):
    view.update({"local": [[0]], "inventory": {}, "achievements": {}, "facing": (0, 1)})
    yield "noop"
