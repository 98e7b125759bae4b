"""Orchard's game and its gymnasium env (the `info` contract, the view state, staging)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from rlgpt.messages import TaskSpec

SIZE = 7
NAMES = ["none", "grass", "bush", "oven", "player"]
ITEMS = ["berry", "pie", "energy"]
ACTIONS = ["noop", "left", "right", "up", "down", "pick", "bake_pie"]
ACHIEVEMENTS = ["collect_berry", "bake_pie"]
MOVES = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
GRASS, BUSH, OVEN, PLAYER = 1, 2, 3, 4


class OrchardEnv(gym.Env[np.ndarray, int]):
    """One task of Orchard: ends on its achievement (or not: `end_on_success`), truncated at
    the task's step limit; +1 for each achievement's first unlock in an episode."""

    def __init__(self, task: TaskSpec, radius: int = 2, end_on_success: bool = True) -> None:
        self.task, self.radius, self.end_on_success = task, radius, end_on_success
        self.action_space = gym.spaces.Discrete(len(ACTIONS))  # type: ignore[assignment]
        side = 2 * radius + 1
        size = side * side * len(NAMES) + len(ITEMS) + 4
        self.observation_space = gym.spaces.Box(0.0, 1.0, (size,), np.float32)
        self.grid = np.full((SIZE, SIZE), GRASS, np.int64)
        self.pos, self.facing = (SIZE // 2, SIZE // 2), (0, 1)
        self.inventory = dict.fromkeys(ITEMS, 0)
        self.achievements = dict.fromkeys(ACHIEVEMENTS, 0)
        self.steps = 0
        self.last_info: dict[str, Any] = {}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.grid[:] = GRASS
        cells = [(x, y) for x in range(SIZE) for y in range(SIZE) if (x, y) != (3, 3)]
        picks = self.np_random.choice(len(cells), 5, replace=False)
        for i, k in enumerate(picks):
            self.grid[cells[k]] = OVEN if i == 0 else BUSH
        return self.arrange({"energy": 5}, {}, (0, 1)), self.last_info

    def arrange(
        self, inventory: dict[str, int], cells: dict[tuple[int, int], int], facing: tuple[int, int]
    ) -> np.ndarray:
        """A fresh episode's state with these items and cells (dx, dy from the player)."""
        self.pos, self.facing, self.steps = (SIZE // 2, SIZE // 2), facing, 0
        self.inventory = {**dict.fromkeys(ITEMS, 0), **inventory}
        self.achievements = dict.fromkeys(ACHIEVEMENTS, 0)
        for (dx, dy), cell in cells.items():
            self.grid[self.pos[0] + dx, self.pos[1] + dy] = cell
        self.last_info = self._info()
        return self._obs()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        name, before = ACTIONS[int(action)], dict(self.achievements)
        x, y = self.pos
        if name in MOVES:
            self.facing = MOVES[name]
            nx, ny = x + self.facing[0], y + self.facing[1]
            if 0 <= nx < SIZE and 0 <= ny < SIZE and self.grid[nx, ny] == GRASS:
                self.pos = (nx, ny)
        x, y = self.pos
        fx, fy = x + self.facing[0], y + self.facing[1]
        if name == "pick" and 0 <= fx < SIZE and 0 <= fy < SIZE and self.grid[fx, fy] == BUSH:
            self.inventory["berry"] += 1
            self.achievements["collect_berry"] += 1
        near = self.grid[max(0, x - 1) : x + 2, max(0, y - 1) : y + 2]
        if name == "bake_pie" and self.inventory["berry"] >= 2 and (near == OVEN).any():
            self.inventory["berry"] -= 2
            self.inventory["pie"] += 1
            self.achievements["bake_pie"] += 1
        self.steps += 1
        if self.steps % 10 == 0:
            self.inventory["energy"] = max(0, self.inventory["energy"] - 1)
        reward = float(sum(1 for k, n in self.achievements.items() if n and not before[k]))
        self.last_info = info = self._info()
        terminated = bool(self.end_on_success and info["success"])
        truncated = self.steps >= self.task.max_episode_steps and not terminated
        return self._obs(), reward, terminated, truncated, info

    def _info(self) -> dict[str, Any]:
        return {
            "inventory": dict(self.inventory), "achievements": dict(self.achievements),
            "player_pos": self.pos, "facing": self.facing,
            "success": self.achievements[self.task.achievement] > 0,
        }  # fmt: skip

    def local_window(self, radius: int | None = None) -> np.ndarray:
        r = self.radius if radius is None else radius
        out = np.zeros((2 * r + 1, 2 * r + 1), np.int64)
        for dx in range(-r, r + 1):
            for dy in range(-r, r + 1):
                x, y = self.pos[0] + dx, self.pos[1] + dy
                if 0 <= x < SIZE and 0 <= y < SIZE:
                    out[dx + r, dy + r] = self.grid[x, y]
        out[r, r] = PLAYER
        return out

    def _obs(self) -> np.ndarray:
        window = np.eye(len(NAMES), dtype=np.float32)[self.local_window()].ravel()
        inv = np.array([min(self.inventory[k], 9) / 9 for k in ITEMS], np.float32)
        facing = np.zeros(4, np.float32)
        facing[list(MOVES.values()).index(self.facing)] = 1.0
        return np.concatenate([window, inv, facing])

    def view_state(self, info: dict[str, Any], start: bool = False) -> dict[str, Any]:
        state = {"local": self.local_window().tolist(), "inventory": info["inventory"],
                 "achievements": info["achievements"], "facing": info["facing"]}  # fmt: skip
        return state | ({"area": [SIZE, SIZE]} if start else {})

    def standing(self) -> dict[str, bool]:
        return {"oven": bool((self.grid == OVEN).any())}

    def unsafe_move(self, action: str) -> str | None:
        return None  # nothing in Orchard harms the player
