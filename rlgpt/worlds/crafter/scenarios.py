"""Validation scenarios: real Crafter states arranged by the trusted process.

For a sub-action named after an achievement, `plan_scenarios` lays out states in which its
precondition holds ("met"): the player holds exactly the items it needs, the stations it needs
stand in view but out of reach, and the material or creature it targets is in view but not next
to the player, so the action must walk. Then states from later in an episode (episode.py: dusk
and night, low food and drink, a zombie near, lava on the way, the target out of view). It also
lays out states in which one required item is short ("unmet", the stations still in view):
there the action must end by itself, quickly, without its own craft or place action. `stage`
builds a scenario on a real world (the seed's own terrain, then the arrangement),
deterministically per seed. No generated code is involved in either. The geometry is
rlgpt/worlds/grid/layout.py's, shared with every grid world.
"""

from __future__ import annotations

from typing import Any

from crafter import objects

from rlgpt.messages import Scenario
from rlgpt.worlds.base import StepInfo
from rlgpt.worlds.crafter.env import CrafterEnv
from rlgpt.worlds.crafter.episode import episode_states
from rlgpt.worlds.crafter.layout import WALKABLE, layout
from rlgpt.worlds.crafter.preconditions import Requirement, requirement
from rlgpt.worlds.crafter.recipes import CRAFTER, Recipes
from rlgpt.worlds.grid.episode import cleared_radius, clock_for
from rlgpt.worlds.grid.layout import way_in, withhold

HOSTILE = (objects.Zombie, objects.Skeleton, objects.Arrow)
CREATURES: dict[str, Any] = {
    "cow": objects.Cow,
    "zombie": objects.Zombie,
    "skeleton": objects.Skeleton,
    "plant": objects.Plant,
}
TIRED_BY = 3  # energy below its maximum in sleep scenarios


def _base_inventory(req: Requirement) -> dict[str, int]:
    inv = dict(req.items)
    if req.tired:
        inv["energy"] = req.energy_max - TIRED_BY
    return inv


def _unmet(req: Requirement) -> list[tuple[dict[str, int], str, str | None]]:
    """States that withhold one requirement each, read from the world's own recipe data:
    every ingredient in turn (one short), every station in turn (the others stay in view),
    tiredness. (inventory, what is short, the station withheld or None)."""
    out: list[tuple[dict[str, int], str, str | None]] = []
    for item, n in req.items.items():
        inv = {**_base_inventory(req), item: n - 1 if n > 1 else 0}
        out.append((inv, f"{item} (has {inv[item]}, needs {n})", None))
    for station in req.stations:
        others = [s for s in req.stations if s != station]
        seen = f"; {' and '.join(others)} in view" if others else ""
        out.append((_base_inventory(req), f"a {station} (none in view{seen})", station))
    if req.tired:
        full = req.energy_max
        out.append(({"energy": full}, f"tiredness (energy is full, {full})", None))
    return out


def plan_scenarios(
    ach: str, *, count: int, seed_base: int, budget: int, radius: int, unmet_steps: int,
    unknown_steps: int, recipes: Recipes = CRAFTER, episode: bool = True,
) -> list[Scenario]:  # fmt: skip
    """`count` met scenarios (several seeds and layouts), the unmet ones, and with `episode`
    the states from later in an episode that apply (episode.py) for `ach`; for a name that is
    no achievement, `count` plain fresh worlds ("unknown": nothing to check)."""
    req = requirement(ach, recipes)
    if req is None:
        return [
            Scenario(
                name=f"fresh-{i + 1}",
                seed=seed_base + i,
                precondition="unknown",
                max_steps=unknown_steps,
            )
            for i in range(count)
        ]
    out = [
        Scenario(
            name=f"met-{i + 1}",
            seed=seed_base + i,
            precondition="met",
            inventory=_base_inventory(req),
            max_steps=budget,
            **layout(req, i, radius),
        )
        for i in range(count)
    ]
    for j, (inv, missing, station) in enumerate(_unmet(req)):
        lay = withhold(layout(req, j, radius), station)
        spec = Scenario(
            name=f"unmet-{j + 1}", seed=seed_base + 50 + j, precondition="unmet",
            inventory=inv, max_steps=unmet_steps, missing=missing, **lay,
        )  # fmt: skip
        out.append(spec)
    if episode:  # last: the dearest to run, and a failure before them ends validation
        out += episode_states(req, _base_inventory(req), seed_base=seed_base, budget=budget,
                              radius=radius, recipes=recipes)  # fmt: skip
    return out


