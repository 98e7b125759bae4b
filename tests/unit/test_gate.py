"""rlgpt.sandbox.gate: the static gate in front of every generated action."""

from __future__ import annotations

import pytest

from rlgpt.sandbox.gate import MAX_SOURCE_BYTES, GateError, check_source, gate
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.planner import plan_steps

HEAD = "def act(view):\n"


def src(body: str) -> str:
    return HEAD + body


@pytest.mark.parametrize("ach", [a for a, _ in plan_steps("make_iron_pickaxe")] + ["wake_up"])
def test_reference_actions_pass(ach):
    action = write_action(ach, 64)
    assert gate(action.name, action.source) is None


def test_small_action_using_allowed_imports_passes():
    source = "import math\nfrom collections import deque\nLIMIT = 3\n" + src(
        "    for _ in range(LIMIT):\n        yield 'noop'\n"
    )
    assert gate("act", source) is None
    tree = check_source("act", source)
    assert [type(s).__name__ for s in tree.body] == [
        "Import",
        "ImportFrom",
        "Assign",
        "FunctionDef",
    ]


def rejected(source: str, name: str = "act"):
    result = gate(name, source)
    assert result is not None, "the gate accepted it"
    assert result.ok is False
    assert result.name == name
    assert result.message
    return result


def test_syntax_error_names_the_line():
    result = rejected(src("    yield 'noop'\n    x = = 1\n"))
    assert result.error_kind == "syntax"
    assert "line 3" in result.message


@pytest.mark.parametrize(
    "source, needle",
    [
        ("import os\n" + src("    yield 'noop'\n"), "os"),
        ("from os import path\n" + src("    yield 'noop'\n"), "os"),
        ("import collections, subprocess\n" + src("    yield 'noop'\n"), "subprocess"),
        (src("    import socket\n    yield 'noop'\n"), "socket"),
        (src("    m = __import__('os')\n    yield 'noop'\n"), "__import__"),
        (src("    x = view._local\n    yield 'noop'\n"), "_local"),
        (src("    c = ().__class__\n    yield 'noop'\n"), "__class__"),
        (src("    eval('1')\n    yield 'noop'\n"), "eval"),
        (src("    ｅｖａｌ('1')\n    yield 'noop'\n"), "eval"),  # full-width: NFKC -> eval
        (src("    ｏｐｅｎ('/etc/passwd')\n    yield 'noop'\n"), "open"),
        (src("    f = getattr(view, 'update')\n    yield 'noop'\n"), "getattr"),
        (src("    t = type(view)\n    yield 'noop'\n"), "type"),
        (src("    g = __builtins__\n    yield 'noop'\n"), "__builtins__"),
        (src("    global X\n    yield 'noop'\n"), "Global"),
        ("class A:\n    pass\n" + src("    yield 'noop'\n"), "top level"),
        ("if True:\n    pass\n" + src("    yield 'noop'\n"), "top level"),
        (src("    class B:\n        pass\n    yield 'noop'\n"), "ClassDef"),
    ],
)
def test_forbidden_constructs(source, needle):
    result = rejected(source)
    assert result.error_kind == "gate"
    assert needle in result.message


def test_forbidden_message_names_the_line():
    result = rejected(src("    yield 'noop'\n    import os\n"))
    assert "line 3" in result.message


@pytest.mark.parametrize(
    "name, source, needle",
    [
        ("act", "def other(view):\n    yield 'noop'\n", "no function named 'act'"),
        ("act", "def act(view, env):\n    yield 'noop'\n", "exactly one argument"),
        ("act", "def act(state):\n    yield 'noop'\n", "exactly one argument"),
        ("act", "def act(view, *rest):\n    yield 'noop'\n", "exactly one argument"),
        ("act", "def act(view, **kw):\n    yield 'noop'\n", "exactly one argument"),
        ("act", "def act(p, /, view):\n    yield 'noop'\n", "exactly one argument"),
        ("act", "def act(view, *, k=1):\n    yield 'noop'\n", "exactly one argument"),
        ("act", "def act(view):\n    return 'noop'\n", "generator"),
        # a yield in a nested def or lambda does not make `act` a generator
        (
            "act",
            "def act(view):\n    def inner():\n        yield 1\n    return inner\n",
            "generator",
        ),
        ("act", "def act(view):\n    return lambda: (yield)\n", "generator"),
    ],
)
def test_signature_errors(name, source, needle):
    result = rejected(source, name)
    assert result.error_kind == "signature"
    assert needle in result.message


def test_oversized_source_is_rejected_before_parsing():
    source = src("    yield 'noop'\n") + "#" * MAX_SOURCE_BYTES
    result = rejected(source)
    assert result.error_kind == "gate"
    assert str(MAX_SOURCE_BYTES) in result.message


def test_size_cap_counts_bytes_not_characters():
    body = "    s = '" + "é" * (MAX_SOURCE_BYTES // 2) + "'\n    yield 'noop'\n"
    assert len(src(body)) < MAX_SOURCE_BYTES < len(src(body).encode())
    assert rejected(src(body)).error_kind == "gate"


@pytest.mark.parametrize(
    "source",
    [
        "(" * 200_000,  # parser bomb: stopped by the size cap
        src("    yield " + "(" * 5_000 + "1" + ")" * 5_000 + "\n"),
        src("    yield " + "[" * 5_000 + "]" * 5_000 + "\n"),
        src("    yield " + "-" * 15_000 + "1\n"),
        src("    yield " + "not " * 4_000 + "1\n"),
        src("    yield " + "1+" * 9_000 + "1\n"),
    ],
    ids=["paren-bomb", "parens", "lists", "unary", "not", "binop"],
)
def test_deeply_nested_source_is_rejected_without_crashing(source):
    result = rejected(source)
    assert result.error_kind in ("syntax", "gate")
    # the interpreter is still fine afterwards
    assert gate("act", src("    yield 'noop'\n")) is None


def test_check_source_raises_gate_error_with_kind():
    with pytest.raises(GateError) as info:
        check_source("act", "import os\n" + src("    yield 'noop'\n"))
    assert info.value.kind == "gate"
