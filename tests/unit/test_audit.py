"""rlgpt.lineage.audit: a continued policy's chain reaches back to every iteration it continued."""

from __future__ import annotations

import json
from pathlib import Path

from rlgpt.lineage.audit import lineage, render_text


def _iteration(run: Path, k: int, continued: int | None) -> Path:
    train = run / f"iter_{k}" / "train"
    train.mkdir(parents=True)
    policy = train / "policy.zip"
    policy.write_bytes(f"weights {k}".encode())
    src = str(run / f"iter_{continued}" / "train" / "policy.zip") if continued else None
    meta = {"warm_start_from": src, "warm_start_sha256": "ab" * 32 if src else None}
    (train / "train.json").write_text(json.dumps(meta))
    return policy


def test_a_warm_started_policy_lists_the_iterations_it_continued(tmp_path):
    run = tmp_path / "runs" / "r1"
    _iteration(run, 1, None)  # iteration 2 changed the action space: a new policy
    _iteration(run, 2, None)
    _iteration(run, 3, 2)
    last = _iteration(run, 4, 3)
    result = lineage(str(last), tmp_path / "runs")
    assert [c["iteration"] for c in result["chain"]] == [2, 3, 4]
    assert [c["continued_from"] for c in result["chain"]] == [None, 2, 3]
    text = render_text(result)
    assert "training continued the policy of iteration 3 (sha256 abababababab)" in text


def test_the_iteration_table_never_cuts_a_name():
    from rlgpt.lineage.summary import IterationSummary, table_row

    names = ["collect_wood", "place_table", "make_wood_pickaxe", "make_stone_pickaxe"]
    it = IterationSummary(iteration=1, outer=1, inner=1, success_rate=0.5, samples=10,
                          dead_loop_ratio=0.0, coded=names, learned=["collect_diamond"],
                          validation="ok", verdict="revise_code")  # fmt: skip
    row = table_row(it)
    assert ",".join(names) in row and "collect_diamond" in row