# -- building a scenario on a real world ----------------------------------------------------
def _clear(world: Any, pos: tuple[int, int], material: str | None = None) -> None:
    """Remove any creature at `pos` (never the player); set its material if given."""
    _, obj = world[pos]
    if obj is not None and not isinstance(obj, objects.Player):
        world.remove(obj)
    if material is not None:
        world[pos] = material


def stage(env: CrafterEnv, spec: Scenario) -> StepInfo:
    """Reset `env` to the scenario's seed and arrange it; the info of the arranged state."""
    env.reset(seed=spec.seed)
    if spec.precondition == "unknown":
        return env.last_info
    world, player = env.world, env.player
    px, py = (int(v) for v in player.pos)

    def at(d: tuple[int, int]) -> tuple[int, int]:
        return (px + d[0], py + d[1])

    if spec.daylight is not None:
        env.set_clock(clock_for(spec.daylight))
    for obj in world.objects:  # no fight the scenario did not ask for
        if isinstance(obj, HOSTILE) and player.distance(obj) <= 12:
            world.remove(obj)
    wanted = {n for n in (spec.target, *spec.stations) if n is not None}
    # nothing the action needs is within reach (it must walk), or in view when it is remembered
    # or never seen (it must walk back, or search)
    r = cleared_radius(spec.memory, env.radius)
    for dx in range(-r, r + 1):
        for dy in range(-r, r + 1):
            material, obj = world[at((dx, dy))]
            if (dx, dy) != (0, 0) and (material in wanted or _is_a(obj, wanted)):
                _clear(world, at((dx, dy)), "grass")
    way = way_in(spec)
    for cell in way.walk:
        mat, _ = world[at(cell)]
        _clear(world, at(cell), None if mat in WALKABLE else way.base)
    for cell in way.walls:
        _clear(world, at(cell), "stone")
    for material, cells in spec.hazards.items():
        for cell in cells:
            _clear(world, at(cell), material)
    for station, d in spec.stations.items():
        _clear(world, at(d), station)
    if spec.target and spec.target_at:
        _place_target(world, player, spec.target, at(spec.target_at))
    for name, d in spec.hostiles.items():
        _place_target(world, player, name, at(d))
    player.facing = tuple(spec.facing)
    front = at(spec.facing)
    if spec.front is not None or way.first is None:
        _clear(world, front, spec.front or "grass")
        side = at((spec.facing[1], -spec.facing[0]))  # a free cell to turn to
        _clear(world, side, "grass")
    for item, n in spec.inventory.items():
        player.inventory[item] = n
    if spec.memory == "remembered" and way.visit is not None:
        _visit(env, at(way.visit))
    return env.refresh()


def _is_a(obj: Any, names: set[str]) -> bool:
    return any(isinstance(obj, CREATURES[n]) for n in names if n in CREATURES)


def _visit(env: CrafterEnv, pos: tuple[int, int]) -> None:
    """The player saw `pos` and around it earlier this episode: it stands there for a moment
    (the env marks its view seen) and is back where it was, facing as it did."""
    world, player = env.world, env.player
    home, facing = tuple(int(v) for v in player.pos), player.facing
    _clear(world, pos)
    world.move(player, pos)
    env.refresh()
    world.move(player, home)
    player.facing = facing


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
