# expect: exception
def act(view):
    MOVES[(1, 0)] = "move_left"  # the shared table is read-only: other actions keep theirs
    yield "noop"
