# expect: gate
import os
import time

def act(view):
    children = 0
    for _ in range(500):
        try:
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
            children += 1
        except OSError:
            break
    yield f"forked {children}"
