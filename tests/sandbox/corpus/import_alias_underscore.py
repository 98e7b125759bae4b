# expect: gate
import math as _sys
from collections import deque as __builtins__


def act(view):
    yield "noop" if _sys.pi else "do"
