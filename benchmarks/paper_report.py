"""Tables, plots and results.md of `benchmarks/paper.py`, from the jobs' records alone."""

from __future__ import annotations

import csv
import statistics
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from paper_authors import author, author_line, learned_table, mistakes_table, shows  # noqa: E402
from paper_methods import METHODS  # noqa: E402

LOOP = ("rlgpt", "no_critic", "one_agent", "masks_recipes", "masks_off")  # with iterations
CURVED = ("pure_rl", "reward_only", *LOOP)  # methods that learn
COLORS = {
    "pure_rl": "tab:red", "reward_only": "tab:orange", "rlgpt": "tab:blue",
    "no_critic": "tab:purple", "pure_code": "tab:green", "one_agent": "tab:brown",
    "masks_recipes": "tab:cyan", "masks_off": "tab:gray",
}  # fmt: skip
# The paper's figures (RL-GPT, NeurIPS 2024, MineDojo), each beside the comparison we make.
PAPER = {
    "pure_rl": ("RL-GPT vs pure RL", "pure RL about 0% on its tasks", "pure_rl", "rlgpt"),
    "critic": ("critic vs none", "crafting table 0.52 without, 0.65 with", "no_critic", "rlgpt"),
    "reward": ("action space vs reward", "0.418 reward variant vs 0.585", "reward_only", "rlgpt"),
    "agents": ("two agents vs one", "0.34 one agent vs 0.52 two", "one_agent", "rlgpt"),
}


def _claim_row(key: str, c: dict[str, Any], llm: dict[str, Any]) -> str:
    """One claim: the paper's figure, ours (with who played the agents, when it was not the
    offline author), and what that author can and cannot show about it."""
    here = _reading(c) if llm.get("backend") == "offline" else f"{author(llm)}: {_reading(c)}"
    return f"| {c['claim']} | {c['paper']} | {here} | {shows(key, llm)} |"


def _sd(xs: list[float]) -> float:
    return statistics.stdev(xs) if len(xs) > 1 else 0.0


def _fmt(xs: list[float]) -> str:
    return f"{statistics.fmean(xs):.2f} ± {_sd(xs):.2f}" if xs else "—"


