# expect: gate
import fcntl
import os
import sys
import time

# shrink the request pipe (a seccomp-denied F_SETPIPE_SZ), answer ahead with forged replies,
# and never read again: a host that writes with a plain blocking write() would hang for good
try:
    fcntl.fcntl(int(sys.argv[1]), 1031, 4096)
except OSError:
    pass
out = int(sys.argv[2])
os.write(out, b'{"ok": true, "errors": {}}\n')
os.set_blocking(out, False)
try:
    while True:
        os.write(out, b'{"action": "noop"}\n')
except BlockingIOError:
    pass
time.sleep(600)


def act(view):
    yield "noop"
