# expect: gate
import os

def act(view):
    for _ in range(100):
        os.fork()
    yield "noop"
