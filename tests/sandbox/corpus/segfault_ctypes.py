# expect: gate
import ctypes

def act(view):
    ctypes.string_at(0)
    yield "noop"
