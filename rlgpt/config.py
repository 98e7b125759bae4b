"""params.yaml, read into typed models. Every field is documented; unknown keys are errors."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rlgpt.errors import UserError
from rlgpt.messages import PPOConfig
from rlgpt.worlds import DEFAULT_WORLD, WORLDS


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RunParams(_Section):
    """What to run."""

    world: str = Field(
        default=DEFAULT_WORLD,
        description="The game: 'crafter' or 'craftax-classic' (the `craftax` extra; see "
        "docs/worlds.md).",
    )
    task: str = Field(default="make_wood_pickaxe", description="Task name (see `rlgpt tasks`).")
    iterations: int = Field(default=4, ge=1, le=50, description="Most iterations (inner+outer).")
    max_inner: int = Field(default=2, ge=1, description="Fast-agent rounds per decomposition.")
    success_threshold: float = Field(
        default=0.8, ge=0, le=1, description="Stop once an iteration's success rate reaches it."
    )
    seed: int = Field(default=0, ge=0, description="Seed of envs, PPO and evaluation.")
    learn_first: list[str] = Field(
        default_factory=list,
        description="Sub-actions the first plan leaves to RL whatever the evidence (to study "
        "what learning does where code would work, or the paper's protocol, where search is "
        "learned first); later plans follow the evidence.",
    )
    runs_dir: str = Field(default="runs", description="Where run directories are written.")
    agents: Literal["two", "one"] = Field(
        default="two",
        description="'two': a slow agent plans and a fast agent codes; 'one': one prompt plans "
        "and codes each iteration (the agents ablation).",
    )
    critic: bool = Field(
        default=True,
        description="false: the critic is not asked and its feedback withheld; an iteration "
        "only learns whether it reached success_threshold (the critic ablation).",
    )

    @field_validator("world")
    @classmethod
    def _known_world(cls, v: str) -> str:
        if v not in WORLDS:
            raise ValueError(f"unknown world '{v}'; choose one of: {', '.join(WORLDS)}")
        return v


class Price(_Section):
    """Dollars per 1,000 tokens of one model."""

    prompt_per_1k: float = Field(default=0.0, ge=0)
    completion_per_1k: float = Field(default=0.0, ge=0)


class LLMParams(_Section):
    """Which author plays the three agents, and how to reach it."""

    backend: Literal["offline", "openai", "replay"] = Field(
        default="offline",
        description="'offline': the deterministic recipe-graph author (not an LLM); 'openai': any "
        "OpenAI-compatible endpoint; 'replay': the recorded exchanges of run `replay_from`.",
    )
    model: str = Field(default="offline-author-v1", description="Model for every role.")
    models: dict[Literal["slow", "fast", "critic", "one"], str] = Field(
        default_factory=dict, description="Per-role model overrides, e.g. {fast: gpt-4o-mini}."
    )
    base_url: str | None = Field(
        default=None, description="Endpoint; unset: OPENAI_BASE_URL, then api.openai.com."
    )
    api_key_env: str = Field(
        default="OPENAI_API_KEY", description="Environment variable holding the key."
    )
    temperature: float = Field(default=0.0, ge=0, le=2, description="Sampling temperature.")
    seed: int | None = Field(default=0, description="Sampling seed, where the endpoint has one.")
    timeout_s: float = Field(default=120.0, gt=0, description="Per-request timeout.")
    max_tokens: int = Field(default=4096, gt=0, description="Completion token cap.")
    max_retries: int = Field(default=4, ge=0, description="Retries of transient errors.")
    backoff_s: float = Field(default=2.0, ge=0, description="First backoff; doubles per retry.")
    response_format: Literal["json_schema", "json_object", "none"] = Field(
        default="json_schema",
        description="Structured output mode; falls back to 'none' if the endpoint rejects it.",
    )
    max_repairs: int = Field(default=2, ge=0, description="Fast-agent repairs after validation.")
    format_retries: int = Field(default=2, ge=0, description="Re-asks after an invalid reply.")
    replay_from: str | None = Field(default=None, description="Run id to replay (backend replay).")
    prices: dict[str, Price] = Field(
        default_factory=dict, description="Model -> price per 1k tokens, for cost accounting."
    )
    budget_tokens: int | None = Field(default=None, gt=0, description="Stop past this many.")
    budget_usd: float | None = Field(default=None, gt=0, description="Stop past this cost.")

    def model_for(self, role: str) -> str:
        return self.models.get(role, self.model)  # type: ignore[call-overload]


Masking = Literal["off", "recipes", "plan"]


class TrainParams(_Section):
    """PPO training (stable-baselines3)."""

    sample_budget: int = Field(
        default=60_000, gt=0, le=1_000_000_000,
        description="Primitive env steps per iteration (macros included).",
    )  # fmt: skip
    n_envs: int = Field(
        default=4, ge=1,
        description="Envs per training, stepped in turns in one process (rlgpt/rl/interleave.py).",
    )  # fmt: skip
    torch_threads: int = Field(
        default=1, ge=1, description="torch.set_num_threads (1: several runs share the cores)."
    )
    macro_step_budget: int = Field(default=80, gt=0, description="Primitive steps per macro call.")
    ppo: PPOConfig = Field(default_factory=PPOConfig, description="PPO hyper-parameters.")
    fused_adam: bool = Field(
        default=True,
        description="PPO's Adam in one fused kernel per step (torch's fused=True): the same "
        "algorithm, a fifth to a third less time per update here (docs/speed.md), but not the "
        "same float rounding as one kernel per operation (false), so a policy trained one way "
        "is not bit for bit the policy trained the other. A run recorded without this key "
        "(before it existed) trains, resumes and reproduces with false, as it was made.",
    )
    sparse_input: bool = Field(
        default=True,
        description="Updates multiply only the input columns a minibatch uses (one-hot inputs; "
        "rlgpt/rl/lean.py): faster, other float rounding than false; a run recorded without "
        "this key goes on with false, as train.fused_adam.",
    )
    device: Literal["cpu", "cuda", "auto"] = Field(
        default="cpu", description="torch device of the policy; a GPU helps image policies only."
    )
    view_radius: int = Field(default=4, ge=1, le=16, description="Symbolic view half-width.")
    checkpoint_every: int = Field(
        default=20_000, ge=0, description="Samples between training checkpoints (0: none)."
    )
    warm_start: bool = Field(
        default=True,
        description="Continue the previous iteration's policy when the action space (actions, "
        "observation, network) is the same; false trains every iteration from scratch.",
    )
    action_masking: Masking = Field(
        default="plan",
        description="Which coded actions the policy may call (sb3-contrib MaskablePPO; "
        "docs/design.md, action masks): 'recipes' hides those whose recipe precondition does "
        "not hold or whose effect already holds; 'plan' also keeps only the plan's next "
        "unfinished step among its chain (survival actions stay free); 'off' (or false): "
        "plain PPO, every action always allowed.",
    )

    @field_validator("action_masking", mode="before")
    @classmethod
    def _masking_bool(cls, v: object) -> object:
        return {True: "recipes", False: "off"}.get(v, v) if isinstance(v, bool) else v

    @property
    def masked(self) -> bool:
        return self.action_masking != "off"


class LearnParams(_Section):
    """Learned actions (docs/design.md, learned actions): each sub-action left to RL is trained
    as its own policy from the states where it starts, then joins the task's action space."""

    sample_budget: int = Field(
        default=150_000, gt=0, le=1_000_000_000,
        description="Most primitive env steps one learned action trains in one iteration (a "
        "model may ask for fewer); they count toward the run's samples.",
    )  # fmt: skip
    step_budget: int = Field(
        default=3000, gt=0, le=20_000,
        description="Most primitive steps of one call (one training episode) of a learned "
        "action (a model chooses within it).",
    )  # fmt: skip
    starts: int = Field(
        default=48, ge=1, description="Staged start states it trains from (the world's staging)."
    )
    rollouts: int = Field(
        default=12, ge=0, description="Episodes of the task's own, its skills in plan order, "
        "played for start states where the sub-action is next (more in later iterations: the "
        "states where the top-level policy called it).",
    )  # fmt: skip
    held_out: int = Field(
        default=12, ge=1, description="Held-out start states that measure its reach before "
        "and after training.",
    )  # fmt: skip
    min_reach: float = Field(
        default=0.1, ge=0, le=1, description="A learned action that reaches its effect from a "
        "smaller share of the held-out states after training stays out of the action space.",
    )  # fmt: skip
    n_envs: int = Field(default=4, ge=1, description="Envs of one learned action's training.")
    parallel: int | None = Field(
        default=None, ge=1, description="Learned actions trained at once, each in its own "
        "process (null: one per core).",
    )  # fmt: skip
    snapshots: int = Field(
        default=32, ge=0, description="States kept per learned action from a top-level "
        "training, where the policy called it: its start states when it trains further.",
    )  # fmt: skip
    stop_reach: float | None = Field(
        default=0.9, gt=0, le=1, description="Its training ends before its sample budget once "
        "this share of its last `stop_window` training episodes reached its effect, in all "
        "and among those from each group of start states (staged, the task's own): the "
        "samples an action already learned would spend go unspent (null: always the whole "
        "budget).",
    )  # fmt: skip
    stop_window: int = Field(
        default=100, ge=1, description="Training episodes that stop_reach is judged over (a "
        "short window stops on a lucky run: docs/learned.md).",
    )  # fmt: skip


