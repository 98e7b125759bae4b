"""Gymnasium env over Crafter, task registry, recipe planner.

Importing this package registers `rlgpt/Crafter-v0`:
`gymnasium.make("rlgpt/Crafter-v0", task="place_table")`.
"""

import gymnasium as _gym

ENV_ID = "rlgpt/Crafter-v0"
if ENV_ID not in _gym.registry:
    _gym.register(id=ENV_ID, entry_point="rlgpt.envs.crafter_env:make")
