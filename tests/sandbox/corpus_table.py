"""The sandbox corpus by class, with the gate and without it: programs, escapes (anything the
host checks found touched), hangs (a verdict later than its wall limit) and host-record crashes
(a verdict that does not write and read back). `python -m tests.sandbox.corpus_table`."""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from pathlib import Path

from rlgpt.messages import CodedAction
from rlgpt.validation.validate import validate_action
from tests.sandbox.test_corpus import FILES, SANDBOX, WALL_LIMIT_S, Host, check_records

CLASSES = {
    "gate: routes to the real os, builtins, internals": (
        "attr_names ctypes_system format_string frame_back fullwidth gen_frame getattr "
        "import_alias match_class mutate_shared os_system patch_reward singledispatch str_mro "
        "subclasses subprocess tamper traceback_frames underscore_import wrapper_globals"
    ),
    "hangs and deadlines": (
        "busy_loop drip_reply finally_sleeper huge_power ignore_signals parser_bomb "
        "pipe_shrink recursion_bomb sleep_forever time_bomb"
    ),
    "CPU and processes": "double_fork fork_burner fork_loop fork_many slow_ threads_300",
    "memory, disk, files, output": (
        "alloc_8gib file_2gib forked_memory growing_list million_actions open_100k output_50mb "
        "plan_million tmpfs_fill"
    ),
    "kernel budgets (inotify, ptys)": "inotify_exhaust pty_exhaust",
    "host files, secrets, network, signals, uid": (
        "dns_lookup etc_passwd exit_call fake_success host_paths overwrite_checkpoint "
        "posix_kill ppid_environ proc1_environ read_environ read_secrets segfault setuid "
        "tcp_connect unix_socket"
    ),
    "forged replies and protocol": (
        "forged_deep forged_load forged_plan forged_reply forged_unhashable"
    ),
    "hostile text": "fence_breaking forged_terminal surrogate_",
    "small leaks: /proc, exec, /proc/sys": "memfd_exec proc_host_paths proc_sys tmp_exec",
    "model mistakes": (
        "extra_argument hallucinated nan_action none_action not_a_generator plan_invalid "
        "raise_error reference_collect syntax_error unknown_action"
    ),
}


def klass(stem: str) -> str:
    found = [
        k for k, prefixes in CLASSES.items() if any(stem.startswith(p) for p in prefixes.split())
    ]
    assert len(found) == 1, (stem, found)
    return found[0]


def _run(path: Path, host: Host, gate: bool, tmp: Path) -> tuple[bool, bool, bool]:
    """(escaped, hung, record crashed) for one program."""
    action = CodedAction(name="act", docstring="", source=path.read_text())
    t0 = time.monotonic()
    verdict = validate_action(action, sandbox=SANDBOX, gate_code=gate)
    hung = time.monotonic() - t0 >= WALL_LIMIT_S
    try:
        check_records(verdict, tmp)
        crashed = False
    except Exception:  # noqa: BLE001 - counted, not raised
        crashed = True
    try:
        host.assert_untouched(path.stem)
        escaped = False
    except AssertionError:
        escaped = True
    return escaped, hung, crashed


def main() -> None:
    host = Host()
    rows: dict[tuple[str, bool], Counter[str]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for path in FILES:
                for gate in (True, False):
                    escaped, hung, crashed = _run(path, host, gate, Path(tmp))
                    row = rows.setdefault((klass(path.stem), gate), Counter())
                    row.update(programs=1, escapes=escaped, hangs=hung, record_crashes=crashed)
    finally:
        host.close()
    print(f"{'class':<48} {'gate':>4} {'programs':>8} {'escapes':>7} {'hangs':>5} {'records':>7}")
    for (name, gate), c in sorted(
        rows.items(), key=lambda kv: (list(CLASSES).index(kv[0][0]), not kv[0][1])
    ):
        print(f"{name:<48} {'on' if gate else 'off':>4} {c['programs']:>8} {c['escapes']:>7} "
              f"{c['hangs']:>5} {c['record_crashes']:>7}")  # fmt: skip


if __name__ == "__main__":
    main()