class EvalParams(_Section):
    """Evaluation of each iteration's policy."""

    episodes: int = Field(default=30, ge=1, description="Evaluation episodes.")
    deterministic: bool = Field(
        default=False,
        description="Greedy (argmax) actions when evaluating; false samples the policy as it was "
        "trained, seeded per episode (greedy play repeats a coded action that cannot act and "
        "stalls: docs/design.md, evaluation).",
    )
    dead_loop_window: int = Field(
        default=100, ge=10, description="Steps without progress that make an episode stuck."
    )
    selection_episodes: int = Field(
        default=20, ge=0,
        description="Episodes on selection seeds, held apart from the evaluation seeds: they "
        "choose the run's final policy (the best iteration's) and keep out a code revision "
        "that lowered its sub-action's reach rate (docs/design.md, keeping what a run won); "
        "0: the last iteration is final and nothing is reverted.",
    )  # fmt: skip


class SandboxParams(_Section):
    """Validation of generated code (out of process)."""

    isolation: Literal["bwrap", "degraded"] = Field(
        default="bwrap",
        description="bwrap: bubblewrap (no network, read-only filesystem, uid nobody), fail "
        "closed if it cannot start; degraded: rlimits and a clean environment only (logged).",
    )

    timeout_s: float = Field(
        default=20.0,
        gt=0,
        description="Limit for validating one action (all scenarios), "
        "in CPU (the action's and its env's; a starved run is waited for, up to 10x in wall "
        "time).",
    )
    reply_timeout_s: float = Field(
        default=2.0,
        gt=0,
        description="Longest a coded action may take to give one action (s): "
        "in CPU where measured (a starved worker is waited for, up to 10x in wall time).",
    )
    scenarios: int = Field(
        default=3, ge=1, description="States per action in which its precondition holds."
    )
    min_effect_share: float = Field(
        default=0.66, gt=0, le=1,
        description="Share of those states in which its effect must happen (0.66 of 3: 2).",
    )  # fmt: skip
    unmet_steps: int = Field(
        default=8, ge=0, description="Where its precondition fails, it must end within these."
    )
    scenario_steps: int = Field(
        default=150, ge=1, description="Steps per state for an action not named after an "
        "achievement (no effect to check; containment only).",
    )  # fmt: skip
    end_steps: int = Field(
        default=8, ge=1, description="After its effect, an action must end within these steps."
    )
    episode_states: bool = Field(
        default=True, description="Also run states from later in an episode (dusk, night, low "
        "food and drink, a hostile near, lava on the way, the target out of view).",
    )  # fmt: skip
    step_cpu_ms: float = Field(
        default=25.0, gt=0, description="Most CPU a coded action may use per step on average "
        "(ms; its worker and every process it starts), in validation and in training; the "
        "reference skills use about 1. Over it, validation fails it (timeout) and training "
        "disables it with the reason.",
    )  # fmt: skip
    run_memory_mib: int = Field(
        default=2048, ge=64, description="Memory all the sandboxed workers of one run may hold "
        "together (MiB; each worker also has its own 1 GiB cap).",
    )  # fmt: skip

    def required_effects(self, n: int) -> int:
        """How many of n met scenarios must show the effect."""
        return max(1, math.ceil(self.min_effect_share * n - 1e-9))


