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
from paper_methods import pure_code  # noqa: E402

from rlgpt.worlds.crafter.masking import NEED  # noqa: E402

VITALS = {action: vital for action, (vital, _) in NEED.items()}  # drink, food, energy


def _rule(text: str) -> dict[str, tuple[str, int]]:
    """'none' -> {}; 'D,F,E' -> each survival action's vital and the highest value at which
    it is called ('-': never)."""
    parts = [] if text == "none" else text.split(",")
    if text != "none" and (
        len(parts) != len(VITALS) or not all(p == "-" or p.isdigit() for p in parts)
    ):
        raise SystemExit(f"rule {text!r}: give 'none' or three thresholds D,F,E (e.g. 6,6,3)")
    return {a: (v, int(p)) for (a, v), p in zip(VITALS.items(), parts, strict=False) if p != "-"}


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
            rates = [
                float(pure_code(task, s, args.episodes, args.world, rule)["success"])
                for s in range(args.seeds)
            ]
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
