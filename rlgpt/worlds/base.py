"""The seam between the method and a game: the `World` protocol (docs/worlds.md).

A world owns everything game-specific: its tasks and their success conditions, its primitive
actions, the facts and prompt sections the agents read, the trusted env a task trains on, the
read-only view and skill API coded actions run against (a package bound into the sandbox
root), validation states and what they check, action masks, the offline author's planner and
reference library, and an oracle where one exists. The generic parts (agents, llm, sandbox, rl,
lineage, flows, tasks, report) ask a world for these; they never import a game package.

Every world's env reports the same `info`, a `StepInfo` (the contract the generic parts read,
and `check_world` checks on real steps).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict, cast

import gymnasium as gym
import numpy as np

from rlgpt.messages import CodedAction, Decomposition, Scenario, TaskSpec
from rlgpt.sandbox.package import SkillPackage


class _Reported(TypedDict):
    """What every world's env reports."""

    inventory: dict[str, int]  # item -> count, vitals included
    achievements: dict[str, int]  # achievement -> how often it was reached this episode
    player_pos: tuple[int, int]  # (x, y)
    facing: tuple[int, int]  # (dx, dy)
    success: bool  # the task's achievement was reached


class StepInfo(_Reported, total=False):
    """The `info` of every world's env after a reset, a step or a refresh: what every world
    reports (its `__required_keys__`), and what some worlds add."""

    won: bool  # a game that can be won (full Craftax: its boss beaten): an end that is no death
    floor: int  # a world of several floors (full Craftax): the player's


def gym_info(info: StepInfo) -> dict[str, Any]:
    """`info` as gymnasium's API types it: the same dict, not a copy."""
    return cast(dict[str, Any], info)


class PromptValues(TypedDict):
    """What the prompts say about a world (World.prompt_values)."""

    recipes: str
    primitives: list[str]
    skill_api: str


class WorldEnv(Protocol):
    """The trusted env of one task: a gymnasium Env with the `info` contract above.

    Optionally, a `defer_observations` flag and a `last_obs` property: while the coded-action
    runtime sets the flag (during a call), `step` may return a placeholder observation, and
    `last_obs` builds the real one when the call ends (the policy sees one per call).

    Optionally, `snapshot() -> bytes` and `restore(blob) -> info`: the whole state of the
    episode, and a return to it that continues exactly as the original would (the start
    states of learned actions, taken from the task's own episodes: rlgpt/rl/starts.py).

    Optionally, `recall(things) -> np.ndarray`, where the world's `recalls` names anything:
    for each of `things`, where the nearest one the player has seen this episode lies, 4
    numbers in [-1, 1] (all 0 where none was seen): a learned action's memory."""

    task: TaskSpec
    action_space: gym.Space[Any]
    observation_space: gym.Space[Any]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]: ...

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]: ...

    def close(self) -> None: ...

    @property
    def last_info(self) -> StepInfo:
        """The info of the latest reset or step."""
        ...

    def view_state(self, info: Mapping[str, Any], start: bool = False) -> dict[str, Any]:
        """What a coded action's view reads now (JSON-able; the world's view class takes it);
        with `start`, also what a call needs once when it starts (the episode's memory)."""
        ...

    def standing(self) -> Mapping[str, bool]:
        """For each station: whether one still stands (a placed one can be destroyed)."""
        ...

    def unsafe_move(self, action: str) -> str | None:
        """Why primitive `action` must not be taken now (e.g. 'lava': it walks into lava);
        None when it may. The runtime turns an unsafe step of a coded action into a noop."""
        ...

    def local_window(self, radius: int | None = None) -> np.ndarray:
        """The map ids around the player, indexed [dx + r, dy + r] (for traces)."""
        ...


class MaskRule(Protocol):
    """The action mask for an inventory, this episode's achievements, a test of whether a
    coded action is disabled, and which stations still stand."""

    def __call__(self, inventory: Mapping[str, int], achieved: Mapping[str, int],
                 disabled: Callable[[str], bool],
                 standing: Mapping[str, bool] | None = None) -> np.ndarray: ...  # fmt: skip


@dataclass
class OracleEpisode:
    """One episode an oracle played."""

    success: bool
    steps: int
    end: str  # success, death or time_limit


class Oracle(Protocol):
    """A policy that reads the whole state: the ceiling of a task on the same seeds."""

    def episode(self, seed: int) -> OracleEpisode: ...