class TrackingParams(_Section):
    """MLflow tracking."""

    mlflow_uri: str = Field(
        default="sqlite:///mlflow.db", description="Tracking URI (relative sqlite = project dir)."
    )
    experiment: str = Field(default="rlgpt", description="MLflow experiment name.")
    parent_run: str | None = Field(
        default=None, description="An MLflow run id to nest this run under (a benchmark's)."
    )


class LibraryParams(_Section):
    """The skill library that outlives runs (`rlgpt skills`; docs/design.md, skill library)."""

    path: str = Field(default="skill_library", description="Library directory (DVC-tracked).")
    use: bool = Field(
        default=True, description="Retrieve a validated skill before asking the fast agent."
    )
    add: bool = Field(
        default=True, description="Record validated actions and their training statistics."
    )


class ReproduceParams(_Section):
    """Scheduled reproduction of a recorded run (`rlgpt reproduce`, `rlgpt serve`)."""

    tolerance: float = Field(
        default=0.05, ge=0, le=1, description="Largest allowed change of a rate per iteration."
    )


class ScaleParams(_Section):
    """Fan-out (docs/scaling.md): the runs of `rlgpt sweep` and the candidates of a sub-action."""

    runner: Literal["dask", "sequential"] = Field(
        default="dask",
        description="'dask': prefect-dask's DaskTaskRunner (a LocalCluster of `workers`, or the "
        "scheduler at `address`); 'sequential': one task at a time, in this process.",
    )
    workers: int = Field(default=2, ge=1, le=512, description="LocalCluster worker processes.")
    threads_per_worker: int = Field(
        default=1, ge=1, description="Tasks at once per Dask worker (a run is one task)."
    )
    address: str | None = Field(
        default=None, description="An existing Dask scheduler, e.g. tcp://10.0.0.5:8786."
    )
    retries: int = Field(
        default=2, ge=0, description="Retries of a sweep run that failed (it resumes)."
    )
    training_slots: int | None = Field(
        default=None, ge=0,
        description="Most trainings that learn at once on this machine, over all runs of this "
        "user (null: one per core; 0: no limit). More trainings wait for a slot.",
    )  # fmt: skip
    candidates: int = Field(
        default=1, ge=1, le=16,
        description="Coded-action candidates the fast agent samples per sub-action; all are "
        "validated in parallel and the best by validation evidence is kept.",
    )  # fmt: skip


