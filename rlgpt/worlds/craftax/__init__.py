"""Full Craftax as a world (the `craftax` package, JAX): 9 floors, 43 actions, 67 achievements.

`facts` holds its vocabulary and recipe graph (read from craftax's constants where craftax
declares them as data); `game` wraps craftax's own jitted step; `env` is the gymnasium env;
`skills/` is the skill API coded actions run against in the sandbox (standard library only);
`planner`, `scenarios`, `stage`, `masking` and `author` serve validation, masks and the offline
author. Nothing is imported here: the sandbox imports the skill package through this file.
"""
