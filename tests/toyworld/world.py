"""Orchard behind the World protocol: each member as small as the protocol lets it be."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from rlgpt.errors import UserError
from rlgpt.messages import CodedAction, Decomposition, Scenario, SubAction, TaskSpec
from rlgpt.worlds import doc
from rlgpt.worlds.base import LintFacts, MaskRule, Oracle, SkillPackage, WorldAuthor, WorldEnv
from tests.toyworld import env as game
from tests.toyworld.skills import api

NEEDS = {"collect_berry": "a reachable 'bush'", "bake_pie": "inventory berry>=2; near an oven"}
PLANS = {
    "collect_berry": [("collect_berry", 1)],
    "bake_pie": [("collect_berry", 2), ("bake_pie", 1)],
}
LIBRARY = {  # the offline author's reference actions
    "collect_berry": 'def collect_berry(view):\n    if (yield from face(view, "bush")):\n'
    '        yield "pick"\n',
    "bake_pie": 'def bake_pie(view):\n    if (yield from face(view, "oven")):\n'
    '        yield "bake_pie"\n',
}


class OrchardAuthor:
    def library_hash(self) -> str:
        return hashlib.sha256(repr(sorted(LIBRARY.items())).encode()).hexdigest()

    def decompose(
        self, task: TaskSpec, modes: dict[str, str], notes: dict[str, str]
    ) -> Decomposition:
        subs = [
            SubAction(
                name=a,
                description=a,
                mode=modes.get(a, "code"),  # type: ignore[arg-type]
                count=n,
                precondition=NEEDS[a],
                expected_effect=f"{a} +{n}",
            )
            for a, n in PLANS[task.achievement]
        ]
        return Decomposition(task=task.name, sub_actions=subs, reasoning="the recipe")

    def write_action(self, name: str, step_budget: int, revised: bool = False) -> CodedAction:
        return CodedAction(
            name=name, docstring=NEEDS[name], source=LIBRARY[name], step_budget=step_budget
        )


def mask_rule(names: list[str], primitives: list[str]) -> MaskRule:
    """Coded bake_pie only with two berries; a disabled action never; the rest always."""

    def rule(
        inventory: Mapping[str, int],
        achieved: Mapping[str, int],
        disabled: Callable[[str], bool],
        standing: Mapping[str, bool] | None = None,
    ) -> np.ndarray:
        coded = [not disabled(n) and (n != "bake_pie" or inventory["berry"] >= 2) for n in names]
        return np.array([True] * len(primitives) + coded, bool)

    return rule


class OrchardWorld:
    name = "orchard"
    title = "Orchard, a toy grid of berry bushes and an oven"
    vitals = frozenset({"energy"})
    prompt_sections = Path(__file__).parent / "prompts"  # its own, outside prompts/worlds/

    def tasks(self) -> dict[str, TaskSpec]:
        return {
            a: TaskSpec(
                name=a,
                achievement=a,
                description=f"reach '{a}'",
                max_episode_steps=60,
                world=self.name,
            )
            for a in game.ACHIEVEMENTS
        }

    def task(self, name: str) -> TaskSpec:
        if name not in self.tasks():
            raise UserError(f"unknown task '{name}'; choose one of: {', '.join(self.tasks())}")
        return self.tasks()[name]

    def plan(self, task: TaskSpec) -> list[tuple[str, int]]:
        return PLANS[task.achievement]

    def primitives(self) -> list[str]:
        return list(game.ACTIONS)

    def achievement_rewards(self) -> dict[str, int]:
        return dict.fromkeys(game.ACHIEVEMENTS, 1)

    def prompt_values(self) -> dict[str, Any]:
        recipes = "pick: bush -> berry\nbake: 2 berry, near oven -> pie\n"
        skill_api = doc.api_reference(api, game.NAMES)
        return {"recipes": recipes, "primitives": self.primitives(), "skill_api": skill_api}

    def make_env(
        self,
        task: TaskSpec,
        *,
        observation: str = "symbolic",
        view_radius: int = 4,
        seed: int = 0,
        end_on_success: bool = True,
    ) -> WorldEnv:
        return game.OrchardEnv(task, view_radius, end_on_success)

    def action_mask(
        self, task: TaskSpec, names: list[str], primitives: list[str], ordered: bool,
        *, learned: bool = False,
    ) -> MaskRule:  # fmt: skip
        return mask_rule(names, primitives)

    def skills(self) -> SkillPackage:
        return SkillPackage(
            "tests.toyworld.skills", tuple(game.ACTIONS), {"names": game.NAMES, "items": game.ITEMS}
        )

    def lint_facts(self) -> LintFacts:
        return LintFacts(
            primitives=tuple(game.ACTIONS),
            map_names=tuple(game.NAMES),
            items=tuple(game.ITEMS),
            achievements=tuple(game.ACHIEVEMENTS),
            item_sources={"berry": "bush"},
            view_members=("at", "cells", "facing", "inventory"),
            generator_skills=frozenset({"face"}),
            name_args={"face": 1},
        )

    def requirement_text(self, name: str) -> str | None:
        return NEEDS.get(name)

    def recalls(self, name: str) -> tuple[str, ...]:
        return ()  # its learned actions see their view and inventory only

    def scenarios(
        self, name: str, *, count: int, seed_base: int, budget: int, radius: int,
        unmet_steps: int, unknown_steps: int, episode: bool = True,
    ) -> list[Scenario]:  # fmt: skip
        """Bushes and the oven are 'stations' here: cells laid out relative to the player.
        Each layout: (precondition, items given, stations, what is withheld)."""
        Layout = tuple[str, dict[str, int], dict[str, tuple[int, int]], str]
        table: dict[str, list[Layout]] = {
            "collect_berry": [("met", {}, {"bush": (0, 2)}, ""), ("unmet", {}, {}, "a bush")],
            "bake_pie": [
                ("met", {"berry": 2}, {"oven": (1, 0)}, ""),
                ("unmet", {"berry": 1}, {"oven": (1, 0)}, "berry (has 1, needs 2)"),
                ("unmet", {"berry": 2}, {}, "an oven"),
            ],
        }
        layouts = table.get(name, [])
        met = [x for x in layouts if x[0] == "met"] * count
        out = []
        for i, (pre, items, stations, missing) in enumerate(met + layouts[1:]):
            out.append(Scenario(
                name=f"{pre}-{i + 1}", seed=seed_base + i, precondition=pre,  # type: ignore[arg-type]
                inventory=items, stations=stations, missing=missing,
                max_steps=budget if pre == "met" else unmet_steps,
            ))  # fmt: skip
        return out

    def validation_env(self, name: str, radius: int) -> WorldEnv:
        spec = TaskSpec(
            name=f"validate:{name}",
            achievement=name,
            description="validation",
            max_episode_steps=1000,
            world=self.name,
        )
        return self.make_env(spec, view_radius=radius, end_on_success=False)

    def stage(self, env: WorldEnv, spec: Scenario) -> dict[str, Any]:
        env.reset(seed=spec.seed)
        toy: game.OrchardEnv = env  # type: ignore[assignment]
        toy.grid[:] = game.GRASS
        cells = {at: game.NAMES.index(s) for s, at in spec.stations.items()}
        toy.arrange({"energy": 5, **spec.inventory}, cells, spec.facing)
        return toy.last_info

    def render_map(self, window: np.ndarray, facing: tuple[int, int]) -> str:
        glyphs = " .BO@"
        rows = [
            "".join(glyphs[int(window[x, y])] for x in range(window.shape[0]))
            for y in range(window.shape[1])
        ]
        return "\n".join(rows) + "\nlegend: . grass, B bush, O oven, @ you"

    def author(self) -> WorldAuthor:
        return OrchardAuthor()

    def oracle(self, task: TaskSpec) -> Oracle | None:
        return None
