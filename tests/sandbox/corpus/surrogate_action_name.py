# expect: invalid_action
# gate-off: invalid_action
def act(view):
    yield "noop\ud800\x1b[31m\r"
