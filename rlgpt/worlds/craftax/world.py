"""Full Craftax behind the World protocol (rlgpt/worlds/base.py): each member hands the generic
parts one piece of this package (docs/worlds-craftax.md)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import yaml

from rlgpt.messages import Scenario, TaskSpec
from rlgpt.sandbox.package import SkillPackage
from rlgpt.worlds import doc
from rlgpt.worlds.base import (
    LintFacts,
    MaskRule,
    Oracle,
    PromptValues,
    StepInfo,
    WorldAuthor,
    WorldEnv,
)
from rlgpt.worlds.craftax import facts as F
from rlgpt.worlds.craftax import vocab
from rlgpt.worlds.craftax.skills import api
from rlgpt.worlds.craftax.skills.view import KEPT_WHEN_LEFT_OUT

SKILL_PACKAGE = "rlgpt.worlds.craftax.skills"


@functools.cache
def facts_text() -> str:
    """The tech tree and the floors, as YAML for prompts."""
    floors = {
        f: {"blocks": sorted(F.floor_blocks()[f]), "mobs": F.floor_mobs()[f]} for f in F.floors()
    }
    data = {
        "collect": {m: {"gives": i, "pickaxe_level": lvl} for m, (i, lvl) in F.COLLECT.items()},
        "make": {
            k: {"uses": v["uses"], "nearby": list(v["nearby"]), "gives": v.get("gives", 1)}
            for k, v in F.MAKE.items()
        },
        "place": {k: {"uses": v["uses"], "where": list(v["where"])} for k, v in F.PLACE.items()},
        "use": F.USE,
        "floors": floors,
        "achievement_reward": F.reward(),
    }
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=100)


@functools.cache
def api_reference() -> str:
    """The skill API's reference for the coder prompts, generated from skills/api.py."""
    names = [n for n in vocab.semantic_names() if n not in ("none", "invalid", "out_of_bounds")]
    return doc.api_reference(api, names)


@functools.cache
def view_facts() -> dict[str, Any]:
    """What the worker builds each coded action's view with (ObsView's keyword arguments)."""
    return {
        "blocks": list(vocab.block_names()), "items": list(F.ITEM_BLOCKS),
        "mobs": list(vocab.mob_names()), "kinds": vocab.mob_kinds(), "inventory": list(F.items()),
        "achievements": F.achievements(), "floors": list(F.floors()),
        "item_sources": F.item_sources(), "kills_to_open": F.KILLS_TO_OPEN,
    }  # fmt: skip


@functools.cache
def lint_facts() -> LintFacts:
    view = tuple(n for n in dir(api.ObsView) if not n.startswith("_") and n != "update")
    names = tuple(n for n in vocab.semantic_names() if n not in ("invalid", "out_of_bounds"))
    return LintFacts(
        primitives=tuple(F.actions()), map_names=names, items=F.items(),
        achievements=tuple(F.achievements()), item_sources=F.item_sources(), view_members=view,
        generator_skills=doc.generator_skills(api),
        name_args={"approach": 1, "go_to": 1, "stand_on": 1},
    )  # fmt: skip


class CraftaxWorld:
    """Full Craftax (`craftax` on PyPI, the `craftax` extra): 9 floors, 43 actions, 67
    achievements; symbolic, no auto-reset."""

    name = "craftax"
    title = (
        "Craftax, a 2-D survival game of 9 floors (the overworld, then dungeons and realms below)"
    )
    game = "Craftax"
    vitals = F.VITALS

    def tasks(self) -> dict[str, TaskSpec]:
        from rlgpt.worlds.craftax.tasks import registry

        return registry(self.name)

    def task(self, name: str) -> TaskSpec:
        from rlgpt.worlds.grid.tasks import find_task

        return find_task(self.tasks(), name)

    def plan(self, task: TaskSpec) -> list[tuple[str, int]]:
        from rlgpt.worlds.craftax.planner import plan_steps

        return plan_steps(task.achievement)

    def primitives(self) -> list[str]:
        return F.actions()

    def achievement_rewards(self) -> dict[str, int]:
        return F.reward()  # 1, 3, 5 or 8 by tier

    def prompt_values(self) -> PromptValues:
        return {"recipes": facts_text(), "primitives": F.actions(), "skill_api": api_reference()}

    def make_env(
        self, task: TaskSpec, *, observation: str = "symbolic", view_radius: int = 4,
        seed: int = 0, end_on_success: bool = True,
    ) -> WorldEnv:  # fmt: skip
        from rlgpt.worlds.craftax.env import CraftaxEnv

        return CraftaxEnv(task, observation, view_radius, seed, end_on_success)  # type: ignore[arg-type]

    def action_mask(
        self, task: TaskSpec, names: list[str], primitives: list[str], ordered: bool,
        *, learned: bool = False,
    ) -> MaskRule:  # fmt: skip
        """`learned` changes nothing yet: full Craftax's primitives stay free in a learned
        action's space too (docs/design.md, learned actions)."""
        from rlgpt.worlds.craftax.masking import CraftaxMask

        return CraftaxMask(task.achievement, names, primitives, ordered)

    def skills(self) -> SkillPackage:
        return SkillPackage(
            SKILL_PACKAGE, tuple(F.actions()), view_facts(), sent_when_changed=KEPT_WHEN_LEFT_OUT
        )

    def lint_facts(self) -> LintFacts:
        return lint_facts()

    def requirement_text(self, name: str) -> str | None:
        from rlgpt.worlds.craftax.rules import requirement

        req = requirement(name)
        return None if req is None else req.describe()

    def recalls(self, name: str) -> tuple[str, ...]:
        return ()  # not yet: a learned Craftax action sees its view and inventory only

    def scenarios(
        self, name: str, *, count: int, seed_base: int, budget: int, radius: int,
        unmet_steps: int, unknown_steps: int, episode: bool = True,
    ) -> list[Scenario]:  # fmt: skip
        from rlgpt.worlds.craftax.scenarios import plan_scenarios

        return plan_scenarios(
            name, count=count, seed_base=seed_base, budget=budget, radius=radius,
            unmet_steps=unmet_steps, unknown_steps=unknown_steps, episode=episode,
        )  # fmt: skip

    def validation_env(self, name: str, radius: int) -> WorldEnv:
        goal = name if name in F.achievements() else "enter_dungeon"
        spec = TaskSpec(name=f"validate:{goal}", achievement=goal, description="validation",
                        max_episode_steps=10_000, world=self.name)  # fmt: skip
        env = self.make_env(spec, view_radius=radius, end_on_success=False)
        env.cache_resets = True  # type: ignore[attr-defined]  # the same seeds, state after state
        from rlgpt.worlds.craftax import game

        game.warm(env.view_radius)  # type: ignore[attr-defined]  # compiled before it is timed
        return env

    def stage(self, env: WorldEnv, spec: Scenario) -> StepInfo:
        from rlgpt.worlds.craftax.stage import stage

        return stage(env, spec)  # type: ignore[arg-type]

    def render_map(self, window: np.ndarray, facing: tuple[int, int]) -> str:
        from rlgpt.worlds.craftax.render import local_map

        return local_map(window, facing)

    def author(self) -> WorldAuthor:
        from rlgpt.worlds.craftax.author import CraftaxAuthor

        return CraftaxAuthor()

    def oracle(self, task: TaskSpec) -> Oracle | None:
        return None
