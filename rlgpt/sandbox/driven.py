"""Inside the worker: which skill generators a coded action called and never drove.

A skill that yields actions (a generator: `go_to`, `keep_alive`, ...) does nothing unless the
action drives it with `yield from`. The lint finds such a call when it is written plainly; this
finds it at run time, however it was written (an alias, a list of skills): each generator skill
in an action's namespace is wrapped so that the generators it hands out are noted. When the
call ends, or is stopped, a generator that never started means a call without `yield from`,
and so does a loop that makes `SPIN_CALLS` of them, never started, without yielding an action
(it would spin until the reply times out). Both are the skill API misused, and the message
says what to write. Standard library only (it runs in the sandbox root).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator
from typing import Any

SPIN_CALLS = 2000  # undriven skill calls between two actions: far above any honest use
PRUNE_AT = 64


def add_yield_from(name: str) -> str:
    return (
        f"{name}(...) is a generator and does nothing unless driven: add `yield from` "
        f"(`result = yield from {name}(view, ...)`)"
    )


class SkillCalls:
    """The skill generators one coded action created during its current call."""

    def __init__(self, error: type[Exception]) -> None:
        self._error = error
        self._pending: list[tuple[str, Generator[Any, Any, Any]]] = []
        self._since_action = 0

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """`fn` (a generator function of the skill API) as the action sees it: the same, noted."""
        if not inspect.isgeneratorfunction(fn):
            return fn

        def call(*args: Any, **kwargs: Any) -> Any:
            gen = fn(*args, **kwargs)
            self._note(name, gen)
            return gen

        call.__name__, call.__qualname__, call.__doc__ = name, name, fn.__doc__
        return call

    def _note(self, name: str, gen: Generator[Any, Any, Any]) -> None:
        self._since_action += 1
        last = self._pending[-1][1] if self._pending else None
        if self._since_action >= SPIN_CALLS and last is not None and _unstarted(last):
            # a loop that calls a skill and never drives it never yields: say why, now
            raise self._error(
                f"called {name}(...) {SPIN_CALLS} times without one action; " + add_yield_from(name)
            )
        self._pending.append((name, gen))
        if len(self._pending) > PRUNE_AT:
            self._pending = [(n, g) for n, g in self._pending if _unstarted(g)]

    def start(self) -> None:
        """A call starts: forget the last one's generators."""
        self._pending = []
        self._since_action = 0

    def acted(self) -> None:
        """The action yielded an action."""
        self._since_action = 0

    def undriven(self) -> str | None:
        """The message for the first skill generator of this call that never started."""
        name = next((n for n, g in self._pending if _unstarted(g)), None)
        self._pending = []
        return None if name is None else add_yield_from(name)


def _unstarted(gen: Generator[Any, Any, Any]) -> bool:
    return inspect.getgeneratorstate(gen) == inspect.GEN_CREATED
