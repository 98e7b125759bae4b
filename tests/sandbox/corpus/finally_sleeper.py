# expect: timeout
def act(view):
    try:
        while True:
            yield "noop"
    finally:
        while True:  # runs when the runtime drops this call: the worker hangs later
            pass
