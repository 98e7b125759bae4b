"""The scripted model's mistakes: what it gets wrong, how often, and how each one is drawn.

The scripted model (benchmarks/scripted_model.py) starts from the offline author's answer and
spoils it at a fixed, seeded rate with one of the mistakes below, each a textual change of the
author's plan or code of the kind language models make (tests/validation/mistakes/ holds
hand-written examples of each).

Code mistakes, drawn once per coded action written (the fast agent's fast_code, or one
action of the one agent's reply) and once per repair that does not fix:
- misnamed_action: an invented or misspelled action name, yielded or a step of a plan
  ("place_crafting_table", "make_wooden_pickaxe", "interact" for "do"). Validation:
  invalid_action.
- missing_precondition: the early return on a short inventory dropped, so the action goes on
  acting where it cannot. Validation: unmet_precondition.
- other_step: code for a step the plan lacks (an achievement of the same kind that is not in
  the task's plan: make_wood_sword for make_wood_pickaxe), under that step's name. Two agents:
  the action asked for has no `def <name>(view):` (signature). One agent: the plan's step
  comes without code (rlgpt learns it instead) and the extra action is dropped.
- unyielded_skill: a skill generator called without `yield from`. Validation: api_misuse.
- item_for_map: an item named where a map name belongs ("wood" for "tree", "drink" for
  "water", "sapling" for "grass"). Validation: api_misuse when the code runs.
Plan mistakes, drawn once per plan (slow_decompose, or the plan of a one_agent reply):
- forgot_count: a step that must be reached n > 1 times is planned once.
- forgot_survival: the survival sub-actions (drink, eat, sleep) of a long plan are left out.

A drawn class that does not apply (no inventory check to drop, no map name with an item's
name, no count above one) passes to the next class in the order above that does; a draw that
finds none makes no mistake. Every draw comes from a random.Random seeded by a hash of
(the model's seed, the request's sampling seed, the task, what is drawn: plan / write /
repair, the sub-action, and which: the n-th plan or version of the action in this run, or a
repair's attempt at the version last written), never by the prompt's wording, so the two
modes draw the n-th plan, the n-th version of each action and each repair of it alike.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from rlgpt.messages import CodedAction, Decomposition
from rlgpt.worlds.base import WorldAuthor

CODE_MISTAKES = (
    "misnamed_action", "missing_precondition", "other_step", "unyielded_skill", "item_for_map",
)  # fmt: skip
PLAN_MISTAKES = ("forgot_count", "forgot_survival")
# The validation class each code mistake is expected to draw (two agents; docstring above).
CAUGHT_AS = {
    "misnamed_action": "invalid_action",
    "missing_precondition": "unmet_precondition",
    "other_step": "signature",
    "unyielded_skill": "api_misuse",
    "item_for_map": "api_misuse",
}


@dataclass(frozen=True)
class MistakeRates:
    """How often the scripted model errs. `rate`: share of written coded actions with a
    mistake; `plan_rate`: share of plans (None: `rate`); `fix_rate`: share of repairs that fix
    (the others make another mistake); `weights`: relative frequency of each class."""

    rate: float = 0.25
    plan_rate: float | None = None
    fix_rate: float = 0.5
    seed: int = 0
    weights: Mapping[str, float] = field(
        default_factory=lambda: dict.fromkeys(CODE_MISTAKES + PLAN_MISTAKES, 1.0)
    )

    def __post_init__(self) -> None:
        for name, p in (
            ("rate", self.rate),
            ("plan_rate", self.plan_rate),
            ("fix_rate", self.fix_rate),
        ):
            if p is not None and not 0.0 <= p <= 1.0:
                raise ValueError(f"{name} must lie in [0, 1], not {p}")
        unknown = set(self.weights) - set(CODE_MISTAKES + PLAN_MISTAKES)
        if unknown:
            raise ValueError(f"unknown mistake classes {sorted(unknown)}")

    def rng(self, *key: object) -> random.Random:
        """The generator of one draw, from the model's seed and `key` alone."""
        blob = repr((self.seed, *key)).encode()
        return random.Random(int.from_bytes(hashlib.sha256(blob).digest()[:8], "big"))

    def draw(self, rng: random.Random, rate: float, classes: tuple[str, ...]) -> str | None:
        """A class drawn by weight with probability `rate`, else None."""
        if rng.random() >= rate:
            return None
        weights = [float(self.weights.get(c, 0.0)) for c in classes]
        if sum(weights) <= 0:
            return None
        return rng.choices(classes, weights)[0]


