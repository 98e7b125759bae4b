# expect: gate
def act(view):
    secret = open("/tmp/rlgpt_corpus/secrets.txt").read()
    yield "do" if secret else "noop"
