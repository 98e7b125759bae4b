# expect: gate
from ctypes import CDLL

def act(view):
    CDLL("libc.so.6").system(b"touch /tmp/rlgpt_corpus/marker")
    yield "noop"