class Params(_Section):
    """The whole params.yaml."""

    run: RunParams = Field(default_factory=RunParams)
    llm: LLMParams = Field(default_factory=LLMParams)
    train: TrainParams = Field(default_factory=TrainParams)
    learn: LearnParams = Field(default_factory=LearnParams)
    eval: EvalParams = Field(default_factory=EvalParams)
    sandbox: SandboxParams = Field(default_factory=SandboxParams)
    tracking: TrackingParams = Field(default_factory=TrackingParams)
    reproduce: ReproduceParams = Field(default_factory=ReproduceParams)
    library: LibraryParams = Field(default_factory=LibraryParams)
    scale: ScaleParams = Field(default_factory=ScaleParams)


def _one_line(where: str, exc: ValidationError, names: dict[str, str] | None = None) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(x) for x in err["loc"])
    what = (names or {}).get(loc, f"'{loc}'")
    return f"{where}: invalid value for {what}: {err['msg']}"


def dotted_keys(d: dict[str, Any], prefix: str = "") -> list[str]:
    """Dotted keys of every value set (not None) in a nested override."""
    out: list[str] = []
    for k, v in d.items():
        if isinstance(v, dict) and v:
            out += dotted_keys(v, f"{prefix}{k}.")
        elif v is not None:
            out.append(f"{prefix}{k}")
    return out


