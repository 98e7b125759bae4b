"""check_world (rlgpt/check/world.py): every installed world and the toy world Orchard
(tests/toyworld) keep the World protocol; a world that breaks one rule fails with one line that
names it; and every world's env is a gymnasium id that passes gymnasium's and SB3's checks."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rlgpt.check import WorldCheckError, check_world
from rlgpt.messages import CodedAction, Scenario, TaskSpec
from rlgpt.worlds import ENV_IDS, WORLDS, get_world
from rlgpt.worlds.base import LintFacts, MaskRule, SkillPackage, WorldAuthor, WorldEnv
from tests.toyworld import env as game
from tests.toyworld.world import OrchardAuthor, OrchardWorld, mask_rule

CRAFTAX = {"craftax-classic", "craftax"}


def _installed(name: str) -> Any:
    marks = [pytest.mark.skipif(not _has_craftax(), reason="craftax not installed")]
    return pytest.param(name, marks=marks if name in CRAFTAX else [])


def _has_craftax() -> bool:
    import importlib.util

    return importlib.util.find_spec("craftax") is not None


@pytest.mark.parametrize("name", [_installed(n) for n in WORLDS])
def test_every_installed_world_passes(name: str) -> None:
    check_world(get_world(name))


def test_the_toy_world_passes() -> None:
    check_world(OrchardWorld())


def test_the_library_rule_validates_the_reference_actions_named(monkeypatch: Any) -> None:
    """Opt-in (minutes for a whole library): here one action, in the sandbox, on Crafter; a
    reference action that never places its table fails validation, and so the rule."""
    from rlgpt.worlds.crafter.author import CrafterAuthor

    crafter = get_world("crafter")
    check_world(crafter, library=["place_table"])
    idle = "def place_table(view):\n    while True:\n        yield 'noop'\n"
    write = CrafterAuthor.write_action

    def idler(self: CrafterAuthor, name: str, step_budget: int, revised: bool = False) -> Any:
        action = write(self, name, step_budget, revised)
        return action.model_copy(update={"source": idle}) if name == "place_table" else action

    monkeypatch.setattr(CrafterAuthor, "write_action", idler)
    assert "'place_table' fails validation" in _fails(crafter, "library", library=["place_table"])


# -- one world per rule, each Orchard with exactly that rule broken ------------------------
class ListVitals(OrchardWorld):
    vitals = {"energy"}  # type: ignore[assignment]  # a set, not a frozenset


class KeyErrorTask(OrchardWorld):
    def task(self, name: str) -> TaskSpec:
        return self.tasks()[name]  # a KeyError for an unknown name, not a UserError


class UnknownPlanStep(OrchardWorld):
    def plan(self, task: TaskSpec) -> list[tuple[str, int]]:
        return [("collect_apple", 1), *super().plan(task)]


class RequirementOfAnything(OrchardWorld):
    def requirement_text(self, name: str) -> str | None:
        return super().requirement_text(name) or "nothing"


class FlagEnv(game.OrchardEnv):
    def _info(self) -> dict[str, Any]:  # achievements as flags (Craftax keeps flags), not counts
        info = super()._info()
        return {**info, "achievements": {k: n > 0 for k, n in info["achievements"].items()}}


class FlagAchievements(OrchardWorld):
    def make_env(self, task: TaskSpec, **kw: Any) -> WorldEnv:
        return FlagEnv(task, kw.get("view_radius", 4), kw.get("end_on_success", True))


class FixedWindowEnv(game.OrchardEnv):
    def local_window(self, radius: int | None = None) -> np.ndarray:
        return super().local_window()  # ignores the radius asked for


class FixedWindow(OrchardWorld):
    def make_env(self, task: TaskSpec, **kw: Any) -> WorldEnv:
        return FixedWindowEnv(task, kw.get("view_radius", 4), kw.get("end_on_success", True))


class ArrayViewEnv(game.OrchardEnv):
    def view_state(self, info: dict[str, Any], start: bool = False) -> dict[str, Any]:
        return {**super().view_state(info, start), "local": self.local_window()}  # no JSON


class ArrayView(OrchardWorld):
    def make_env(self, task: TaskSpec, **kw: Any) -> WorldEnv:
        return ArrayViewEnv(task, kw.get("view_radius", 4), kw.get("end_on_success", True))


class RaisingStandingEnv(game.OrchardEnv):
    def standing(self) -> dict[str, bool]:
        raise RuntimeError("no oven\nsecond line")


class RaisingStanding(OrchardWorld):
    def make_env(self, task: TaskSpec, **kw: Any) -> WorldEnv:
        return RaisingStandingEnv(task, kw.get("view_radius", 4), kw.get("end_on_success", True))


class NumpySkills(OrchardWorld):
    def skills(self) -> SkillPackage:
        return dataclasses.replace(super().skills(), package="tests.toyworld.heavy_skills")


class LintNamesAMissingSkill(OrchardWorld):
    def lint_facts(self) -> LintFacts:
        facts = super().lint_facts()
        return LintFacts(**{**vars(facts), "generator_skills": frozenset({"face", "go_to"})})


class PrimitivesOnlyMask(OrchardWorld):
    def action_mask(
        self, task: TaskSpec, names: list[str], primitives: list[str], ordered: bool,
        *, learned: bool = False,
    ) -> MaskRule:  # fmt: skip
        return mask_rule([], primitives)  # forgets the coded actions


class StageForgetsItems(OrchardWorld):
    def stage(self, env: WorldEnv, spec: Scenario) -> dict[str, Any]:
        return super().stage(env, spec.model_copy(update={"inventory": {}}))


class UnmetThatIsMet(OrchardWorld):
    def scenarios(self, name: str, **kw: Any) -> list[Scenario]:
        specs = super().scenarios(name, **kw)  # the oven withheld on paper, staged all the same
        return [s.model_copy(update={"stations": {"oven": (1, 0)}}) if s.missing == "an oven"
                else s for s in specs]  # fmt: skip


class MisnamedAuthor(OrchardAuthor):
    def write_action(self, name: str, step_budget: int, revised: bool = False) -> CodedAction:
        action = super().write_action(name, step_budget, revised)
        return action.model_copy(update={"source": action.source.replace(name, "main", 1)})


class AuthorOfMisnamedActions(OrchardWorld):
    def author(self) -> WorldAuthor:
        return MisnamedAuthor()


def _missing_survival(tmp: Path) -> OrchardWorld:
    world = OrchardWorld()
    for section in ("facts.md", "example.md"):
        (tmp / section).write_text((world.prompt_sections / section).read_text())
    world.prompt_sections = tmp
    return world


BROKEN = [
    ("names", ListVitals, "frozenset"),
    ("tasks", KeyErrorTask, "raise UserError"),
    ("plans", UnknownPlanStep, "collect_apple"),
    ("requirements", RequirementOfAnything, "must be None"),
    ("info", FlagAchievements, "info['achievements']"),
    ("env", FixedWindow, "local_window(2)"),
    ("env", RaisingStanding, "raised RuntimeError: no oven"),
    ("view", ArrayView, "JSON"),
    ("view", NumpySkills, "imports ['numpy'"),
    ("lint", LintNamesAMissingSkill, "go_to"),
    ("masks", PrimitivesOnlyMask, "one per action"),
    ("scenarios", StageForgetsItems, "berry"),
    ("scenarios", UnmetThatIsMet, "succeeded"),
    ("author", AuthorOfMisnamedActions, "must define `def collect_berry(view)`"),
]


def _fails(world: Any, rule: str, **kw: Any) -> str:
    with pytest.raises(WorldCheckError) as caught:
        check_world(world, **kw)
    message = str(caught.value)
    assert caught.value.rule == rule and message.startswith(f"{rule}: "), message
    assert "\n" not in message and isinstance(caught.value, ValueError)
    return message


@pytest.mark.parametrize(("rule", "world", "says"), BROKEN, ids=[b[1].__name__ for b in BROKEN])
def test_a_world_breaking_one_rule_fails_naming_it(rule: str, world: type, says: str) -> None:
    assert says in _fails(world(), rule)


def test_a_missing_prompt_section_names_the_file_to_write(tmp_path: Path) -> None:
    message = _fails(_missing_survival(tmp_path), "prompts")
    assert "'survival.md'" in message and str(tmp_path) in message


def test_the_library_rule_needs_a_registered_world() -> None:
    """validate_action finds a world by name (WORLDS): the toy is none, so it cannot pass."""
    assert "add 'orchard' to WORLDS" in _fails(OrchardWorld(), "library", library=["bake_pie"])


# -- gymnasium ids ---------------------------------------------------------------------------
def test_import_rlgpt_registers_the_ids_without_importing_gymnasium_or_a_game() -> None:
    code = (
        "import sys, rlgpt\n"
        "assert not {'gymnasium', 'crafter', 'jax', 'craftax'} & set(sys.modules)\n"
        "import gymnasium\n"
        "print(sorted(k for k in gymnasium.registry if k.startswith('rlgpt/')))\n"
        "assert not {'crafter', 'jax', 'craftax'} & set(sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(sorted(i for i, _ in ENV_IDS.values()))


@pytest.mark.parametrize("name", [_installed(n) for n in WORLDS])
def test_every_world_env_made_by_its_id_passes_gymnasium_and_sb3_checks(name: str) -> None:
    import gymnasium
    from gymnasium.utils.env_checker import check_env as gym_check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env_id, task = ENV_IDS[name]
    made = gymnasium.make(env_id, task="collect_wood")
    try:
        assert made.unwrapped.task.name == "collect_wood" != task  # type: ignore[attr-defined]
        assert made.unwrapped.task.world == name  # type: ignore[attr-defined]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.filterwarnings("ignore", category=ResourceWarning)
            gym_check_env(made.unwrapped, skip_render_check=True)  # it warns of any wrapper
            sb3_check_env(made, warn=True)  # as made: gymnasium's order and passive checks
    finally:
        made.close()
