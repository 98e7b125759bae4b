"""The worker layer hands gated code no real module internals: nothing it can reach through
names the gate allows is a module, a real module's dictionary, the real builtins, a frame, or a
function whose globals are a real module's; no allowed module offers a helper that reads or
writes attributes by a name given as data, nor a member beginning with "_". White-box: the
worker's namespace is built in this process, as the sandboxed worker builds it."""

from __future__ import annotations

import builtins
import sys
import types
from typing import Any

import pytest

from rlgpt.sandbox.gate import EXPOSED, FORBIDDEN_ATTRS, INTERNAL_PREFIXES
from rlgpt.sandbox.worker import _Worker
from rlgpt.worlds.crafter.recipes import actions, semantic_id
from tests.support.world import CRAFTER_SKILLS

ACT = "import math\nimport random\nimport functools\n\ndef act(view):\n    yield 'noop'\n"


def _loaded(source: str = ACT, check: bool = True) -> _Worker:
    worker = _Worker()
    if not check:  # the gate bypassed: the worker layer alone
        worker._check = lambda name, source: None  # type: ignore[method-assign]
    worker.load({"api": CRAFTER_SKILLS.api, "view": CRAFTER_SKILLS.view,
                 "primitives": actions(), "actions": {"act": source}})  # fmt: skip
    return worker


def _handed_out(worker: _Worker) -> dict[str, Any]:
    """Every root gated code starts from: its namespace, builtins, view, module copies."""
    namespace = worker._fresh("act").__globals__
    importer = namespace["__builtins__"]["__import__"]
    roots = {f"ns.{k}": v for k, v in namespace.items() if k != "__builtins__"}
    roots |= {f"builtins.{k}": v for k, v in namespace["__builtins__"].items()}
    roots["view"] = worker._given["act"]
    roots["view.inventory"] = worker._given["act"].inventory
    for name, members in EXPOSED.items():
        module = importer(name, None, None, ("x",), 0)
        roots |= {f"{name}.{m}": getattr(module, m) for m in members}
    return roots


def _real(obj: Any) -> str | None:
    """What makes `obj` a real internal, if anything."""
    module_dicts = {id(vars(m)) for m in list(sys.modules.values()) if m is not None}
    if isinstance(obj, types.ModuleType):
        return "a module"
    if id(obj) in module_dicts or obj is vars(builtins):
        return "a real module's dictionary"
    if isinstance(obj, types.FrameType | types.CodeType | types.TracebackType):
        return "an interpreter internal"
    globs = getattr(obj, "__globals__", None)
    if isinstance(obj, types.FunctionType | types.MethodType) and id(globs) in module_dicts:
        return "a function carrying a real module's globals"
    if isinstance(getattr(obj, "__self__", None), types.ModuleType):
        return "a function carrying its module"
    if isinstance(obj, types.MethodType) and id(obj.__func__.__globals__) in module_dicts:
        return "a method carrying a real module's globals"
    return None


def _allowed(name: str) -> bool:
    return not name.startswith(INTERNAL_PREFIXES) and name not in FORBIDDEN_ATTRS


def test_nothing_reachable_through_allowed_names_is_a_real_internal():
    worker = _loaded()
    todo = list(_handed_out(worker).items())
    seen: set[int] = set()
    bad: list[str] = []
    depth = {path: 0 for path, _ in todo}
    while todo:
        path, obj = todo.pop()
        if id(obj) in seen or len(seen) > 60_000:
            continue
        seen.add(id(obj))
        why = _real(obj)
        if why:
            bad.append(f"{path}: {why}")
            continue
        if depth[path] >= 5:
            continue
        for name in dir(obj):
            if _allowed(name):
                try:
                    value = getattr(obj, name)
                except Exception:  # noqa: BLE001, S112 - a property that refuses: nothing held
                    continue
                child = f"{path}.{name}"
                depth[child] = depth[path] + 1
                todo.append((child, value))
    assert len(seen) > 300, "the walk went somewhere"
    assert bad == []


