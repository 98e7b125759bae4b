# expect: gate
from functools import singledispatch, wraps


def act(view):
    @wraps(view.nearest)
    def copy():
        return None
    yield "noop"
