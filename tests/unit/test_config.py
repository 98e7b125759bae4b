"""rlgpt.config.load_params: typed params.yaml with one-line user errors."""

from __future__ import annotations

import json
import re

import pytest

from rlgpt.config import Params, dotted_keys, load_params, parse_sets
from rlgpt.errors import UserError


def write(tmp_path, text: str):
    path = tmp_path / "params.yaml"
    path.write_text(text)
    return path


def test_valid_file_sets_values_and_keeps_defaults(tmp_path):
    path = write(
        tmp_path,
        "run:\n  task: collect_wood\n  seed: 7\n"
        "train:\n  sample_budget: 1234\n  ppo:\n    n_steps: 32\n    net_arch: [16, 16]\n"
        "eval:\n  episodes: 3\n",
    )
    params = load_params(path)
    assert params.run.task == "collect_wood"
    assert params.run.seed == 7
    assert params.train.sample_budget == 1234
    assert params.train.ppo.n_steps == 32
    assert params.train.ppo.net_arch == [16, 16]
    assert params.eval.episodes == 3
    defaults = Params()
    assert params.train.n_envs == defaults.train.n_envs
    assert params.train.ppo.batch_size == defaults.train.ppo.batch_size
    assert params.sandbox == defaults.sandbox


def test_none_gives_defaults_and_an_empty_file_is_an_error(tmp_path):
    assert load_params(None) == Params()
    with pytest.raises(UserError, match="is empty: give it sections"):
        load_params(write(tmp_path, ""))
    with pytest.raises(UserError, match="expected a mapping of sections"):
        load_params(write(tmp_path, "{}\n"))


@pytest.mark.parametrize(
    ("text", "needle"),
    [("run:\n  iterations: true\n", "'run.iterations': Input should be a valid integer"),
     ("train:\n  sample_budget: 1.0e18\n", "'train.sample_budget'"),
     ("train:\n  sample_budget: 10000000000\n", "less than or equal to 1000000000"),
     ("run:\n  seed: '3'\n", "'run.seed'")],
)  # fmt: skip
def test_values_are_strictly_typed_and_bounded(tmp_path, text, needle):
    with pytest.raises(UserError, match=re.escape(needle)):
        load_params(write(tmp_path, text))


def test_command_line_values_go_through_the_same_model_and_name_the_flag(tmp_path):
    names = {"run.seed": "--seed", "run.iterations": "--iterations"}
    with pytest.raises(UserError, match="invalid value for --seed: .*greater than or equal to 0"):
        load_params(None, {"run": {"seed": -1}}, names)
    with pytest.raises(UserError, match="--iterations: .*less than or equal to 50"):
        load_params(write(tmp_path, "run:\n  seed: 1\n"), {"run": {"iterations": 10**6}}, names)
    ok = load_params(write(tmp_path, "run:\n  seed: 1\n"), {"run": {"iterations": 3}}, names)
    assert (ok.run.seed, ok.run.iterations) == (1, 3)


def test_missing_file_is_user_error(tmp_path):
    with pytest.raises(UserError, match="not found"):
        load_params(tmp_path / "nope.yaml")


def test_malformed_yaml_names_the_line(tmp_path):
    path = write(tmp_path, "run:\n  task: collect_wood\n   seed: 1\n")  # bad indent, line 3
    with pytest.raises(UserError) as info:
        load_params(path)
    msg = str(info.value)
    assert "malformed YAML" in msg
    assert "line 3" in msg
    assert "\n" not in msg  # one line for the CLI


def test_unknown_key_is_named(tmp_path):
    path = write(tmp_path, "train:\n  sample_budget: 100\n  bogus_knob: 1\n")
    with pytest.raises(UserError, match=r"'train\.bogus_knob'"):
        load_params(path)


def test_unknown_section_is_named(tmp_path):
    with pytest.raises(UserError, match="'extra'"):
        load_params(write(tmp_path, "extra:\n  x: 1\n"))


def test_negative_budget_names_the_key(tmp_path):
    path = write(tmp_path, "train:\n  sample_budget: -5\n")
    with pytest.raises(UserError, match=r"'train\.sample_budget'"):
        load_params(path)


@pytest.mark.parametrize(
    "text, key",
    [
        ("run:\n  success_threshold: 1.5\n", "run.success_threshold"),
        ("train:\n  ppo:\n    n_steps: 1\n", "train.ppo.n_steps"),
        ("llm:\n  backend: gpt-9\n", "llm.backend"),
        ("eval:\n  episodes: many\n", "eval.episodes"),
    ],
)
def test_invalid_values_name_their_key(tmp_path, text, key):
    with pytest.raises(UserError, match=f"'{key}'"):
        load_params(write(tmp_path, text))


def test_non_mapping_top_level_is_user_error(tmp_path):
    with pytest.raises(UserError, match="mapping"):
        load_params(write(tmp_path, "- just\n- a list\n"))


def test_set_overrides_nested_values_and_keeps_the_rest_of_the_file(tmp_path):
    path = write(
        tmp_path, "train:\n  sample_budget: 1000\n  ppo:\n    n_epochs: 2\n    gamma: 0.9\n"
    )
    sets = parse_sets(["train.ppo.n_epochs=4", "run.critic=false", "llm.models={slow: m}"])
    names = {k: f"--set {k}" for k in dotted_keys(sets)}
    p = load_params(path, sets, names)
    assert (p.train.ppo.n_epochs, p.train.ppo.gamma, p.train.sample_budget) == (4, 0.9, 1000)
    assert p.run.critic is False and p.llm.models == {"slow": "m"}
    with pytest.raises(UserError, match=r"invalid value for --set train.ppo.n_epochs: .*integer"):
        load_params(path, parse_sets(["train.ppo.n_epochs=four"]), {"train.ppo.n_epochs":
                    "--set train.ppo.n_epochs"})  # fmt: skip
    with pytest.raises(UserError, match="'train.ppo.n_epoch'"):  # unknown keys are named
        load_params(path, parse_sets(["train.ppo.n_epoch=4"]))


@pytest.mark.parametrize("item", ["train.sample_budget", "sample_budget=3", "train..x=1", "a.b=["])
def test_a_malformed_set_says_the_form(item):
    with pytest.raises(UserError, match="--set"):
        parse_sets([item])


@pytest.mark.parametrize("option", ["fused_adam", "sparse_input"])
def test_a_run_recorded_before_a_rounding_option_existed_trains_as_it_was_made(tmp_path, option):
    """read_run_params (resume, reproduce): a recorded run without one of train's float-rounding
    options (fused_adam, sparse_input) was trained without it and goes on so; one that records
    it keeps its value; a user's params file without it gets the default."""
    from rlgpt.config import read_run_params

    recorded = json.loads(Params().model_dump_json())
    assert recorded["train"][option] is True
    del recorded["train"][option]
    old = tmp_path / "old.yaml"
    old.write_text(json.dumps(recorded))
    assert getattr(read_run_params(old).train, option) is False
    assert read_run_params(old).train.model_dump(exclude={option}) == {
        k: v for k, v in Params().train.model_dump().items() if k != option
    }
    new = tmp_path / "new.yaml"
    new.write_text(Params().model_dump_json())
    assert getattr(read_run_params(new).train, option) is True
    user = tmp_path / "params.yaml"
    user.write_text("train:\n  sample_budget: 1000\n")
    assert getattr(load_params(user).train, option) is True