def test_every_callable_handed_out_has_clean_globals_and_no_module():
    for path, obj in _handed_out(_loaded()).items():
        if callable(obj) and not isinstance(obj, type):
            globs = getattr(obj, "__globals__", {})
            assert "os" not in globs and "sys" not in globs, path
            assert globs.get("__builtins__", {}) is not vars(builtins), path
            assert not isinstance(getattr(obj, "__self__", None), types.ModuleType), path


@pytest.mark.parametrize(
    ("name", "source"),
    [
        ("update_wrapper at load", "import functools\nimport random\n"
         "functools.update_wrapper(random, random.shuffle, assigned=(), updated=('x',))\n"),
        ("a helper in a default argument", "import functools\n"
         "def h(w=functools.wraps(print)):\n    return w\n"),
        ("names built at run time", "import functools\nu = '%c' % 95\n"
         "functools.partial(functools.update_wrapper, assigned=(u + u + 'globals' + u + u,))\n"),
        ("a private member", "from random import _os\n"),
        ("a private member under another name", "from collections import _sys as s\n"),
        ("a Python class", "from collections import Counter\n"),
        ("singledispatch", "from functools import singledispatch\n"),
        ("a submodule", "import collections.abc\n"),
        ("os", "import os\n"),
    ],
)  # fmt: skip
def test_with_the_gate_bypassed_the_routes_to_real_internals_are_closed(name, source):
    worker = _loaded(source + "\ndef act(view):\n    yield 'noop'\n", check=False)
    assert worker._modules == {}, f"{name}: it loaded"


def test_module_copies_are_per_action_read_only_and_hold_only_what_is_exposed():
    worker = _loaded()
    namespace = worker._fresh("act").__globals__
    importer = namespace["__builtins__"]["__import__"]
    a, b = importer("random", None, None, ("x",), 0), importer("random", None, None, ("x",), 0)
    assert a is b, "one copy per action"
    other = _loaded()._fresh("act").__globals__["__builtins__"]["__import__"]
    assert other("random", None, None, ("x",), 0).randint is not a.randint, "not shared"
    assert 1 <= a.randint(1, 3) <= 3
    with pytest.raises(AttributeError):
        a.randint = None
    for name in ("_os", "_inst", "Random", "SystemRandom"):
        with pytest.raises(AttributeError):
            getattr(a, name)
    functools = importer("functools", None, None, ("x",), 0)
    for name in ("update_wrapper", "wraps", "singledispatch", "cached_property"):
        assert not hasattr(functools, name)
    assert functools.reduce(lambda x, y: x + y, [1, 2, 3]) == 6


def test_the_view_is_a_read_only_proxy_and_the_skills_get_the_real_view():
    from rlgpt.worlds.crafter.skills.api import SkillAPIError

    worker = _loaded("def act(view):\n    yield from approach(view, 'tree')\n")
    proxy, real = worker._given["act"], worker._views["act"]
    assert proxy is not real and type(proxy).__name__ == "View"
    with pytest.raises(SkillAPIError, match="no attribute 'update'"):
        proxy.update({})  # the host's method is not the action's
    with pytest.raises(AttributeError):
        proxy.radius = 3
    with pytest.raises(SkillAPIError, match="did you mean 'nearest'"):
        proxy.nearst  # noqa: B018 - the skill API's readable error still comes
    grass, tree = semantic_id("grass"), semantic_id("tree")
    state = {"local": [[grass] * 9 for _ in range(9)], "inventory": {"wood": 2}, "facing": (0, 1)}
    state["local"][1][4] = tree  # at (-3, 0): columns are dx + 4
    assert worker.advance({"op": "start", "name": "act", "state": state}) == {
        "action": "move_left"
    }, "approach() walked the real view, given the proxy"
    assert proxy.inventory["wood"] == 2 and proxy.radius == 4