def first_applicable(
    drawn: str,
    order: tuple[str, ...],
    applies: Callable[[str], bool],
    exclude: Collection[str] = (),
) -> str | None:
    """`drawn`, or the next class after it in `order` (cyclically) that applies."""
    start = order.index(drawn)
    for cls in order[start:] + order[:start]:
        if cls not in exclude and applies(cls):
            return cls
    return None


@dataclass(frozen=True)
class Knowledge:
    """The game facts the mistakes are made of (from the world) and the task's true plan."""

    primitives: tuple[str, ...]
    achievements: tuple[str, ...]
    generator_skills: frozenset[str]
    item_of_map: Mapping[str, str]  # map name -> the item it gives, where the names differ
    plan: tuple[str, ...]  # the task's sub-actions as the author plans them
    author: WorldAuthor


# -- code --------------------------------------------------------------------------------
# an action the code takes: a yielded name, a step in a plan's list of actions, or the act
# of an act_at
_ACTS = re.compile(r'yield "[a-z_]+"|plan\(view, \[[^\]]*\]|act_at\(view, "[a-z_]+", "[a-z_]+"')
_NAME = re.compile(r'"([a-z_]+)"')
_CHECK = re.compile(
    r"^( +)if any\(view\.inventory\[item\] < n for item, n in (\{.*?\})\.items\(\)\):\n"
    r"\1    return\n",
    re.M,
)


def _wrong_names(action: str) -> list[str]:
    """Names a model invents for a primitive action."""
    kind, _, rest = action.partition("_")
    if action == "do":
        return ["interact", "mine", "collect"]
    if action == "sleep":
        return ["rest", "go_to_sleep"]
    if kind == "place":
        return [f"place_crafting_{rest}" if rest == "table" else f"build_{rest}", f"put_{rest}"]
    if kind == "make":
        material, _, tool = rest.partition("_")
        return [f"make_wooden_{tool}" if material == "wood" else f"make_{tool}", f"craft_{rest}"]
    return [f"{action}_action"]


def _misnamed(action: CodedAction, know: Knowledge, rng: random.Random) -> CodedAction | None:
    acts = [m.group(0) for m in _ACTS.finditer(action.source)]
    names = [n for act in acts for n in _NAME.findall(act) if n in know.primitives]
    if not names:
        return None
    name = names[-1]  # the action it is about (a make_* action takes its recipe last)
    wrong = rng.choice([w for w in _wrong_names(name) if w not in know.primitives])
    source = _ACTS.sub(lambda m: m.group(0).replace(f'"{name}"', f'"{wrong}"'), action.source)
    return action.model_copy(update={"source": source})


def _no_check(action: CodedAction, know: Knowledge, rng: random.Random) -> CodedAction | None:
    m = _CHECK.search(action.source)
    if m is None or m.group(2) == "{}":  # nothing required: no check to forget
        return None
    source = action.source[: m.start()] + action.source[m.end() :]
    return action.model_copy(update={"source": source})


def _other_step(action: CodedAction, know: Knowledge, rng: random.Random) -> CodedAction | None:
    kind = action.name.partition("_")[0]
    lacking = [a for a in know.achievements if a not in know.plan and a != action.name]
    options = [a for a in lacking if a.startswith(kind + "_")] or lacking
    for name in rng.sample(options, len(options)):
        try:
            return know.author.write_action(name, action.step_budget)
        except ValueError:  # an achievement the author has no skill for (defeat_*)
            continue
    return None


