# expect: gate
def act(view):
    secret = open("/proc/1/environ").read()
    yield "do" if "KEY" in secret else "noop"
