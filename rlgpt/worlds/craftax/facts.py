"""Full Craftax's facts, in rlgpt's words: actions, achievements, floors, mobs, blocks, items
and the recipe graph.

What craftax declares as data is read from its package (`craftax.craftax.constants`,
`world_gen_configs`): the action and achievement names and order, each achievement's reward,
the floors and the achievement of entering each, which mobs live on which floor, which ores each
generated floor holds. What craftax only has as code (`game_logic.py`: `do_crafting`,
`place_block`, `do_action`) is declared here once, with the function it comes from;
tests/unit/test_craftax_facts.py plays every recipe on the real game (exactly the requirement
gives the effect, one item short or a station missing gives nothing), so the two cannot drift.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from craftax.craftax import constants as C
from craftax.craftax.world_gen import world_gen_configs as W

# craftax names that are not rlgpt's name lower-cased: the moves as crafter calls them, the
# crafting table as every recipe calls it
RENAMES = {"LEFT": "move_left", "RIGHT": "move_right", "UP": "move_up", "DOWN": "move_down",
           "CRAFTING_TABLE": "table"}  # fmt: skip
VITALS = frozenset({"health", "food", "drink", "energy", "mana"})
PICKAXES = ("wood_pickaxe", "stone_pickaxe", "iron_pickaxe", "diamond_pickaxe")  # level 1..4
SWORDS = ("wood_sword", "stone_sword", "iron_sword", "diamond_sword")
POTIONS = ("red", "green", "blue", "pink", "cyan", "yellow")  # craftax's potion order
MOB_CLASSES = ("passive", "melee", "ranged")  # MOB_ACHIEVEMENT_MAP's rows, MobType's order
# the mob an achievement names, where the achievement's spelling is not the mob's
MOB_SPELLING = {"orc_solider": "orc_soldier"}
# ProjectileType's order (ARROW2, FIREBALL2 and ICEBALL2 are kin of the first ones)
PROJECTILES = ("arrow", "dagger", "fireball", "iceball", "arrow", "slimeball", "fireball",
               "iceball")  # fmt: skip
ITEM_BLOCKS = ("none", "torch", "ladder_down", "ladder_up", "ladder_down_blocked")  # ItemType
KILLS_TO_OPEN = int(C.MONSTERS_KILLED_TO_CLEAR_LEVEL)  # change_floor: the ladder down opens


def _name(craftax_name: str) -> str:
    return RENAMES.get(craftax_name, craftax_name.lower())


@functools.cache
def actions() -> list[str]:
    """The 43 primitive action names, in craftax's index order."""
    return [_name(a.name) for a in sorted(C.Action, key=lambda a: a.value)]


@functools.cache
def achievements() -> list[str]:
    """The 67 achievements, in craftax's index order."""
    return [a.name.lower() for a in sorted(C.Achievement, key=lambda a: a.value)]


@functools.cache
def reward() -> dict[str, int]:
    """Each achievement's reward in craftax (1 basic, 3 intermediate, 5 advanced, 8 very
    advanced: `ACHIEVEMENT_REWARD_MAP`); the Craftax score's weights."""
    values = np.asarray(C.ACHIEVEMENT_REWARD_MAP)
    return {a: int(values[i]) for i, a in enumerate(achievements())}


@functools.cache
def blocks() -> tuple[str, ...]:
    """The name of each craftax BlockType value."""
    return tuple(_name(b.name) for b in sorted(C.BlockType, key=lambda b: b.value))


def block_id(name: str) -> int:
    return blocks().index(name)


@functools.cache
def floors() -> tuple[str, ...]:
    """The 9 floors, top (the overworld) first: floor i is the one `enter_<name>` reaches
    (LEVEL_ACHIEVEMENT_MAP)."""
    names = ["overworld"]
    for value in np.asarray(C.LEVEL_ACHIEVEMENT_MAP)[1:]:
        names.append(achievements()[int(value)].removeprefix("enter_"))
    return tuple(names)


