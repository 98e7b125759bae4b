"""The skill library across runs: a run adds what it validated, the next run reuses it
(re-validated), and lineage follows the reused skill back to the run and prompt that wrote it."""

from __future__ import annotations

import json
import subprocess

import yaml

from rlgpt.library.store import SkillLibrary
from tests.conftest import rlgpt_exe


def _cli(args, cwd, env):
    return subprocess.run([rlgpt_exe(), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)  # fmt: skip


def test_a_second_run_reuses_the_first_runs_skills_and_lineage_finds_their_writer(
    tmp_path, tiny_params, cli_env
):
    data = yaml.safe_load(tiny_params.read_text())
    data["library"] = {"path": str(tmp_path / "lib"), "use": True, "add": True}
    data["run"]["iterations"] = 1
    tiny_params.write_text(yaml.safe_dump(data))
    first = _cli(["run", "--params", str(tiny_params), "--run-id", "a", "--quiet"], tmp_path,
                 cli_env)  # fmt: skip
    assert first.returncode == 0, first.stderr[-2000:]
    lib = SkillLibrary(tmp_path / "lib")
    skills = lib.manifest().skills
    assert set(skills) == {"place_table", "make_wood_pickaxe"}  # the validated coded actions
    table = skills["place_table"][0]
    assert table.origin.run_id == "a" and table.origin.template == "fast_code"
    assert table.origin.exchange and "iter_1/llm" in table.origin.exchange
    assert table.validation["ok"] and [s.run_id for s in table.stats] == ["a"]
    assert (tmp_path / "lib" / table.file).read_text().startswith("def place_table(view):")

    second = _cli(["run", "--params", str(tiny_params), "--run-id", "b", "--quiet"], tmp_path,
                  cli_env)  # fmt: skip
    assert second.returncode == 0, second.stderr[-2000:]
    it = tmp_path / "runs" / "b" / "iter_1"
    used = json.loads((it / "library_used.json").read_text())
    assert set(used) == {"place_table", "make_wood_pickaxe"}
    assert not list((it / "llm").glob("*fast_code*")), "reused skills need no fast agent"
    assert json.loads((it / "validation.json").read_text())["actions"], "re-validated"
    entry = SkillLibrary(tmp_path / "lib").versions("place_table")
    assert len(entry) == 1 and [s.run_id for s in entry[0].stats] == ["a", "b"]

    lin = _cli(["lineage", "b", "--runs-dir", str(tmp_path / "runs")], tmp_path, cli_env)
    assert lin.returncode == 0, lin.stderr
    assert "from skill library: place_table v1" in lin.stdout
    assert "first written by run a iteration 1 via prompt fast_code" in lin.stdout

    params = ["--params", str(tiny_params)]
    listing = _cli(["skills", "list", *params], tmp_path, cli_env)
    assert listing.returncode == 0 and "place_table" in listing.stdout
    shown = _cli(["skills", "show", "place_table", *params], tmp_path, cli_env)
    assert "written by run a iteration 1" in shown.stdout and "def place_table" in shown.stdout
    hist = _cli(["skills", "history", "make_wood_pickaxe", *params], tmp_path, cli_env)
    assert "a iter 1" in hist.stdout and "b iter 1" in hist.stdout
    missing = _cli(["skills", "show", "nope", *params], tmp_path, cli_env)
    assert missing.returncode == 2 and "no skill 'nope'" in missing.stderr
