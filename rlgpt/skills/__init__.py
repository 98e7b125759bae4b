"""Skill API for coded actions, reference skill library, coded-action runtime."""
