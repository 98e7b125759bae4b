# expect: gate
def act(view):
    gen = (i for i in range(1))
    real = gen.gi_frame.f_builtins
    real["__import__"]("os").system("touch /tmp/rlgpt_corpus/marker")
    yield "noop"
