# expect: gate
import os

def act(view):
    seen = sorted(os.listdir("/"))
    for path in ("/etc/shadow", "/root/.bash_history", "/work/main/params.yaml"):
        try:
            seen.append(open(path).read()[:20])
        except OSError:
            pass
    yield "|".join(seen)
