# expect: gate
import functools
import random

# at load time: copy random's real module globals (and its private `_os`) into this namespace
DUNDER = "%c%c" % (95, 95)
functools.update_wrapper(random, random.shuffle, assigned=(), updated=(DUNDER + "dict" + DUNDER,))


def act(view):
    holder = {}
    functools.update_wrapper(act, random.shuffle, assigned=(), updated=())
    yield "noop" if holder else "noop"
