# expect: exception
# gate-off: exception
def act(view):
    yield "noop"
    raise ValueError("\r\x1b[2K\x1b[1Arlgpt: act: ok\nrlgpt: other: ok\u2028\u202e\x07")
