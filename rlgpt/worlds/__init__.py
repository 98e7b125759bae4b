"""Worlds: the games the method runs on, behind one protocol (rlgpt/worlds/base.py).

The registry names each world's class by path and imports it only when asked, so this package
imports nothing outside the standard library: the sandbox imports a world's skill package
through it (rlgpt/sandbox/boundary.py binds this file into the sandbox root).
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rlgpt.messages import TaskSpec
    from rlgpt.worlds.base import World

DEFAULT_WORLD = "crafter"
# name -> "module:class"; `extra` says how to install what a world needs beyond the base package
WORLDS: dict[str, tuple[str, str | None]] = {
    "crafter": ("rlgpt.worlds.crafter.world:CrafterWorld", None),
    "craftax-classic": ("rlgpt.worlds.craftax_classic.world:CraftaxClassicWorld", "craftax"),
    "craftax": ("rlgpt.worlds.craftax.world:CraftaxWorld", "craftax"),
}


def world_names() -> list[str]:
    return list(WORLDS)


@functools.cache
def get_world(name: str = DEFAULT_WORLD) -> World:
    """The world called `name`; an unknown name, or a world whose packages are not installed,
    is a UserError that says what to do."""
    from rlgpt.errors import UserError

    if name not in WORLDS:
        raise UserError(f"unknown world '{name}'; choose one of: {', '.join(WORLDS)}")
    path, extra = WORLDS[name]
    module, _, cls = path.partition(":")
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if extra is None or (exc.name or "").startswith("rlgpt"):
            raise
        raise UserError(
            f"world '{name}' needs the '{extra}' extra ({exc.name} is missing): "
            f"pip install -e '.[{extra}]'"
        ) from None
    world: World = getattr(loaded, cls)()
    return world


def find_task(world: str, name: str) -> TaskSpec:
    """Task `name` of world `world` (a UserError naming what to do when either is unknown)."""
    return get_world(world).task(name)
