# expect: gate
def act(view):
    __import__("os").system("touch /tmp/rlgpt_corpus/marker")
    yield "noop"
