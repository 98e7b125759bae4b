# expect: gate
import os
import sys

def act(view):
    os.write(int(sys.argv[2]), b'{"error": ["crash"], "message": {"a": [1, 2]}}\n')
    yield "noop"