def floor_of(achievement: str) -> int | None:
    """The floor an `enter_*` achievement reaches, else None."""
    name = achievement.removeprefix("enter_")
    return floors().index(name) if achievement.startswith("enter_") else None


@functools.cache
def mob_names() -> dict[str, tuple[str, ...]]:
    """class -> its mob names by type id, read from the achievement each kill gives
    (MOB_ACHIEVEMENT_MAP: eat_cow -> cow, defeat_gnome_archer -> gnome_archer)."""
    table = np.asarray(C.MOB_ACHIEVEMENT_MAP)
    out: dict[str, tuple[str, ...]] = {}
    for row, cls in enumerate(MOB_CLASSES):  # 0 pads a row (it is collect_wood, no kill)
        names = [achievements()[int(v)].partition("_")[2] for v in table[row] if int(v)]
        out[cls] = tuple(MOB_SPELLING.get(n, n) for n in names)
    return out


def mob_achievement(mob: str) -> str:
    """The achievement a kill of `mob` gives (eat_cow, defeat_orc_solider, ...)."""
    spelled = {v: k for k, v in MOB_SPELLING.items()}.get(mob, mob)
    kind = "eat" if mob in mob_names()["passive"] else "defeat"
    return f"{kind}_{spelled}"


@functools.cache
def floor_mobs() -> dict[str, dict[str, str]]:
    """floor -> class -> the mob that spawns there (FLOOR_MOB_MAPPING); the overworld's are
    cow, zombie, skeleton; the graveyard's spawn in the necromancer's waves."""
    table = np.asarray(C.FLOOR_MOB_MAPPING)
    return {
        f: {cls: mob_names()[cls][int(table[i][j])] for j, cls in enumerate(MOB_CLASSES)}
        for i, f in enumerate(floors())
    }


@functools.cache
def floor_blocks() -> dict[str, frozenset[str]]:
    """floor -> the materials world generation can put there: from the generator configs
    (ground, water, mountains, trees, ores with a chance above 0, lava) and, for the three
    dungeons, their rooms (chest, fountain or water, the special block)."""
    smooth = ("overworld", "gnomish_mines", "troll_mines", "fire_realm", "ice_realm", "graveyard")
    configs = W.ALL_SMOOTHGEN_CONFIGS
    out: dict[str, frozenset[str]] = {}
    for i, f in enumerate(smooth):
        names = {blocks()[int(np.asarray(getattr(configs, k))[i])] for k in (
            "default_block", "sea_block", "coast_block", "mountain_block", "path_block",
            "inner_mountain_block", "tree", "lava", "player_spawn")}  # fmt: skip
        ores, chances = np.asarray(configs.ores)[i], np.asarray(configs.ore_chances)[i]
        names |= {blocks()[int(o)] for o, p in zip(ores, chances, strict=True) if p > 0}
        out[f] = frozenset(names - {"out_of_bounds"})
    dungeons = W.ALL_DUNGEON_CONFIGS
    for i, f in enumerate(("dungeon", "sewers", "vault")):
        names = {"path", "wall", "wall_moss", "darkness", "chest"}
        names |= {
            blocks()[int(np.asarray(getattr(dungeons, k))[i])]
            for k in ("special_block", "fountain_block", "rare_path_replacement_block")
        }
        out[f] = frozenset(names)
    return out


