"""Text from untrusted places (a sandboxed worker, a model, a file) made safe for where it goes.

Any code point can arrive: a lone surrogate such as "\\ud800" (which UTF-8 cannot encode, so a
record holding it cannot be written or read back), control characters, ANSI escapes and
carriage returns (which rewrite a terminal line: a message could forge `rlgpt: act: ok`), or
bidi overrides. Three uses, three functions:

- `storable` for records: the text as it was, except that lone surrogates become their escape
  (`\\ud800`), so every record encodes as UTF-8 and reads back.
- `printable` for terminals and logs: one line, every control or format character escaped
  (`\\n`, `\\x1b`, `\\u202e`); backslashes are kept, so it is idempotent.
- `fence` and `quote` for prompts: a Markdown code fence longer than any run of backticks
  inside, so the text cannot close it and stand outside it; or one JSON string.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 and C1 controls, DEL, zero-width and bidi format characters, line and paragraph separators,
# the byte-order mark, and lone surrogates: everything that moves, hides or reorders text.
_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
    "\ufff9-\ufffb\ud800-\udfff]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_BACKTICKS = re.compile("`+")


def storable(text: str) -> str:
    """`text` with each lone surrogate replaced by its escape; anything else unchanged."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def storable_tree(value: Any) -> Any:
    """`storable` applied to every string in nested dicts, lists and tuples (keys too)."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {storable_tree(k): storable_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(storable_tree(v) for v in value)
    return value


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, limit: int | None = None) -> str:
    """`text` as one terminal-safe line (at most `limit` characters before escaping)."""
    if limit is not None:
        text = text[:limit]
    if text.isprintable():
        return text
    return _UNPRINTABLE.sub(lambda m: _escape(m.group()), text)


def fence(text: str, lang: str = "") -> str:
    """`text` inside a backtick fence that nothing in it can close (CommonMark: a fence ends
    only at a line of at least as many backticks)."""
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    body = storable(text).rstrip("\n")
    return f"{ticks}{lang}\n{body}\n{ticks}"


def quote(text: str) -> str:
    """`text` as one JSON string (readable: other code points stay as they are), with every
    control, format and separator character escaped, so it reads as data, never as lines."""
    quoted = json.dumps(storable(str(text)), ensure_ascii=False)
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


class PrintableFormatter(logging.Formatter):
    """A log formatter whose message is one terminal-safe line (`printable`): text from a
    worker or a model cannot forge other lines or rewrite the terminal."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        return printable(super().formatMessage(record))
