# expect: gate
import math

def act(view):
    math.isqrt = lambda n: 0  # every other action's view would misread its map
    yield "noop"
