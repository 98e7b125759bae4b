"""rlgpt.sandbox.wire: what each side writes is what the other reads back (requests as marshal
frames, replies as JSON lines)."""

from __future__ import annotations

import json
import os
import threading

import numpy as np
import pytest

from rlgpt.sandbox.client import state_delta
from rlgpt.sandbox.wire import Replies, decode, encode, request, requests
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
        assert line == (json.dumps(reply) + "\n").encode(), "json's own, the same on both sides"
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
    assert json.loads(encode(reply)) == json.loads(line)


class _Flag(int):  # a subclass marshal does not write
    pass


@pytest.mark.parametrize(
    "obj",
    [
        {
            "op": "start",
            "name": "collect_wood",
            "state": {
                "memory": "0f" * 4096,
                "pos": (3, 4),
                "daylight": 0.983,
                "inventory": {"wood": 2},
                "ok": True,
                "none": None,
            },
        },
        {"op": "next", "taken": 3, "before": [{"pos": [1, 2]}], "text": "caf\u00e9 \udc80"},
        {"op": "load", "flag": _Flag(1), "nested": {"k": [_Flag(2)]}},
    ],
)
def test_requests_come_out_of_the_pipe_as_the_host_wrote_them(obj):
    """Frames of any size, split across reads or many in one, read back whole and in order;
    a subclass marshal cannot write arrives as the JSON types it stands for."""
    r, w = os.pipe()
    frames = [request(obj), request({"op": "stop"}), request({"big": "x" * 200_000})]
    writer = threading.Thread(target=lambda: [os.write(w, f[i : i + 7_000])
                                              for f in frames for i in range(0, len(f), 7_000)]
                              + [os.close(w)])  # fmt: skip
    writer.start()
    got = list(requests(r))
    writer.join()
    os.close(r)
    expected = obj if "flag" not in obj else json.loads(json.dumps(obj))
    assert got == [expected, {"op": "stop"}, {"big": "x" * 200_000}]
    assert type(got[0].get("flag", 0)) is int


def test_decode_reads_what_json_reads_that_orjson_does_not():
    big = decode(b'{"n": 123456789012345678901234567890}')["n"]  # orjson: a float
    assert not isinstance(big, int) and big == pytest.approx(1.2345678901234568e29)
    assert str(decode(b'{"x": NaN}')["x"]) == "nan"
    with pytest.raises(ValueError):
        decode(b'{"action": "do"')
    with pytest.raises(ValueError):
        decode(b"\xff\xfe")
    with pytest.raises(ValueError):
        decode(b'{"a": "\xff"}')  # not UTF-8: neither reads it


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
