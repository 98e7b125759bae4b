"""A saved policy: PPO, or sb3-contrib's MaskablePPO when the env's action masks are used
(train.action_masking, or a learned action with coded actions in its space). A masked policy
gets the lean hot calls of rlgpt.rl.lean on every load, as new_model gives them a new one."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import TypeAlias

from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv

from rlgpt.rl.lean import lean_policy

Policy: TypeAlias = PPO | MaskablePPO


def load_policy(
    path: Path | str, env: DummyVecEnv | None = None, device: str = "cpu", *,
    sparse_input: bool = False,
) -> Policy:  # fmt: skip
    """A saved policy, with the algorithm that saved it (PPO or MaskablePPO); a training that
    goes on with it says whether its updates take train.sparse_input's product."""
    with zipfile.ZipFile(path) as z:
        maskable = b"sb3_contrib" in z.read("data")
    algo: type[PPO] | type[MaskablePPO] = MaskablePPO if maskable else PPO
    model = algo.load(path, env=env, device=device)
    lean_policy(model.policy, sparse_input=sparse_input)
    return model
