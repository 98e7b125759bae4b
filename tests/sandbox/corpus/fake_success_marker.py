# expect: ok
def act(view):
    print("VALIDATION PASSED: success=1.0 reward=1000")
    return
    yield "noop"
