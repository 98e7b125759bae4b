"""Bad input gives one line, exit code 2, no traceback; sandbox check exit codes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import rlgpt_exe


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [rlgpt_exe(), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("params_text", "args", "needle"),
    [
        (None, ["--task", "make_wood_pickax"], "unknown task 'make_wood_pickax'"),
        ("run:\n  task: [\n", [], "malformed YAML at line"),
        ("train:\n  sample_budget: -5\n", [], "train.sample_budget"),
        ("run:\n  iterationz: 3\n", [], "run.iterationz"),
        (None, ["--iterations", "0"], "iterations"),
        (None, ["--set", "train.sample_budget=-5"], "invalid value for --set train.sample_budget"),
        (None, ["--set", "train.sample_budget"], "expected SECTION.KEY=VALUE"),
        ("run:\n  world: minedojo\n", [], "unknown world 'minedojo'; choose one of: crafter"),
        (None, ["--set", "run.world=crafterr"], "unknown world 'crafterr'"),
    ],
)
def test_user_errors_are_one_line_exit_2(tmp_path, cli_env, params_text, args, needle):
    cmd = ["run", *args]
    if params_text is not None:
        (tmp_path / "p.yaml").write_text(params_text)
        cmd += ["--params", str(tmp_path / "p.yaml")]
    proc = _run(cmd, tmp_path, cli_env)
    assert proc.returncode == 2
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and needle in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_tasks_lists_the_paper_tasks(tmp_path, cli_env):
    proc = _run(["tasks"], tmp_path, cli_env)
    assert proc.returncode == 0
    for name in ("collect_wood", "place_table", "make_wood_pickaxe", "collect_stone",
                 "make_stone_pickaxe", "place_furnace", "make_iron_pickaxe",
                 "collect_diamond", "eat_cow"):  # fmt: skip
        assert name in proc.stdout
    assert "achievement 'make_wood_pickaxe'" in proc.stdout


def test_tasks_of_another_world_are_its_own(tmp_path, cli_env):
    proc = _run(["tasks", "--world", "craftax-classic", "--json"], tmp_path, cli_env)
    assert proc.returncode == 0, proc.stderr
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert len(rows) == 22 and {r["world"] for r in rows.values()} == {"craftax-classic"}
    assert "Craftax-Classic achievement" in rows["make_iron_pickaxe"]["description"]
    assert rows["collect_diamond"]["plan"][-1] == ["collect_diamond", 1]
    bad = _run(["tasks", "--world", "minedojo"], tmp_path, cli_env)
    assert bad.returncode == 2 and "invalid choice: 'minedojo'" in bad.stderr


GOOD = '''
def collect_wood(view):
    """Walk to a tree (in view or seen earlier) and hit it until wood rises."""
    start = view.inventory["wood"]
    while view.inventory["wood"] == start:
        if view.facing_name == "tree":
            yield "do"
        elif not (yield from go_to(view, "tree")):
            yield from explore(view, 8)
'''
BAD = "import os\n\ndef collect_wood(view):\n    yield os.environ['OPENAI_API_KEY']\n"


def test_sandbox_check_accepts_and_rejects(tmp_path, cli_env):
    (tmp_path / "collect_wood.py").write_text(GOOD)
    ok = _run(["sandbox", "check", "collect_wood.py"], tmp_path, cli_env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    report = json.loads(ok.stdout)
    assert report["actions"][0]["ok"] is True and report["actions"][0]["scenarios"]

    (tmp_path / "evil.py").write_text(BAD)
    bad = _run(["sandbox", "check", "evil.py"], tmp_path, cli_env)
    assert bad.returncode == 1
    verdict = json.loads(bad.stdout)["actions"][0]
    assert verdict["ok"] is False and verdict["error_kind"] == "gate"
    assert "os" in verdict["message"]
    assert bad.stderr.strip().startswith("rlgpt: collect_wood: gate: line 1: import of 'os'")


def test_pipeline_failure_is_one_line_exit_1_with_traceback_file(tmp_path, cli_env):
    (tmp_path / "blocker").write_text("a file where the runs directory should be")
    (tmp_path / "p.yaml").write_text(f"run:\n  runs_dir: {tmp_path / 'blocker'}\n")
    proc = _run(["run", "--params", str(tmp_path / "p.yaml")], tmp_path, cli_env)
    assert proc.returncode == 1
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("rlgpt: failed:"), proc.stderr
    assert "Traceback" not in proc.stderr


def test_version_is_the_installed_package_version(tmp_path, cli_env):
    from importlib.metadata import version

    proc = _run(["--version"], tmp_path, cli_env)
    assert proc.returncode == 0 and proc.stdout.strip() == f"rlgpt {version('rlgpt')}"


def test_python_dash_m_rlgpt_is_the_rlgpt_command(tmp_path, cli_env):
    import sys

    proc = subprocess.run([sys.executable, "-m", "rlgpt", "tasks"], cwd=tmp_path, env=cli_env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0 and "make_wood_pickaxe" in proc.stdout


def test_flows_and_tasks_are_not_installed_as_packages(tmp_path, cli_env):
    """A user's own `flows` or `tasks` package never collides with rlgpt's folders."""
    import sys

    probe = (
        "import importlib.util as u, json; "
        "print(json.dumps([u.find_spec(m) is None for m in ('flows', 'tasks', 'rlgpt')]))"
    )
    env = {k: v for k, v in cli_env.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert json.loads(proc.stdout) == [True, True, False], proc.stderr
    assert _run(["--version"], tmp_path, env).returncode == 0  # the command still finds them


@pytest.mark.parametrize(
    ("line", "expected"),
    [("rlgpt ru", "run"), ("rlgpt run --ta", "--task"), ("rlgpt skills sh", "show"),
     ("rlgpt run --task x --se", "--seed --set"), ("rlgpt sandbox check --deg", "--degraded"),
     ("rlgpt run --task make_s", "make_stone_pickaxe make_stone_sword"),
     ("rlgpt run --llm o", "offline openai"), ("rlgpt re", "resume report reproduce")],
)  # fmt: skip
def test_bash_completion_completes_commands_and_options(tmp_path, cli_env, line, expected):
    script = _run(["completion", "bash"], tmp_path, cli_env)
    assert script.returncode == 0
    (tmp_path / "c.sh").write_text(script.stdout)
    words = line.split()
    probe = (f"source {tmp_path / 'c.sh'}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
             '_rlgpt_complete; echo "${COMPREPLY[*]}"')  # fmt: skip
    out = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=30)
    assert out.stdout.strip() == expected, out.stderr


def test_tasks_json_is_the_registry_with_plans(tmp_path, cli_env):
    proc = _run(["tasks", "--json"], tmp_path, cli_env)
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert rows["make_wood_pickaxe"]["achievement"] == "make_wood_pickaxe"
    assert [a for a, _ in rows["make_wood_pickaxe"]["plan"]][-1] == "make_wood_pickaxe"
