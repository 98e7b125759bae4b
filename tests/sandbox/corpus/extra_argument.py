# expect: signature
def act(view, budget):
    yield "noop"
