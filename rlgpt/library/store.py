"""The skill library: validated coded actions that outlive the run that wrote them.

A directory (params `library.path`, versioned with DVC: `rlgpt skills snapshot`) holding one
source file per version, `<name>/v<version>-<hash12>.py`, and `manifest.json`: per sub-action
name, every version with its effect, precondition, source hash, validation evidence, success
statistics from each run that trained with it, and its origin (the run, iteration and prompt
that first wrote it). Runs add to it under a file lock; a run retrieves the best version of a
sub-action before asking the fast agent, re-validates it, and records which entry it used.
Entries are keyed by world as well as by name: a skill recorded in one world is never
retrieved in another (docs/worlds.md).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from rlgpt.errors import UserError
from rlgpt.messages import ActionValidation, CodedAction, EvalReport, SubAction
from rlgpt.worlds import DEFAULT_WORLD

MANIFEST = "manifest.json"


class Origin(BaseModel):
    """Who first wrote a version: the run, the iteration, and the exchange with its prompt."""

    model_config = ConfigDict(extra="forbid")
    run_id: str
    iteration: int
    task: str
    exchange: str | None = None  # path of the LLM exchange (rendered prompt and reply)
    template: str | None = None  # prompt template name
    template_hash: str | None = None
    model: str | None = None


class UsageStat(BaseModel):
    """How a version did in one iteration that trained with it."""

    model_config = ConfigDict(extra="forbid")
    run_id: str
    iteration: int
    task: str
    reach_rate: float  # share of evaluation episodes that reached its achievement
    usage: float  # share of the policy's decisions that called it
    errors: int = 0
    dead_loops: int = 0
    task_success: float = 0.0
    deaths: float = 0.0  # share of episodes that died while it was the plan's next step


class SkillEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    world: str = "crafter"  # entries recorded before worlds were all Crafter's
    version: int = Field(ge=1)
    source_hash: str
    file: str
    docstring: str
    step_budget: int
    effect: str
    precondition: str
    validation: dict[str, object]
    origin: Origin
    stats: list[UsageStat] = Field(default_factory=list)
    created: float

    def mean_reach(self) -> float:
        return sum(s.reach_rate for s in self.stats) / len(self.stats) if self.stats else 0.0

    def coded_action(self, root: Path) -> CodedAction:
        return CodedAction(
            name=self.name,
            docstring=self.docstring,
            step_budget=self.step_budget,
            source=(root / self.file).read_text(),
        )


class LearnedEntry(BaseModel):
    """A learned action's policy: its config (what its weights mean: `space`), its reach from
    held-out start states before and after training, where it came from."""

    model_config = ConfigDict(extra="forbid")
    name: str
    world: str
    version: int = Field(ge=1)
    policy_sha256: str
    file: str
    config: dict[str, object]
    space: str
    reach_before: float | None = None
    reach_after: float | None = None
    skill_reach: float | None = None
    samples: int = 0
    origin: Origin
    created: float


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    skills: dict[str, list[SkillEntry]] = Field(default_factory=dict)
    learned: dict[str, list[LearnedEntry]] = Field(default_factory=dict)


def source_hash(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


class SkillLibrary:
    """Read and extend a library directory; writers serialize on `<path>/.lock`."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def manifest(self) -> Manifest:
        path = self.root / MANIFEST
        if not path.is_file():
            return Manifest()
        try:
            return Manifest.model_validate_json(path.read_text())
        except ValueError as exc:
            why = exc.__class__.__name__
            raise UserError(
                f"skill library manifest {path} is damaged ({why}); restore it with "
                "`dvc checkout` or move it away"
            ) from None

    def versions(self, name: str) -> list[SkillEntry]:
        return list(self.manifest().skills.get(name, []))

    def best(
        self, name: str, manifest: Manifest | None = None, world: str = DEFAULT_WORLD
    ) -> SkillEntry | None:
        """The version of `world` to reuse: validated, most reached in training, newest on a
        tie; a version never trained with comes after every one that was. Pass `manifest`
        when asking for several names, so the file is read once."""
        entries = (manifest or self.manifest()).skills.get(name, [])
        ok = [e for e in entries if e.validation.get("ok") and e.world == world]
        if not ok:
            return None
        return max(ok, key=lambda e: (bool(e.stats), e.mean_reach(), e.version))

    def verify(self, entry: SkillEntry) -> CodedAction:
        """The entry's code, checked against its recorded hash; its file must lie inside the
        library (the manifest is a file anyone can edit)."""
        root = self.root.resolve()
        if not (root / entry.file).resolve().is_relative_to(root):
            raise UserError(
                f"skill library entry {entry.name} v{entry.version} points outside "
                f"{self.root}: {entry.file}"
            )
        action = entry.coded_action(self.root)
        if source_hash(action.source) != entry.source_hash:
            raise UserError(
                f"skill library file {self.root / entry.file} does not match its "
                "manifest hash; restore it with `dvc checkout`"
            )
        return action

    @contextlib.contextmanager
    def _locked(self) -> Iterator[Manifest]:
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            manifest = self.manifest()
            yield manifest
            tmp = self.root / f".{MANIFEST}.{os.getpid()}.tmp"
            tmp.write_text(manifest.model_dump_json(indent=1))
            os.replace(tmp, self.root / MANIFEST)

    def record(
        self, action: CodedAction, sub: SubAction, validation: ActionValidation,
        origin: Origin, stat: UsageStat | None, world: str = DEFAULT_WORLD,
    ) -> SkillEntry:  # fmt: skip
        """Add `action` of `world` (a new version unless its source is already there for that
        world) and, once, the statistics of the iteration that trained with it."""
        digest = source_hash(action.source)
        with self._locked() as manifest:
            versions = manifest.skills.setdefault(action.name, [])
            same = (e for e in versions if e.source_hash == digest and e.world == world)
            entry = next(same, None)
            if entry is None:
                version = len(versions) + 1
                rel = f"{action.name}/v{version}-{digest[:12]}.py"
                (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
                (self.root / rel).write_text(action.source)
                entry = SkillEntry(
                    name=action.name, world=world, version=version, source_hash=digest, file=rel,
                    docstring=action.docstring, step_budget=action.step_budget,
                    effect=sub.expected_effect, precondition=sub.precondition,
                    validation=_evidence(validation), origin=origin, created=time.time(),
                )  # fmt: skip
                versions.append(entry)
            seen = {(s.run_id, s.iteration) for s in entry.stats}
            if stat is not None and (stat.run_id, stat.iteration) not in seen:
                entry.stats.append(stat)
            return entry

    def record_learned(
        self, name: str, world: str, policy: Path, config: dict[str, object], space: str,
        reach: tuple[float | None, float | None, float | None], *, samples: int, origin: Origin,
    ) -> LearnedEntry:  # fmt: skip
        """Add a trained learned action's policy (a new version unless the same weights are
        there); `reach`: before and after training, and its code alone."""
        digest = hashlib.sha256(policy.read_bytes()).hexdigest()
        with self._locked() as manifest:
            versions = manifest.learned.setdefault(name, [])
            same = next((e for e in versions if e.policy_sha256 == digest), None)
            if same is not None:
                return same
            version = len(versions) + 1
            rel = f"{name}/learned-v{version}-{digest[:12]}.zip"
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_bytes(policy.read_bytes())
            entry = LearnedEntry(
                name=name, world=world, version=version, policy_sha256=digest, file=rel,
                config=config, space=space, reach_before=reach[0], reach_after=reach[1],
                skill_reach=reach[2], samples=samples, origin=origin, created=time.time(),
            )  # fmt: skip
            versions.append(entry)
            return entry

    def best_learned(self, name: str, world: str, space: str) -> LearnedEntry | None:
        """The learned version of `world` whose weights mean the same (`space`) that reached
        its effect most often after training; its file checked against its hash."""
        entries = [
            e
            for e in self.manifest().learned.get(name, [])
            if e.world == world and e.space == space
        ]
        root = self.root.resolve()
        for e in sorted(entries, key=lambda e: (e.reach_after or 0.0, e.version), reverse=True):
            path = (self.root / e.file).resolve()
            if (
                path.is_relative_to(root)
                and path.is_file()
                and hashlib.sha256(path.read_bytes()).hexdigest() == e.policy_sha256
            ):
                return e
        return None


def _evidence(v: ActionValidation) -> dict[str, object]:
    met = [s for s in v.scenarios if s.spec is not None and s.spec.precondition == "met"]
    return {
        "ok": v.ok,
        "error_kind": v.error_kind,
        "effect_in": f"{sum(bool(s.effect) for s in met)}/{len(met)} met scenarios",
        "scenarios": len(v.scenarios),
    }


def usage_stat(name: str, run_id: str, k: int, task: str, report: EvalReport) -> UsageStat:
    return UsageStat(
        run_id=run_id, iteration=k, task=task,
        reach_rate=round(report.subgoal_rates.get(name, 0.0), 4),
        usage=round(report.macro_usage.get(name, 0.0), 4),
        errors=report.macro_errors.get(name, 0), dead_loops=report.macro_dead_loops.get(name, 0),
        task_success=report.success_rate, deaths=round(report.deaths_at.get(name, 0.0), 4),
    )  # fmt: skip


def origin_of(run: Path, k: int, name: str, task: str) -> Origin:
    """The latest fast-agent exchange of iteration k that wrote `name`."""
    found: tuple[Path, dict[str, object]] | None = None
    for path in sorted((run / f"iter_{k}" / "llm").glob("*.json")):
        with contextlib.suppress(OSError, ValueError):
            ex = json.loads(path.read_text())
            req = ex.get("request", {})
            ctx = req.get("context", {})
            sub = ctx.get("sub_action") or ctx.get("action") or {}
            if req.get("kind") in ("fast_code", "fast_repair") and sub.get("name") == name:
                found = (path, ex)
    if found is None:
        return Origin(run_id=run.name, iteration=k, task=task)
    path, ex = found
    req = ex["request"]
    assert isinstance(req, dict)
    return Origin(
        run_id=run.name, iteration=k, task=task, exchange=str(path), template=req.get("kind"),
        template_hash=req.get("template_hash"), model=str(ex.get("model")),
    )  # fmt: skip
