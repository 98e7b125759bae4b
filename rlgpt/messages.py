"""The contracts: one pydantic model per agent message (docs/design.md, Contracts).

Every value that crosses a Prefect task boundary is one of these models, a path or an id.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from rlgpt.textsafe import storable_tree


class Message(BaseModel):
    """Base for every contract: frozen-by-convention, JSON-serialisable, hashable by content.
    Any text is accepted: lone surrogates (from a worker's or a model's JSON) are stored as
    their escapes, so every message encodes as UTF-8 and reads back (rlgpt/textsafe.py)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _storable_text(cls, data: Any) -> Any:
        return storable_tree(data)

    def content_hash(self) -> str:
        """sha256 of the canonical JSON form (sorted keys)."""
        blob = json.dumps(self._hashed(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()

    def _hashed(self) -> dict[str, object]:
        """What the content hash covers."""
        return self.model_dump(mode="json")


class TaskSpec(Message):
    """A task: reach one achievement of a world within an episode step limit."""

    name: str = Field(description="Task name, e.g. 'make_wood_pickaxe'.")
    achievement: str = Field(description="The world's achievement whose unlock is success.")
    description: str = Field(description="One line for humans and prompts.")
    max_episode_steps: int = Field(gt=0, description="Primitive steps before truncation.")
    paper_name: str | None = Field(default=None, description="RL-GPT paper task it stands for.")
    # a task recorded before there were other worlds is Crafter's (the worlds' own tasks name it)
    world: str = Field(default="crafter", description="The world (game) the task belongs to.")

    def _hashed(self) -> dict[str, object]:
        """Without `world` while it is crafter: hashes of tasks recorded before worlds stay."""
        dump = self.model_dump(mode="json")
        if dump["world"] == "crafter":
            del dump["world"]
        return dump


class SubAction(Message):
    """One step of a decomposition; `name` is the achievement it unlocks."""

    name: str = Field(description="Achievement unlocked by this sub-action, e.g. 'collect_wood'.")
    description: str
    mode: Literal["code", "rl"] = Field(description="Written as a coded action, or learned by RL.")
    count: int = Field(default=1, ge=1, description="Times the achievement must be reached.")
    precondition: str = Field(description="What must hold before it can succeed.")
    expected_effect: str = Field(description="What changes in the world or inventory.")
    survival: bool = Field(
        default=False,
        description="Kept up as needed (drink, food, rest) in a long episode, not a step toward "
        "the task: it earns no reward term and is not judged as a step of the chain.",
    )


class Decomposition(Message):
    """Slow agent: ordered sub-actions, each to be coded or learned, with the reasoning."""

    task: str
    sub_actions: list[SubAction] = Field(min_length=1)
    reasoning: str

    def coded(self) -> list[str]:
        return [s.name for s in self.sub_actions if s.mode == "code"]

    def learned(self) -> list[str]:
        return [s.name for s in self.sub_actions if s.mode == "rl"]


class CodedAction(Message):
    """Fast agent: the source of one high-level action (a generator over an ObsView)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    docstring: str
    source: str = Field(
        description="Python source defining `def <name>(view):` that yields actions."
    )
    step_budget: int = Field(default=64, gt=0, le=2000, description="Primitive steps per call.")
    _validated_cpu_ms: float | None = PrivateAttr(default=None)

    @property
    def validated_cpu_ms(self) -> float | None:
        """The CPU per step its validation measured (ms; None: not measured). A timing, so
        never recorded (records stay the same on a replay): it travels with the object from
        validation to training, which limits the action's CPU per step by it."""
        return self._validated_cpu_ms

    def measured(self, cpu_ms: float | None) -> CodedAction:
        """A copy that carries `cpu_ms` as its validated CPU per step."""
        out = self.model_copy()
        out._validated_cpu_ms = cpu_ms
        return out


class PlanAndCode(Message):
    """One agent (run.agents: one): the plan and, in the same reply, the code of every
    sub-action it codes."""

    decomposition: Decomposition
    actions: list[CodedAction] = Field(
        default_factory=list, description="One coded action per sub-action whose mode is 'code'."
    )


class RewardTerm(Message):
    """+weight each time `achievement`'s counter rises, up to `cap` times per episode."""

    achievement: str
    weight: float
    cap: int = Field(default=1, ge=1)


class PPOConfig(Message):
    """Hyper-parameters handed to stable-baselines3 PPO."""

    learning_rate: float = Field(default=5e-4, gt=0)
    n_steps: int = Field(default=64, gt=1)
    batch_size: int = Field(default=64, gt=1)
    n_epochs: int = Field(default=8, ge=1)
    gamma: float = Field(default=0.97, gt=0, le=1)
    gae_lambda: float = Field(default=0.95, gt=0, le=1)
    ent_coef: float = Field(default=0.01, ge=0)
    clip_range: float = Field(default=0.2, gt=0)
    net_arch: list[int] = Field(default_factory=lambda: [128, 128])


class RLConfig(Message):
    """Fast agent: what joins the action space, the reward, the observation and the budget."""

    macro_actions: list[str] = Field(description="Coded actions inserted into the action space.")
    reward_terms: list[RewardTerm]
    success_bonus: float = 5.0
    no_effect_penalty: float = Field(
        default=0.3, ge=0, description="Charged when a coded action changes nothing."
    )
    primitive_actions: list[str] | None = Field(
        default=None,
        description="The game's primitive actions kept in the action space (null: all of "
        "them; [] when every sub-action is coded and the policy only chooses among them).",
    )
    observation: Literal["symbolic", "image"] = "symbolic"
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    sample_budget: int = Field(gt=0, description="Primitive env steps of training.")
    reasoning: str = ""
    learned_actions: list[str] = Field(
        default_factory=list,
        description="Learned actions (trained sub-policies) inserted into the action space, "
        "after the coded actions.",
    )

    def _hashed(self) -> dict[str, object]:
        """Without `primitive_actions` while it is null, and without `learned_actions` while
        it is empty: the hash of every config written before the fields existed stays."""
        dump = self.model_dump(mode="json")
        if dump["primitive_actions"] is None:
            del dump["primitive_actions"]
        if not dump["learned_actions"]:
            del dump["learned_actions"]
        return dump


class ShapingTerm(Message):
    """+weight times the change of a dense signal at each step (the signals are the world's:
    `rlgpt.rl.shaping.signals`, e.g. health, kills, explore)."""

    signal: str
    weight: float


class LearnedConfig(Message):
    """Fast agent: the RL problem of one sub-action left to RL (a learned action). Its
    episodes start where the sub-action starts and end at its effect (its achievement rises
    once), at death, or after `step_budget` primitive steps."""

    name: str = Field(description="The sub-action it learns (an achievement).")
    macro_actions: list[str] = Field(
        default_factory=list, description="Coded actions inserted into its own action space."
    )
    primitive_actions: list[str] | None = Field(
        default=None, description="The game's primitive actions it keeps (null: all of them)."
    )
    effect_bonus: float = Field(default=10.0, ge=0, description="Paid when its effect happens.")
    reward_terms: list[RewardTerm] = Field(
        default_factory=list, description="Other achievements paid on the way."
    )
    shaping: list[ShapingTerm] = Field(default_factory=list, description="Dense signals.")
    death_penalty: float = Field(default=5.0, ge=0, description="Charged when the player dies.")
    step_budget: int = Field(gt=0, le=20_000, description="Primitive steps per episode or call.")
    code_steps: int | None = Field(
        default=None, gt=0, description="Most primitive steps of one call of a coded action "
        "in its space (null: that action's own budget): shorter calls let it act between them.",
    )  # fmt: skip
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    sample_budget: int = Field(gt=0, description="Primitive env steps of its training.")
    reasoning: str = ""


class Scenario(Message):
    """A validation state: a real world of the game (seed) that the trusted process arranged on
    its grid so that the sub-action's precondition holds ("met") or, on purpose, does not
    ("unmet"): items given, stations and a target laid out relative to the player."""

    name: str
    seed: int
    precondition: Literal["met", "unmet", "unknown"]
    inventory: dict[str, int] = Field(default_factory=dict, description="Items given.")
    stations: dict[str, tuple[int, int]] = Field(
        default_factory=dict, description="Station -> (dx, dy) from the player."
    )
    target: str | None = Field(default=None, description="Material or creature to walk to.")
    target_at: tuple[int, int] | None = None
    facing: tuple[int, int] = (0, 1)
    front: str | None = Field(default=None, description="Material put in the faced cell.")
    max_steps: int = Field(gt=0, description="Primitive steps the action may take here.")
    missing: str = Field(default="", description="What is withheld (unmet scenarios).")
    state: str = Field(
        default="", description="Which state of a later episode it is ('' for the plain layout): "
        "the world's name for it (Crafter's: dusk, night, low_vitals, hostile, hazard, remembered "
        "or unseen).",
    )  # fmt: skip
    effect: Literal["share", "required", "optional"] = Field(
        default="share", description="Where the precondition holds: the effect counts toward "
        "sandbox.min_effect_share (share), must happen here (required), or may not happen "
        "within the budget, but the action must not return without it (optional).",
    )  # fmt: skip
    daylight: float | None = Field(
        default=None, description="Daylight the state starts at (None: the seed's first step)."
    )
    hostiles: dict[str, tuple[int, int]] = Field(
        default_factory=dict, description="Hostile creature -> (dx, dy) from the player."
    )
    hazards: dict[str, list[tuple[int, int]]] = Field(
        default_factory=dict, description="Hazard material (lava, water) -> cells (dx, dy)."
    )
    memory: Literal["view", "remembered", "unseen"] = Field(
        default="view", description="Where the target or first station is: in view; out of "
        "view but seen earlier this episode (remembered); or nowhere seen (unseen: search).",
    )  # fmt: skip
    floor: str | None = Field(
        default=None,
        description="The floor it starts on, in a world of floors (None: the "
        "world's only or first one).",
    )

    @model_serializer(mode="wrap")
    def _without_no_floor(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """Without `floor` while it is None: a scenario of a world without floors (and the
        records and hashes that hold one) stays what it was."""
        dump: dict[str, object] = handler(self)
        if dump.get("floor") is None:
            dump.pop("floor", None)
        return dump

    def describe(self) -> str:
        """One line for feedback: where the action started."""
        parts = [f"{self.name} (seed {self.seed})"]
        if self.floor:
            parts.append(f"on the {self.floor} floor")
        if self.inventory:
            parts.append("inventory " + ", ".join(f"{k}={v}" for k, v in self.inventory.items()))
        parts += [f"{s} at {xy}" for s, xy in self.stations.items()]
        if self.target and self.target_at:
            parts.append(f"{self.target} at {self.target_at}")
        if self.front:
            parts.append(f"facing {self.front}")
        if self.daylight is not None:
            parts.append(f"daylight {self.daylight:.2f}")
        parts += [f"{k} at {xy}" for k, xy in self.hostiles.items()]
        parts += [f"{k} at {', '.join(map(str, cells))}" for k, cells in self.hazards.items()]
        if self.memory == "remembered":
            parts.append("out of view, seen earlier this episode")
        elif self.memory == "unseen":
            parts.append(f"no {self.target} seen yet")
        if self.missing:
            parts.append(f"missing {self.missing}")
        return ", ".join(parts)


ErrorKind = Literal[
    "syntax", "gate", "signature", "api_misuse", "invalid_action", "exception", "timeout",
    "crash", "no_action", "no_effect", "unmet_precondition", "unsafe_step", "died",
    "repeated_effect", "no_end", "gave_up",
]  # fmt: skip


class ScenarioOutcome(Message):
    """One coded action run from one scenario."""

    scenario: str
    spec: Scenario | None = None
    ok: bool
    steps: int
    effect: bool | None = Field(default=None, description="Whether the expected effect happened.")
    ended: bool = Field(default=False, description="Whether the action returned by itself.")
    error_kind: ErrorKind | None = None
    actions: list[str] = Field(default_factory=list, description="First primitive actions.")
    message: str = ""
    trace: str = Field(default="", description="Last actions, local map, inventory, error.")


class ActionValidation(Message):
    """Validation verdict for one coded action."""

    name: str
    ok: bool
    error_kind: ErrorKind | None = None
    message: str = Field(default="", description="Feedback for the LLM; empty when ok.")
    trace: str = Field(default="", description="Trace of the failing scenario, for the LLM.")
    expected_effect: str = ""
    scenarios: list[ScenarioOutcome] = Field(default_factory=list)
    _cpu_ms: float | None = PrivateAttr(default=None)

    @property
    def cpu_ms_per_step(self) -> float | None:
        """The action's CPU per step over its validation (ms; None: not measured); a timing,
        kept out of the record."""
        return self._cpu_ms

    def timed(self, cpu_ms: float | None) -> ActionValidation:
        """This verdict with the CPU per step its validation measured."""
        self._cpu_ms = cpu_ms
        return self

    def feedback(self) -> str:
        """The failure as a model should read it: class, message, trace."""
        if self.ok:
            return ""
        return f"{self.error_kind}: {self.message}" + (f"\n{self.trace}" if self.trace else "")


class ValidationReport(Message):
    """Validation of all coded actions of one iteration."""

    actions: list[ActionValidation]

    @property
    def ok(self) -> bool:
        return all(a.ok for a in self.actions)

    def failed(self) -> list[ActionValidation]:
        return [a for a in self.actions if not a.ok]

    def passed(self, coded: list[CodedAction]) -> list[CodedAction]:
        """The coded actions that passed: the only ones that may join the action space, each
        carrying the CPU per step its validation measured (CodedAction.validated_cpu_ms)."""
        good = {a.name: a.cpu_ms_per_step for a in self.actions if a.ok}
        return [c.measured(good[c.name]) for c in coded if c.name in good]

    def excluded(self) -> dict[str, str]:
        """Failed action -> its class and message (why it stays out of training)."""
        return {a.name: f"{a.error_kind}: {a.message}" for a in self.failed()}


class EvalReport(Message):
    """Evaluation of a trained policy over N episodes."""

    success_rate: float = Field(ge=0, le=1)
    episodes: int = Field(gt=0)
    samples: int = Field(ge=0, description="Primitive env steps used in training.")
    mean_episode_steps: float
    dead_loop_ratio: float = Field(ge=0, le=1)
    subgoal_rates: dict[str, float] = Field(description="Sub-action name -> fraction reached.")
    macro_usage: dict[str, float] = Field(description="Macro -> share of policy decisions.")
    macro_dead_loops: dict[str, int] = Field(default_factory=dict)
    macro_errors: dict[str, int] = Field(
        default_factory=dict, description="Coded action -> calls that raised or misbehaved."
    )
    macro_faults: dict[str, str] = Field(
        default_factory=dict, description="Coded action -> its failures and the latest one, "
        "in evaluation, then in training ('in training: ...').",
    )  # fmt: skip
    failure_traces: list[str] = Field(default_factory=list, description="Short traces.")
    ends: dict[str, float] = Field(
        default_factory=dict,
        description="How episodes ended: share of success, death and time_limit.",
    )
    deaths_at: dict[str, float] = Field(
        default_factory=dict,
        description="Sub-action -> share of episodes that died while it was the next "
        "unfinished step of the plan.",
    )


class Critique(Message):
    """Critic: a verdict, every bottleneck, feedback to the fast agent per action, and to the
    slow agent."""

    verdict: Literal["success", "revise_code", "revise_plan"]
    failing_sub_action: str | None = Field(
        default=None, description="The sub-action where the most episodes stop."
    )
    bottlenecks: dict[str, str] = Field(
        default_factory=dict,
        description="Every sub-action that blocks success -> what goes wrong there (its reach "
        "rate, the drop from the one before it) and what to change. Empty on success.",
    )
    fast_feedback: dict[str, str] = Field(default_factory=dict)
    slow_feedback: str = ""
    reasoning: str
    excluded: dict[str, str] = Field(
        default_factory=dict,
        description="Filled by rlgpt, not the model: coded actions kept out of training "
        "because they failed validation, with the reason.",
    )
    reverted: dict[str, str] = Field(
        default_factory=dict,
        description="Filled by rlgpt, not the model: coded actions whose revision lowered "
        "their sub-action's reach rate on the selection episodes; the earlier code is kept.",
    )
