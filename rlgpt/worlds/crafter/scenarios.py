"""Validation scenarios: real Crafter states arranged by the trusted process.

For a sub-action named after an achievement, `plan_scenarios` lays out states in which its
precondition holds ("met"): the player holds exactly the items it needs, the stations it needs
stand in view but out of reach, and the material or creature it targets is in view but not next
to the player, so the action must walk. It also lays out states in which one required item is
short ("unmet"): there the action must end by itself, quickly. `stage` builds a scenario on a
real world (the seed's own terrain, then the arrangement), deterministically per seed. No
generated code is involved in either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crafter import objects

from rlgpt.messages import Scenario
from rlgpt.worlds.crafter.env import CrafterEnv
from rlgpt.worlds.crafter.preconditions import Requirement, requirement
from rlgpt.worlds.crafter.recipes import CRAFTER, Recipes

# Where the target (or the first station) goes, relative to the player: in view, out of reach.
OFFSETS = ((3, 0), (-2, -3), (0, 4), (-4, 1), (2, 3), (-3, -2), (4, -1), (1, -4))
# Two stations (a table and a furnace): beside each other, or apart (the furnace two cells
# behind the table) so that only the cell between them, or one next to it, is near both.
APART_OFFSETS = ((-2, 1), (1, -2), (2, -1), (-1, 2))
# A skeleton within 3 cells flees rather than walks up: in its walled nook it stays put.
CLOSE_OFFSETS = ((3, 0), (-2, -1), (0, 3), (-3, 0), (1, -2), (0, -3))
FACINGS = ((0, 1), (-1, 0), (0, -1), (1, 0))
BLOCKERS = (None, "tree", "stone")  # what the player faces in place-style layouts
WALKABLE = ("grass", "sand", "path")
HOSTILE = (objects.Zombie, objects.Skeleton, objects.Arrow)
CREATURES: dict[str, Any] = {
    "cow": objects.Cow, "zombie": objects.Zombie, "skeleton": objects.Skeleton,
    "plant": objects.Plant,
}  # fmt: skip
TIRED_BY = 3  # energy below its maximum in sleep scenarios
MAX_UNMET = 3


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def _offset(i: int, radius: int, table: tuple[tuple[int, int], ...] = OFFSETS) -> tuple[int, int]:
    """The i-th layout offset, kept in view (and out of reach when the view allows it)."""
    dx, dy = table[i % len(table)]
    r = max(2, radius)
    return max(-r, min(r, dx)), max(-r, min(r, dy))


def _axes(t: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """The unit step along t's longer axis (away from the player) and a perpendicular one."""
    if abs(t[0]) >= abs(t[1]):
        return (_sign(t[0]), 0), (0, 1)
    return (0, _sign(t[1])), (1, 0)


def _add(a: tuple[int, int], b: tuple[int, int], k: int = 1) -> tuple[int, int]:
    return (a[0] + k * b[0], a[1] + k * b[1])


def _approach_cell(t: tuple[int, int]) -> tuple[int, int]:
    """The cell next to `t` on the player's side, along t's longer axis."""
    return _add(t, _axes(t)[0], -1)


def _l_path(
    a: tuple[int, int], b: tuple[int, int] = (0, 0), avoid: frozenset[tuple[int, int]] = frozenset()
) -> list[tuple[int, int]]:
    """Cells from `b` to `a`, along x then y (or y then x when that would cross `avoid`)."""
    for x_first in (True, False):
        cells, (x, y) = [], b
        for axis in (0, 1) if x_first else (1, 0):
            while (x, y)[axis] != a[axis]:
                step = _sign(a[axis] - (x, y)[axis])
                x, y = (x + step, y) if axis == 0 else (x, y + step)
                cells.append((x, y))
        if not avoid.intersection(cells):
            return cells
    return cells


def _layout(req: Requirement, i: int, radius: int) -> dict[str, Any]:
    """Stations, target and facing of layout i for requirement `req`."""
    facing = FACINGS[i % len(FACINGS)]
    out: dict[str, Any] = {"facing": facing}
    t = _offset(i, radius, CLOSE_OFFSETS if req.target == "skeleton" else OFFSETS)
    if req.stations:
        apart = len(req.stations) > 1 and i % 3 != 0 and radius >= 4
        if apart:
            t = APART_OFFSETS[i % len(APART_OFFSETS)]
        second = _add(t, _axes(t)[0], 2) if apart else _add(t, _axes(t)[1])
        out["stations"] = {s: xy for s, xy in zip(req.stations[:2], (t, second), strict=False)}
    elif req.target and req.target != "grass":
        out["target"], out["target_at"] = req.target, t
    if req.kind == "place" or req.target == "grass":
        out["front"] = BLOCKERS[i % len(BLOCKERS)]
    return out


def _base_inventory(req: Requirement) -> dict[str, int]:
    inv = dict(req.items)
    if req.tired:
        inv["energy"] = req.energy_max - TIRED_BY
    return inv


def _unmet(req: Requirement) -> list[tuple[dict[str, int], str, bool]]:
    """States that withhold one requirement each: (inventory, what is short, no stations)."""
    out = []
    for item, n in list(req.items.items())[:MAX_UNMET]:
        inv = {**_base_inventory(req), item: n - 1 if n > 1 else 0}
        out.append((inv, f"{item} (has {inv[item]}, needs {n})", False))
    if req.stations:
        where = " and ".join(req.stations)
        out.append((_base_inventory(req), f"a {where} (none in view)", True))
    if req.tired:
        full = req.energy_max
        out.append(({"energy": full}, f"tiredness (energy is full, {full})", False))
    return out


