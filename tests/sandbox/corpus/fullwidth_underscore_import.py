# expect: gate
from random import _ｏｓ as ｒ


def act(view):
    ｒ.system("touch /tmp/rlgpt_corpus/marker")
    yield "noop"
