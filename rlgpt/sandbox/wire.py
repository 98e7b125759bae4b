"""The wire between the host and a sandboxed worker.

**Requests** (host to worker) are frames: the length of the body (4 bytes, little-endian), then
the request in marshal's format. The host's data is trusted and the worker runs the host's own
interpreter (rlgpt/sandbox/boundary.py), so nothing is gained by a text format there, and the
sandbox's standard library reads marshal fastest: a start's state (8 KB of it the memory) loads
in about a third of json's time. An object marshal cannot write (a subclass of a built-in type)
goes as the plain JSON types it stands for.

**Replies** (worker to host) are untrusted: one JSON object per line, ASCII only, written with
json (which escapes every non-ASCII code point, lone surrogates included, so a line is plain
ASCII whatever text it carries) and read by `decode`: orjson on the host where it reads the
line (about three times json's speed), else json, which takes what orjson refuses (NaN);
orjson reads an int past 64 bits as a float, which the host's checks of a reply refuse as they
refuse any float. Most replies are one of a few lines: an action name of the game, or "done".
`Replies` holds those lines as bytes, so the worker writes them without encoding and the host
knows them without parsing; any other line is parsed, defensively, by the host
(rlgpt/sandbox/client.py).
"""

from __future__ import annotations

import json
import marshal
import os
import struct
from collections.abc import Iterable, Iterator
from typing import Any

try:  # the host's side; the worker's sandbox has no site-packages
    import orjson
except ImportError:  # pragma: no cover - run in the sandboxed worker
    orjson = None  # type: ignore[assignment]

_LENGTH = struct.Struct("<I")

DONE = {"done": True}


def request(obj: Any) -> bytes:
    """The host's side: one request as a frame, its length and then its marshal bytes."""
    try:
        body = marshal.dumps(obj)
    except ValueError:  # a subclass of a built-in type: the JSON types it stands for
        body = marshal.dumps(json.loads(json.dumps(obj)))
    return _LENGTH.pack(len(body)) + body


def requests(rfd: int) -> Iterator[Any]:
    """The worker's side: the requests read from pipe `rfd`, until the host closes it."""
    buf = bytearray()
    while True:
        while len(buf) < _LENGTH.size or len(buf) < _LENGTH.size + _LENGTH.unpack_from(buf)[0]:
            chunk = os.read(rfd, 65_536)
            if not chunk:
                return
            buf += chunk
        end = _LENGTH.size + _LENGTH.unpack_from(buf)[0]
        body = bytes(buf[_LENGTH.size : end])
        del buf[:end]
        yield marshal.loads(body)


def encode(obj: Any) -> bytes:
    """The worker's side: one reply line, `obj` as JSON and a newline, in ASCII."""
    return (json.dumps(obj) + "\n").encode()


def decode(line: bytes) -> Any:
    """The host's side: the object one reply line holds; ValueError when it holds none."""
    if orjson is None:
        return json.loads(line)
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)


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
        return dict(known) if known is not None else decode(line)


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