def plan_scenarios(
    ach: str, *, count: int, seed_base: int, budget: int, radius: int, unmet_steps: int,
    unknown_steps: int, recipes: Recipes = CRAFTER,
) -> list[Scenario]:  # fmt: skip
    """`count` met scenarios (several seeds and layouts) and the unmet ones for `ach`; for a
    name that is no achievement, `count` plain fresh worlds ("unknown": nothing to check)."""
    req = requirement(ach, recipes)
    if req is None:
        return [
            Scenario(
                name=f"fresh-{i + 1}",
                seed=seed_base + i,
                precondition="unknown",
                max_steps=unknown_steps,
            )  # fmt: skip
            for i in range(count)
        ]
    out = [
        Scenario(
            name=f"met-{i + 1}",
            seed=seed_base + i,
            precondition="met",
            inventory=_base_inventory(req),
            max_steps=budget,
            **_layout(req, i, radius),
        )  # fmt: skip
        for i in range(count)
    ]
    for j, (inv, missing, bare) in enumerate(_unmet(req)):
        layout = _layout(req, j, radius)
        if bare:
            layout.pop("stations", None)
        spec = Scenario(
            name=f"unmet-{j + 1}", seed=seed_base + 50 + j, precondition="unmet",
            inventory=inv, max_steps=unmet_steps, missing=missing, **layout,
        )  # fmt: skip
        out.append(spec)
    return out


# -- building a scenario on a real world ----------------------------------------------------
def _clear(world: Any, pos: tuple[int, int], material: str | None = None) -> None:
    """Remove any creature at `pos` (never the player); set its material if given."""
    _, obj = world[pos]
    if obj is not None and not isinstance(obj, objects.Player):
        world.remove(obj)
    if material is not None:
        world[pos] = material


def stage(env: CrafterEnv, spec: Scenario) -> dict[str, Any]:
    """Reset `env` to the scenario's seed and arrange it; the info of the arranged state."""
    info = env.reset(seed=spec.seed)[1]
    if spec.precondition == "unknown":
        return info
    world, player = env.world, env.player
    px, py = (int(v) for v in player.pos)

    def at(d: tuple[int, int]) -> tuple[int, int]:
        return (px + d[0], py + d[1])

    for obj in world.objects:  # no fight the scenario did not ask for
        if isinstance(obj, HOSTILE) and player.distance(obj) <= 12:
            world.remove(obj)
    wanted = {spec.target, *spec.stations} - {None}
    for dx in (-1, 0, 1):  # nothing the action needs is within reach: it must walk
        for dy in (-1, 0, 1):
            if (dx, dy) != (0, 0) and world[at((dx, dy))][0] in wanted:
                _clear(world, at((dx, dy)), "grass")
    way = way_in(spec)
    for cell in way.walk:
        mat, _ = world[at(cell)]
        _clear(world, at(cell), None if mat in WALKABLE else way.base)
    for cell in way.walls:
        _clear(world, at(cell), "stone")
    for station, d in spec.stations.items():
        _clear(world, at(d), station)
    if spec.target and spec.target_at:
        _place_target(world, player, spec.target, at(spec.target_at))
    player.facing = tuple(spec.facing)
    front = at(spec.facing)
    if spec.front is not None or way.first is None:
        _clear(world, front, spec.front or "grass")
        side = at((spec.facing[1], -spec.facing[0]))  # a free cell to turn to
        _clear(world, side, "grass")
    for item, n in spec.inventory.items():
        player.inventory[item] = n
    return env.refresh()


@dataclass(frozen=True)
class WayIn:
    """How a scenario's layout is made reachable, relative to the player: `walk` cells become
    walkable (those that are not become `base`), `walls` become stone (round a skeleton, so it
    cannot flee), `first` is the target or first station (None: nothing laid out)."""

    first: tuple[int, int] | None
    walk: list[tuple[int, int]]
    walls: list[tuple[int, int]]
    base: str


def way_in(spec: Scenario) -> WayIn:
    """The way in of a scenario: from the player to the cell before its first target (and
    round to a cell within one of both stations); the same on every world of this game."""
    base = "path" if spec.target == "skeleton" else "grass"
    first = spec.target_at or next(iter(spec.stations.values()), None)
    if first is None:
        return WayIn(None, [], [], base)
    approach = _approach_cell(first)
    walls = []
    if spec.target == "skeleton":
        sides = [(first[0] + d[0], first[1] + d[1]) for d in FACINGS]
        walls = [s for s in sides if s != approach]
    return WayIn(first, _l_path(approach) + _meeting_path(approach, spec), walls, base)


def _meeting_path(approach: tuple[int, int], spec: Scenario) -> list[tuple[int, int]]:
    """With two stations, a walkable way round the first to a cell within one of both."""
    if len(spec.stations) < 2:
        return []
    first, second = list(spec.stations.values())[:2]
    major, perp = _axes(first)
    if second == _add(first, perp):  # side by side: one step aside reaches both
        return [_add(approach, perp)]
    return [_add(approach, perp), _add(first, perp), _add(_add(first, major), perp),
            _add(first, major)]  # fmt: skip


def _place_target(world: Any, player: Any, target: str, pos: tuple[int, int]) -> None:
    if target not in CREATURES:
        _clear(world, pos, target)
        return
    _clear(world, pos, "path" if target == "skeleton" else "grass")
    cls = CREATURES[target]
    if cls in (objects.Zombie, objects.Skeleton):
        creature = cls(world, pos, player)
    else:
        creature = cls(world, pos)
    if isinstance(creature, objects.Plant):
        creature.grown = 400  # ripe: eating it is the effect
    world.add(creature)
