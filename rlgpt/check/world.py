"""`check_world(world)`: does a world keep the World protocol (rlgpt/worlds/base.py)?

Like gymnasium's `check_env`, it runs the world's real members and raises `WorldCheckError` at
the first rule broken, in one line that names the rule and says what to fix. The rules, in the
order they are checked (docs/worlds.md, The smallest adapter that works):

- `names`: `name`, `title` are text, `vitals` a frozenset of inventory entries.
- `tasks`: every task is a TaskSpec of this world, filed under its name, that `task(name)`
  returns; its achievement is one of `achievement_rewards()` (positive rewards); an unknown name
  is a UserError; the primitives are distinct names with a `noop`.
- `plans`: every task's plan is (achievement, times >= 1) steps, each naming a known
  achievement (or a primitive), and reaches the task's achievement.
- `requirements`: `requirement_text` is text or None for each achievement, None for a name
  that is none.
- `prompts`: `prompt_values()` gives `recipes`, `primitives` (the world's) and `skill_api`, and
  every `world/<file>` section the prompt templates include is there for this world.
- `info` (env): a real episode (reset, a few dozen seeded random steps) keeps the gymnasium
  step API and the `info` contract (keys, types, counts that never fall, `success`).
- `env`: `standing`, `unsafe_move`, `local_window`, `render_map`, `last_info`, and
  `snapshot`/`restore` where the env has them.
- `view`: the skill package's `api` exports `SKILL_API`, `ObsView`, `SkillAPIError`, imports
  the standard library only (the sandbox root holds nothing else), its primitives are the
  world's, and its view takes the env's `view_state` (JSON) at a call's start and after steps.
- `lint`: the lint's facts name the world's primitives, achievements, view members and skills.
- `masks`: a mask rule's mask is one bool per action of the space, hides a disabled action.
- `scenarios`: for a few achievements, the validation states stage what they claim (items,
  facing, stations in view or withheld), each unmet state withholds something, and where the
  achievement is a primitive needing nothing nearby, it succeeds in met states and not in unmet.
- `author`: the offline author's library hash, plan and actions name the world's achievements.
- `library` (opt-in: minutes): the reference actions pass validation on the registered world.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from rlgpt.check.env import run_env_rules
from rlgpt.check.rules import Facts, WorldCheckError, checking, fail
from rlgpt.errors import UserError
from rlgpt.messages import CodedAction, Decomposition, TaskSpec
from rlgpt.worlds.base import World

__all__ = ["WorldCheckError", "check_world"]


def check_world(world: World, *, library: bool | Collection[str] = False) -> None:
    """Raise WorldCheckError at the first protocol rule `world` breaks (the module docstring
    lists them). `library`: also validate the offline author's reference actions in the
    sandbox (True: one per achievement; or the achievements named), which takes minutes."""
    facts = _static_rules(world)
    run_env_rules(world, facts)
    with checking("author"):
        _author(world, facts)
    if library:
        many = [library] if isinstance(library, str) else library
        names = facts.achievements if many is True else list(many)
        _library(world, facts, names)


def _static_rules(world: World) -> Facts:
    for attr in ("name", "title"):
        if not isinstance(getattr(world, attr, None), str) or not getattr(world, attr):
            fail("names", f"`{attr}` must be non-empty text")
    vitals = getattr(world, "vitals", None)
    if not isinstance(vitals, frozenset) or not all(isinstance(v, str) for v in vitals):
        fail("names", "`vitals` must be a frozenset of inventory entry names")
    with checking("tasks"):
        facts = _facts(world)
    with checking("plans"):
        _plans(world, facts)
    with checking("requirements"):
        _requirements(world, facts)
    with checking("prompts"):
        _prompts(world, facts)
    return facts


def _facts(world: World) -> Facts:
    prims = world.primitives()
    if not prims or not all(isinstance(p, str) and p for p in prims):
        fail("tasks", "`primitives()` must be a non-empty list of action names")
    if len(set(prims)) != len(prims) or "noop" not in prims:
        fail("tasks", "`primitives()` must name each action once and include 'noop'")
    rewards = world.achievement_rewards()
    if not rewards or any(not isinstance(r, int | float) or r <= 0 for r in rewards.values()):
        fail("tasks", "`achievement_rewards()` must give every achievement a positive reward")
    return Facts(list(prims), list(rewards), _tasks(world, rewards))


def _tasks(world: World, rewards: Mapping[str, Any]) -> dict[str, TaskSpec]:
    tasks = world.tasks()
    if not isinstance(tasks, dict) or not tasks:
        fail("tasks", "`tasks()` must be a non-empty dict of task name -> TaskSpec")
    for key, spec in tasks.items():
        if not isinstance(spec, TaskSpec) or spec.name != key:
            fail("tasks", f"task '{key}' must be a TaskSpec whose name is its key")
        if spec.world != world.name:
            fail(
                "tasks", f"task '{key}' has world '{spec.world}': set TaskSpec.world={world.name!r}"
            )
        if spec.achievement not in rewards:
            fail(
                "tasks",
                f"task '{key}' targets '{spec.achievement}', which is no achievement of "
                "`achievement_rewards()`",
            )
        if world.task(key) != spec:
            fail("tasks", f"`task('{key}')` must return tasks()['{key}']")
    try:
        world.task("no such task")
    except UserError:
        pass
    except Exception as exc:  # noqa: BLE001 - any other type breaks the rule
        fail("tasks", f"`task()` of an unknown name raised {type(exc).__name__}: raise UserError")
    else:
        fail("tasks", "`task()` of an unknown name must raise UserError, naming valid ones")
    return tasks


def _plans(world: World, facts: Facts) -> None:
    known = set(facts.achievements) | set(facts.primitives)
    for name, task in facts.tasks.items():
        plan = world.plan(task)
        if not isinstance(plan, list) or not plan:
            fail("plans", f"`plan()` of task '{name}' must be a non-empty list")
        for step in plan:
            if not (isinstance(step, tuple) and len(step) == 2 and isinstance(step[1], int)):
                fail("plans", f"task '{name}' has plan step {step!r}: make it (achievement, times)")
            if step[0] not in known or step[1] < 1:
                fail(
                    "plans",
                    f"task '{name}' has plan step {step!r}: name a known achievement "
                    "(or primitive) and times >= 1",
                )
        if task.achievement not in [a for a, _ in plan]:
            fail("plans", f"the plan of task '{name}' never reaches '{task.achievement}'")
        facts.plans[name] = plan


def _requirements(world: World, facts: Facts) -> None:
    for ach in facts.achievements:
        text = world.requirement_text(ach)
        if text is not None and (not isinstance(text, str) or not text):
            fail("requirements", f"`requirement_text('{ach}')` must be text or None")
    if world.requirement_text("no_such_action") is not None:
        fail("requirements", "`requirement_text()` of a name that is no achievement must be None")


def prompt_sections(world: World) -> Any:
    """Where the world's prompt sections are: prompts/worlds/<name>/ (what the agents' prompts
    render), or a world's own `prompt_sections` directory (a world outside this repository)."""
    from rlgpt.agents.prompting import PROMPTS_DIR

    return getattr(world, "prompt_sections", None) or PROMPTS_DIR / "worlds" / world.name


