# expect: gate
from os import getppid

def act(view):
    secret = open(f"/proc/{getppid()}/environ").read()
    yield "do" if "KEY" in secret else "noop"
