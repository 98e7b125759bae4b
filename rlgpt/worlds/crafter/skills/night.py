"""When the night comes and goes, and whether the player is walled in: what survival's
skills and a plan's conditions (plan.py's `PLAN_CONDITIONS`) both read."""

from __future__ import annotations

from .view import MOVES, WALKABLE, ObsView

# a creature or an arrow moves on: the cell it stands on is no wall (a zombie in the doorway
# must not pass for a sealed room, where the player would sleep beside it)
_PASSING = ("zombie", "skeleton", "cow", "arrow")
DUSK = 0.6  # daylight below this: zombies gather on grass; get under a roof
DAWN = 0.75  # daylight above this, with no zombie close: leave the shelter


def _sealed(view: ObsView) -> bool:
    """The player stands in a closed room of at most three walkable cells."""
    seen, todo = {(0, 0)}, [(0, 0)]
    while todo:
        cur = todo.pop()
        for ox, oy in MOVES:
            nxt = (cur[0] + ox, cur[1] + oy)
            if nxt not in seen and view.at(*nxt) in WALKABLE + _PASSING + ("none",):
                seen.add(nxt)
                todo.append(nxt)
                if len(seen) > 3:
                    return False
    return True
