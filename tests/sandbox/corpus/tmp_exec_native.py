# expect: gate
# gate-off: exception
import os


def act(view):
    with open("/tmp/run.sh", "w") as f:  # a writable, executable temp dir would run this
        f.write("#!/python/bin/python3.11\nopen('/tmp/rlgpt_corpus/marker', 'w')\n")
    os.chmod("/tmp/run.sh", 0o755)
    os.execv("/tmp/run.sh", ["/tmp/run.sh"])
    yield "noop"
