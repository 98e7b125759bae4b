"""The Crafter world (`crafter` on PyPI): the env and its fast backend, tasks, recipe facts,
planner, validation scenarios, masks, the skill API coded actions use (skills/), the offline
author's reference library (library/) and the oracle. `world.py` puts them behind the World
protocol.

Imports nothing: the sandbox imports the skill package through this file.
"""
