"""The sandboxed worker: runs coded actions in its own process and answers over a pipe.

Started by `MacroWorker` inside the OS boundary (rlgpt/sandbox/boundary.py) as
`python -I -S -c BOOT RFD WFD`, or in degraded mode as `python -I -m rlgpt.sandbox.worker RFD
WFD`. Its first act, when it finds itself root, is to drop to uid and gid 65534 for good.
Requests come as marshal frames and replies go as JSON lines (rlgpt/sandbox/wire.py); as
objects:

  {"op": "load", "api": "pkg.api", "view": {...}, "primitives": [...],
   "actions": {"name": "source", ...}}                               -> {"ok": true}
  {"op": "start", "name": "collect_wood", "state": {...}}             -> {"action": "do"}
  {"op": "next", "state": {...}}                                      -> {"done": true}
  {"op": "stop"}  (close the running action: its `finally` runs now)  -> {"done": true}

A coded action that yields a plan (rlgpt/sandbox/plans.py) is answered {"plan": [...]}; the
host takes its steps and then sends {"op": "next", "before": [{...}, ...], "taken": N,
"state": {...}}: the states of the steps before the last (the view takes them in order), and
how many steps were taken, which the action's `yield` returns. A plan that names an
achievement as its end ({"plan": [...], "ends": "collect_wood"}) may end the call on the host
without a request; the host's next start then carries "close": [the plan's last state],
and the suspended code is closed first, its view given that state (its `finally` runs then,
and an error there is that start's).

Errors come back as {"error": KIND, "message": "..."} with KIND one of exception (the code
raised), api_misuse (the skill API said how it was misused) or invalid_action (it yielded
something that is not an action name); the host decides what they mean.

`api` names the world's skill-API module (its SKILL_API, ObsView and SkillAPIError; the boundary
bound its package into the root) and `view` the keyword arguments of each action's view. Each
coded action gets its own namespace, its own view and its own read-only copies of the modules it
imports, so one action cannot change what another sees. What it holds is sealed
(rlgpt/sandbox/sealed.py): builtins, module members and skill-API functions are functions made
in a namespace of their own, its view a read-only proxy, its modules copies of the members
the gate's EXPOSED lists; no function it can name carries a real module's globals. With
"gate": false (tests of the OS layer alone) the code runs unchecked with the real builtins.

Every call starts from the code as written: a start runs the action's module again in a fresh
copy of its namespace, so nothing a call leaves at module level (a counter of its calls, a
cell remembered from another episode's world) reaches the next. What validation proved of one
call then holds for every later call of a training, in every episode.
"""

from __future__ import annotations

import builtins
import difflib
import gc
import importlib
import os
import sys
import traceback
from collections.abc import Generator
from types import CodeType, GeneratorType, MappingProxyType
from typing import Any

from rlgpt.sandbox import plans
from rlgpt.sandbox.driven import SkillCalls, add_yield_from
from rlgpt.sandbox.sealed import member, seal, seal_api, view_proxy
from rlgpt.sandbox.wire import Replies, requests

SAFE_BUILTINS = (
    "abs", "all", "any", "bool", "dict", "enumerate", "filter", "float", "frozenset", "int",
    "isinstance", "len", "list", "map", "max", "min", "next", "print", "range", "reversed",
    "round", "set", "sorted", "str", "sum", "tuple", "zip", "StopIteration", "ValueError",
    "KeyError", "IndexError", "Exception", "True", "False", "None",
)  # fmt: skip
SANDBOX_UID = 65534
PRELOADED = ("math", "random", "itertools", "collections", "collections.abc", "functools")


def drop_privileges() -> None:
    """As root (bubblewrap without a user namespace, or degraded mode run by root): become
    uid/gid 65534 with no groups; exit if root could be regained."""
    if os.geteuid() != 0:
        return
    os.setgroups([])
    os.setresgid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID)
    os.setresuid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID)
    try:
        os.setuid(0)
    except PermissionError:
        return
    os._exit(3)  # still privileged: refuse to run anything


class ReadOnlyModule:
    """A read-only copy of the members of an allowed module that EXPOSED lists, sealed, made
    for one coded action: writing to it fails, and it never hands out the module object that
    other code shares, nor a function that carries its globals."""

    __slots__ = ("_members", "_title")

    def __init__(self, name: str, names: frozenset[str]) -> None:
        module = importlib.import_module(name)
        members = {k: member(getattr(module, k), k) for k in sorted(names) if hasattr(module, k)}
        object.__setattr__(self, "_members", MappingProxyType(members))
        object.__setattr__(self, "_title", name)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._members[name]
        except KeyError:
            raise AttributeError(f"module {self._title!r} has no attribute {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"module {self._title!r} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"module {self._title!r} is read-only")


