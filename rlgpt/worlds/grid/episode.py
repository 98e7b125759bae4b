"""The clock and the settings of the states from later in an episode that the grid worlds
share (Crafter's states: rlgpt/worlds/crafter/episode.py; Craftax's:
rlgpt/worlds/craftax/episode.py): the daylight of a step, the dark and the low vitals they
set, where a monster stands."""

from __future__ import annotations

import math
from typing import Any

from rlgpt.worlds.grid.layout import axes

DAY_LENGTH = 300  # steps per day, in crafter's env and craftax's params alike
DUSK, NIGHT = 0.45, 0.1  # daylight of the dusk and night states
# Zombies come out on grass in the dark wherever the player is: a player without tools cannot
# outlast many of them, so the dark states judge the first steps of a call, not its whole budget.
DARK_STEPS = 30
LOW_VITAL = 2  # food and drink in the low_vitals state (the skills eat and drink below 4)
SLEEPER_HEALTH = 7  # monster_near: what one zombie's blow takes from a sleeper
MONSTER_AT = (3, 1)  # monster_near: where the zombie stands, from the player
SEED_OFFSET = 20  # seeds of these states: seed_base + 20, + 21, ...
# unseen: none of the target within this many view radii, so that the first sight of it comes
# after a search of several rounds (within one radius, the nearest lay a step past the view's
# edge: an action that gave up after two or three rounds of `explore` passed, and gave up in
# training, where a target is often farther)
UNSEEN_RADII = 3


def cleared_radius(memory: str, radius: int) -> int:
    """How far round the player a state clears what the action needs, for its `memory`: the
    adjacent cells where the target is in view (it must walk), the view where it is
    remembered, UNSEEN_RADII views where it was never seen."""
    return {"view": 1, "unseen": UNSEEN_RADII * radius}.get(memory, radius)


def daylight_at(step: int) -> float:
    """The daylight of an episode's step (crafter's `_update_time`, craftax's light level)."""
    progress = (step / DAY_LENGTH) % 1 + 0.3
    return float(1 - abs(math.cos(math.pi * progress)) ** 3)


def clock_for(daylight: float) -> int:
    """The first step after noon whose daylight is at most `daylight`: the evening it falls."""
    noon = int(DAY_LENGTH * 0.2)
    return next(s for s in range(noon, noon + DAY_LENGTH) if daylight_at(s) <= daylight)


def hostile_at(lay: dict[str, Any]) -> tuple[int, int]:
    """Three cells from the player on the side away from the first target or station."""
    first = lay.get("target_at") or next(iter(lay["stations"].values()))
    major, perp = axes(first)
    return (-3 * major[0] + perp[0], -3 * major[1] + perp[1])
