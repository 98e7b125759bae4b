# expect: gate
def act(view):
    users = open("/etc/passwd").read()
    yield "do" if "root" in users else "noop"
