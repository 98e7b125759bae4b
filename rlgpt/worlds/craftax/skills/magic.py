"""Chests, books, spells, enchanting and attributes for coded actions.

Chests stand in the rooms of the dungeon, the sewers and the vault; the first one opened on
the dungeon floor holds a bow, the first on the sewers and on the vault a book. Reading a book
teaches one spell not yet known, at random (fireball or iceball). A spell costs 2 mana and
flies along the player's facing. Enchanting takes 9 mana, facing an enchantment table (the
fire one stands in the vault and takes a ruby, the ice one in the sewers and takes a
sapphire). Experience (one point for each floor entered the first time) raises an attribute.
"""

from __future__ import annotations

from .combat import shoot
from .navigate import Action, go_to, guard, hostiles
from .view import ObsView

TABLES = {"fire": ("enchantment_table_fire", "ruby"), "ice": ("enchantment_table_ice", "sapphire")}


def loot_chest(view: ObsView, dig: tuple[str, ...] = ()) -> Action:
    """Walk to the nearest chest seen on this floor and open it (its loot goes to the
    inventory). Returns True when one was opened. A generator:
    `opened = yield from loot_chest(view, diggable(view))`."""
    start = view.achievements["open_chest"]
    for _ in range(4):
        if view.achievements["open_chest"] > start:
            return True
        if not (yield from go_to(view, "chest", dig)):
            return False
        if not (yield from guard(view)):
            yield "do"
    return view.achievements["open_chest"] > start


def read_book(view: ObsView) -> Action:
    """Read a book held: learns a spell not yet known. Returns True if it read one."""
    if view.inventory["book"] < 1:
        return False
    yield "read_book"
    return True


def cast(view: ObsView, spell: str = "fireball", reach: int = 6) -> Action:
    """Cast `spell` ("fireball" or "iceball", learned, mana >= 2) at the nearest monster in
    line (on the player's row or column, nothing in between), else along the facing.
    Returns True if it cast. A generator: `yield from cast(view, "fireball")`."""
    inv = view.inventory
    if not inv[spell] or inv["mana"] < 2:
        return False
    before = view.achievements[f"cast_{spell}"]
    for dx, dy, _ in hostiles(view):
        in_line = (dx == 0) != (dy == 0) and abs(dx) + abs(dy) <= reach
        if in_line and (yield from shoot(view, (dx, dy), reach)):
            return view.achievements[f"cast_{spell}"] > before
    yield f"cast_{spell}"
    return view.achievements[f"cast_{spell}"] > before


def enchant(
    view: ObsView, what: str = "sword", element: str | None = None, dig: tuple[str, ...] = ()
) -> Action:
    """Enchant the sword, armour or bow (`what`) at an enchantment table of `element`
    ("fire": a ruby; "ice": a sapphire; None: whichever a gem is held for and a table seen):
    walk to it, face it and enchant (9 mana). Returns True when it did. A generator:
    `done = yield from enchant(view, "sword", dig=diggable(view))`."""
    inv = view.inventory
    options = [e for e in (element,) if e] or [e for e, (_, gem) in TABLES.items() if inv[gem]]
    for e in options:
        table, gem = TABLES[e]
        if inv[gem] < 1 or inv["mana"] < 9:
            continue
        if not (view.cells(table) or view.remembered(table)):
            continue
        if not (yield from go_to(view, table, dig)):
            continue
        before = inv[gem]
        yield f"enchant_{what}"
        return view.inventory[gem] < before
    return False


def level_up(view: ObsView, attribute: str = "strength") -> Action:
    """Spend a point of experience (one per floor entered the first time) on `attribute`:
    "strength" (health and melee damage), "dexterity" (food, drink, energy; arrows) or
    "intelligence" (mana; spells). Returns True if it did."""
    if view.inventory["xp"] < 1 or view.inventory[attribute] >= 5:
        return False
    yield f"level_up_{attribute}"
    return True
