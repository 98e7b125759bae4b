# expect: gate
import os
import time

def act(view):
    for _ in range(4):  # 4 x 700 MiB, each under the per-process limit
        if os.fork() == 0:
            hog = bytearray(700 << 20)
            for i in range(0, len(hog), 4096):
                hog[i] = 1
            time.sleep(30)
            os._exit(0)
    time.sleep(30)
    yield "noop"
