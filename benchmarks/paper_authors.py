"""Who played the agents in `benchmarks/paper.py`, as its tables say it: the author's name,
its line in results.md, what it can and cannot show about each claim, and what a scripted
model drew and got wrong."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from benchmarks.scripted_model import label

# What the offline author (not a model: it plans from the recipe graph and writes from a
# reference library, never a model's mistakes) can and cannot show about each claim.
AUTHOR_SHOWS = {
    "pure_rl": "can show what coded actions add to PPO; its code is the reference library's, "
    "so a model's (which validation must first repair) would add less",
    "critic": "can show what the bottleneck list does to the next plan; not how good a "
    "model's critique is",
    "reward": "can show the same knowledge as inserted actions vs as reward terms",
    "agents": "cannot show it: it plays both roles from one recipe graph, so one agent gives "
    "the same answers as two; needs a model (--llm scripted: a scripted one that makes "
    "mistakes, or --llm openai)",
    "iterations": "can show iterations revising plan and code toward what the critic names; "
    "a model's revisions can also make things worse (a revision that does is reverted)",
}


# The same for a scripted model (benchmarks/scripted_model.py): the author's knowledge with a
# model's mistakes, drawn alike in both agent modes.
SCRIPTED_SHOWS = {
    "pure_rl": "shows what coded actions add to PPO when some of the code is broken and must be "
    "repaired first",
    "critic": "shows what the bottleneck list does with a model's broken code; the critique "
    "itself is the offline author's",
    "reward": "shows the same knowledge as inserted actions (some broken) vs as reward terms",
    "agents": "shows what each pipeline does with the same mistakes, drawn alike per plan and "
    "per written action (two agents: each action validated and repaired in its own request; "
    "one agent: code for a step its plan lacks is dropped and the step learned); not whether "
    "a real model errs more in one prompt than in two",
    "iterations": "shows iterations repairing a model's mistakes as well as revising plan and code",
}


def author(llm: dict[str, Any]) -> str:
    """Who played the agents, as the tables name it."""
    if llm.get("backend") == "scripted":
        return label(llm["mistake_rate"])
    return f"{llm.get('backend')} {llm.get('model', '')}".rstrip()


def author_line(llm: dict[str, Any]) -> str:
    """results.md's line on who played the agents (a scripted model: how it errs)."""
    if llm.get("backend") != "scripted":
        return f"- Author: {author(llm)}"
    plan = llm.get("plan_rate", llm["mistake_rate"])
    return (
        f"- Author: {author(llm)}: benchmarks/scripted_model.py on 127.0.0.1, reached "
        "through the openai client; the offline author's plans and code with a model's "
        f"mistakes in {llm['mistake_rate']:g} of the coded actions it writes and {plan:g} "
        f"of its plans; a repair fixes in {llm['fix_rate']:g} of cases, else makes another "
        f"mistake; seed {llm['seed']} and each job's own; drawn alike in both agent "
        "modes"
    )


def shows(key: str, llm: dict[str, Any]) -> str:
    """What the author of `llm` can and cannot show about claim `key`."""
    if llm.get("backend") == "scripted":
        return SCRIPTED_SHOWS.get(key, "")
    if llm.get("backend") == "offline":
        return AUTHOR_SHOWS.get(key, "")
    return "a model's own answers: whatever it does"


def learned_table(records: list[dict[str, Any]]) -> list[str]:
    """Every learned action of the loop's runs: reach from its held-out start states before
    and after training, beside its code alone; samples and wall time (none: the loop learned
    nothing, its code did not fail)."""
    rows = [(r, a) for r in records for a in r.get("learned") or []]
    out = ["", "## Learned actions", ""]
    if not rows:
        return [*out, "No run learned a sub-action: no code failed where the evidence looks."]
    out += [
        "Per run and iteration: reach = share of held-out start states from which it reached "
        "its effect (before training, after, and its coded version alone).",
        "",
        "| task | method | seed | iteration | learned action | reach before | after | code "
        "alone | samples | wall s | kept out |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def f(x: object) -> str:
        return "—" if x is None else f"{float(x):.2f}"  # type: ignore[arg-type]

    for r, a in rows:
        out.append(
            f"| {r['task']} | {r['method']} | {r['seed']} | {a['iteration']} | {a['name']} "
            f"| {f(a['reach_before'])} | {f(a['reach_after'])} | {f(a['skill_reach'])} | "
            f"{a['samples'] or 0:,} | {a['wall_s'] or 0:.0f} | "
            f"{'' if a['ok'] else (a['reason'] or '')[:80]} |"
        )
    return out


def mistakes_table(records: list[dict[str, Any]]) -> list[str]:
    """What the scripted model drew and got wrong per run, by method (mean over runs)."""
    rows = [r for r in records if r.get("mistakes")]
    if not rows:
        return []
    out = ["", "## The scripted model's mistakes", "",
           "Per run, mean over tasks and seeds: plans and coded actions it wrote, the mistakes "
           "among them, repairs it was asked for and how many fixed.", "",
           "| method | runs | plans | plan mistakes | actions written | code mistakes | repairs "
           "| fixed | by class (all runs) |", "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    columns = (("drawn", "plan"), ("made", "plan"), ("drawn", "write"), ("made", "write"),
               ("drawn", "repair"))  # fmt: skip
    for method in sorted({r["method"] for r in rows}):
        ms = [r["mistakes"] for r in rows if r["method"] == method]
        cells = [statistics.fmean(m[a].get(b, 0) for m in ms) for a, b in columns]
        cells.append(statistics.fmean(m["fixed"] for m in ms))
        classes: Counter[str] = Counter()
        for m in ms:
            classes.update(m["by_class"])
        by = ", ".join(f"{c} {n}" for c, n in sorted(classes.items())) or "none"
        out.append(
            f"| {method} | {len(ms)} | " + " | ".join(f"{x:.1f}" for x in cells) + f" | {by} |"
        )
    return out
