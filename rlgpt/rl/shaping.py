"""The episode of a learned action: where it starts, what it is paid, when it ends.

A learned action (docs/design.md, Learned actions) is its own RL problem. Its episodes start
in a start state where its sub-action starts (rlgpt/rl/starts.py) and end at its effect (its
achievement rises once), at the player's death, or after its step budget. Its reward is the
fast agent's `LearnedConfig`: a bonus for the effect, other achievements on the way, a penalty
for dying, and dense signals computed here from the `info` contract every world keeps, so no
world has to implement them:

- one signal per vital of the world (`health`, `food`, `drink`, `energy`, ...): its change;
- `kills`: how many `defeat_*` achievement counters rose (a kill each);
- `explore`: 1 for each cell (and floor) the episode stands on for the first time;
- `descend`: the change of `info["floor"]` (0 in a world without floors).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from rlgpt.messages import LearnedConfig

FIXED_SIGNALS = {
    "kills": "+1 for each creature killed (a defeat_* achievement counter rising)",
    "explore": "+1 for each cell the player stands on for the first time in the episode",
    "descend": "the change of the floor the player is on (+1 a floor down; 0 without floors)",
}


def signals(vitals: frozenset[str]) -> dict[str, str]:
    """Every signal a shaping term may name, with what it measures."""
    out = {v: f"the change of {v}" for v in sorted(vitals)}
    return out | FIXED_SIGNALS


def _kills(achievements: dict[str, int]) -> int:
    return sum(int(n) for a, n in achievements.items() if a.startswith("defeat_"))


class Signals:
    """The dense signals of one episode, step by step."""

    def __init__(self, vitals: frozenset[str], info: dict[str, Any]) -> None:
        self.vitals = sorted(vitals)
        self._last = self._read(info)
        self._cells = {self._cell(info)}

    @staticmethod
    def _cell(info: dict[str, Any]) -> tuple[int, int, int]:
        x, y = info["player_pos"]
        return int(info.get("floor", 0)), int(x), int(y)

    def _read(self, info: dict[str, Any]) -> dict[str, float]:
        inv = info["inventory"]
        out = {v: float(inv.get(v, 0)) for v in self.vitals}
        out["kills"] = float(_kills(info["achievements"]))
        out["descend"] = float(info.get("floor", 0))
        return out

    def step(self, info: dict[str, Any]) -> dict[str, float]:
        """Each signal's value for the step that led to `info`."""
        now = self._read(info)
        delta = {k: now[k] - self._last[k] for k in now}
        cell = self._cell(info)
        delta["explore"] = float(cell not in self._cells)
        self._cells.add(cell)
        self._last = now
        return delta


class StartStates:
    """Where a learned action's episodes start: snapshots of whole episode states (the world
    env's `snapshot()`) in groups (staged states; states of the task's own episodes), drawn
    with their own random stream: a group uniformly among those that have states, then a
    state of it, so a few states from episodes weigh as much as many staged ones."""

    def __init__(self, groups: list[list[bytes]], seed: int) -> None:
        self.groups = [list(g) for g in groups if g]
        if not self.groups:
            raise ValueError("a learned action needs at least one start state")
        self.rng = np.random.default_rng(seed)
        self.last = 0  # the group of the last state drawn

    def draw(self) -> bytes:
        self.last = int(self.rng.integers(len(self.groups)))
        group = self.groups[self.last]
        return group[int(self.rng.integers(len(group)))]


class LearnedEpisode(gym.Wrapper[np.ndarray, int, np.ndarray, int]):
    """A world env (one whose episodes go on after the effect: the world's `validation_env`)
    as the episodes of one learned action: each reset restores a start state; each step pays
    the config's reward; an episode terminates at the effect or a death and is truncated at
    the config's step budget. `info["success"]` is the effect (the achievement rose since the
    start), so training's curve and first success read the learned action's own success;
    `info["start_group"]` is the group its start state was drawn from."""

    def __init__(
        self,
        env: gym.Env[np.ndarray, int],
        cfg: LearnedConfig,
        starts: StartStates,
        vitals: frozenset[str],
    ) -> None:
        super().__init__(env)
        self.cfg = cfg
        self.starts = starts
        self.vitals = vitals
        self.weights = {t.signal: t.weight for t in cfg.shaping}
        self._signals: Signals | None = None
        self._start = 0
        self._group = 0
        self._counts: dict[str, int] = {}
        self._paid: dict[str, int] = {}
        self.steps = 0

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        world = self.env.unwrapped
        if kwargs.get("seed") is not None:  # the first reset of an env: its rank's stream
            self.starts.rng = np.random.default_rng(int(kwargs["seed"]))
        info = world.restore(self.starts.draw())  # type: ignore[attr-defined]
        self._group = self.starts.last
        self._signals = Signals(self.vitals, info)
        self._counts = dict(info["achievements"])
        self._start = int(self._counts.get(self.cfg.name, 0))
        self._paid = {t.achievement: 0 for t in self.cfg.reward_terms}
        self.steps = 0
        return world.last_obs, {**info, "success": False}  # type: ignore[attr-defined]

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        obs, _, term, trunc, info = self.env.step(action)
        self.steps += 1
        ach = info["achievements"]
        effect = int(ach.get(self.cfg.name, 0)) > self._start
        reward = self.cfg.effect_bonus if effect else 0.0
        for t in self.cfg.reward_terms:
            rise = int(ach.get(t.achievement, 0)) - int(self._counts.get(t.achievement, 0))
            pay = max(0, min(rise, t.cap - self._paid[t.achievement]))
            self._paid[t.achievement] += pay
            reward += t.weight * pay
        self._counts = dict(ach)
        assert self._signals is not None
        if self.weights:
            moved = self._signals.step(info)
            reward += sum(w * moved[s] for s, w in self.weights.items() if s in moved)
        died = bool(term) and not info.get("won") and not effect
        if died:
            reward -= self.cfg.death_penalty
        terminated = effect or bool(term)
        truncated = not terminated and (bool(trunc) or self.steps >= self.cfg.step_budget)
        out = {**info, "success": effect, "died": died, "start_group": self._group}
        return obs, reward, terminated, truncated, out
