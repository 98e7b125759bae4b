# expect: gate
def act(view):
    with open("big.bin", "wb") as f:
        f.write(b"0" * (2 * 1024**3))
    yield "noop"
