# expect: gate
def act(view):
    with open("/tmp/rlgpt_corpus/policy.zip", "wb") as f:
        f.write(b"pwned")
    yield "noop"
