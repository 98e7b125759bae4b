# expect: gate
import os


def act(view):
    if os.fork() == 0:  # a child that burns a core between the calls, for as long as it may
        while True:
            pass
    while True:
        yield "noop"
