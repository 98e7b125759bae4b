"""What each of full Craftax's achievements needs before it can succeed, read from the facts.

An achievement's requirement says which items the player must hold (materials for making and
placing, the pickaxe for mining, mana for a spell), which stations must be within one cell,
what it walks to or hits (a block, a mob, a ladder, a chest), on which floor that is found,
where a placed object may go, and whether the player must be tired. Validation builds its
scenarios from it, the masks read it, the planner and the offline author write from it.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field

from rlgpt.worlds.craftax import facts as F

# achievements with a rule of their own, in words (the rest follow from the recipe graph)
RULES: dict[str, str] = {
    "find_bow": "the first chest opened on the dungeon floor holds a bow",
    "open_chest": "chests stand in the rooms of the dungeon, the sewers and the vault",
    "learn_fireball": "reading a book teaches a spell not yet known, at random (fireball or "
    "iceball); the first chests opened on the sewers and the vault hold books",
    "drink_potion": "chests hold potions half the time; each colour's effect (+8 or -3 "
    "health, mana or energy) is drawn anew each episode",
    "enchant_sword": "9 mana and a ruby at the fire enchantment table (vault) or a sapphire at "
    "the ice one (sewers)",
    "damage_necromancer": "the necromancer can be hit only when no monster is left on the "
    "graveyard and its wave has passed",
    "eat_plant": "a sapling ripens about 600 steps after it is planted (overworld only)",
}
RULES["learn_iceball"] = RULES["learn_fireball"]
RULES["enchant_armour"] = RULES["enchant_sword"]
RULES["defeat_necromancer"] = RULES["damage_necromancer"]


@dataclass(frozen=True)
class Requirement:
    """The precondition and target of one achievement."""

    achievement: str
    kind: str  # collect, place, make, hunt, descend, chest, use, enchant, sleep, boss, plant
    items: dict[str, int] = field(default_factory=dict)
    stations: tuple[str, ...] = ()
    target: str | None = None  # a block, a mob or an item ('ladder_down')
    floor: str = "overworld"
    where: tuple[str, ...] = ()
    extra: dict[str, int] = field(default_factory=dict)  # given in met states beyond `items`

    def describe(self) -> str:
        """One line for prompts and reports."""
        parts = []
        if self.floor != "overworld":
            parts.append(f"on the {self.floor} floor")
        if self.items:
            parts.append("inventory " + ", ".join(f"{k}>={v}" for k, v in self.items.items()))
        if self.stations:
            parts.append("within one cell of " + " and ".join(self.stations))
        if self.target:
            parts.append(f"a reachable '{self.target}'")
        if self.kind == "descend":
            parts.append("the floor cleared (8 of its monsters killed) below the overworld")
        if self.where:
            parts.append("facing a free " + "/".join(self.where) + " cell")
        if self.kind == "sleep":
            parts.append("energy below its maximum")
        if self.achievement in RULES:
            parts.append(RULES[self.achievement])
        return "; ".join(parts) or "none"


def first_floor(where: dict[str, frozenset[str]] | dict[str, dict[str, str]], name: str) -> str:
    """The shallowest floor whose blocks (or mobs) include `name`."""
    for f in F.floors():
        found = where.get(f, {})
        if name in (found.values() if isinstance(found, dict) else found):
            return f
    return "overworld"


def _pickaxe(level: int) -> dict[str, int]:
    tool = F.tool_for(level)
    return {tool: 1} if tool else {}


@functools.cache
def requirement(ach: str) -> Requirement | None:
    """The requirement of achievement `ach`; None when `ach` is not an achievement. Its met
    states on a deep floor give the arms a fight there needs (`ARMS`), whatever it is: a
    player who reached that floor by the plan holds them, and its monsters attack anyone."""
    req = _requirement(ach)
    if req is None or req.kind in ("hunt", "boss") or req.floor == "overworld":
        return req
    weapon, kit = _armed(req.floor)
    held = {_family(k) for k in req.items}  # never a second sword where a sword is needed
    extra = {k: v for k, v in {**weapon, **kit}.items() if _family(k) not in held} | req.extra
    return dataclasses.replace(req, extra=extra)


def _family(item: str) -> str:
    """What an item is, whatever its tier: 'sword' for iron_sword, 'armour' for
    diamond_armour."""
    return item.rpartition("_")[2]


def _requirement(ach: str) -> Requirement | None:
    if ach not in F.achievements():
        return None
    kind, _, name = ach.partition("_")
    sources = {item: m for m, (item, _) in reversed(F.COLLECT.items())}
    if kind == "collect" and name in sources:
        block = sources[name]
        level = F.COLLECT[block][1]
        return Requirement(ach, "collect", _pickaxe(level), target=block,
                           floor=first_floor(F.floor_blocks(), block))  # fmt: skip
    if ach == "place_plant":
        return Requirement(ach, "plant", {"sapling": 1}, where=F.PLACE["plant"]["where"])
    if kind == "place" and name in F.PLACE:
        info = F.PLACE[name]
        return Requirement(ach, "place", dict(info["uses"]), where=info["where"])
    if kind == "make" and name in F.MAKE:
        info = F.MAKE[name]
        return Requirement(ach, "make", dict(info["uses"]), stations=info["nearby"])
    if kind == "enter":
        floor = F.floor_of(ach)
        assert floor is not None
        return Requirement(ach, "descend", target="ladder_down", floor=F.floors()[floor - 1])
    if ach in ("defeat_necromancer", "damage_necromancer"):
        items, extra = _armed("graveyard")
        return Requirement(ach, "boss", items, target="necromancer", floor="graveyard", extra=extra)
    if kind in ("eat", "defeat") and ach != "eat_plant":
        mob = F.MOB_SPELLING.get(name, name)
        home = first_floor(F.floor_mobs(), mob)
        weapon, kit = _armed(home)  # a meal below the overworld is hunted armed, not for it
        items, extra = (weapon, kit) if kind == "defeat" else ({}, weapon | kit)
        return Requirement(ach, "hunt", items, target=mob, floor=home, extra=extra)
    return _special(ach)


# the weapon a fight on a deep floor needs (held: a precondition), and what its met states
# give beyond it (MOB_TYPE_DAMAGE_MAPPING, MOB_TYPE_HEALTH_MAPPING): the sewers' lizards hit
# for 5; the troll mines' trolls for 6 with 20 health; the realms' monsters add fire or ice
# damage, which only armour enchanted for it (stage.py: fire, or ice on the ice realm) holds off
ARMS: dict[int, tuple[dict[str, int], dict[str, int]]] = {
    1: ({}, {"iron_sword": 1, "iron_armour": 4}),  # the plan's gear (given, not required)
    3: ({"iron_sword": 1}, {"iron_armour": 4}),
    4: ({"iron_sword": 1}, {"diamond_armour": 4, "strength": 5, "health": 13}),  # knights
    5: ({"diamond_sword": 1}, {"diamond_armour": 4, "strength": 5, "health": 13}),
    6: (
        {"diamond_sword": 1},
        {"diamond_armour": 4, "strength": 5, "health": 13, "enchanted_armour": 4},
    ),
}


def _armed(floor: str) -> tuple[dict[str, int], dict[str, int]]:
    depth = F.floors().index(floor)
    level = max((d for d in ARMS if d <= depth), default=None)
    return ({}, {}) if level is None else (dict(ARMS[level][0]), dict(ARMS[level][1]))


def _special(ach: str) -> Requirement:
    if ach == "eat_plant":
        return Requirement(ach, "hunt", target="ripe_plant")
    if ach == "wake_up":
        return Requirement(ach, "sleep")
    if ach in ("open_chest", "find_bow"):
        return Requirement(ach, "chest", target="chest", floor="dungeon")
    if ach in ("learn_fireball", "learn_iceball"):
        return Requirement(ach, "use", {"book": 1}, extra={"book": 2})
    if ach == "drink_potion":
        return Requirement(ach, "use", {"potion_red": 1})
    if ach in ("enchant_sword", "enchant_armour"):
        thing = "wood_sword" if ach == "enchant_sword" else "iron_armour"
        return Requirement(ach, "enchant", {thing: 1, "ruby": 1, "mana": 9},
                           target="enchantment_table_fire", floor="vault")  # fmt: skip
    return Requirement(ach, "use", dict(F.USE.get(ach, {})))


def item_sources() -> dict[str, str]:
    return F.item_sources()