def make_importer(exposed: dict[str, frozenset[str]]) -> Any:
    """An `__import__` of one coded action: read-only copies of the allowed modules only, made
    at its first import of each (an import in a loop or a call costs a lookup after that)."""
    copies: dict[str, ReadOnlyModule] = {}

    def safe_import(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> ReadOnlyModule:
        if level or name not in exposed:
            raise ImportError(f"import of {name!r} is not allowed")
        if name not in copies:
            copies[name] = ReadOnlyModule(name, exposed[name])
        return copies[name]

    return seal(safe_import, "__import__")


class _NoAPIError(Exception):
    """Stands for the skill API's error class until `load` names the API."""


class _Worker:
    def __init__(self) -> None:
        from rlgpt.sandbox.gate import EXPOSED, GateError, check_source

        self._api: dict[str, Any] = {}
        self._view_cls: Any = None
        self._api_error: type[BaseException] = _NoAPIError
        self._gate_error, self._check = GateError, check_source
        self._exposed = EXPOSED
        # each loaded action's code and its namespace before the code ran (_fresh)
        self._modules: dict[str, tuple[CodeType, dict[str, Any]]] = {}
        self._views: dict[str, Any] = {}
        self._calls: dict[str, SkillCalls] = {}  # per action: the skill generators it made
        self._now: SkillCalls | None = None
        self._given: dict[str, Any] = {}  # what each action gets as its view (sealed)
        self._state: dict[str, Any] = {}
        self._gen: Generator[Any, None, Any] | None = None
        self._view: Any = None
        self._primitives: frozenset[str] = frozenset()
        self._planned = 0  # steps of the plan the running action yielded last (0: an action)

    @property
    def primitives(self) -> frozenset[str]:
        """The game's primitive action names, as the host's load named them."""
        return self._primitives

    def _namespace(self, gated: bool, view: Any, calls: SkillCalls) -> tuple[dict[str, Any], Any]:
        """A fresh namespace (own builtins, own importer, immutable API tables, all sealed;
        generator skills note what they hand out to `calls`) and what the action is given as
        its view (a sealed proxy of `view`)."""
        skills = {k: calls.wrap(k, v) if callable(v) else v for k, v in self._api.items()}
        if not gated:
            return {"__builtins__": builtins, **skills}, view
        safe = {k: member(getattr(builtins, k), k) for k in SAFE_BUILTINS if hasattr(builtins, k)}
        safe["__import__"] = make_importer(self._exposed)
        proxy = view_proxy(view)
        api = {
            k: MappingProxyType(dict(v)) if isinstance(v, dict) else v for k, v in skills.items()
        }
        return {"__builtins__": safe, **seal_api(api, proxy, view)}, proxy

    def load(self, msg: dict[str, Any]) -> dict[str, Any]:
        api = importlib.import_module(msg["api"])
        self._api, self._view_cls, self._api_error = api.SKILL_API, api.ObsView, api.SkillAPIError
        self._primitives = frozenset(msg["primitives"])
        gated = msg.get("gate", True) is not False
        errors: dict[str, str] = {}
        for name, source in msg["actions"].items():
            self._views[name] = self._view_cls(**msg["view"])
            if gated:
                try:
                    self._check(name, source)  # again, inside the sandbox: never trust the host
                except self._gate_error as exc:
                    errors[name] = exc.message
                    continue
            self._calls[name] = SkillCalls(self._api_error)  # type: ignore[arg-type]
            namespace, self._given[name] = self._namespace(
                gated, self._views[name], self._calls[name]
            )
            try:
                code, before = compile(source, f"<{name}>", "exec"), dict(namespace)
                exec(code, namespace)  # noqa: S102
                namespace[name]  # noqa: B018 - the action's own function, or a KeyError
                self._modules[name] = code, before
            except BaseException as exc:  # noqa: BLE001 - report anything to the host
                errors[name] = "while loading: " + _describe(exc)
        return {"ok": not errors, "errors": errors}

    def _fresh(self, name: str) -> Any:
        """Action `name` as its code defines it when run again from the start, in a fresh copy
        of the namespace it was loaded in (the module docstring says why)."""
        code, before = self._modules[name]
        namespace = dict(before)
        exec(code, namespace)  # noqa: S102
        return namespace[name]

    def _update(self, state: dict[str, Any], switched: bool) -> None:
        """The host sends only what changed: the view that saw the last state takes the
        change; a view taking over gets the whole state."""
        self._state.update(state)
        if self._view is not None:
            self._view.update(self._state if switched else state)

    def _stop(self, what: str) -> dict[str, Any]:
        """Close the running action's code (its `finally` runs now): done, or what failed."""
        gen, self._gen, self._planned = self._gen, None, 0
        try:
            if gen is not None:
                gen.close()
        except BaseException as exc:  # noqa: BLE001
            return {"error": "exception", "message": f"while {what}: " + _describe(exc)}
        return self._finished()

    def _unseen(self, state: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        """A request that ends before any view takes its state: the worker still holds it
        (what the host sends next is relative to it), and the next call's view gets the
        whole state."""
        self._state.update(state)
        self._view = None
        return reply

    def advance(self, msg: dict[str, Any]) -> dict[str, Any]:
        if msg["op"] == "stop":
            return self._stop("stopping")
        if "close" in msg:  # the last call ended on the host (a plan's end): close its code,
            for state in msg["close"]:  # its view given the plan's last state first
                self._update(state, False)
            closed = self._stop("closing the call a plan ended")
            if "error" in closed:
                return self._unseen(msg["state"], closed)
        if msg["op"] == "start":
            if msg["name"] not in self._modules:
                reply = {"error": "crash", "message": f"unknown coded action {msg['name']!r}"}
                return self._unseen(msg["state"], reply)
            view = self._views[msg["name"]]
            switched, self._gen, self._view = view is not self._view, None, view
            self._now = self._calls[msg["name"]]
            self._now.start()
            self._update(msg["state"], switched)
            try:
                self._gen = self._fresh(msg["name"])(self._given[msg["name"]])
            except BaseException as exc:  # noqa: BLE001 - e.g. called with the wrong arguments
                return {"error": "exception", "message": _describe(exc)}
        else:
            for state in msg.get("before", ()):  # a plan's steps before the last, in order
                self._update(state, False)
            self._update(msg["state"], False)
        if self._gen is None:
            return {"error": "crash", "message": "no coded action is running"}
        sent = None  # what the action's `yield` returns: a plan's steps taken, else None
        if msg["op"] == "next" and self._planned:
            sent = msg.get("taken")
            if type(sent) is not int or not 1 <= sent <= self._planned:
                return {"error": "crash", "message": "a plan's outcome the host did not send"}
        self._planned = 0
        try:
            action = self._gen.send(sent)
        except StopIteration:
            self._gen = None
            return self._finished()
        except BaseException as exc:  # noqa: BLE001
            self._gen = None
            kind = "api_misuse" if isinstance(exc, self._api_error) else "exception"
            return {"error": kind, "message": _describe(exc)}
        if isinstance(action, plans.Plan):
            why = plans.problem(action, self._primitives)
            if why is not None:
                where, self._gen = _line(self._gen), None
                return {"error": "invalid_action", "message": why + where}
            self._planned = len(action)
            if self._now is not None:
                self._now.acted()
            return plans.reply(action)
        if not isinstance(action, str) or action not in self._primitives:
            where, self._gen = _line(self._gen), None
            message = _not_an_action(action, self._primitives) + where
            return {"error": "invalid_action", "message": message}
        if self._now is not None:
            self._now.acted()
        return {"action": action}

    def _finished(self) -> dict[str, Any]:
        """A call ended or was stopped: a skill generator it never drove is the API misused."""
        undriven = self._now.undriven() if self._now is not None else None
        if undriven:
            return {"error": "api_misuse", "message": undriven}
        return {"done": True}


def _not_an_action(value: Any, primitives: frozenset[str]) -> str:
    """What was wrong with a yielded value, and what to yield instead."""
    if isinstance(value, GeneratorType):  # `yield skill(...)`: the skill's actions never ran
        return f"yielded a generator, not an action name: {add_yield_from(value.__name__)}"
    shown = repr(value)[:60]
    if isinstance(value, str):
        near = difflib.get_close_matches(value[:60], sorted(primitives), n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        return f"yielded {shown}, which is not an action{hint}"
    kind = type(value).__name__
    if value is None:
        why = "a bare `yield` or a value that was None; to wait a step, yield 'noop'"
    elif isinstance(value, tuple) and len(value) == 2:
        why = "an offset is not an action; a move is a name (e.g. 'move_left')"
    elif isinstance(value, (list, tuple)):
        why = "yield one action name at a time (`yield from` a list of them)"
    else:
        why = "only action names are actions"
    return f"yielded {shown} ({kind}), not an action name (a str): {why}"


def _line(gen: Any) -> str:
    """' (line N of name)': where in the coded action's own code the innermost suspended
    `yield` is (through skills it drives with `yield from`), or '' when none is there."""
    where, depth = "", 0
    while isinstance(gen, GeneratorType) and depth < 200:
        code, frame = gen.gi_code, gen.gi_frame
        if frame is not None and code.co_filename.startswith("<"):
            where = f" (line {frame.f_lineno} of {code.co_filename[1:-1]})"
        gen, depth = gen.gi_yieldfrom, depth + 1
    return where


def _describe(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith("<")]
    where = f" (line {frames[-1].lineno} of {frames[-1].filename[1:-1]})" if frames else ""
    return f"{type(exc).__name__}: {exc}"[:300] + where


def _write(wfd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(wfd, view) :]


def main() -> None:
    rfd, wfd = int(sys.argv[1]), int(sys.argv[2])
    for name in PRELOADED:  # everything a coded action may import, before privileges go
        importlib.import_module(name)
    worker = _Worker()
    drop_privileges()
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - code may print; the pipe stays clean
    replies = Replies(())
    for msg in requests(rfd):
        if msg["op"] == "load":
            reply = worker.load(msg)
            replies = Replies(worker.primitives)
            gc.freeze()  # what loading made lives as long as the worker: no collection scans it
        else:
            reply = worker.advance(msg)
        _write(wfd, replies.line(reply))


if __name__ == "__main__":
    main()
