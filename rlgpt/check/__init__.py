"""Checks a world must pass: `check_world` runs the World protocol's rules on a world's real
members (world.py; the env's rules in env.py; what they share in rules.py). It stands above
what it checks: the worlds, validation, the agents' prompts."""

from rlgpt.check.rules import WorldCheckError
from rlgpt.check.world import check_world

__all__ = ["WorldCheckError", "check_world"]