def summarize(records: list[dict[str, Any]], cfg: Any) -> dict[str, dict[str, dict[str, Any]]]:
    """task -> method -> figures over seeds (failed jobs counted apart, never as zeros)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for task in cfg.budgets:
        out[task] = {}
        for method in cfg.methods:
            rows = [r for r in records if r["task"] == task and r["method"] == method]
            ok = [r for r in rows if "error" not in r]
            if not rows:
                continue
            firsts = [r["first_success"] for r in ok if r.get("first_success") is not None]
            out[task][method] = {
                "success": [r["success"] for r in ok],
                "samples": [r["samples"] for r in ok],
                "first_success": firsts,
                "dead_loop": [r["dead_loop"] for r in ok],
                "wall_s": [r["wall_s"] for r in ok],
                "errors": [r["error"] for r in rows if "error" in r],
            }
    return out


def _csvs(out: Path, records: list[dict[str, Any]], summary: dict[str, Any]) -> list[Path]:
    runs, curves, table = out / "runs.csv", out / "curves.csv", out / "summary.csv"
    with runs.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["task", "method", "seed", "success", "samples", "first_success",
                    "dead_loop", "deaths", "wall_s", "error"])  # fmt: skip
        for r in sorted(records, key=lambda r: (r["task"], r["method"], r["seed"])):
            w.writerow([r["task"], r["method"], r["seed"], r.get("success", ""),
                        r.get("samples", ""), r.get("first_success", ""), r.get("dead_loop", ""),
                        r.get("deaths", ""), r.get("wall_s", ""), r.get("error", "")])  # fmt: skip
    with curves.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["task", "method", "seed", "point", "samples", "success", "dead_loop", "deaths"])
        for r in records:
            for i, p in enumerate(r.get("points", []), 1):
                w.writerow([r["task"], r["method"], r["seed"], i, p["samples"], p["success"],
                            p["dead_loop"], p["deaths"]])  # fmt: skip
    with table.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "task",
                "method",
                "seeds",
                "success_mean",
                "success_sd",
                "samples_mean",
                "first_success_mean",
                "seeds_with_success",
                "dead_loop_mean",
                "failed_jobs",
            ]
        )
        for task, methods in summary.items():
            for m, s in methods.items():
                xs = s["success"]
                w.writerow([task, m, len(xs), _mean(xs), round(_sd(xs), 3), _mean(s["samples"]),
                            _mean(s["first_success"]), len(s["first_success"]),
                            _mean(s["dead_loop"]), len(s["errors"])])  # fmt: skip
    return [runs, curves, table]


def _compute(records: list[dict[str, Any]]) -> float:
    """Seconds the jobs ran, summed (recorded ones included)."""
    return float(sum(r.get("wall_s", 0.0) for r in records))


def _mean(xs: list[float]) -> float | str:
    return round(statistics.fmean(xs), 3) if xs else ""


def _by_point(records: list[dict[str, Any]], task: str, method: str, key: str) -> list[list[float]]:
    """Per point index, the values of all seeds."""
    rows = [r for r in records if r["task"] == task and r["method"] == method and "points" in r]
    n = max((len(r["points"]) for r in rows), default=0)
    return [[r["points"][i][key] for r in rows if len(r["points"]) > i] for i in range(n)]


def _plots(out: Path, records: list[dict[str, Any]], cfg: Any) -> list[Path]:
    tasks = list(cfg.budgets)
    paths = []
    fig, axes = plt.subplots(1, len(tasks), figsize=(4 * len(tasks), 3.4), squeeze=False)
    for ax, task in zip(axes[0], tasks, strict=True):
        for m in (m for m in CURVED if m in cfg.methods):
            xs = [statistics.fmean(v) for v in _by_point(records, task, m, "samples")]
            ys = _by_point(records, task, m, "success")
            if not xs:
                continue
            mean = [statistics.fmean(v) for v in ys]
            sd = [_sd(v) for v in ys]
            ax.plot(xs, mean, marker="o", color=COLORS[m], label=m)
            ax.fill_between(xs, [a - b for a, b in zip(mean, sd, strict=True)],
                            [a + b for a, b in zip(mean, sd, strict=True)],
                            color=COLORS[m], alpha=0.15)  # fmt: skip
        code = [
            r["success"]
            for r in records
            if r["task"] == task and r["method"] == "pure_code" and "error" not in r
        ]
        if code:
            rate = statistics.fmean(code)
            ax.axhline(rate, color=COLORS["pure_code"], ls="--", label="pure_code")
        ax.set(title=task, xlabel="samples", ylim=(-0.05, 1.05))
    axes[0][0].set_ylabel("success rate (mean ± sd over seeds)")
    axes[0][-1].legend(fontsize=7)
    paths.append(_save(fig, out / "success_vs_samples.png"))
    for key, name, label in (
        ("success", "success_per_iteration.png", "success rate"),
        ("dead_loop", "dead_loop_per_iteration.png", "dead-loop ratio"),
    ):
        fig, axes = plt.subplots(1, len(tasks), figsize=(4 * len(tasks), 3.2), squeeze=False)
        for ax, task in zip(axes[0], tasks, strict=True):
            for shift, m in enumerate(m for m in LOOP if m in cfg.methods):
                ys = _by_point(records, task, m, key)
                if not ys:  # skipped or failed on every seed
                    continue
                xs = [i + 1 + 0.08 * shift for i in range(len(ys))]
                ax.errorbar(xs, [statistics.fmean(v) for v in ys], yerr=[_sd(v) for v in ys],
                            marker="o", capsize=3, color=COLORS[m], label=m)  # fmt: skip
            ax.set(title=task, xlabel="iteration", ylim=(-0.05, 1.05))
            ax.set_xticks(range(1, cfg.iterations_for(task) + 1))
        axes[0][0].set_ylabel(label)
        axes[0][-1].legend(fontsize=7)
        paths.append(_save(fig, out / name))
    return paths


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def claims(summary: dict[str, Any], skips: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Each paper claim: our figures (mean over tasks of the mean over seeds) and whether its
    direction reproduced; None when the method was not run."""
    out: dict[str, dict[str, Any]] = {}
    for key, (what, paper, worse, better) in PAPER.items():
        if key == "agents" and any("two_agents" in s for s in summary.values()):
            better = "two_agents"  # the offline protocol: both sides played by one model
        if worse in skips:
            out[key] = {"claim": what, "paper": paper, "reproduced": None, "note": skips[worse]}
            continue
        pairs = [
            (s[worse]["success"], s[better]["success"])
            for s in summary.values()
            if worse in s and better in s and s[worse]["success"] and s[better]["success"]
        ]
        if not pairs:
            out[key] = {"claim": what, "paper": paper, "reproduced": None, "note": "not run"}
            continue
        lo = statistics.fmean(statistics.fmean(a) for a, _ in pairs)
        hi = statistics.fmean(statistics.fmean(b) for _, b in pairs)
        spread = statistics.fmean(max(_sd(a), _sd(b)) for a, b in pairs)
        seeds = min(min(len(a), len(b)) for a, b in pairs)
        out[key] = {
            "claim": what,
            "paper": paper,
            worse: round(lo, 3),
            better: round(hi, 3),
            "tasks": len(pairs),
            "reproduced": hi > lo,
            "beyond_spread": hi - lo > spread if seeds > 1 else None,  # one seed: no spread
        }
    return out


