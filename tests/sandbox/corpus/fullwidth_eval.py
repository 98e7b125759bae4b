# expect: gate
def act(view):
    ｅｖａｌ("__import__('os').system('true')")
    yield "noop"
