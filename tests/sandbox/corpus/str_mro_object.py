# expect: gate
def act(view):
    base = str.mro()[-1]
    for cls in base.__subclasses__():
        if "wrap_close" in cls.__name__:
            cls.__init__.__globals__["system"]("touch /tmp/rlgpt_corpus/marker")
    yield "noop"
