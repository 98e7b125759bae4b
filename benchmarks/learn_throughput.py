"""Learned actions' training throughput against the task's own training, on this machine.

The baseline is the top-level training rlgpt already runs (make_wood_pickaxe, its coded actions
in sandboxed workers, train.* as in params.yaml); against it, a learned action's training
(`rlgpt.rl.learn.train_learned`: collect_wood, its code and the primitives in its space,
episodes from staged start states), alone and two at once (`train_all`, each in its own
process holding a training slot: collect_wood and place_table). Samples are primitive env
steps; a learned training's samples/s count its training only (its start states and its
held-out judgement take time around it: `learned_wall_s`); two at once, the sum of each one's
(they start together and are the same size). In `--rounds` rounds, baseline first;
medians. Ends with one JSON line: {"baseline_samples_per_s", "learned_samples_per_s",
"learned_vs_baseline", "two_at_once_samples_per_s", "two_vs_one", "learned_wall_s"}.

    python benchmarks/learn_throughput.py --samples 15000 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rlgpt.config import LearnParams, load_params  # noqa: E402
from rlgpt.messages import LearnedConfig, RLConfig  # noqa: E402
from rlgpt.rl.learn import LearnRequest, train_all, train_learned  # noqa: E402
from rlgpt.rl.train import TrainSettings, train  # noqa: E402
from rlgpt.trial import Trial  # noqa: E402
from rlgpt.worlds import get_world  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def baseline(samples: int, out: Path) -> float:
    """The task's own training: samples/s."""
    params = load_params(ROOT / "params.yaml")
    world = get_world("crafter")
    task = world.task("make_wood_pickaxe")
    author = world.author()
    dec = author.decompose(task, {}, {})
    coded = [author.write_action(s.name, 80) for s in dec.sub_actions]
    cfg = RLConfig(macro_actions=[c.name for c in coded], reward_terms=[], primitive_actions=None,
                   ppo=params.train.ppo, sample_budget=samples)  # fmt: skip
    tp = params.train.model_copy(update={"checkpoint_every": 0})
    settings = TrainSettings(params=tp, seed=0, show_progress=False, sandbox=params.sandbox)
    result = train(Trial.of(task, cfg, coded), out, settings=settings)
    return result.samples_per_s


def request(name: str, samples: int, out: Path, seed: int) -> LearnRequest:
    params = load_params(ROOT / "params.yaml")
    world = get_world("crafter")
    task = world.task("make_wood_pickaxe")
    author = world.author()
    dec = author.decompose(task, {name: "rl"}, {})
    coded = [author.write_action(s.name, 80) for s in dec.sub_actions]
    cfg = LearnedConfig(name=name, macro_actions=[name], step_budget=150, sample_budget=samples,
                        ppo=params.train.ppo)  # fmt: skip
    learn = LearnParams(
        starts=16, held_out=4, rollouts=0, n_envs=params.learn.n_envs, sample_budget=samples
    )
    tp = params.train.model_copy(update={"checkpoint_every": 0})
    return LearnRequest(task=task, decomposition=dec, config=cfg, coded=coded, learn=learn,
                        train=tp, sandbox=params.sandbox, seed=seed, out_dir=str(out),
                        show_progress=False)  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=15_000)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    base, alone, together, walls = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            root = Path(tmp) / f"round{r}"
            base.append(baseline(args.samples, root / "baseline"))
            one = train_learned(request("collect_wood", args.samples, root / "alone", r))
            alone.append(one.samples_per_s)
            walls.append(one.wall_s)
            two = train_all(
                [
                    request("collect_wood", args.samples, root / "a", r),
                    request("place_table", args.samples, root / "b", r),
                ],
                parallel=2,
            )
            together.append(sum(x.samples_per_s for x in two))  # they train at the same time
            print(
                f"round {r + 1}: baseline {base[-1]:,.0f}, learned {alone[-1]:,.0f}, "
                f"two at once {together[-1]:,.0f} samples/s in all",
                flush=True,
            )
    b, a, t = (statistics.median(x) for x in (base, alone, together))
    print(json.dumps({
        "baseline_samples_per_s": round(b, 1), "learned_samples_per_s": round(a, 1),
        "learned_vs_baseline": round(a / b, 3), "two_at_once_samples_per_s": round(t, 1),
        "two_vs_one": round(t / a, 3), "learned_wall_s": round(statistics.median(walls), 1),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
