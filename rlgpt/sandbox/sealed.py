"""Sealed handles: what gated code is given instead of real functions, modules and the view.

A real Python function carries its module's dictionary (`__globals__`, and in it the real
builtins), a C function its module (`__self__`), a bound method its instance; any of them is a
step from the real `os`. The gate forbids the attribute names that take those steps, and the
worker hands out nothing that reads attributes by a name given as data; on top of that, what
gated code holds is sealed:

- a callable becomes a function made here, in a namespace of its own that holds only this
  factory (`__globals__` leads nowhere), whose target sits in a closure cell;
- the view becomes a read-only proxy of its public members, built the same way; a skill-API
  function given the proxy is handed the real view, so the skills run unchanged;
- a module becomes a ReadOnlyModule (rlgpt/sandbox/worker.py) of sealed members.

Types (int, deque, itertools.count, ...) and plain values are handed out as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_FACTORY = """
def seal(target, name):
    def sealed(*args, **kwargs):
        return target(*args, **kwargs)
    sealed.__name__ = sealed.__qualname__ = name
    return sealed


def seal_swapping(target, name, proxy, real):
    def sealed(*args, **kwargs):
        args = [real if a is proxy else a for a in args]
        for key in kwargs:
            if kwargs[key] is proxy:
                kwargs[key] = real
        return target(*args, **kwargs)
    sealed.__name__ = sealed.__qualname__ = name
    return sealed


def getter(fget, real):
    def get(self):
        return fget(real)
    return get


def method(fn, real, name):
    def bound(self, *args, **kwargs):
        return fn(real, *args, **kwargs)
    bound.__name__ = bound.__qualname__ = name
    return bound


def lookup(missing, real):
    def refuse(self, name):
        if name[:1] == "_" or missing is None:
            raise AttributeError(name)
        return missing(real, name)
    return refuse


def read_only(self, *args):
    raise AttributeError("the view is read-only")


def shown(self):
    return "<view>"
"""


def _factory() -> dict[str, Any]:
    # no builtins at all: the factory's functions need none, and reaching this namespace
    # (through a sealed function's __globals__) yields nothing but the factory itself
    namespace: dict[str, Any] = {"__builtins__": {"AttributeError": AttributeError}}
    exec(compile(_FACTORY, "rlgpt-sealed", "exec"), namespace)  # noqa: S102 - our own code
    return namespace


_F = _factory()


def seal(target: Callable[..., Any], name: str) -> Callable[..., Any]:
    """A callable that calls `target` and carries neither its globals nor its module."""
    return _F["seal"](target, name)


def member(value: Any, name: str) -> Any:
    """A module member as gated code gets it: types and values as they are, callables sealed."""
    return value if isinstance(value, type) or not callable(value) else seal(value, name)


def view_proxy(real: Any, hidden: frozenset[str] = frozenset({"update"})) -> Any:
    """A read-only proxy of `real`'s public properties and methods (not `hidden`); an unknown
    name goes to the real class's `__getattr__` (the skill API's did-you-mean errors)."""
    cls = type(real)
    members: dict[str, Any] = {
        "__slots__": (),
        "__setattr__": _F["read_only"],
        "__delattr__": _F["read_only"],
        "__getattr__": _F["lookup"](getattr(cls, "__getattr__", None), real),
        "__repr__": _F["shown"],
    }
    for name in dir(cls):
        if name.startswith("_") or name in hidden:
            continue
        value = getattr(cls, name)
        if isinstance(value, property) and value.fget is not None:
            members[name] = property(_F["getter"](value.fget, real))
        elif callable(value):
            members[name] = _F["method"](value, real, name)
    return type("View", (), members)()


def seal_api(api: dict[str, Any], proxy: Any, real: Any) -> dict[str, Any]:
    """The skill API for one action: functions sealed, and given `real` where the action
    passes its view `proxy`; constants as they are."""
    return {
        k: _F["seal_swapping"](v, k, proxy, real) if callable(v) and not isinstance(v, type) else v
        for k, v in api.items()
    }
