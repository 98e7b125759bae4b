# expect: exception|crash
def act(view):
    hog = [0] * (8 * 1024**3 // 8)
    yield "noop" if hog else "do"
