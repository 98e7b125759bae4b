"""The audit chain of a run: prompt template -> rendered prompt -> model reply -> generated code
-> validation -> RL config -> checkpoint -> evaluation, and back from a prompt hash to every
policy it led to. Read from the run directories; nothing else is needed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from rlgpt.agents.prompting import PROMPTS_DIR
from rlgpt.errors import UserError
from rlgpt.lineage.layout import sha256_file
from rlgpt.lineage.rundir import RUN_ID
from rlgpt.llm.exchanges import read_exchange


def _git_commit(path: Path) -> str | None:
    """The last commit that touched a file, if the project is a git checkout."""
    try:
        out = subprocess.run(
            ["git", "log", "-1", "--format=%H", "--", str(path)],
            cwd=path.parent,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def _json(path: Path) -> Any:
    return json.loads(path.read_text()) if path.is_file() else None


def continued_from(run: Path, k: int) -> tuple[int | None, str | None]:
    """The iteration whose policy iteration k's training continued (train.warm_start), and
    the sha256 of the policy it started from."""
    meta = _json(run / f"iter_{k}" / "train" / "train.json") or {}
    src = meta.get("warm_start_from")
    name = Path(src).parent.parent.name if src else ""
    j = int(name.split("_")[1]) if name.startswith("iter_") and name[5:].isdigit() else None
    return j, meta.get("warm_start_sha256")


def iteration_chain(run: Path, k: int) -> dict[str, Any]:
    """Everything that produced iteration k's policy, in order."""
    it = run / f"iter_{k}"
    exchanges = []
    for path in sorted((it / "llm").glob("*.json")):
        ex = read_exchange(path)
        req, rep = ex.request, ex.reply
        template = PROMPTS_DIR / f"{req.kind}.md"
        exchanges.append({
            "template": {"name": req.kind, "sha256": req.template_hash,
                         "file": str(template), "git_commit": _git_commit(template)},
            "rendered_prompt": str(path), "agent": req.agent,
            "reply": {"backend": ex.backend, "model": ex.model,
                      "time": path.stat().st_mtime, "tokens": rep.prompt_tokens
                      + rep.completion_tokens, "ok": ex.ok, "cached": ex.cached},
        })  # fmt: skip
    code = {p.stem: sha256_file(p) for p in sorted((it / "actions").glob("*.py"))}
    continued, continued_sha = continued_from(run, k)
    policy = it / "train" / "policy.zip"
    rl_config = it / "rl_config.json"
    validation = _json(it / "validation.json") or {"actions": []}
    try:
        params = _json(run / "params.yaml") or {}  # the run's parameters, as JSON
    except ValueError:
        params = {}
    return {
        "run_id": run.name,
        "world": params.get("run", {}).get("world", "crafter"),  # recorded before other worlds
        "iteration": k,
        "exchanges": exchanges,
        "code_sha256": code,
        "validation": {a["name"]: a["error_kind"] or "ok" for a in validation["actions"]},
        "rl_config_sha256": sha256_file(rl_config) if rl_config.is_file() else None,
        "checkpoint": {
            "path": str(policy),
            "sha256": sha256_file(policy) if policy.is_file() else None,
        },
        "evaluation": _json(it / "eval.json"),
        "selection": _json(it / "selection.json"),  # eval.selection_episodes: chose the policy
        "critique": _json(it / "critique.json"),
        "library": _json(it / "library_used.json") or {},
        "candidates": _json(it / "candidates.json") or {},  # scale.candidates: all sampled
        "continued_from": continued,
        "continued_sha256": continued_sha,
        "learned": learned_chain(it),
    }


def learned_chain(it: Path) -> dict[str, Any]:
    """Each learned action of an iteration: the exchange that wrote its RL config, the
    config's hash, the policy it trained (and the one it continued), and its reach."""
    out: dict[str, Any] = {}
    for path in sorted((it / "learned").glob("*.json")):
        r = _json(path) or {}
        asked = [
            str(p)
            for p in sorted((it / "llm").glob("*_fast_learned.json"))
            if (read_exchange(p).request.context.get("sub_action") or {}).get("name")
            == r.get("name")
        ]
        out[path.stem] = {
            "exchange": asked[-1] if asked else None, "config_sha256": r.get("config_sha256"),
            "policy": r.get("policy"), "policy_sha256": r.get("policy_sha256"),
            "continued": r.get("warm_start_from"), "ok": r.get("ok"), "reason": r.get("reason"),
            "reach_before": r.get("reach_before"), "reach_after": r.get("reach_after"),
            "skill_reach": r.get("skill_reach"), "samples": r.get("samples"),
        }  # fmt: skip
    return out


def _iterations(run: Path) -> list[int]:
    return sorted(int(p.name.split("_")[1]) for p in run.glob("iter_*") if p.is_dir())


def lineage(target: str, runs_dir: Path) -> dict[str, Any]:
    """Chain(s) for a checkpoint path, a run id, or (reverse) a prompt-template hash prefix."""
    path = Path(target)
    if (
        path.is_file()
        and path.parent.name == "train"
        and path.parent.parent.name.startswith("iter_")
    ):
        run, k = path.parent.parent.parent, int(path.parent.parent.name.split("_")[1])
        ks = [k]  # a continued policy owes its weights to every iteration it continued
        while (j := continued_from(run, ks[0])[0]) is not None and j not in ks:
            ks.insert(0, j)
        return {"checkpoint": str(path), "chain": [iteration_chain(run, j) for j in ks]}
    if path.is_file() and path.parent.parent.name == "learned" and path.name == "policy.zip":
        it = path.parent.parent.parent  # iter_<k>/learned/<name>/policy.zip
        run, k = it.parent, int(it.name.split("_")[1])
        return {"checkpoint": str(path), "chain": [iteration_chain(run, k)]}
    if RUN_ID.fullmatch(target) and (runs_dir / target).is_dir():
        run = runs_dir / target
        return {"run_id": target, "chain": [iteration_chain(run, k) for k in _iterations(run)]}
    if len(target) >= 8 and all(c in "0123456789abcdef" for c in target.lower()):
        return {"prompt_hash": target, "policies": policies_from_prompt(target.lower(), runs_dir)}
    raise UserError(f"'{target}' is not a checkpoint, a run under {runs_dir}/ or a prompt hash")


