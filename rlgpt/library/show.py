"""`rlgpt skills`: the library as a table, one skill's versions, and its history over runs."""

from __future__ import annotations

import time

from rlgpt.errors import UserError
from rlgpt.library.store import SkillEntry, SkillLibrary


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def list_skills(lib: SkillLibrary) -> str:
    manifest = lib.manifest()
    skills = manifest.skills
    if not skills and not manifest.learned:
        return f"the skill library at {lib.root} is empty (runs add validated actions to it)"
    lines = [f"{'skill':22} {'versions':>8} {'best':>5} {'reach':>6} {'runs':>5}  first written by"]
    for name in sorted(skills):
        best = lib.best(name, manifest)
        first = skills[name][0].origin
        runs = len({s.run_id for e in skills[name] for s in e.stats})
        lines.append(
            f"{name:22} {len(skills[name]):>8} {'v' + str(best.version) if best else '-':>5} "
            f"{best.mean_reach() if best else 0.0:>6.2f} {runs:>5}  "
            f"{first.run_id} iter {first.iteration}"
        )
    for name in sorted(manifest.learned):  # learned skills: reach from held-out start states
        entries = manifest.learned[name]
        top = max(entries, key=lambda e: (e.reach_after or 0.0, e.version))
        label = f"{name} (learned)"
        lines.append(
            f"{label:22} {len(entries):>8} {'v' + str(top.version):>5} "
            f"{top.reach_after or 0.0:>6.2f} {len({e.origin.run_id for e in entries}):>5}  "
            f"{top.origin.run_id} iter {top.origin.iteration}"
        )
    return "\n".join(lines)


def _entry(lib: SkillLibrary, name: str, version: int | None) -> SkillEntry:
    versions = lib.versions(name)
    if not versions:
        known = ", ".join(sorted(lib.manifest().skills)) or "none yet"
        raise UserError(f"no skill '{name}' in {lib.root} (skills: {known})")
    if version is None:
        return lib.best(name) or versions[-1]
    for e in versions:
        if e.version == version:
            return e
    raise UserError(f"skill '{name}' has versions 1..{len(versions)}, not {version}")


def show_skill(lib: SkillLibrary, name: str, version: int | None = None) -> str:
    e = _entry(lib, name, version)
    o = e.origin
    return "\n".join(
        [
            f"{e.name} v{e.version}  sha256 {e.source_hash[:16]}  {lib.root / e.file}",
            f"  effect: {e.effect}",
            f"  precondition: {e.precondition}",
            f"  validation: {e.validation}",
            f"  written by run {o.run_id} iteration {o.iteration} (task {o.task}) via prompt "
            f"{o.template or '-'} {(o.template_hash or '-')[:12]}, model {o.model or '-'}",
            f"  exchange: {o.exchange or '-'}",
            f"  trained with in {len(e.stats)} iteration(s), mean reach {e.mean_reach():.2f}",
            "",
            lib.verify(e).source,
        ]
    )


def history(lib: SkillLibrary, name: str) -> str:
    _entry(lib, name, None)  # an unknown name is a UserError
    versions = lib.versions(name)
    lines = [f"{name}: {len(versions)} version(s)"]
    for e in versions:
        lines.append(
            f"v{e.version} {e.source_hash[:12]} {_when(e.created)} from run "
            f"{e.origin.run_id} iter {e.origin.iteration}; validation "
            f"{e.validation.get('effect_in')}"
        )
        for s in e.stats:
            lines.append(
                f"    {s.run_id} iter {s.iteration} ({s.task}): reached "
                f"{s.reach_rate:.2f}, called in {s.usage:.0%} of decisions, "
                f"{s.errors} errors, {s.dead_loops} dead loops, task success "
                f"{s.task_success:.2f}"
            )
    return "\n".join(lines)
