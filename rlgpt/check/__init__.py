"""Checks a world must pass: `check_world` runs the World protocol's rules on a world's real
members (world.py; the env's rules in env.py). It stands above what it checks: the worlds,
validation, the agents' prompts."""

from rlgpt.check.world import WorldCheckError, check_world

__all__ = ["WorldCheckError", "check_world"]
