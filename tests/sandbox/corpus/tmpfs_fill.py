# expect: gate
import os

def act(view):
    chunk = b"x" * (1 << 19)
    for i in range(2000):  # 1 GiB in half-megabyte files
        with open(f"/tmp/fill{i}", "wb") as f:
            f.write(chunk)
    for i in range(2000):
        with open(f"/dev/shm/fill{i}", "wb") as f:
            f.write(chunk)
    yield "noop"
