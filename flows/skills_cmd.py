"""`rlgpt skills list|show|history|snapshot`: the skill library from the command line."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from rlgpt.config import load_params
from rlgpt.errors import UserError
from rlgpt.library.show import history, list_skills, show_skill
from rlgpt.library.store import SkillLibrary


def cmd_skills(args: argparse.Namespace) -> int:
    params = load_params(args.params if Path(args.params).exists() else None)
    lib = SkillLibrary(Path(params.library.path))
    if args.skills_command == "list":
        print(list_skills(lib))
    elif args.skills_command == "show":
        print(show_skill(lib, args.name, args.version))
    elif args.skills_command == "history":
        print(history(lib, args.name))
    else:
        return _snapshot(lib)
    return 0


def _snapshot(lib: SkillLibrary) -> int:
    """`dvc add` the library: its .dvc file, committed to git, pins this state of it."""
    if not (lib.root / "manifest.json").is_file():
        raise UserError(f"nothing to snapshot: {lib.root} has no manifest.json yet")
    dvc = shutil.which("dvc") or str(Path(sys.executable).with_name("dvc"))
    proc = subprocess.run([dvc, "add", str(lib.root)], capture_output=True, text=True)
    if proc.returncode != 0:
        last = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["dvc failed"]
        raise UserError(f"dvc add {lib.root} failed: {last[0]} (is this a DVC repository?)")
    print(f"rlgpt: {lib.root} versioned with DVC; commit {lib.root}.dvc to keep this state")
    return 0
