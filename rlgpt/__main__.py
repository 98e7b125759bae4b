"""The `rlgpt` command and `python -m rlgpt`. The CLI lives in the project's application layer
(flows/ and tasks/), which is not installed as packages of its own (generic names such as
`flows` and `tasks` would collide with a user's): the command puts the project directory on
this process's path and calls it. The only module of rlgpt/ that reaches up into flows/."""

from __future__ import annotations

import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]


def main() -> None:
    if not (PROJECT / "flows" / "cli.py").is_file():
        sys.exit(
            f"rlgpt: error: no flows/cli.py beside the rlgpt package ({PROJECT}); install rlgpt "
            "from its project checkout with `pip install -e .`"
        )
    if str(PROJECT) not in sys.path:
        sys.path.insert(0, str(PROJECT))
    from flows.cli import main as cli

    cli()


if __name__ == "__main__":
    main()
