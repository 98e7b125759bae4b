"""The wire between the host and a sandboxed worker: one JSON object per line, ASCII only.

Both ends encode with `encode` (json.dumps escapes every non-ASCII code point, lone surrogates
included, so a line is plain ASCII whatever text it carries). Most replies are one of a few
lines: an action name of the game, or "done". `Replies` holds those lines as bytes, so the
worker writes them without encoding and the host knows them without parsing; any other line
is parsed as JSON, defensively, by the host (rlgpt/sandbox/client.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

DONE = {"done": True}


def encode(obj: Any) -> bytes:
    """One line of the wire: `obj` as JSON, then a newline."""
    return (json.dumps(obj) + "\n").encode()


class Replies:
    """The common replies as their exact lines: {"action": a} for each primitive, and DONE."""

    def __init__(self, primitives: Iterable[str]) -> None:
        self.lines = {a: encode({"action": a}) for a in sorted(set(primitives))}
        self.done = encode(DONE)
        # the host's side: a line (without its newline) -> the object it encodes
        self.known: dict[bytes, dict[str, Any]] = {
            line[:-1]: {"action": a} for a, line in self.lines.items()
        }
        self.known[self.done[:-1]] = dict(DONE)

    def line(self, reply: dict[str, Any]) -> bytes:
        """The worker's side: the line for `reply` (cached when it is a common one)."""
        if reply.get("done") is True and len(reply) == 1:
            return self.done
        action = reply.get("action")
        if len(reply) == 1 and isinstance(action, str) and action in self.lines:
            return self.lines[action]
        return encode(reply)

    def parse(self, line: bytes) -> Any:
        """The host's side: the object a line holds (a fresh dict for a common one)."""
        known = self.known.get(line)
        return dict(known) if known is not None else json.loads(line)


def state_delta(
    state: dict[str, Any], sent: dict[str, Any], kept: tuple[str, ...]
) -> dict[str, Any]:
    """What goes to a worker of `state`: every key of the world's view state as it is, but
    those of `kept` (the world's SkillPackage.sent_when_changed: its view keeps them when a
    state leaves them out) only when they differ from `sent` (what the worker's view already
    holds), which is updated."""
    out: dict[str, Any] = {k: v for k, v in state.items() if k not in kept}
    for key in kept:
        if key in state and sent.get(key) != state[key]:
            out[key] = sent[key] = state[key]
    return out