@dataclass(frozen=True)
class LintFacts:
    """What the static lint checks a coded action against (rlgpt/validation/lint.py)."""

    primitives: tuple[str, ...]
    map_names: tuple[str, ...]  # names a view method or skill takes (cells, nearest, ...)
    items: tuple[str, ...]
    achievements: tuple[str, ...]
    item_sources: Mapping[str, str]  # item -> what it comes from ('wood' -> 'tree')
    view_members: tuple[str, ...]
    generator_skills: frozenset[str]  # skills that must be driven with `yield from`
    name_args: Mapping[str, int]  # skill -> index of its argument that is a map name


class WorldAuthor(Protocol):
    """The offline author's game knowledge: its planner and its reference library."""

    def library_hash(self) -> str:
        """sha256 of the reference library, recorded where a model name would be."""
        ...

    def decompose(
        self, task: TaskSpec, modes: dict[str, str], notes: dict[str, str]
    ) -> Decomposition:
        """The plan for `task`, each sub-action in the mode the evidence chose (`modes`: a
        sub-action it does not name is coded; `notes`: why a mode was chosen, for the
        reasoning)."""
        ...

    def write_action(self, name: str, step_budget: int, revised: bool = False) -> CodedAction:
        """The reference coded action of sub-action `name` (`revised`: the critic faulted the
        first version)."""
        ...


class World(Protocol):
    """Everything game-specific, behind one seam (see the module docstring)."""

    name: str  # the registry key, e.g. 'crafter'
    title: str  # how prompts name the game, e.g. 'the 2-D survival game Crafter'
    vitals: frozenset[str]  # inventory entries that drift by themselves: never progress

    # -- tasks and actions --------------------------------------------------------------
    def tasks(self) -> dict[str, TaskSpec]: ...

    def task(self, name: str) -> TaskSpec:
        """A task by name; an unknown name is a UserError naming a few valid ones."""
        ...

    def plan(self, task: TaskSpec) -> list[tuple[str, int]]:
        """The recipe plan toward the task: (achievement, times), in order."""
        ...

    def primitives(self) -> list[str]: ...

    def achievement_rewards(self) -> dict[str, int]:
        """Every achievement and the reward the game gives for its first unlock in an
        episode: the weights of the world's score (the unlocked share of the maximum)."""
        ...

    # -- prompts ------------------------------------------------------------------------
    def prompt_values(self) -> PromptValues:
        """Values the prompt templates render: `recipes` (the facts), `primitives`,
        `skill_api` (the API reference generated from the code)."""
        ...

    # -- envs ---------------------------------------------------------------------------
    def make_env(
        self, task: TaskSpec, *, observation: str = "symbolic", view_radius: int = 4,
        seed: int = 0, end_on_success: bool = True,
    ) -> WorldEnv: ...  # fmt: skip

    def action_mask(
        self,
        task: TaskSpec,
        names: list[str],
        primitives: list[str],
        ordered: bool,
        *,
        learned: bool = False,
    ) -> MaskRule:
        """The mask over `primitives` then the coded actions `names`. `learned`: the space of
        a learned action whose effect is `task`'s achievement, where a primitive that cannot
        act now, or that would spend what that effect needs, may be masked too."""
        ...  # fmt: skip

    # -- coded actions and validation ---------------------------------------------------
    def skills(self) -> SkillPackage: ...

    def lint_facts(self) -> LintFacts: ...

    def requirement_text(self, name: str) -> str | None:
        """What sub-action `name` needs, in words, when it is named after an achievement;
        None otherwise (then validation checks safety only)."""
        ...

    def recalls(self, name: str) -> tuple[str, ...]:
        """What a learned action named `name` must find on the map (its target, the stations
        its effect needs): where the nearest one it has seen lies is part of its observation
        (the world env's `recall`); () where the world gives it no memory."""
        ...

    def scenarios(
        self, name: str, *, count: int, seed_base: int, budget: int, radius: int,
        unmet_steps: int, unknown_steps: int, episode: bool = True,
    ) -> list[Scenario]:  # fmt: skip
        """`count` met states, the unmet ones, then (with `episode`) the states from later in
        an episode that apply to `name` (Scenario.state); all deterministic per seed."""
        ...

    def validation_env(self, name: str, radius: int) -> WorldEnv:
        """An env whose episodes go on after the effect (code after it is checked too)."""
        ...

    def stage(self, env: WorldEnv, spec: Scenario) -> StepInfo:
        """Reset `env` to the scenario's seed, arrange it; the arranged state's info."""
        ...

    def render_map(self, window: np.ndarray, facing: tuple[int, int]) -> str:
        """A local window as text with a legend, for the traces a model repairs from."""
        ...

    # -- the offline author and the oracle ----------------------------------------------
    def author(self) -> WorldAuthor: ...

    def oracle(self, task: TaskSpec) -> Oracle | None:
        """An oracle for `task`, where the world has one."""
        ...