# -- the recipe graph (game_logic.py; every entry is played on the real game in a test) -----
# collect: material -> (item, pickaxe level it needs) (do_action; trees of the realms give wood,
# stalagmites stone; water and fountains drink; grass a sapling one time in ten)
COLLECT: dict[str, tuple[str, int]] = {
    "tree": ("wood", 0), "fire_tree": ("wood", 0), "ice_shrub": ("wood", 0),
    "stone": ("stone", 1), "stalagmite": ("stone", 1), "coal": ("coal", 1), "iron": ("iron", 2),
    "diamond": ("diamond", 3), "sapphire": ("sapphire", 4), "ruby": ("ruby", 4),
    "water": ("drink", 0), "fountain": ("drink", 0), "grass": ("sapling", 0),
}  # fmt: skip
# make: item -> what it uses, the stations within one cell (diagonals count), how many it gives
# (do_crafting; a tool is made only when a better one is not held; 4 armour slots)
MAKE: dict[str, dict[str, Any]] = {
    "wood_pickaxe": {"uses": {"wood": 1}, "nearby": ("table",)},
    "stone_pickaxe": {"uses": {"wood": 1, "stone": 1}, "nearby": ("table",)},
    "iron_pickaxe": {"uses": {"wood": 1, "stone": 1, "iron": 1, "coal": 1},
                     "nearby": ("table", "furnace")},
    "diamond_pickaxe": {"uses": {"wood": 1, "diamond": 3}, "nearby": ("table",)},
    "wood_sword": {"uses": {"wood": 1}, "nearby": ("table",)},
    "stone_sword": {"uses": {"wood": 1, "stone": 1}, "nearby": ("table",)},
    "iron_sword": {"uses": {"wood": 1, "stone": 1, "iron": 1, "coal": 1},
                   "nearby": ("table", "furnace")},
    "diamond_sword": {"uses": {"wood": 1, "diamond": 2}, "nearby": ("table",)},
    "iron_armour": {"uses": {"iron": 3, "coal": 3}, "nearby": ("table", "furnace")},
    "diamond_armour": {"uses": {"diamond": 3}, "nearby": ("table",)},
    "arrow": {"uses": {"wood": 1, "stone": 1}, "nearby": ("table",), "gives": 2},
    "torch": {"uses": {"wood": 1, "coal": 1}, "nearby": ("table",), "gives": 4},
}  # fmt: skip
# place: object -> what it uses, the cells it goes on (place_block: a table, furnace or stone on
# any cell that is not solid and holds no torch or ladder, a stone on water too; a torch on
# ground; a sapling on grass)
GROUND = ("grass", "sand", "path", "fire_grass", "ice_grass")
NOT_SOLID = (*GROUND, "water", "lava", "gravel", "darkness")
PLACE: dict[str, dict[str, Any]] = {
    "table": {"uses": {"wood": 2}, "where": NOT_SOLID},
    "furnace": {"uses": {"stone": 1}, "where": NOT_SOLID},
    "stone": {"uses": {"stone": 1}, "where": NOT_SOLID},
    "torch": {"uses": {"torch": 1}, "where": GROUND},
    "plant": {"uses": {"sapling": 1}, "where": ("grass",)},
}
STATIONS = ("table", "furnace")
# one-use actions: what each needs held (the rest of its precondition is in words, RULES)
USE: dict[str, dict[str, int]] = {
    "fire_bow": {"bow": 1, "arrow": 1},
    "learn_fireball": {"book": 1},
    "learn_iceball": {"book": 1},
    "cast_fireball": {"fireball": 1, "mana": 2},
    "cast_iceball": {"iceball": 1, "mana": 2},
    "enchant_sword": {"wood_sword": 1, "mana": 9},
    "enchant_armour": {"iron_armour": 1, "mana": 9},
}


@functools.cache
def items() -> tuple[str, ...]:
    """The inventory names of the env's info (vitals included): materials, tools (held when
    the tool's level is reached: an iron pickaxe counts as a stone one too), armour pieces,
    potions by colour, learned spells, attributes."""
    return (
        "health", "food", "drink", "energy", "mana",
        "wood", "stone", "coal", "iron", "diamond", "sapphire", "ruby", "sapling",
        "torch", "arrow", "book", "bow", *PICKAXES, *SWORDS, "iron_armour", "diamond_armour",
        *(f"potion_{c}" for c in POTIONS), "fireball", "iceball",
        "xp", "dexterity", "strength", "intelligence",
        "enchanted_sword", "enchanted_bow", "enchanted_armour",
    )  # fmt: skip


def item_sources() -> dict[str, str]:
    """Item -> the map block it comes from (the first one listed), for a model's hints."""
    out: dict[str, str] = {}
    for material, (item, _) in COLLECT.items():
        out.setdefault(item, material)
    return out


def tool_for(level: int) -> str | None:
    return PICKAXES[level - 1] if level else None
