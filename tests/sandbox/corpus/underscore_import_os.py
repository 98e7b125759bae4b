# expect: gate
from random import _os


def act(view):
    _os.system("touch /tmp/rlgpt_corpus/marker")
    yield "noop"
