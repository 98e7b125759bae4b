"""rlgpt.sandbox.wire: the line each side writes is the line the other reads back."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rlgpt.sandbox.client import state_delta
from rlgpt.sandbox.wire import Replies, encode
from rlgpt.worlds import get_world
from rlgpt.worlds.crafter.env import CrafterEnv
from rlgpt.worlds.crafter.recipes import actions
from rlgpt.worlds.crafter.skills.api import ObsView
from rlgpt.worlds.crafter.tasks import get_task

PRIMITIVES = ["noop", "move_left", "do", "place_table"]


def test_every_common_reply_is_its_json_line_and_parses_back_without_json():
    replies = Replies(PRIMITIVES)
    for reply in [{"action": a} for a in PRIMITIVES] + [{"done": True}]:
        line = replies.line(reply)
        assert line == (json.dumps(reply) + "\n").encode(), "the cached line is json's own"
        assert line[:-1] in replies.known, "the host knows it without parsing"
        got = replies.parse(line[:-1])
        assert got == reply
        got["action"] = "tampered"  # each parse is a fresh object: nothing shared to change
        assert replies.parse(line[:-1]) == reply


@pytest.mark.parametrize(
    "reply",
    [
        {"action": "fly"},  # not an action of the game: parsed, and the host judges it
        {"action": "do", "extra": 1},
        {"done": 1},
        {"error": "exception", "message": "bad \ud800 \x1b[2J\r\nrlgpt: act: ok"},
        {"errors": {"a": "b"}, "ok": False},
    ],
)
def test_other_replies_are_json_lines_of_ascii_and_parse_back(reply):
    replies = Replies(PRIMITIVES)
    line = replies.line(reply)
    assert line.endswith(b"\n") and line.count(b"\n") == 1, "one line, whatever the text"
    assert line.isascii()
    assert line[:-1] not in replies.known
    assert replies.parse(line[:-1]) == json.loads(line)
    assert encode(reply) == line


def test_a_line_that_is_not_json_is_an_error_for_the_host_to_judge():
    with pytest.raises(ValueError):
        Replies(PRIMITIVES).parse(b'{"action": "do"')


def test_a_view_fed_only_what_changed_reads_what_a_view_fed_every_state_reads():
    """The client leaves out the keys the world's view keeps (SkillPackage.sent_when_changed)
    while they are unchanged: a view fed those deltas must read, at every step, what a view
    fed every whole state reads; a world that names none gets every key every time."""
    skills = get_world("crafter").skills()
    assert skills.sent_when_changed, "crafter's view keeps some keys"
    env = CrafterEnv(get_task("make_wood_pickaxe"))
    _, info = env.reset(seed=3)
    whole, fed = ObsView(**skills.view), ObsView(**skills.view)
    sent: dict = {}
    rng, left_out = np.random.default_rng(0), 0
    for step in range(300):
        state = env.view_state(info, start=step % 50 == 0)
        delta = state_delta(state, sent, skills.sent_when_changed)
        assert state_delta(state, {}, ()) == state, "nothing kept: every key goes"
        left_out += len(state) - len(delta)
        whole.update(state)
        fed.update(delta)
        assert (fed.inventory, fed.achievements, fed.facing) == (
            whole.inventory, whole.achievements, whole.facing
        )  # fmt: skip
        _, _, term, trunc, info = env.step(int(rng.integers(len(actions()))))
        if term or trunc:
            _, info = env.reset()
    assert left_out > 300, "most steps leave the kept keys out"