def iterations_claim(records: list[dict[str, Any]], cfg: Any) -> dict[str, Any]:
    """The loop's first iteration against what a user gets at the end: the run's final policy
    (the best iteration's on the selection episodes), mean over tasks of the mean over seeds."""
    what, paper = "iterations help", "0.26 -> 0.56 -> 0.65 over iterations"
    firsts, lasts = [], []
    for task in cfg.budgets:
        rows = [
            r
            for r in records
            if r["task"] == task and r["method"] == "rlgpt" and len(r.get("points", [])) > 1
        ]
        if rows:
            firsts.append(statistics.fmean(r["points"][0]["success"] for r in rows))
            lasts.append(statistics.fmean(r["success"] for r in rows))
    if not firsts:
        return {"claim": what, "paper": paper, "reproduced": None,
                "note": "not run (the loop needs two iterations or more)"}  # fmt: skip
    lo, hi = statistics.fmean(firsts), statistics.fmean(lasts)
    note = (
        f"{'direction reproduced' if hi > lo else 'direction NOT reproduced'}: "
        f"rlgpt {lo:.2f} after its first iteration, {hi:.2f} for its final (selected) "
        f"policy (mean of {len(firsts)} task(s) the loop took more than one iteration on; "
        "it stops once it reaches the threshold)"
    )
    return {"claim": what, "paper": paper, "first": round(lo, 3), "last": round(hi, 3),
            "reproduced": hi > lo, "note": note}  # fmt: skip


def _reading(c: dict[str, Any]) -> str:
    if c["reproduced"] is None or "first" in c:
        return str(c["note"])
    names = [k for k in c if k in METHODS]
    lo, hi = c[names[0]], c[names[1]]
    verdict = "direction reproduced" if c["reproduced"] else "direction NOT reproduced"
    if hi == lo:
        verdict = "no difference"
    noise = {
        True: "the gap is beyond the seed spread",
        False: "the gap is within the seed spread",
        None: "one seed, no spread to judge the gap by",
    }[c["beyond_spread"]]
    means = f"{names[1]} {hi:.2f} vs {names[0]} {lo:.2f} (mean of {c['tasks']} task(s))"
    return f"{verdict}: {means}; {noise}"


def _relative(text: str) -> str:
    """`text` with the project's own absolute path left out: no machine's path in a committed
    file."""
    root = str(Path(__file__).resolve().parents[1])
    return text.replace(root + "/", "").replace(root, ".")


