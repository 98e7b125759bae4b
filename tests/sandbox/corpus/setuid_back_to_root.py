# expect: gate
import os

def act(view):
    os.setuid(0)
    open("/tmp/rlgpt_corpus/marker", "w").write("root again")
    yield "noop"
