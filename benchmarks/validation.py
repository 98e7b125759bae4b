"""Validation latency per coded action, on Crafter and on full Craftax in the same process: the
scenario validation (precondition met and unmet, states from later in an episode, effect
checks) against a baseline measured in the same run, the same code run for safety only from
fresh worlds (what validation did before it checked effects).

Every reference action of each world's offline author is validated, one per achievement (and
the revised make_* variant), after one untimed validation of that world that pays the
process's one-off start costs (imports, textures, JAX compilation). The targets are on the
mean: under TARGET_S on Crafter, and Craftax no slower than Crafter once warm
(docs/validation.md, Cost). `--worlds crafter` skips Craftax. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from rlgpt.config import Params
from rlgpt.messages import CodedAction
from rlgpt.validation.validate import validate_action
from rlgpt.worlds import get_world

TARGET_S = 2.0


def _timed(action: CodedAction, params: Params, world: str) -> tuple[float, int, int, bool]:
    t0 = time.perf_counter()
    verdict = validate_action(
        action, sandbox=params.sandbox, view_radius=params.train.view_radius, world=world
    )
    steps = sum(s.steps for s in verdict.scenarios)
    return time.perf_counter() - t0, len(verdict.scenarios), steps, verdict.ok


def _baseline(action: CodedAction) -> CodedAction:
    """The same code under a name that is no achievement: fresh worlds, safety only."""
    source = action.source.replace(f"def {action.name}(", "def probe(", 1)
    return action.model_copy(update={"name": "probe", "source": source})


def _actions(world: str, only: list[str] | None, params: Params) -> list[CodedAction]:
    game = get_world(world)
    budget = params.train.macro_step_budget
    out = []
    for ach in only or [t.achievement for t in game.tasks().values()]:
        out.append(game.author().write_action(ach, budget, False))
        if ach.startswith("make_"):
            out.append(game.author().write_action(ach, budget, True))
    return out


def _interleaved(lists: dict[str, list[CodedAction]]) -> list[tuple[str, CodedAction]]:
    """Every world's actions, spread over one schedule in proportion (a machine whose load
    changes during the run weighs on every world alike)."""
    spots = [
        ((i + 0.5) / len(acts), world, act)
        for world, acts in lists.items()
        for i, act in enumerate(acts)
    ]
    return [(world, act) for _, world, act in sorted(spots, key=lambda x: (x[0], x[1]))]


def measure(worlds: list[str], only: list[str] | None, params: Params) -> dict[str, dict]:
    """Validate every reference action of each world (warm), each beside its baseline, the
    worlds' actions interleaved; print a row per action and return each world's means."""
    lists = {w: _actions(w, only, params) for w in worlds}
    for w, acts in lists.items():
        _timed(acts[0], params, w)  # warm-up, untimed: the first call loads what all share
    rows: dict[str, list[tuple[float, float, int, bool]]] = {w: [] for w in worlds}
    print(
        f"{'world':<16} {'action':<22} {'scenarios':>9} {'steps':>6} {'full s':>7} "
        f"{'base s':>7}  ok"
    )
    for w, act in _interleaved(lists):
        secs, n, steps, ok = _timed(act, params, w)
        b_secs, _, _, _ = _timed(_baseline(act), params, w)
        rows[w].append((secs, b_secs, n, ok))
        print(f"{w:<16} {act.name:<22} {n:>9} {steps:>6} {secs:>7.3f} {b_secs:>7.3f}  {ok}")
    out = {}
    for w, got in rows.items():
        full, base = [r[0] for r in got], [r[1] for r in got]
        mean, counts, passed = statistics.mean(full), [r[2] for r in got], sum(r[3] for r in got)
        print(
            f"{w}: {mean:.2f} s per action on average, {max(full):.2f} s at most "
            f"({statistics.mean(counts):.1f} scenarios each); safety-only baseline "
            f"{statistics.mean(base):.2f} s; {passed} of {len(got)} pass"
        )
        out[w] = {
            "actions": len(got),
            "passed": passed,
            "mean_s_per_action": round(mean, 3),
            "max_s_per_action": round(max(full), 3),
            "mean_scenarios": round(statistics.mean(counts), 2),
            "baseline_mean_s_per_action": round(statistics.mean(base), 3),
            "ratio": round(mean / statistics.mean(base), 3),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", nargs="*", help="achievements to validate (default: all)")
    ap.add_argument("--worlds", default="crafter,craftax", help="comma-separated worlds")
    args = ap.parse_args()
    params = Params()
    figures = measure(args.worlds.split(","), args.only, params)
    out: dict[str, object] = {"worlds": figures}
    crafter = figures.get("crafter")
    if crafter is not None:
        out["under_target"] = float(crafter["mean_s_per_action"]) < TARGET_S
    if crafter is not None and "craftax" in figures:
        ratio = float(figures["craftax"]["mean_s_per_action"]) / float(crafter["mean_s_per_action"])
        out["craftax_over_crafter"] = round(ratio, 3)
        print(
            f"Craftax against Crafter, warm: {ratio:.2f}x the time per action "
            f"(target: at most 1x: {'met' if ratio <= 1 else 'MISSED'})"
        )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
