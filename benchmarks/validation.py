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
from rlgpt.sandbox.validate import validate_action
from rlgpt.worlds import get_world

TARGET_S = 2.0


def _timed(action: CodedAction, params: Params, world: str) -> tuple[float, int, int, bool]:
    t0 = time.perf_counter()
    verdict = validate_action(action, sandbox=params.sandbox,
                              view_radius=params.train.view_radius, world=world)  # fmt: skip
    steps = sum(s.steps for s in verdict.scenarios)
    return time.perf_counter() - t0, len(verdict.scenarios), steps, verdict.ok


def _baseline(action: CodedAction) -> CodedAction:
    """The same code under a name that is no achievement: fresh worlds, safety only."""
    source = action.source.replace(f"def {action.name}(", "def probe(", 1)
    return action.model_copy(update={"name": "probe", "source": source})


def measure(world: str, only: list[str] | None, params: Params) -> dict[str, float | int]:
    """Validate every reference action of `world` (warm), each beside its baseline; print a
    row per action and return the means."""
    game = get_world(world)
    budget = params.train.macro_step_budget
    actions = []
    for ach in only or [t.achievement for t in game.tasks().values()]:
        actions.append(game.author().write_action(ach, budget, False))
        if ach.startswith("make_"):
            actions.append(game.author().write_action(ach, budget, True))
    _timed(actions[0], params, world)  # warm-up, untimed: the first call loads what all share
    full, base, counts, passed = [], [], [], 0
    print(f"{world}:")
    print(f"{'action':<22} {'scenarios':>9} {'steps':>6} {'full s':>7} {'base s':>7}  ok")
    for act in actions:
        secs, n, steps, ok = _timed(act, params, world)
        b_secs, _, _, _ = _timed(_baseline(act), params, world)
        full.append(secs)
        base.append(b_secs)
        counts.append(n)
        passed += ok
        print(f"{act.name:<22} {n:>9} {steps:>6} {secs:>7.3f} {b_secs:>7.3f}  {ok}")
    mean, worst = statistics.mean(full), max(full)
    print(f"{world}: {mean:.2f} s per action on average, {worst:.2f} s at most "
          f"({statistics.mean(counts):.1f} scenarios each); safety-only baseline "
          f"{statistics.mean(base):.2f} s; {passed} of {len(actions)} pass")  # fmt: skip
    return {
        "actions": len(actions), "passed": passed, "mean_s_per_action": round(mean, 3),
        "max_s_per_action": round(worst, 3), "mean_scenarios": round(statistics.mean(counts), 2),
        "baseline_mean_s_per_action": round(statistics.mean(base), 3),
        "ratio": round(mean / statistics.mean(base), 3),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", nargs="*", help="achievements to validate (default: all)")
    ap.add_argument("--worlds", default="crafter,craftax", help="comma-separated worlds")
    args = ap.parse_args()
    params = Params()
    figures = {w: measure(w, args.only, params) for w in args.worlds.split(",")}
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
