# expect: gate
import os
import sys
import time

def act(view):
    out = int(sys.argv[2])
    while True:  # one byte every 1.5 s: never a whole reply, never silent for 2 s
        os.write(out, b" ")
        time.sleep(1.5)
    yield "noop"
