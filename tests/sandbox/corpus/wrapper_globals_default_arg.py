# expect: gate
import functools
import random

NAME = "%c%cglobals%c%c" % (95, 95, 95, 95)


def act(view):
    def stolen(real=functools.partial(functools.update_wrapper, assigned=(NAME,), updated=())):
        return real

    carrier = functools.partial(print)
    stolen()(carrier, random.shuffle)  # carrier.__globals__ = random's real globals
    yield "noop"
