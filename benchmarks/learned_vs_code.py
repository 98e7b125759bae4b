"""What a learned action adds over its own code, in the task's own episodes.

Trains a learned action for `--action` of `--task` (`rlgpt.rl.learn.train_learned`: its code
and the plan's survival actions in its space, the offline author's RL config with the given
changes), then plays the task's skills in plan order (the first step the plan mask allows, no
top-level learning) over the same evaluation episodes twice: with its code, and with the
learned action in its place. Its baseline, the skills alone, runs in the same invocation.
Start states come from `--starts-from` (a learned action's folder of an earlier run:
starts.pkl, held_out.pkl) or are gathered anew. Ends with one JSON line.

    python benchmarks/learned_vs_code.py --task collect_diamond --action collect_diamond \
        --samples 150000 --episodes 60 --shaping health=0.5,food=0.3 --code-steps 40
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rlgpt.config import EvalParams, LearnParams, load_params  # noqa: E402
from rlgpt.llm.base import ChatMessage, LLMRequest  # noqa: E402
from rlgpt.llm.offline import OfflineAuthor  # noqa: E402
from rlgpt.messages import LearnedConfig, RLConfig, ShapingTerm  # noqa: E402
from rlgpt.rl.evaluate import EvalSettings, evaluate  # noqa: E402
from rlgpt.rl.learn import LearnRequest, train_learned  # noqa: E402
from rlgpt.rl.shaping import signals  # noqa: E402
from rlgpt.trial import (
    LearnedAction,  # noqa: E402
    Trial,  # noqa: E402
)
from rlgpt.worlds import DEFAULT_WORLD, get_world  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def configure(args: argparse.Namespace, world: Any, dec: Any, budgets: dict[str, int]) -> Any:
    """The offline author's config for the learned action, with the arguments' changes."""
    sub = next(s for s in dec.sub_actions if s.name == args.action)
    ctx = {"decomposition": dec.model_dump(), "sub_action": sub.model_dump(), "coded": budgets,
           "signals": signals(world.vitals), "step_budget": LearnParams().step_budget,
           "sample_budget": args.samples, "ppo": load_params(ROOT / "params.yaml").train.ppo
           .model_dump()}  # fmt: skip
    req = LLMRequest(agent="fast", kind="fast_learned", template_hash="", context=ctx,
                     messages=[ChatMessage(role="user", content="-")])  # fmt: skip
    cfg = LearnedConfig.model_validate_json(OfflineAuthor(world=world.name).complete(req).text)
    update: dict[str, Any] = {"sample_budget": args.samples, "code_steps": args.code_steps}
    if args.shaping:
        pairs = (p.split("=") for p in args.shaping.split(","))
        update["shaping"] = [ShapingTerm(signal=s, weight=float(w)) for s, w in pairs]
    return cfg.model_copy(update=update)


def play(
    args: argparse.Namespace, world: Any, dec: Any, coded: list[Any], learned: list[LearnedAction]
) -> dict[str, Any]:
    """The skills in plan order (the learned action in its step's place, when given)."""
    params = load_params(ROOT / "params.yaml")
    task = world.task(args.task)
    swap = {a.name for a in learned}
    cfg = RLConfig(macro_actions=[c.name for c in coded if c.name not in swap], reward_terms=[],
                   learned_actions=sorted(swap), sample_budget=1, primitive_actions=[])  # fmt: skip
    order = [s.name for s in dec.sub_actions]

    def act(obs: Any, info: dict[str, Any], env: Any) -> int:
        ok = env.action_masks()
        todo = [a for a in order if a in env.names and ok[env.index_of(a)]]
        return int(env.index_of((todo or [env.names[-1]])[0]))

    report, _ = evaluate(
        Trial.of(task, cfg, coded, dec=dec, learned=learned), None, act=act,
        settings=EvalSettings(params=EvalParams(episodes=args.episodes), train=params.train,
                              seed=args.seed, samples=0, show_progress=False,
                              sandbox=params.sandbox),
    )  # fmt: skip
    return {
        "success": report.success_rate,
        "deaths": report.ends.get("death", 0.0),
        "deaths_at": report.deaths_at,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--world", default=DEFAULT_WORLD)
    ap.add_argument("--task", default="collect_diamond")
    ap.add_argument("--action", default="collect_diamond")
    ap.add_argument("--samples", type=int, default=150_000)
    ap.add_argument("--episodes", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shaping", default="", help="signal=weight,... (default: the author's)")
    ap.add_argument("--code-steps", type=int, default=None)
    ap.add_argument("--starts-from", default="", help="a learned action's folder of a run")
    args = ap.parse_args()
    params = load_params(ROOT / "params.yaml")
    world = get_world(args.world)
    task = world.task(args.task)
    author = world.author()
    dec = author.decompose(task, {args.action: "rl"}, {})
    coded = [
        author.write_action(s.name, 200 if s.name.startswith("collect") else 80)
        for s in dec.sub_actions
    ]
    cfg = configure(args, world, dec, {c.name: c.step_budget for c in coded})
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / args.action
        out.mkdir()
        if args.starts_from:
            for f in ("starts.pkl", "held_out.pkl", "starts.json"):
                shutil.copy(Path(args.starts_from) / f, out / f)
        req = LearnRequest(
            task=task, decomposition=dec, config=cfg, coded=coded,
            learn=LearnParams(sample_budget=args.samples), train=params.train,
            sandbox=params.sandbox, seed=args.seed, out_dir=str(out), show_progress=True,
        )  # fmt: skip
        result = train_learned(req)
        alone = play(args, world, dec, coded, [])
        with_learned = play(args, world, dec, coded, [result.action()]) if result.policy else {}
    print(json.dumps({
        "task": args.task, "action": args.action, "samples": result.samples,
        "reach_before": result.reach_before, "reach_after": result.reach_after,
        "code_reach": result.skill_reach, "deaths_after": result.deaths_after,
        "learned_samples_per_s": round(result.samples_per_s, 1), "ok": result.ok,
        "skills_alone": alone, "skills_with_learned": with_learned,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
