"""What the sandbox runs coded actions against: a world's skill package (the world hands it
over from `World.skills()`, rlgpt/worlds/base.py). Standard library only: this package is
bound into the sandbox root (rlgpt/sandbox/boundary.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SkillPackage:
    """The skill API coded actions run against, inside the sandbox.

    `package` is bound read-only into the sandbox root with its parent packages' `__init__`
    files (which must import nothing outside the standard library). Its `api` module exports
    `SKILL_API` (name -> function or constant, in scope of every coded action), `ObsView` (the
    view, built from `view` as keyword arguments; its `update` takes the env's `view_state`)
    and `SkillAPIError`. `sent_when_changed`: keys of the view state that the view keeps when
    a state leaves them out, so the host sends each only when it changed (none: every key of
    every state is sent).
    """

    package: str
    primitives: tuple[str, ...]  # the action names a coded action may yield
    view: dict[str, Any] = field(default_factory=dict)
    sent_when_changed: tuple[str, ...] = ()

    @property
    def api(self) -> str:
        return f"{self.package}.api"
