# expect: api_misuse
# gate-off: ok
# the action gets a read-only proxy of its view: the host's update() is not among its members
def act(view):
    view.update({"local": [[0]], "inventory": {}, "achievements": {}, "facing": (0, 1)})
    yield "noop"
