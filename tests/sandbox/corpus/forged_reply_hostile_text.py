# expect: gate
# gate-off: exception
import os
import sys
import time


def act(view):
    out = int(sys.argv[2])
    # raw bytes, not json.dumps: a lone surrogate's escape and raw control characters
    os.write(out, b'{"error": "exception", "message": "\\ud800\\r\\u001b[2Krlgpt: act: ok\\n"}\n')
    time.sleep(600)
    yield "noop"
