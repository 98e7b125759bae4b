"""Craftax-Classic behind the World protocol: Crafter's game re-implemented in JAX (the same 17
actions and 22 achievements), so Crafter's world serves with what differs swapped: the env
(craftax's own jitted step), the recipe facts (facts.py: a declared patch of crafter's
data.yaml, each recipe checked on the real game), how a validation state is staged (stage.py),
and no oracle (Crafter's reads crafter's world). docs/worlds.md says how the games differ."""

from __future__ import annotations

from rlgpt.messages import Scenario, TaskSpec
from rlgpt.worlds.base import Oracle, StepInfo, WorldEnv
from rlgpt.worlds.craftax_classic.facts import RECIPES
from rlgpt.worlds.crafter.world import CrafterWorld


class CraftaxClassicWorld(CrafterWorld):
    """Craftax-Classic (`craftax` on PyPI, the `craftax` extra), symbolic, no auto-reset."""

    name = "craftax-classic"
    title = "Craftax-Classic, a JAX re-implementation of the 2-D survival game Crafter"
    game = "Craftax-Classic"
    recipes = RECIPES

    def make_env(
        self, task: TaskSpec, *, observation: str = "symbolic", view_radius: int = 4,
        seed: int = 0, end_on_success: bool = True,
    ) -> WorldEnv:  # fmt: skip
        from rlgpt.worlds.craftax_classic.env import CraftaxClassicEnv

        return CraftaxClassicEnv(task, observation, view_radius, seed, end_on_success)  # type: ignore[arg-type]

    def stage(self, env: WorldEnv, spec: Scenario) -> StepInfo:
        from rlgpt.worlds.craftax_classic.stage import stage

        return stage(env, spec)  # type: ignore[arg-type]

    def oracle(self, task: TaskSpec) -> Oracle | None:
        return None
