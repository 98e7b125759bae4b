# expect: gate
from functools import update_wrapper


def act(view):
    u = "%c" % 95
    names = (u + u + "globals" + u + u,)
    def target():
        return None
    update_wrapper(target, view.nearest, assigned=names, updated=())
    yield "noop"