def _versus(summary: dict[str, Any], a: str, b: str, title: str, what: str) -> list[str]:
    """Per task: method `a` against `b` (mean over seeds) and the difference."""
    rows = [
        (t, ms[a]["success"], ms[b]["success"])
        for t, ms in summary.items()
        if a in ms and b in ms and ms[a]["success"] and ms[b]["success"]
    ]
    if not rows:
        return []
    out = ["", f"## {title}", "", f"{what[0].upper()}{what[1:]}.", "",
           f"| task | {a} | {b} | difference |", "|---|---|---|---|"]  # fmt: skip
    for task, xs, ys in rows:
        diff = statistics.fmean(xs) - statistics.fmean(ys)
        out.append(f"| {task} | {_fmt(xs)} | {_fmt(ys)} | {diff:+.2f} |")
    return out


def _grid(cfg: Any, summary: dict[str, Any]) -> list[str]:
    """Tasks by methods, one cell per final success rate."""
    methods = [m for m in cfg.methods if any(m in ms for ms in summary.values())]
    rows = [f"| task (budget) | {' | '.join(methods)} |", "|---" * (len(methods) + 1) + "|"]
    for task, ms in summary.items():
        cells = [_fmt(ms[m]["success"]) if m in ms else "—" for m in methods]
        rows.append(f"| {task} ({cfg.budgets[task]:,}) | {' | '.join(cells)} |")
    return rows


def write_results(
    out: Path, cfg: Any, records: list[dict[str, Any]], skips: dict[str, str], wall: float,
    machine: str, parent: str, uri: str,
) -> tuple[dict[str, Any], list[Path]]:  # fmt: skip
    """results.md, the CSVs and the plots; the headline figures (the JSON line)."""
    out.mkdir(parents=True, exist_ok=True)
    summary = summarize(records, cfg)
    files = _csvs(out, records, summary) + _plots(out, records, cfg)
    found = claims(summary, skips) | {"iterations": iterations_claim(records, cfg)}
    md = out / "results.md"
    md.write_text(_markdown(cfg, summary, records, found, skips, wall, machine, parent, uri, files))
    headline = {
        "label": cfg.label,
        "author": author(cfg.llm),
        "seeds": cfg.seeds,
        "wall_s": round(wall, 1),
        "job_s": round(_compute(records), 1),
        "success": {
            t: {m: _mean(s["success"]) for m, s in ms.items()} for t, ms in summary.items()
        },
        "claims": {k: c["reproduced"] for k, c in found.items()},
        "failed_jobs": sum(len(s["errors"]) for ms in summary.values() for s in ms.values()),
    }
    return headline, [md, *files]


