"""How runs use the skill library: retrieve before the fast agent writes, record after training.

A retrieved skill is re-validated by the run like fresh code, so a stale or broken entry is
caught (and repaired by the fast agent) instead of trusted. `iter_<k>/library_used.json` says
which entry each reused action came from; `rlgpt lineage` follows it to the run and prompt that
first wrote it.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from rlgpt.errors import UserError
from rlgpt.evidence import LibraryRecord
from rlgpt.library.store import Origin, SkillEntry, SkillLibrary, origin_of, usage_stat
from rlgpt.messages import CodedAction, Decomposition, EvalReport, ValidationReport
from rlgpt.trial import Trial
from rlgpt.worlds import DEFAULT_WORLD

log = logging.getLogger(__name__)
LIBRARY_USED = "library_used.json"


def retrieve(
    root: Path, dec: Decomposition, skip: set[str], world: str = DEFAULT_WORLD
) -> dict[str, tuple[SkillEntry, CodedAction]]:
    """The best validated library version of `world` of each coded sub-action not in `skip`."""
    lib = SkillLibrary(root)
    manifest = lib.manifest()
    found: dict[str, tuple[SkillEntry, CodedAction]] = {}
    for sub in dec.sub_actions:
        if sub.mode != "code" or sub.name in skip:
            continue
        entry = lib.best(sub.name, manifest, world)
        if entry is None:
            continue
        try:
            found[sub.name] = (entry, lib.verify(entry))
        except (UserError, OSError) as exc:  # a damaged entry: write the action afresh
            log.warning("skill library: %s v%d not reused: %s", sub.name, entry.version, exc)
    return found


def recorded(it_dir: Path, skip: set[str]) -> dict[str, tuple[SkillEntry, CodedAction]]:
    """What a recorded iteration reused from the library, with the exact code it ran (its
    own copy under actions/), so that a replay reuses the same, whatever the library holds."""
    path = it_dir / LIBRARY_USED
    used = json.loads(path.read_text()) if path.is_file() else {}
    out = {}
    for name, data in used.items():
        action = it_dir / "actions" / f"{name}.json"
        if name not in skip and action.is_file():
            entry = SkillEntry.model_validate(data | {"stats": []})
            out[name] = (entry, CodedAction.model_validate_json(action.read_text()))
    return out


def record_iteration(
    root: Path, run: Path, trial: Trial, *, validation: ValidationReport, evaluation: EvalReport
) -> list[SkillEntry]:
    """Add every coded action of the trial that passed this iteration's validation (in the
    trial's world), with how it did in training. A reused entry keeps its first writer as
    origin; recording twice changes nothing."""
    k, task, dec, world = trial.k, trial.task.name, trial.dec, trial.task.world
    lib = SkillLibrary(root)
    used_path = run / f"iter_{k}" / LIBRARY_USED
    used = json.loads(used_path.read_text()) if used_path.is_file() else {}
    verdicts = {v.name: v for v in validation.actions}
    subs = {s.name: s for s in dec.sub_actions}
    out = []
    for action in trial.coded:
        verdict = verdicts.get(action.name)
        if verdict is None or not verdict.ok or action.name not in subs:
            continue
        if action.name in used:
            origin = Origin.model_validate(used[action.name]["origin"])
        else:
            origin = origin_of(run, k, action.name, task)
        stat = usage_stat(action.name, run.name, k, task, evaluation)
        out.append(lib.record(action, subs[action.name], verdict, origin, stat, world))
    return out


def history(root: Path, world: str) -> dict[str, LibraryRecord]:
    """Each sub-action's best coded version of `world` with a training record: over how many
    iterations it trained, its mean reach rate, and the mean share of episodes that died
    while it was the next step (evidence for the slow agent: rlgpt/evidence.py)."""
    lib = SkillLibrary(root)
    manifest = lib.manifest()
    out: dict[str, LibraryRecord] = {}
    for name in manifest.skills:
        entry = lib.best(name, manifest, world)
        if entry is None or not entry.stats:
            continue
        n = len(entry.stats)
        out[name] = LibraryRecord(
            iterations=n,
            mean_reach=entry.mean_reach(),
            mean_deaths=sum(s.deaths for s in entry.stats) / n,
        )
    return out
