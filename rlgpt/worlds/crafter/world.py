"""Crafter behind the World protocol (rlgpt/worlds/base.py): each member hands the generic parts
one piece of this package. A world on the same game (Craftax-Classic) subclasses it and swaps
what differs: its recipes, its env, how a validation state is staged."""

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
from rlgpt.worlds.crafter import recipes as facts
from rlgpt.worlds.crafter.preconditions import item_sources, requirement
from rlgpt.worlds.crafter.recipes import CRAFTER, Recipes
from rlgpt.worlds.crafter.skills import api
from rlgpt.worlds.crafter.skills.view import KEPT_WHEN_LEFT_OUT

SKILL_PACKAGE = "rlgpt.worlds.crafter.skills"


@functools.cache
def recipes_text(recipes: Recipes = CRAFTER) -> str:
    """The recipe facts, as YAML for prompts."""
    data = recipes.data
    return yaml.safe_dump({k: data[k] for k in ("collect", "place", "make")}, sort_keys=False)


@functools.cache
def api_reference() -> str:
    """The skill API's reference for the coder prompts, generated from skills/api.py."""
    return doc.api_reference(api, facts.semantic_names()[1:])


@functools.cache
def view_facts(recipes: Recipes = CRAFTER) -> dict[str, Any]:
    """What the worker builds each coded action's view with (ObsView's keyword arguments)."""
    return {
        "names": list(facts.semantic_names()),
        "items": list(recipes.data["items"]),
        "achievements": facts.achievements(),
        "item_sources": item_sources(recipes),
        "rules": dict(recipes.rules),
    }


@functools.cache
def lint_facts(recipes: Recipes = CRAFTER) -> LintFacts:
    view = tuple(n for n in dir(api.ObsView) if not n.startswith("_") and n != "update")
    return LintFacts(
        primitives=tuple(facts.actions()), map_names=facts.semantic_names(),
        items=tuple(recipes.data["items"]), achievements=tuple(facts.achievements()),
        item_sources=item_sources(recipes), view_members=view,
        generator_skills=doc.generator_skills(api), name_args={"approach": 1},
    )  # fmt: skip


class CrafterWorld:
    """Crafter (`crafter` on PyPI, 22 achievements): the embedded default world."""

    name = "crafter"
    title = "the 2-D survival game Crafter"
    game = "Crafter"
    vitals = facts.VITALS
    recipes = CRAFTER

    def tasks(self) -> dict[str, TaskSpec]:
        from rlgpt.worlds.crafter.tasks import registry

        return registry(self.name, self.game, self.recipes)

    def task(self, name: str) -> TaskSpec:
        from rlgpt.worlds.grid.tasks import find_task

        return find_task(self.tasks(), name)

    def plan(self, task: TaskSpec) -> list[tuple[str, int]]:
        from rlgpt.worlds.crafter.planner import climb_steps

        return climb_steps(task.achievement, self.recipes)

    def primitives(self) -> list[str]:
        return facts.actions()

    def achievement_rewards(self) -> dict[str, int]:
        return {a: 1 for a in facts.achievements()}  # +1 for each first unlock

    def prompt_values(self) -> PromptValues:
        return {
            "recipes": recipes_text(self.recipes),
            "primitives": facts.actions(),
            "skill_api": api_reference(),
        }

    def make_env(
        self, task: TaskSpec, *, observation: str = "symbolic", view_radius: int = 4,
        seed: int = 0, end_on_success: bool = True,
    ) -> WorldEnv:  # fmt: skip
        from rlgpt.worlds.crafter.env import CrafterEnv

        return CrafterEnv(task, observation, view_radius, seed, end_on_success)  # type: ignore[arg-type]

    def action_mask(
        self, task: TaskSpec, names: list[str], primitives: list[str], ordered: bool,
        *, learned: bool = False,
    ) -> MaskRule:  # fmt: skip
        from rlgpt.worlds.crafter.masking import ActionMask

        return ActionMask(task.achievement, names, primitives, ordered, self.recipes,
                          learned=learned)  # fmt: skip

    def skills(self) -> SkillPackage:
        return SkillPackage(
            SKILL_PACKAGE,
            tuple(facts.actions()),
            view_facts(self.recipes),
            sent_when_changed=KEPT_WHEN_LEFT_OUT,
        )

    def lint_facts(self) -> LintFacts:
        return lint_facts(self.recipes)

    def requirement_text(self, name: str) -> str | None:
        req = requirement(name, self.recipes)
        return None if req is None else req.describe()

    def recalls(self, name: str) -> tuple[str, ...]:
        req = requirement(name, self.recipes)
        if req is None:
            return ()
        target = () if req.target is None or req.creature else (req.target,)
        return (*target, *req.stations)

    def scenarios(
        self, name: str, *, count: int, seed_base: int, budget: int, radius: int,
        unmet_steps: int, unknown_steps: int, episode: bool = True,
    ) -> list[Scenario]:  # fmt: skip
        from rlgpt.worlds.crafter.scenarios import plan_scenarios

        return plan_scenarios(
            name, count=count, seed_base=seed_base, budget=budget, radius=radius,
            unmet_steps=unmet_steps, unknown_steps=unknown_steps, recipes=self.recipes,
            episode=episode,
        )  # fmt: skip

    def validation_env(self, name: str, radius: int) -> WorldEnv:
        goal = name if name in facts.achievements() else "collect_diamond"
        spec = TaskSpec(name=f"validate:{goal}", achievement=goal, description="validation",
                        max_episode_steps=10_000, world=self.name)  # fmt: skip
        return self.make_env(spec, view_radius=radius, end_on_success=False)

    def stage(self, env: WorldEnv, spec: Scenario) -> StepInfo:
        from rlgpt.worlds.crafter.scenarios import stage

        return stage(env, spec)  # type: ignore[arg-type]

    def render_map(self, window: np.ndarray, facing: tuple[int, int]) -> str:
        from rlgpt.worlds.crafter.render import local_map

        return local_map(window, facing)

    def author(self) -> WorldAuthor:
        from rlgpt.worlds.crafter.author import CrafterAuthor

        return CrafterAuthor(self.recipes)

    def oracle(self, task: TaskSpec) -> Oracle | None:
        from rlgpt.worlds.crafter.oracle import Oracle as CrafterOracle

        return CrafterOracle(self.make_env(task))  # type: ignore[arg-type]
