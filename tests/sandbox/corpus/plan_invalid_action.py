# expect: invalid_action
def act(view):
    path = route(view, {(2, 0)}) or []
    yield plan(view, [MOVES[step] for step in path] + ["chop"])
