"""Worlds: the games the method runs on, behind one protocol (rlgpt/worlds/base.py).

The registry names each world's class by path and imports it only when asked, so this package
imports nothing outside the standard library: the sandbox imports a world's skill package
through it (rlgpt/sandbox/boundary.py binds this file into the sandbox root).

Each world's env is also a gymnasium id (`ENV_IDS`: `gymnasium.make("rlgpt/Craftax-v0",
task="collect_wood")`). `import rlgpt` registers them without importing gymnasium: when
gymnasium is imported already, now; otherwise the moment it is (`register_on_import`). The
entry points are strings, so registering imports no game (crafter, JAX, craftax).
"""

from __future__ import annotations

import functools
import importlib
import sys

TYPE_CHECKING = False  # not typing's: `import rlgpt` imports this module, and typing costs more
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType
    from typing import Any

    from rlgpt.messages import TaskSpec
    from rlgpt.worlds.base import World, WorldEnv

DEFAULT_WORLD = "crafter"
# name -> "module:class"; `extra` says how to install what a world needs beyond the base package
WORLDS: dict[str, tuple[str, str | None]] = {
    "crafter": ("rlgpt.worlds.crafter.world:CrafterWorld", None),
    "craftax-classic": ("rlgpt.worlds.craftax_classic.world:CraftaxClassicWorld", "craftax"),
    "craftax": ("rlgpt.worlds.craftax.world:CraftaxWorld", "craftax"),
}

# name -> (gymnasium id, the task `gymnasium.make(id)` makes without `task=`)
ENV_IDS: dict[str, tuple[str, str]] = {
    "crafter": ("rlgpt/Crafter-v0", "make_wood_pickaxe"),
    "craftax-classic": ("rlgpt/CraftaxClassic-v0", "make_wood_pickaxe"),
    "craftax": ("rlgpt/Craftax-v0", "make_wood_pickaxe"),
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


def make_env(
    world: str, task: str, observation: str = "symbolic", view_radius: int = 4, seed: int = 0,
    end_on_success: bool = True,
) -> WorldEnv:  # fmt: skip
    """The entry point of every world's gymnasium id: the trusted env of task `task` of `world`,
    without coded actions."""
    game = get_world(world)
    return game.make_env(game.task(task), observation=observation, view_radius=view_radius,
                         seed=seed, end_on_success=end_on_success)  # fmt: skip


def register_envs() -> None:
    """Register every world's env as its gymnasium id (`ENV_IDS`); imports gymnasium."""
    import gymnasium

    for name, (env_id, task) in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id, entry_point=f"{__name__}:make_env", kwargs={"world": name, "task": task}
            )


class _RegisterOnImport:
    """A finder on `sys.meta_path` (importlib.abc.MetaPathFinder's protocol; that module costs
    more to import than rlgpt) that registers the ids right after gymnasium's own import, then
    steps aside."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> Any:
        if fullname != "gymnasium":
            return None
        import importlib.util

        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        loader: Any = spec.loader if spec is not None else None
        if loader is None:
            return spec
        inner = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            del loader.exec_module  # the loader's own again
            inner(module)
            register_envs()

        loader.exec_module = exec_module
        return spec


def register_on_import() -> None:
    """Register the ids now when gymnasium is imported already, or else when it is (so that
    `import rlgpt` stays as cheap as the standard library's imports)."""
    if "gymnasium" in sys.modules:
        register_envs()
    elif not any(isinstance(f, _RegisterOnImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterOnImport())
