# expect: gate
import __main__

def act(view):
    __main__.reward = 1000.0
    yield "noop"