def _prompts(world: World, facts: Facts) -> None:
    import jinja2
    from jinja2 import meta

    from rlgpt.agents.prompting import PROMPTS_DIR

    values = world.prompt_values()
    for key in ("recipes", "skill_api"):
        if not isinstance(values.get(key), str) or not values[key].strip():
            fail("prompts", f"`prompt_values()['{key}']` must be non-empty text")
    if list(values.get("primitives") or ()) != facts.primitives:
        fail("prompts", "`prompt_values()['primitives']` must be `primitives()`")
    env, needed = jinja2.Environment(), set()
    for template in sorted(PROMPTS_DIR.glob("*.md")):
        refs = meta.find_referenced_templates(env.parse(template.read_text()))
        needed |= {r.removeprefix("world/") for r in refs if r and r.startswith("world/")}
    where = prompt_sections(world)
    for section in sorted(needed):
        path = where / section
        if not path.is_file() or not path.read_text().strip():
            fail("prompts", f"prompt section '{section}' is missing: write {path}")
        try:
            env.parse(path.read_text())
        except jinja2.TemplateSyntaxError as exc:
            fail("prompts", f"prompt section {path} is no valid template: {exc}")


def _author(world: World, facts: Facts) -> None:
    author = world.author()
    digest = author.library_hash()
    if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest):
        fail("author", "`author().library_hash()` must be a sha256 hex digest")
    task = facts.longest_plan()
    plan = author.decompose(task, {}, {})
    if not isinstance(plan, Decomposition):
        fail("author", "`author().decompose()` must return a Decomposition")
    unknown = [s.name for s in plan.sub_actions if s.name not in facts.achievements]
    if unknown:
        fail("author", f"the author's plan for '{task.name}' names unknown achievements {unknown}")
    if task.achievement not in [s.name for s in plan.sub_actions]:
        fail("author", f"the author's plan for '{task.name}' never reaches '{task.achievement}'")
    for name in plan.coded():
        action = author.write_action(name, 80)
        if not isinstance(action, CodedAction) or action.name != name:
            fail("author", f"`author().write_action('{name}')` must return its CodedAction")
        try:
            code = compile(action.source, f"<{name}>", "exec")
        except SyntaxError as exc:
            fail("author", f"the reference action '{name}' does not compile: {exc}")
        if name not in code.co_names:
            fail("author", f"the reference action '{name}' must define `def {name}(view)`")


def _library(world: World, facts: Facts, names: list[str]) -> None:
    from rlgpt.config import SandboxParams
    from rlgpt.validation.validate import validate_action
    from rlgpt.worlds import WORLDS, get_world

    if world.name not in WORLDS or type(get_world(world.name)) is not type(world):
        fail("library", f"validation runs registered worlds: add '{world.name}' to WORLDS")
    author = world.author()  # validation's own failures are verdicts; no sandbox, an error
    for name in names:
        if name not in facts.achievements:
            fail("library", f"'{name}' is no achievement of the world")
        verdict = validate_action(
            author.write_action(name, 80), sandbox=SandboxParams(), world=world.name
        )
        if not verdict.ok:
            first = verdict.message.splitlines()[0] if verdict.message else ""
            fail(
                "library",
                f"the reference action '{name}' fails validation "
                f"({verdict.error_kind}: {first[:160]}): fix it or its scenarios",
            )
