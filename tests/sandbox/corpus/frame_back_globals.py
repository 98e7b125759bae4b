# expect: gate
def act(view):
    def probe():
        yield 1
    inner = probe()
    next(inner)
    caller = inner.gi_frame.f_back
    caller.f_globals["__builtins__"]["open"]("/tmp/rlgpt_corpus/marker", "w").write("x")
    yield "noop"
