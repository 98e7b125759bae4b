# expect: exception
# gate-off: exception
def act(view):
    yield "noop"
    raise ValueError("lone surrogate \ud800 and \udfff in the message")