def policies_from_prompt(prefix: str, runs_dir: Path) -> list[dict[str, Any]]:
    """Every policy whose iteration used a prompt template whose sha256 starts with `prefix`."""
    found = []
    for run in sorted(p for p in runs_dir.iterdir() if p.is_dir()):
        for k in _iterations(run):
            kinds = {
                ex.request.kind
                for ex in map(read_exchange, (run / f"iter_{k}" / "llm").glob("*.json"))
                if ex.request.template_hash.startswith(prefix)
            }
            policy = run / f"iter_{k}" / "train" / "policy.zip"
            if kinds and policy.is_file():
                ev = _json(run / f"iter_{k}" / "eval.json") or {}
                found.append({"run_id": run.name, "iteration": k, "templates": sorted(kinds),
                              "checkpoint": str(policy), "sha256": sha256_file(policy),
                              "success_rate": ev.get("success_rate")})  # fmt: skip
    return found


def render_text(result: dict[str, Any]) -> str:
    """A human-readable chain."""
    lines: list[str] = []
    if "policies" in result:
        lines.append(f"policies produced from prompt {result['prompt_hash']}:")
        for p in result["policies"]:
            lines.append(
                f"  {p['run_id']} iter {p['iteration']}: {p['checkpoint']} "
                f"(sha256 {p['sha256'][:12]}, success {p['success_rate']}) "
                f"via {', '.join(p['templates'])}"
            )
        return "\n".join(lines)
    for ch in result["chain"]:
        lines.append(f"{ch['run_id']} iteration {ch['iteration']} (world {ch['world']})")
        for ex in ch["exchanges"]:
            t, r = ex["template"], ex["reply"]
            commit = (t["git_commit"] or "-")[:10]
            lines.append(
                f"  prompt {t['name']} {t['sha256'][:12]} (commit {commit}) -> "
                f"{ex['rendered_prompt']} -> {r['backend']}:{r['model']} "
                f"{r['tokens']} tokens{' (cached)' if r['cached'] else ''}"
            )
        code = ", ".join(f"{n} {h[:12]}" for n, h in ch["code_sha256"].items()) or "-"
        lines.append(f"  code: {code}")
        for name, entry in ch.get("library", {}).items():  # reused: back to its first writer
            o = entry["origin"]
            via = f"{o.get('template') or '-'} {(o.get('template_hash') or '-')[:12]}"
            lines.append(
                f"  from skill library: {name} v{entry['version']} "
                f"{entry['source_hash'][:12]}, first written by run {o['run_id']} "
                f"iteration {o['iteration']} via prompt {via} -> "
                f"{o.get('exchange') or '-'} ({o.get('model') or '-'})"
            )
        for name, rows in ch.get("candidates", {}).items():
            kept = next((r["candidate"] for r in rows if r["chosen"]), "-")
            tried = ", ".join(
                f"{r['candidate']}: {r['sha256'][:12]} {r['error_kind'] or 'ok'}" for r in rows
            )
            lines.append(f"  candidates of {name}: {tried}; kept {kept}")
        lines.append(f"  validation: {ch['validation']}")
        for name, la in ch.get("learned", {}).items():
            reach = (f"reach {la['reach_before']} -> {la['reach_after']}"
                     f" (its code alone {la['skill_reach']})") if la.get("ok") else (
                     f"kept out: {la.get('reason')}")  # fmt: skip
            lines.append(
                f"  learned action {name}: prompt -> {la['exchange'] or '-'} -> rl "
                f"config {(la['config_sha256'] or '-')[:12]} -> policy "
                f"{la['policy'] or '-'} sha256 {(la['policy_sha256'] or '-')[:12]}"
                + (f" (continued {la['continued']})" if la.get("continued") else "")
                + f" -> {reach}, {la['samples']} samples"
            )
        lines.append(f"  rl config: {(ch['rl_config_sha256'] or '-')[:12]}")
        if ch.get("continued_from") is not None:
            lines.append(
                f"  training continued the policy of iteration {ch['continued_from']} "
                f"(sha256 {(ch.get('continued_sha256') or '-')[:12]})"
            )
        ck = ch["checkpoint"]
        lines.append(f"  checkpoint: {ck['path']} sha256 {(ck['sha256'] or '-')[:12]}")
        ev = ch["evaluation"] or {}
        lines.append(
            f"  evaluation: success {ev.get('success_rate')}, samples "
            f"{ev.get('samples')}, dead loops {ev.get('dead_loop_ratio')}"
        )
        sel = ch.get("selection") or {}
        if sel:
            lines.append(
                f"  selection: success {sel.get('success_rate')} on "
                f"{sel.get('episodes')} episodes apart from the evaluation's"
            )
        for name, why in ((ch.get("critique") or {}).get("reverted") or {}).items():
            lines.append(f"  reverted: {name}: {why}")
    return "\n".join(lines)
