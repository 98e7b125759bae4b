"""Candidates (scale.candidates) against a scripted model on a real OpenAI-compatible server on
127.0.0.1: the fast agent samples three coded actions per sub-action (seeds 0, 1, 2), as a
sampling model would; only one of each three works. Every candidate is validated, the working
one is kept without any repair round, and the others stay in the run's lineage."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rlgpt.worlds.crafter.author import write_action
from tests.conftest import rlgpt_exe
from tests.integration.test_repair_loop import BUGGY, _coded_reply
from tests.support.llm_server import crafter_responder, scripted_run

KEY = "sk-test-candidates-0000"
# The third sample of each: a misspelled primitive action (a 7B model's slip).
MISSPELLED = {n: write_action(n, 80).source.replace(f'"{n}"', f'"{n}s"') for n in BUGGY}
# Which sample (by the request's seed) works: place_table's second, make_wood_pickaxe's third
# (its first two are the same buggy code).
WORKS = {"place_table": 1, "make_wood_pickaxe": 2}


def _respond(body: dict[str, Any]) -> str:
    first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    for name in BUGGY:
        if f"`def {name}(view):`" in first_user and "repairing code" not in first_user:
            seed = int(body.get("seed") or 0)
            if seed == WORKS[name]:
                return _coded_reply(name, write_action(name, 80).source)
            return _coded_reply(name, MISSPELLED[name] if seed == 2 else BUGGY[name])
    return crafter_responder(body)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[Path, list[dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("candidates")
    _, requests = scripted_run(tmp, _respond, KEY, "c", scale={"candidates": 3},
                               llm={"max_repairs": 1, "temperature": 0.7})  # fmt: skip
    return tmp / "runs" / "c" / "iter_1", requests


def test_the_working_candidate_is_kept_without_a_repair(run):
    it, requests = run
    prompts = [r["messages"][-1]["content"] for r in requests]
    assert not [p for p in prompts if "repairing code" in p], "no repair round was needed"
    coding = [r for r in requests if "Role: fast agent (coder)" in r["messages"][1]["content"]]
    assert sorted(int(r.get("seed") or 0) for r in coding) == [0, 0, 1, 1, 2, 2]
    validation = json.loads((it / "validation.json").read_text())
    assert all(a["ok"] for a in validation["actions"]), validation
    for name in WORKS:
        assert (it / "actions" / f"{name}.py").read_text() == write_action(name, 80).source
    cfg = json.loads((it / "rl_config.json").read_text())
    assert {"place_table", "make_wood_pickaxe"} <= set(cfg["macro_actions"])


def test_every_candidate_is_validated_and_recorded_in_lineage(run):
    it, _ = run
    lineage = json.loads((it / "candidates.json").read_text())
    # place_table: buggy, working, misspelled. make_wood_pickaxe: its seeds 0 and 1 gave the
    # same buggy code, kept (and validated) once, then the working one.
    expect = {"place_table": ["unmet_precondition", None, "api_misuse"],
              "make_wood_pickaxe": ["no_effect", None]}  # fmt: skip
    for name, kinds in expect.items():
        rows = lineage[name]
        assert [r["candidate"] for r in rows] == list(range(1, len(kinds) + 1))
        assert [r["error_kind"] for r in rows] == kinds, rows
        assert [r["chosen"] for r in rows] == [k is None for k in kinds]
        assert len({r["sha256"] for r in rows}) == len(rows)
        assert all(r["message"] for r in rows if not r["ok"])
        for i in range(1, len(kinds) + 1):  # each candidate's code and its own validation
            assert (it / "candidates" / name / f"{i}.py").is_file()
            v = json.loads((it / "candidates" / name / f"{i}.validation.json").read_text())
            assert v["error_kind"] == kinds[i - 1]
    log = [json.loads(ln) for ln in (it.parent / "stage_log.jsonl").read_text().splitlines()]
    assert sum(e["stage"] == "validate_candidate" for e in log) == 5


def test_lineage_names_every_candidate_and_the_one_kept(run):
    it, _ = run
    proc = subprocess.run(
        [rlgpt_exe(), "lineage", "c", "--runs-dir", str(it.parent.parent)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if "candidates of place_table" in ln)
    assert line.count(": ") >= 3 and line.endswith("kept 2"), line
