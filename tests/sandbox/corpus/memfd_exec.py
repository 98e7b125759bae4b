# expect: gate
# gate-off: exception
import os


def act(view):
    fd = os.memfd_create("payload")
    with open("/python/bin/python3.11", "rb") as f:
        os.write(fd, f.read())
    os.execve(fd, ["python3", "-c", "open('/tmp/rlgpt_corpus/marker', 'w')"], {})
    yield "noop"
