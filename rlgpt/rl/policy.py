"""A saved policy: PPO, or sb3-contrib's MaskablePPO when the env's action masks are used
(train.action_masking, or a learned action with coded actions in its space)."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import TypeAlias

from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv

Policy: TypeAlias = PPO | MaskablePPO


def load_policy(path: Path | str, env: DummyVecEnv | None = None, device: str = "cpu") -> Policy:
    """A saved policy, with the algorithm that saved it (PPO or MaskablePPO)."""
    with zipfile.ZipFile(path) as z:
        maskable = b"sb3_contrib" in z.read("data")
    algo: type[PPO] | type[MaskablePPO] = MaskablePPO if maskable else PPO
    return algo.load(path, env=env, device=device)