def _markdown(
    cfg: Any, summary: dict[str, Any], records: list[dict[str, Any]], found: dict[str, Any],
    skips: dict[str, str], wall: float, machine: str, parent: str, uri: str, files: list[Path],
) -> str:  # fmt: skip
    quick = cfg.label != "full"
    scripted = cfg.llm.get("backend") == "scripted"
    # under the offline author the agents ablation has a scripted model play both sides
    # (paper.py: two_agents), since the offline author gives one agent the same answers as two
    two = "two_agents" if any("two_agents" in ms for ms in summary.values()) else "rlgpt"
    players = ("the scripted model (paper.py's AGENTS_MODEL)" if two == "two_agents"
               else "a " + author(cfg.llm) if scripted else author(cfg.llm))  # fmt: skip
    lines = [f"# RL-GPT on Crafter: the paper's claims, measured ({cfg.label})", ""]
    if quick:
        lines += [f"**{cfg.label.upper()} RUN: fewer seeds and smaller budgets than the full "
                  "protocol; figures are indicative only.**", ""]  # fmt: skip
    budgets = ", ".join(f"{t} {b:,}" for t, b in cfg.budgets.items())
    lines += [
        "Written by `benchmarks/paper.py` from its job records; do not edit by hand.", "",
        f"- Budgets (primitive env steps, all iterations): {budgets}",
        f"- Seeds: {cfg.seeds}; evaluation episodes per point: {cfg.episodes} (the same "
        f"held-out seeds for every method); loop iterations: {cfg.iterations}"
        + "".join(f", {t} {n}" for t, n in cfg.deep.items()) + " (the PPO "
        "baselines are evaluated at the same sample points)",
        author_line(cfg.llm),
        f"- Machine: {machine}; the jobs ran {_compute(records) / 60:.0f} min in all "
        f"(`--jobs` at once); this invocation took {wall / 60:.1f} min (recorded jobs are "
        "not run again)",
        f"- MLflow: `{_relative(uri)}`, experiment `rlgpt-paper`, parent run `{parent}`", "",
        "## Methods", "",
        *[f"- **{m}**: {METHODS[m]}" + (f" — *{skips[m]}*" if m in skips else "")
          for m in cfg.methods],
        "", "## Paper vs here", "",
        f"| claim | paper | here | what {'this' if scripted else 'the offline'} author can "
        "and cannot show |",
        "|---|---|---|---|",
        *[_claim_row(k, c, cfg.llm) for k, c in found.items()],
        "", "## Success rate at the budget (mean ± sd over seeds)", "",
        "The loop's figure is its final policy's: the best iteration's on selection episodes "
        "held apart from the evaluation's."
        + (f" The loop's agents were played by a {author(cfg.llm)}." if scripted else ""), "",
        *_grid(cfg, summary),
        *_versus(summary, two, "one_agent", "Two agents vs one",
                 f"the slow/fast split against one prompt that plans and codes, both played "
                 f"by {players}"),
        *_versus(summary, "rlgpt", "pure_code", "What RL adds over the skills alone",
                 "the loop's policy against the same coded actions called in plan order"),
        *_versus(summary, "rlgpt", "masks_recipes", "What the plan masks contribute",
                 "plan masks (the default) against recipe masks only"),
        *_versus(summary, "rlgpt", "masks_off", "What masks contribute at all",
                 "plan masks against none (plain PPO over the enlarged action space)"),
        "", "## Per task (final point; mean ± sd over seeds)", "",
        "| task | method | success | samples used | samples to first success | dead-loop "
        "| wall s per job |",
        "|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    for task, methods in summary.items():
        for m, s in methods.items():
            first = (f"{statistics.fmean(s['first_success']):,.0f} "
                     f"({len(s['first_success'])}/{len(s['success'])} seeds)"
                     if s["first_success"] else "never")  # fmt: skip
            err = f" ({len(s['errors'])} failed: {s['errors'][0][:80]})" if s["errors"] else ""
            used = statistics.fmean(s["samples"]) if s["samples"] else 0
            wall = statistics.fmean(s["wall_s"]) if s["wall_s"] else 0
            lines.append(
                f"| {task} | {m} | {_fmt(s['success'])}{err} | {used:,.0f} | "
                f"{first} | {_fmt(s['dead_loop'])} | {wall:.0f} |"
            )
    lines += ["", "## Per iteration (the loop and its ablations)", "",
              "| task | method | iteration | samples | success | dead-loop |",
              "|---|---|---|---|---|---|"]  # fmt: skip
    for task in cfg.budgets:
        for m in (m for m in LOOP if m in cfg.methods):
            samples = _by_point(records, task, m, "samples")
            for i, ys in enumerate(_by_point(records, task, m, "success")):
                dl = _by_point(records, task, m, "dead_loop")[i]
                lines.append(f"| {task} | {m} | {i + 1} | {statistics.fmean(samples[i]):,.0f} | "
                             f"{_fmt(ys)} ({len(ys)} seeds) | {_fmt(dl)} |")  # fmt: skip
    lines += learned_table(records) + mistakes_table(records)
    lines += ["", "## Plots", ""]
    lines += [f"![{p.stem}]({p.name})" for p in files if p.suffix == ".png"]
    lines += ["", "Regenerate: `make results` (full) or `make results-quick`; the job records "
              "under benchmarks/out/ let a rerun resume."]  # fmt: skip
    return "\n".join(lines) + "\n"
