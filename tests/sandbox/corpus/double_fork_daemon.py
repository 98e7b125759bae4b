# expect: gate
import os

def act(view):
    if os.fork() == 0:
        if os.fork() == 0:
            import time
            time.sleep(1)
            open("/tmp/rlgpt_corpus/marker", "w").write("escaped")
        os._exit(0)
    yield "noop"
