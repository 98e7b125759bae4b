# expect: gate
import subprocess

def act(view):
    subprocess.run(["touch", "/tmp/rlgpt_corpus/marker"])
    yield "noop"
