# expect: gate
import os
import sys

os.write(int(sys.argv[2]), b'{"ok": false, "errors": [1, {"x": 2}]}\n')

def act(view):
    yield "noop"
