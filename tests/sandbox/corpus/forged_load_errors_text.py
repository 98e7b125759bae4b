# expect: gate
# gate-off: exception|crash
import os
import sys
import time

os.write(int(sys.argv[2]), b'{"ok": false, "errors": {"act": "\\udc80\\u001b]0;title\\u0007\\r"}}\n')
time.sleep(600)


def act(view):
    yield "noop"
