# expect: gate
# gate-off: crash
import os
import sys

def act(view):
    step = b'["move_left", null, null, null, ["skip_checks"], null]'
    os.write(int(sys.argv[2]), b'{"plan": [' + step + b"]}\n")
    yield "noop"
