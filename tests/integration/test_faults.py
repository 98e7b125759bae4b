"""Fault injection for the reliability findings: a careless user's commands against a throwaway
project, each checked to fail in one line (exit 2) or to recover, and never to change anything
outside the run directory it names. One test (or group) per finding, numbered as in the issue."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from rlgpt.lineage.rundir import MARKER, RunLock
from tests.conftest import TINY, rlgpt_exe
from tests.support.llm_server import ChatServer, crafter_responder
from tests.support.procs import alive, descendants


def _cli(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 600):
    return subprocess.run([rlgpt_exe(), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip


def _one_line_user_error(proc, needle: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and needle in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def _snapshot(root: Path, skip: Path | None = None) -> dict[str, tuple[int, int]]:
    out = {}
    for p in root.rglob("*"):
        if skip is not None and (p == skip or skip in p.parents):
            continue
        tracking = p.name == "mlflow.db" or "mlruns" in p.parts  # runs are meant to log there
        if p.is_file() and not tracking and ".prefect" not in p.parts and ".locks" not in p.parts:
            st = p.stat()
            out[str(p.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture
def project(tmp_path: Path, cli_env: dict[str, str]) -> tuple[Path, dict[str, str]]:
    """A throwaway project: params.yaml with tiny settings, a runs dir with one finished-looking
    rlgpt run and one foreign folder, and files that must never change."""
    data = {**TINY, "tracking": {"mlflow_uri": f"sqlite:///{tmp_path}/mlflow.db"}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(data))
    (tmp_path / "notes.txt").write_text("a researcher's notes")
    (tmp_path / "runs" / "mine").mkdir(parents=True)
    (tmp_path / "runs" / "mine" / MARKER).write_text("mine\n")
    (tmp_path / "runs" / "mine" / "keep.txt").write_text("results")
    (tmp_path / "runs" / "foreign").mkdir()
    (tmp_path / "runs" / "foreign" / "data.csv").write_text("1,2,3")
    return tmp_path, cli_env


# 1. run ids are checked; --force deletes only rlgpt's own run directories
@pytest.mark.parametrize(
    ("run_id", "needle"),
    [("..", "invalid run id '..'"), (".", "invalid run id '.'"), ("/tmp", "invalid run id"),
     ("../../x", "invalid run id"), ("a" * 300, "at most 100 characters"), ("", "invalid run id")],
)  # fmt: skip
def test_1_bad_run_ids_are_refused_and_nothing_is_deleted(project, run_id, needle):
    root, env = project
    before = _snapshot(root)
    proc = _cli(["run", "--run-id", run_id, "--force"], root, env, timeout=120)
    _one_line_user_error(proc, needle)
    assert _snapshot(root) == before


def test_1_force_refuses_a_folder_rlgpt_did_not_make(project):
    root, env = project
    before = _snapshot(root)
    proc = _cli(["run", "--run-id", "foreign", "--force"], root, env, timeout=120)
    _one_line_user_error(proc, "was not created by rlgpt")
    assert _snapshot(root) == before


# 2. a run directory is locked while a run or resume works in it
def test_2_a_second_writer_is_refused_while_the_run_is_locked(project):
    root, env = project
    lock = RunLock(root / "runs", "mine")  # as a running `rlgpt run --run-id mine` holds it
    try:
        before = _snapshot(root)
        proc = _cli(["run", "--run-id", "mine", "--force"], root, env, timeout=120)
        _one_line_user_error(proc, f"in use by another rlgpt process (pid {os.getpid()})")
        proc = _cli(["resume", "mine"], root, env, timeout=120)
        assert proc.returncode == 2
        assert _snapshot(root) == before
    finally:
        lock.release()


# 6. command-line values go through the params model; no abbreviations; degenerate files
@pytest.mark.parametrize(
    ("args", "params", "needle"),
    [(["--seed", "-1"], None, "invalid value for --seed"),
     (["--iterations", "1000000"], None, "invalid value for --iterations"),
     (["--iteration", "1"], None, "unrecognized arguments: --iteration"),
     (["--from", "mine"], None, "--from RUN_ID goes with --llm replay"),
     ([], "run:\n  iterations: true\n", "'run.iterations': Input should be a valid integer"),
     ([], "train:\n  sample_budget: 1.0e18\n", "'train.sample_budget'"),
     ([], "", "is empty"),
     (["--llm", "replay", "--from", "mine"], None, "did not finish")],  # 7. unfinished run
)  # fmt: skip
def test_6_and_7_bad_values_stop_before_any_work(project, args, params, needle):
    root, env = project
    if params is not None:
        (root / "params.yaml").write_text(params)
    before = _snapshot(root, skip=root / "params.yaml")
    proc = _cli(["run", "--run-id", "new", *args], root, env, timeout=120)
    _one_line_user_error(proc, needle)
    assert _snapshot(root, skip=root / "params.yaml") == before
    assert not (root / "runs" / "new").exists()


def test_7_reproduce_needs_a_completed_run(project):
    root, env = project
    proc = _cli(["reproduce", "mine"], root, env, timeout=120)
    _one_line_user_error(proc, "did not finish: reproduce needs a completed run")


# 10. the smaller findings
def test_10_lineage_and_sandbox_check_bad_targets_are_one_line_errors(project):
    root, env = project
    for target in ("", ".", ".."):
        _one_line_user_error(_cli(["lineage", target], root, env, timeout=120), "is not a")
    (root / "runs" / "mine" / "iter_1" / "llm").mkdir(parents=True)
    (root / "runs" / "mine" / "iter_1" / "llm" / "001_slow_x.json").write_text('{"key": "a", ')
    _one_line_user_error(_cli(["lineage", "mine"], root, env, timeout=120), "001_slow_x.json")
    _one_line_user_error(_cli(["sandbox", "check", "runs"], root, env, timeout=120),
                         "is a directory")  # fmt: skip


def test_10_reproduce_of_a_damaged_summary_is_one_line(project):
    root, env = project
    run = root / "runs" / "mine"
    (run / "manifest.json").write_text("{}")
    (run / "params.yaml").write_text("{}")
    (run / "summary.json").write_text('{"run_id": ')
    _one_line_user_error(_cli(["reproduce", "mine"], root, env, timeout=180), "damaged")


# 3, 5, 8, 9: a real run, interrupted with Ctrl-C, resumed, resumed again
def _mlflow_runs(root: Path, run_id: str) -> list:
    from mlflow.tracking import MlflowClient

    c = MlflowClient(tracking_uri=f"sqlite:///{root}/mlflow.db")
    exp = c.get_experiment_by_name("rlgpt")
    return c.search_runs([exp.experiment_id], filter_string=f"tags.`rlgpt.run_id` = '{run_id}'")


def _foreground() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_3_5_8_9_interrupt_resume_and_mlflow_follow_disk(project):
    root, env = project
    data = yaml.safe_load((root / "params.yaml").read_text())
    data["train"]["sample_budget"] = 12000  # several seconds of training even on a quiet day
    data["run"]["iterations"] = 1
    (root / "params.yaml").write_text(yaml.safe_dump(data))
    outside = _snapshot(root, skip=root / "runs" / "r")
    # a foreground run, as in a terminal: a test runner started in the background (`cmd &`)
    # hands its children SIGINT ignored, and Python then keeps it ignored
    proc = subprocess.Popen([rlgpt_exe(), "run", "--run-id", "r", "--quiet"], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_foreground)  # fmt: skip
    log = root / "runs" / "r" / "stage_log.jsonl"
    deadline = time.monotonic() + 300
    while not (log.exists() and '"train"' in log.read_text()):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.5)
    time.sleep(2)  # mid-training
    family = descendants(proc.pid)
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole foreground group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-3000:]
    assert time.monotonic() - t0 < 30, "stops within seconds"
    assert "interrupted" in err and "Traceback" not in err
    time.sleep(1)
    assert not [p for p in family if alive(p)], "no server or worker is left behind"
    parents = [r for r in _mlflow_runs(root, "r") if "mlflow.parentRunId" not in r.data.tags]
    assert [r.info.status for r in parents] == ["KILLED"]

    # 5 and 8: resume with runs_dir spelled another way; the KILLED parent is continued
    res = _cli(["resume", "r", "--runs-dir", str(root / "runs") + "/", "--quiet"], root, env)
    assert res.returncode == 0, res.stderr[-3000:]
    parents = [r for r in _mlflow_runs(root, "r") if "mlflow.parentRunId" not in r.data.tags]
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    policy = root / "runs" / "r" / "iter_1" / "train" / "policy.zip"
    digest = policy.read_bytes()
    from mlflow.tracking import MlflowClient

    c = MlflowClient(tracking_uri=f"sqlite:///{root}/mlflow.db")
    history = c.get_metric_history(parents[0].info.run_id, "final_success_rate")
    starts = (root / "runs" / "r" / "stage_log.jsonl").read_text().count("\n")

    # 9: a resume of a finished run with all stages cached: nothing reruns, no noise
    again = _cli(["resume", "r", "--runs-dir", "./runs", "--quiet"], root, env)
    assert again.returncode == 0 and "Traceback" not in again.stderr + again.stdout
    assert "CancelledError" not in again.stderr
    assert (root / "runs" / "r" / "stage_log.jsonl").read_text().count("\n") == starts
    assert policy.read_bytes() == digest
    again_history = c.get_metric_history(parents[0].info.run_id, "final_success_rate")
    assert len(again_history) == len(history), "a resume of a finished run logs nothing again"
    steps = [m.step for m in again_history]
    assert len(steps) == len(set(steps)) and max(steps) == 1, "one point per step"
    assert _snapshot(root, skip=root / "runs" / "r") == outside


@pytest.mark.slow
def test_3_a_killed_run_leaves_no_server_behind(project):
    root, env = project
    proc = subprocess.Popen([rlgpt_exe(), "run", "--run-id", "k", "--quiet"], cwd=root, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    server_log = root / "runs" / "k" / ".prefect-server.log"
    log = root / "runs" / "k" / "stage_log.jsonl"
    deadline = time.monotonic() + 300
    while not log.exists():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.5)
    family = descendants(proc.pid)
    assert server_log.exists() and family
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    time.sleep(2)
    assert not [p for p in family if alive(p)], "the server dies with its run"


# 4. a failed exchange is recorded but never served again
@pytest.mark.slow
def test_4_resume_after_a_model_failure_asks_again(project):
    root, env = project
    data = yaml.safe_load((root / "params.yaml").read_text())
    data["run"]["iterations"] = 1
    data["llm"] = {"backend": "openai", "model": "m", "backoff_s": 0.01, "timeout_s": 10}
    (root / "params.yaml").write_text(yaml.safe_dump(data))
    env = {**env, "OPENAI_API_KEY": "sk-test-faults"}

    broken = {"on": True}

    def respond(body):
        first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        if broken["on"] and "# Role: critic" in first_user:
            return "I think the run went fine, no JSON today."
        return crafter_responder(body)

    with ChatServer(respond) as srv:
        env["OPENAI_BASE_URL"] = srv.base_url
        first = _cli(["run", "--run-id", "m4", "--quiet"], root, env)
        assert first.returncode == 1 and "no valid reply after 3 attempts" in first.stderr
        failed = list((root / "runs" / "m4").glob("iter_1/llm/*critic*.json"))
        assert len(failed) == 3 and all(not json.loads(p.read_text())["ok"] for p in failed)
        broken["on"] = False  # the endpoint is fixed
        again = _cli(["resume", "m4", "--quiet"], root, env)
    assert again.returncode == 0, again.stderr[-3000:]
    summary = json.loads((root / "runs" / "m4" / "summary.json").read_text())
    assert summary["status"] == "complete"


# 5. the MLflow parent is closed even when summary.json cannot be written (a full disk)
@pytest.mark.slow
def test_5_a_full_disk_still_closes_the_parent(project):
    root, env = project
    env = {**env, "RLGPT_FAULT": "enospc:write_summary"}
    proc = _cli(["run", "--run-id", "full", "--iterations", "1", "--quiet"], root, env)
    assert proc.returncode == 1 and "No space left on device" in proc.stderr, proc.stderr[-2000:]
    parents = [r for r in _mlflow_runs(root, "full") if "mlflow.parentRunId" not in r.data.tags]
    assert [r.info.status for r in parents] == ["FAILED"]
    assert (root / "runs" / "full" / "error.log").is_file(), "the traceback stays with the run"


# 9. two runs started at once in one project, with a fresh Prefect home, both start and finish
@pytest.mark.slow
def test_9_two_runs_at_once_both_finish(project):
    root, env = project
    procs = [subprocess.Popen([rlgpt_exe(), "run", "--run-id", f"c{i}", "--iterations", "1",
                               "--quiet"], cwd=root, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(2)]  # fmt: skip
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-2000:]
        assert "Traceback" not in err


# sandbox-3: no sandbox on a fresh machine; a parent run killed before it was closed
def test_no_sandbox_stops_a_run_before_any_work(project):
    """bubblewrap not on PATH (as on a machine whose install failed): one line, exit 2, and no
    run directory, no LLM call, no training; the same for `rlgpt sandbox check`."""
    root, env = project
    env = {**env, "PATH": f"{root / 'no-such-bin'}:{Path(rlgpt_exe()).parent}"}
    before = _snapshot(root)
    proc = _cli(["run", "--run-id", "nobox"], root, env, timeout=120)
    _one_line_user_error(proc, "no sandbox: bubblewrap or libseccomp is missing")
    assert not (root / "runs" / "nobox").exists() and not (root / "mlflow.db").exists()
    assert _snapshot(root) == before
    action = root / "act.py"
    action.write_text("def act(view):\n    yield 'noop'\n")
    proc = _cli(["sandbox", "check", str(action)], root, env, timeout=120)
    _one_line_user_error(proc, "no sandbox")
    assert proc.stdout == ""


def _parents(root: Path, run_id: str) -> list:
    return [r for r in _mlflow_runs(root, run_id) if "mlflow.parentRunId" not in r.data.tags]


@pytest.mark.slow
def test_a_parent_left_running_by_a_killed_run_ends_killed(project):
    """SIGKILL after summary.json is written, before the MLflow parent is closed: the next run
    ends that orphan KILLED; a rerun of the same id (its folder removed) ends its own old
    parent KILLED as it supersedes it, and finishes its new one."""
    root, env = project
    killed = {**env, "RLGPT_FAULT": "end_parent"}
    for run_id in ("o1", "o2"):
        proc = _cli(["run", "--run-id", run_id, "--iterations", "1", "--quiet"], root, killed)
        assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
        assert (root / "runs" / run_id / "summary.json").is_file()
        assert [r.info.status for r in _parents(root, run_id)] == ["RUNNING"]
        if run_id == "o2":  # o2's start found o1's process gone
            (o1,) = _parents(root, "o1")
            assert o1.info.status == "KILLED" and o1.data.tags["rlgpt.orphaned"] == "true"
    shutil.rmtree(root / "runs" / "o2")
    proc = _cli(["run", "--run-id", "o2", "--iterations", "1", "--quiet"], root, env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    parents = sorted(_parents(root, "o2"), key=lambda r: r.info.start_time)
    assert [r.info.status for r in parents] == ["KILLED", "FINISHED"]
    assert parents[0].data.tags.get("rlgpt.superseded") == "true"
    assert not [r for r in _mlflow_runs(root, "o1") + _mlflow_runs(root, "o2")
                if r.info.status == "RUNNING"], "no run is left RUNNING"  # fmt: skip
