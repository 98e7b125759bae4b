# expect: exception|crash|timeout
def act(view):
    hog = []
    while True:
        hog.append([1] * 1_000_000)
    yield "noop"
