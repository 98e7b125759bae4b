# expect: gate
def act(view):
    state = getattr(view, "_local")
    yield "do" if state else "noop"
