# expect: gate
import os
import sys

def act(view):
    os.write(int(sys.argv[2]), b"[" * 200000 + b"\n")
    yield "noop"
