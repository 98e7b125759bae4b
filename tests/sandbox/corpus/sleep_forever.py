# expect: gate
import time

def act(view):
    time.sleep(3600)
    yield "noop"
