# expect: syntax
def act(view)
    yield "do"