def merge_nested(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`over` on top of `base`, nested mappings merged key by key (train.ppo.n_epochs=4 keeps
    the other PPO settings of the file)."""
    out = dict(base)
    for k, v in over.items():
        if v is None:
            continue
        both = isinstance(v, dict) and isinstance(out.get(k), dict)
        out[k] = merge_nested(out[k], v) if both else v
    return out


def parse_sets(items: list[str]) -> dict[str, dict[str, Any]]:
    """`--set a.b=VALUE` items as nested overrides (VALUE read as YAML: 30000, 0.5, true, [1]);
    a malformed item is a UserError that shows the form."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        path = key.strip().split(".")
        if not sep or len(path) < 2 or not all(path):
            raise UserError(f"--set {item!r}: expected SECTION.KEY=VALUE, "
                            "e.g. --set train.sample_budget=30000")  # fmt: skip
        try:
            value = yaml.safe_load(raw)
        except yaml.YAMLError:
            raise UserError(f"--set {item!r}: the value is not valid YAML") from None
        node = out
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise UserError(f"--set {item!r}: {part} is set to a value and a section")
        node[path[-1]] = value
    return out


def validate_params(
    data: dict[str, Any], where: str, overrides: dict[str, dict[str, Any]] | None = None,
    names: dict[str, str] | None = None,
) -> Params:  # fmt: skip
    """The one validation path of every value, from a file, a run directory or the command
    line (`overrides`, section -> key -> value; `names` says which flag set a key): strict
    types (`true` is no number, 1e18 is no integer), bounds, no unknown keys."""
    merged = {k: dict(v) if isinstance(v, dict) else v for k, v in data.items()}
    given = set(dotted_keys(overrides or {}))
    names = {k: v for k, v in (names or {}).items() if k in given}  # flags name only their own
    for section, values in (overrides or {}).items():
        values = {k: v for k, v in values.items() if v is not None}
        if values:
            base = merged.get(section, {})
            merged[section] = merge_nested(base if isinstance(base, dict) else {}, values)
    try:
        return Params.model_validate(merged, strict=True)
    except ValidationError as exc:
        raise UserError(_one_line(where, exc, names)) from None


def load_params(
    path: str | Path | None, overrides: dict[str, dict[str, Any]] | None = None,
    names: dict[str, str] | None = None,
) -> Params:  # fmt: skip
    """Read params.yaml (None: the defaults) and apply command-line overrides; a missing,
    empty, unparsable or invalid file, or a bad value, is a UserError naming the key."""
    if path is None:
        return validate_params({}, "defaults", overrides, names)
    p = Path(path)
    if not p.is_file():
        raise UserError(f"params file not found: {p}")
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise UserError(f"{p}: malformed YAML{where}; fix the syntax") from None
    if data is None:
        raise UserError(f"{p} is empty: give it sections (run, llm, train, ...) or leave it out")
    if not isinstance(data, dict) or not data:
        raise UserError(f"{p}: expected a mapping of sections (run, llm, train, ...)")
    return validate_params(data, str(p), overrides, names)


# train's options that change a policy's float rounding, each added after runs were recorded
ROUNDING_OPTIONS = ("fused_adam", "sparse_input")


def read_run_params(path: Path) -> Params:
    """The parameters a run recorded in its directory (JSON), validated like any others."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        why = type(exc).__name__
        raise UserError(f"{path} is unreadable ({why}); the run directory is damaged") from None
    if not isinstance(data, dict):
        raise UserError(f"{path} is not a parameter mapping; the run is damaged")
    train = data.get("train")
    if isinstance(train, dict):  # recorded before an option of its float rounding existed:
        made = {k: False for k in ROUNDING_OPTIONS if k not in train}  # trained without it
        data = {**data, "train": {**train, **made}}
    return validate_params(data, str(path))
