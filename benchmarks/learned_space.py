"""One learned action trained from its staged start states, in the space a model's config
gives it: its reach from held-out start states before and after training, its deaths, its
samples and whether it stopped early.

The config is the offline author's for a learned action whose code failed (no coded action
in its space: the effect pays 10, dying costs 5, health is shaped at 0.5, a call has 300
steps, gamma 0.99), with params.yaml's `learn` and `train` settings; `--primitives` keeps
only those (a model's choice; default: all of the world's). The task's plan decides what its
start states hold; the seed decides which states it trains from and which are held out, so two
checkouts run with the same arguments train from the same states: the way to compare what a
change to a learned action's space does (PYTHONPATH=CHECKOUT, docs/learned.md).

    python benchmarks/learned_space.py --action make_stone_pickaxe          # ~3-8 min here
    python benchmarks/learned_space.py --action make_stone_pickaxe \\
        --primitives noop,move_left,move_right,move_up,move_down,do,make_stone_pickaxe
    python benchmarks/learned_space.py --action make_stone_pickaxe --macros defeat_zombie

Ends with one JSON line: {"action", "macros", "reach_before", "reach_after", "deaths_after",
"samples", "stopped", "ok", "reason", "wall_s"}.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--task", default="make_stone_pickaxe")
    ap.add_argument("--action", default="make_stone_pickaxe", help="the sub-action learned")
    ap.add_argument("--world", default="crafter")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=int, default=150_000, help="its sample budget")
    ap.add_argument("--primitives", default="", help="comma-separated (default: all)")
    ap.add_argument(
        "--macros", default="",
        help="comma-separated coded actions of the offline author inserted into its space "
        "(default: none), e.g. defeat_zombie",
    )  # fmt: skip
    ap.add_argument("--out", default="", help="keep its files here (default: a temp dir)")
    args = ap.parse_args()

    from rlgpt.config import load_params
    from rlgpt.errors import UserError
    from rlgpt.messages import LearnedConfig, ShapingTerm
    from rlgpt.rl.learn import LearnRequest, train_learned
    from rlgpt.worlds import get_world

    root = Path(__file__).resolve().parents[1]
    params = load_params(root / "params.yaml")
    try:
        world = get_world(args.world)
        task = world.task(args.task)
    except (UserError, KeyError, ValueError) as exc:
        sys.exit(f"learned_space: {exc}")
    author = world.author()
    dec = author.decompose(task, {args.action: "rl"}, {})
    if args.action not in [s.name for s in dec.sub_actions]:
        sys.exit(f"learned_space: {args.action} is no step of {args.task}'s plan: "
                 f"{[s.name for s in dec.sub_actions]}")  # fmt: skip
    coded = [author.write_action(s.name, 80) for s in dec.sub_actions if s.mode == "code"]
    macros = [m for m in args.macros.split(",") if m]
    unknown = [m for m in macros if world.requirement_text(m) is None]
    if unknown:
        sys.exit(f"learned_space: --macros {unknown} are no achievements of {args.world}")
    have = {c.name for c in coded}
    coded += [author.write_action(m, 80) for m in macros if m not in have]
    prims = [p for p in args.primitives.split(",") if p] or None
    cfg = LearnedConfig(
        name=args.action, macro_actions=macros, primitive_actions=prims, effect_bonus=10.0,
        shaping=[ShapingTerm(signal="health", weight=0.5)], death_penalty=5.0, step_budget=300,
        ppo=params.train.ppo.model_copy(update={"gamma": 0.99}), sample_budget=args.budget,
        reasoning="benchmarks/learned_space.py",
    )  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="rlgpt-space-") as tmp:
        out = args.out or str(Path(tmp) / args.action)
        req = LearnRequest(
            task=task, decomposition=dec, config=cfg, coded=coded, learn=params.learn,
            train=params.train, sandbox=params.sandbox, seed=args.seed, out_dir=out,
            show_progress=sys.stderr.isatty(),
        )  # fmt: skip
        t0 = time.perf_counter()
        r = train_learned(req)
    print(
        f"{args.action} ({args.world}, seed {args.seed}, {len(prims) if prims else 'all'} "
        f"primitives): reach {r.reach_before} -> {r.reach_after}, deaths {r.deaths_after}, "
        f"{r.train_samples:,} samples{'; ' + r.stopped if r.stopped else ''}"
    )
    print(json.dumps({
        "action": args.action, "macros": macros, "reach_before": r.reach_before,
        "reach_after": r.reach_after, "deaths_after": r.deaths_after,
        "samples": r.train_samples, "stopped": r.stopped,
        "ok": r.ok, "reason": r.reason, "wall_s": round(time.perf_counter() - t0, 1),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
