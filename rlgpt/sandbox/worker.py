"""The sandboxed worker: runs coded actions in its own process and answers over a pipe.

Started by `MacroWorker` as `python -I -m rlgpt.sandbox.worker RFD WFD` with a clean
environment, a scratch directory and resource limits. Requests and replies are JSON lines:

  {"op": "load", "names": [...], "actions": {"name": "source", ...}}  -> {"ok": true}
  {"op": "start", "name": "collect_wood", "state": {...}}             -> {"action": "do"}
  {"op": "next", "state": {...}}                                      -> {"done": true}

Errors come back as {"error": KIND, "message": "..."} with KIND one of exception (the code
raised), api_misuse (the skill API said how it was misused) or invalid_action (it yielded
something that is not an action name); the host decides what they mean.
"""

from __future__ import annotations

import builtins
import difflib
import json
import os
import sys
import traceback
from collections.abc import Generator
from typing import Any

SAFE_BUILTINS = [
    "abs",
    "all",
    "any",
    "bool",
    "dict",
    "enumerate",
    "filter",
    "float",
    "frozenset",
    "int",
    "isinstance",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "print",
    "range",
    "reversed",
    "round",
    "set",
    "sorted",
    "str",
    "sum",
    "tuple",
    "zip",
    "StopIteration",
    "ValueError",
    "KeyError",
    "IndexError",
    "Exception",
    "True",
    "False",
    "None",
]
MAX_ACTIONS_PER_CALL = 10_000


class _Worker:
    def __init__(self) -> None:
        from rlgpt.skills.api import SKILL_API, ObsView, SkillAPIError

        self._api = SKILL_API
        self._view_cls = ObsView
        self._api_error = SkillAPIError
        self._fns: dict[str, Any] = {}
        self._view: Any = None
        self._gen: Generator[Any, None, Any] | None = None
        self._primitives: frozenset[str] = frozenset()

    def load(self, msg: dict[str, Any]) -> dict[str, Any]:
        self._view = self._view_cls(
            msg["names"], msg.get("items", ()), msg.get("achievements", ()),
            msg.get("item_sources"),
        )  # fmt: skip
        self._primitives = frozenset(msg["primitives"])
        safe = {k: getattr(builtins, k) for k in SAFE_BUILTINS if hasattr(builtins, k)}
        safe["__import__"] = builtins.__import__  # the gate already allow-listed imports
        errors: dict[str, str] = {}
        from rlgpt.sandbox.gate import GateError, check_source

        for name, source in msg["actions"].items():
            try:
                check_source(name, source)  # again, inside the sandbox: never trust the host copy
            except GateError as exc:
                errors[name] = exc.message
                continue
            namespace: dict[str, Any] = {"__builtins__": safe, **self._api}
            try:
                exec(compile(source, f"<{name}>", "exec"), namespace)  # noqa: S102
                self._fns[name] = namespace[name]
            except BaseException as exc:  # noqa: BLE001 - report anything to the host
                errors[name] = "while loading: " + _describe(exc)
        return {"ok": not errors, "errors": errors}

    def advance(self, msg: dict[str, Any]) -> dict[str, Any]:
        self._view.update(msg["state"])
        if msg["op"] == "start":
            fn = self._fns.get(msg["name"])
            if fn is None:
                return {"error": "crash", "message": f"unknown coded action {msg['name']!r}"}
            self._gen = None
            try:
                self._gen = fn(self._view)
            except BaseException as exc:  # noqa: BLE001 - e.g. called with the wrong arguments
                return {"error": "exception", "message": _describe(exc)}
        if self._gen is None:
            return {"error": "crash", "message": "no coded action is running"}
        try:
            action = next(self._gen)
        except StopIteration:
            self._gen = None
            return {"done": True}
        except BaseException as exc:  # noqa: BLE001
            self._gen = None
            kind = "api_misuse" if isinstance(exc, self._api_error) else "exception"
            return {"error": kind, "message": _describe(exc)}
        if not isinstance(action, str) or action not in self._primitives:
            self._gen = None
            return {"error": "invalid_action", "message": _not_an_action(action, self._primitives)}
        return {"action": action}


def _not_an_action(value: Any, primitives: frozenset[str]) -> str:
    shown = repr(value)[:60]
    if not isinstance(value, str):
        return f"yielded {shown} ({type(value).__name__}), not an action name (a str)"
    near = difflib.get_close_matches(value[:60], sorted(primitives), n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    return f"yielded {shown}, which is not an action{hint}"


def _describe(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith("<")]
    where = f" (line {frames[-1].lineno} of {frames[-1].filename[1:-1]})" if frames else ""
    return f"{type(exc).__name__}: {exc}"[:300] + where


def main() -> None:
    rfd, wfd = int(sys.argv[1]), int(sys.argv[2])
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - code may print; the pipe stays clean
    reader = os.fdopen(rfd, "r", encoding="utf-8")
    writer = os.fdopen(wfd, "w", encoding="utf-8")
    worker = _Worker()
    for line in reader:
        msg = json.loads(line)
        reply = worker.load(msg) if msg["op"] == "load" else worker.advance(msg)
        writer.write(json.dumps(reply) + "\n")
        writer.flush()


if __name__ == "__main__":
    main()