def _unyielded(action: CodedAction, know: Knowledge, rng: random.Random) -> CodedAction | None:
    skills = "|".join(sorted(know.generator_skills))
    calls = list(re.finditer(rf"yield from (?=(?:{skills})\()", action.source))
    if not calls:
        return None
    m = rng.choice(calls)
    source = action.source[: m.start()] + action.source[m.end() :]
    return action.model_copy(update={"source": source})


def _item_for_map(action: CodedAction, know: Knowledge, rng: random.Random) -> CodedAction | None:
    source = action.source
    for where, item in know.item_of_map.items():
        source = source.replace(f'"{where}"', f'"{item}"')
    return None if source == action.source else action.model_copy(update={"source": source})


SPOIL: dict[str, Callable[[CodedAction, Knowledge, random.Random], CodedAction | None]] = {
    "misnamed_action": _misnamed,
    "missing_precondition": _no_check,
    "other_step": _other_step,
    "unyielded_skill": _unyielded,
    "item_for_map": _item_for_map,
}


def spoil_code(
    cls: str | None,
    action: CodedAction,
    know: Knowledge,
    rng: random.Random,
    exclude: Collection[str] = (),
) -> tuple[CodedAction, str | None]:
    """`action` with mistake `cls` (or the next one that applies); the class made, or None."""
    if cls is None:
        return action, None
    made: dict[str, CodedAction] = {}

    def applies(c: str) -> bool:
        spoilt = SPOIL[c](action, know, random.Random(rng.random()))
        if spoilt is not None:
            made[c] = spoilt
        return spoilt is not None

    chosen = first_applicable(cls, CODE_MISTAKES, applies, exclude)
    return (made[chosen], chosen) if chosen else (action, None)


# -- plans -------------------------------------------------------------------------------
def _forgot_count(dec: Decomposition, rng: random.Random) -> Decomposition | None:
    counted = [i for i, s in enumerate(dec.sub_actions) if s.count > 1]
    if not counted:
        return None
    i = rng.choice(counted)
    sub = dec.sub_actions[i]
    text = {
        k: getattr(sub, k)
        .replace(f"{sub.count}x", "1x")
        .replace(f"({sub.count} in all)", "(1 in all)")
        for k in ("description", "expected_effect")
    }
    subs = list(dec.sub_actions)
    subs[i] = sub.model_copy(update={"count": 1, **text})
    return dec.model_copy(update={"sub_actions": subs})


def _forgot_survival(dec: Decomposition, rng: random.Random) -> Decomposition | None:
    kept = [s for s in dec.sub_actions if not s.survival]
    if len(kept) == len(dec.sub_actions) or not kept:
        return None
    return dec.model_copy(update={"sub_actions": kept})


PLAN_SPOIL: dict[str, Callable[[Decomposition, random.Random], Decomposition | None]] = {
    "forgot_count": _forgot_count,
    "forgot_survival": _forgot_survival,
}


def spoil_plan(
    cls: str | None, dec: Decomposition, rng: random.Random
) -> tuple[Decomposition, str | None]:
    """`dec` with plan mistake `cls` (or the other one if it does not apply)."""
    if cls is None:
        return dec, None
    made: dict[str, Decomposition] = {}

    def applies(c: str) -> bool:
        spoilt = PLAN_SPOIL[c](dec, random.Random(rng.random()))
        if spoilt is not None:
            made[c] = spoilt
        return spoilt is not None

    chosen = first_applicable(cls, PLAN_MISTAKES, applies)
    return (made[chosen], chosen) if chosen else (dec, None)


def knowledge(world: Any, task: Any) -> Knowledge:
    """The facts of `world` the mistakes use, for `task`."""
    facts = world.lint_facts()
    author = world.author()
    plan = author.decompose(task, {}, {})
    return Knowledge(
        primitives=tuple(world.primitives()),
        achievements=tuple(facts.achievements),
        generator_skills=frozenset(facts.generator_skills),
        item_of_map={src: item for item, src in facts.item_sources.items() if src != item},
        plan=tuple(s.name for s in plan.sub_actions),
        author=author,
    )
