# expect: gate
def act(view):
    match act:
        case dict(__globals__=g):
            g["__builtins__"]["__import__"]("os").system("touch /tmp/rlgpt_corpus/marker")
        case _:
            pass
    yield "noop"
