"""Orchard's skill API, importing numpy: the sandbox root holds the standard library only."""

from __future__ import annotations

import numpy  # noqa: F401 - the import is the point

from tests.toyworld.skills.api import SKILL_API, ObsView, SkillAPIError

__all__ = ["SKILL_API", "ObsView", "SkillAPIError"]
