"""rlgpt.sandbox.wire: the line each side writes is the line the other reads back."""

from __future__ import annotations

import json

import pytest

from rlgpt.sandbox.wire import Replies, encode

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
