"""Gymnasium env over Crafter, task registry, recipe planner.

Importing this package registers `rlgpt/Crafter-v0`:
`gymnasium.make("rlgpt/Crafter-v0", task="place_table")`.
"""

import gymnasium as _gym

if "rlgpt/Crafter-v0" not in _gym.registry:
    _gym.register(id="rlgpt/Crafter-v0", entry_point="rlgpt.envs.crafter_env:make")
