"""rlgpt.library: versions, the best entry, integrity checks and idempotent statistics."""

from __future__ import annotations

import multiprocessing

import pytest

from rlgpt.errors import UserError
from rlgpt.library.reuse import retrieve
from rlgpt.library.store import Origin, SkillLibrary, UsageStat
from rlgpt.messages import ActionValidation, CodedAction, Decomposition, SubAction

SUB = SubAction(name="collect_wood", description="d", mode="code", precondition="p",
                expected_effect="e")  # fmt: skip
OK = ActionValidation(name="collect_wood", ok=True)


def _action(body: str) -> CodedAction:
    src = f'def collect_wood(view):\n    """d"""\n    {body}\n'
    return CodedAction(name="collect_wood", docstring="d", source=src, step_budget=50)


def _stat(run: str, reach: float) -> UsageStat:
    return UsageStat(run_id=run, iteration=1, task="t", reach_rate=reach, usage=0.1)


def _origin(run: str) -> Origin:
    return Origin(run_id=run, iteration=1, task="t")


def test_versions_statistics_and_the_best_entry(tmp_path):
    lib = SkillLibrary(tmp_path)
    v1 = lib.record(_action('yield "do"'), SUB, OK, _origin("a"), _stat("a", 0.4))
    again = lib.record(_action('yield "do"'), SUB, OK, _origin("b"), _stat("a", 0.9))
    assert (again.version, len(again.stats)) == (1, 1), "same source, same iteration: no change"
    v2 = lib.record(_action('yield "noop"'), SUB, OK, _origin("c"), _stat("c", 0.8))
    assert (v1.version, v2.version) == (1, 2)
    assert lib.best("collect_wood").version == 2  # reached more in training
    for run in ("d", "f", "g"):  # v1 does well in three more runs: mean reach 0.85 > 0.8
        lib.record(_action('yield "do"'), SUB, OK, _origin(run), _stat(run, 1.0))
    assert lib.best("collect_wood").version == 1
    bad = ActionValidation(name="collect_wood", ok=False, error_kind="no_effect")
    lib.record(_action("return"), SUB, bad, _origin("e"), _stat("e", 1.0))
    assert lib.best("collect_wood").version == 1, "a version that failed validation never is"


def test_a_tampered_file_is_not_reused_and_a_damaged_manifest_says_so(tmp_path, caplog):
    lib = SkillLibrary(tmp_path)
    entry = lib.record(_action('yield "do"'), SUB, OK, _origin("a"), _stat("a", 1.0))
    dec = Decomposition(task="t", sub_actions=[SUB], reasoning="r")
    assert set(retrieve(tmp_path, dec, set())) == {"collect_wood"}
    (tmp_path / entry.file).write_text("def collect_wood(view):\n    import os\n")
    assert retrieve(tmp_path, dec, set()) == {}
    assert "does not match its manifest hash" in caplog.text
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(UserError, match="manifest .* is damaged"):
        lib.manifest()


def _add(root, run):
    SkillLibrary(root).record(_action(f'yield "do"  # {run}'), SUB, OK, _origin(run),
                              _stat(run, 0.5))  # fmt: skip


def test_runs_adding_at_once_lose_nothing(tmp_path):
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_add, args=(tmp_path, f"r{i}")) for i in range(6)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    versions = SkillLibrary(tmp_path).versions("collect_wood")
    assert sorted(e.origin.run_id for e in versions) == [f"r{i}" for i in range(6)]
    assert sorted(e.version for e in versions) == list(range(1, 7))
