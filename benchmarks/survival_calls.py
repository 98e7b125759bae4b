"""What survival calls between a plan's steps cost the skills alone (Crafter, Craftax-Classic).

The reference coded actions are called in plan order, as `paper_methods.pure_code` calls them;
beside them the survival actions (`collect_drink`, `eat_cow`, `wake_up`) join the space and a
rule calls one whenever its vital is at or below the rule's threshold (the first such, in that
order), what a task policy does that takes every survival call its action mask offers. Each
rule plays the same evaluation episodes; the skills alone (no survival calls) are the
baseline of the same run. Rules: `none`, or thresholds `D,F,E` (drink, food, energy; `-` never
calls that one), e.g. `6,6,3` (the mask's need before bfa0de4) or `2,2,2` (since).
docs/learned.md, the survival calls the plan mask left open. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
from paper_methods import ROOT, _plan  # noqa: E402

from rlgpt.config import EvalParams, load_params  # noqa: E402
from rlgpt.messages import RLConfig  # noqa: E402
from rlgpt.rl.evaluate import EvalSettings, evaluate  # noqa: E402
from rlgpt.rl.runtime import MacroActionWrapper  # noqa: E402
from rlgpt.trial import Trial  # noqa: E402
from rlgpt.worlds import get_world  # noqa: E402

SURVIVAL = {"collect_drink": "drink", "eat_cow": "food", "wake_up": "energy"}


def _rule(text: str) -> dict[str, int]:
    """'none' -> {}; 'D,F,E' -> the highest vital at which each survival action is called."""
    if text == "none":
        return {}
    parts = text.split(",")
    if len(parts) != 3:
        raise SystemExit(f"rule {text!r}: give 'none' or three thresholds D,F,E (e.g. 6,6,3)")
    return {a: int(p) for a, p in zip(SURVIVAL, parts, strict=True) if p != "-"}


def play(task: str, seed: int, episodes: int, rule: dict[str, int], world: str) -> float:
    """The success rate of the skills in plan order with survival calls by `rule`."""
    params = load_params(ROOT / "params.yaml")
    spec, steps, dec = _plan(task, world)
    names = [a for a, _ in steps] + list(rule)
    author = get_world(world).author()
    coded = [author.write_action(a, 200 if a.startswith("collect") else 80) for a in names]
    cfg = RLConfig(macro_actions=names, reward_terms=[], sample_budget=1)

    def act(obs: Any, info: dict[str, Any], env: MacroActionWrapper) -> int:
        inv = info["inventory"]
        call = [a for a, most in rule.items() if inv[SURVIVAL[a]] <= most]
        if call:
            return env.index_of(call[0])
        ok = env.action_masks()
        todo = [a for a, _ in steps if ok[env.index_of(a)]]
        return env.index_of((todo or [steps[-1][0]])[0])

    report, _ = evaluate(
        Trial.of(spec, cfg, coded, dec=dec), None, act=act, settings=EvalSettings(
            params=EvalParams(episodes=episodes), train=params.train, seed=seed, samples=0,
            show_progress=False, sandbox=params.sandbox,
        ),
    )  # fmt: skip
    return float(report.success_rate)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--world", default="crafter", choices=["crafter", "craftax-classic"])
    ap.add_argument("--tasks", default="make_iron_pickaxe,collect_diamond")
    ap.add_argument("--rules", default="none;6,6,3;2,2,2", help="';'-separated rules")
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--episodes", type=int, default=30)
    args = ap.parse_args()
    rules = [r.strip() for r in args.rules.split(";") if r.strip()]
    out: dict[str, dict[str, Any]] = {}
    for task in args.tasks.split(","):
        for text in rules:
            t0 = time.perf_counter()
            rule = _rule(text)
            rates = [play(task, s, args.episodes, rule, args.world) for s in range(args.seeds)]
            mean = sum(rates) / len(rates)
            out.setdefault(task, {})[text] = {"mean": round(mean, 3),
                                              "seeds": [round(r, 2) for r in rates]}  # fmt: skip
            base = out[task].get("none", {}).get("mean")
            vs = f"  {mean - base:+.3f} against none" if base is not None else ""
            print(f"{task:20s} {text:8s} {mean:.3f} {[round(r, 2) for r in rates]}"
                  f"  ({time.perf_counter() - t0:.0f}s){vs}", flush=True)  # fmt: skip
    print(json.dumps(out))


if __name__ == "__main__":
    main()
