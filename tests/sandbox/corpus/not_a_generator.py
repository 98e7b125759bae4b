# expect: signature
def act(view):
    return "do"
