"""A gymnasium.Env over Craftax-Classic with CrafterEnv's members, in crafter's vocabulary.

The game is craftax's own (`game.py`: its jitted step, explicit resets, one dispatch and one
small read-back per step). This module keeps, on the host, what crafter's env keeps and craftax
does not: achievement *counts* (craftax keeps one flag per achievement; each step adds the
achievements the step set, see docs/worlds-craftax-classic.md for the rule of each), the cells
the player's view has covered this episode (`memory()`), the step count against the task's
limit, and the seed and episode number the next world is drawn from. The symbolic observation
has CrafterEnv's layout (one-hot semantic window, inventory thermometers, facing), so one
policy network serves both worlds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import gymnasium as gym
import numpy as np

from rlgpt.messages import TaskSpec
from rlgpt.worlds.base import StepInfo, gym_info
from rlgpt.worlds.craftax_classic import game as G
from rlgpt.worlds.crafter.recipes import achievements, game_data, semantic_names, stations
from rlgpt.worlds.grid.snapshot import JaxEpisodeSnapshots

ObsKind = Literal["symbolic"]
KINDS = ("symbolic",)
FACINGS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # crafter's facing one-hot order
STEPS = {"move_left": (-1, 0), "move_right": (1, 0), "move_up": (0, -1), "move_down": (0, 1)}
THERMO = 9  # inventory counts as thermometers, as CrafterEnv


class CraftaxClassicEnv(JaxEpisodeSnapshots, gym.Env[np.ndarray, int]):
    """Craftax-Classic as a gymnasium env for one task; CrafterEnv's constructor and members.

    Episodes end (terminated) on death or on the task's achievement; they are truncated at the
    task's step limit. `info` carries inventory (crafter's item names, vitals included),
    achievements (counts), facing, player position and `success`. The reward is craftax's:
    +1 per achievement unlocked for the first time this episode, plus a tenth of the change of
    health.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        task: TaskSpec,
        observation: ObsKind = "symbolic",
        view_radius: int = 4,
        seed: int = 0,
        end_on_success: bool = True,
    ) -> None:
        if observation not in KINDS:
            raise ValueError(f"observation {observation!r}: craftax-classic supports {KINDS}")
        self.task = task
        self.end_on_success = end_on_success
        self.observation_kind = observation
        self.radius = view_radius
        self._game = G.game(view_radius)
        self._actions = G.action_map()
        self._items = list(game_data()["items"])
        self._health = self._items.index("health")
        self._achievements = achievements()
        self._task_index = self._achievements.index(task.achievement)
        self._stations = sorted(stations())
        self._lut = G.semantic_lut()
        self._levels = np.arange(1, THERMO + 1, dtype=np.float32)[None, :]
        self._eye = np.eye(len(semantic_names()), dtype=np.float32)
        self.action_space = gym.spaces.Discrete(len(self._actions))  # type: ignore[assignment]
        side = 2 * view_radius + 1
        size = side * side * len(semantic_names()) + len(self._items) * THERMO + 4
        self.observation_space = gym.spaces.Box(0.0, 1.0, (size,), np.float32)
        rows, cols = G.STATIC.map_size
        self._area = (int(cols), int(rows))
        self._seed, self._episode = seed, -1
        self._state: Any = None  # craftax's state, packed (packed.py: one buffer per dtype)
        self._host: Any = None  # the EnvState of `_state` on the host (numpy) while one is known
        self._key: Any = None
        self._frame: G.Frame | None = None
        self._counts = np.zeros(len(self._achievements), np.int64)
        self._steps = 0
        self._seen = np.zeros(self._area, bool)
        self._last_info: StepInfo
        self._last_obs: np.ndarray | None = np.zeros(self.observation_space.shape, np.float32)
        # as CrafterEnv: while True, step() returns `_unobserved`; `last_obs` builds it
        self.defer_observations = False
        self._unobserved = np.zeros(self.observation_space.shape, np.float32)
        self._unobserved.setflags(write=False)

    # -- state --------------------------------------------------------------------------
    @property
    def state(self) -> Any:
        """craftax's EnvState (on the device): for the trusted process only. Assigning a new
        state (validation staging) takes effect at the next `refresh()`."""
        return G.layout().as_state(self._state)

    @state.setter
    def state(self, value: Any) -> None:
        self._state, self._host = G.layout().as_packed(value), None

    def host_state(self) -> Any:
        """The state on the host (numpy leaves: read them, never write them), fetched once
        until the next step."""
        if self._host is None:
            self._host = G.layout().host(self._state)
        return self._host

    @property
    def frame(self) -> G.Frame:
        """The decoded bundle of the latest reset, step or refresh."""
        if self._frame is None:
            raise RuntimeError("reset the env first")
        return self._frame

    @property
    def area(self) -> tuple[int, int]:
        return self._area

    @property
    def daylight(self) -> float:
        """craftax's light level, 1 at noon, near 0 at night (crafter's world.daylight)."""
        return self.frame.daylight

    def local_window(self, radius: int | None = None) -> np.ndarray:
        """Semantic ids in a (2r+1)x(2r+1) window around the player, indexed [dx + r, dy + r];
        0 outside the world. The view radius's window comes with each step; another radius is
        cut from the whole semantic map."""
        r = self.radius if radius is None else radius
        if r == self.radius:
            return self.frame.window.copy()
        x, y = self.frame.pos
        padded = np.pad(self.semantic(), r)
        return padded[x : x + 2 * r + 1, y : y + 2 * r + 1].copy()

    def semantic(self) -> np.ndarray:
        """The whole semantic map [x, y] (as crafter's info['semantic']), drawn on the host from
        the raw state: blocks, then arrows, cows, zombies, skeletons, then the player."""
        s = self.host_state()
        sem = self._lut[np.asarray(s.map)]
        ids = {n: i for i, n in enumerate(semantic_names())}
        for kind in G.MOBS:
            mobs = getattr(s, kind)
            for (row, col), alive in zip(
                np.asarray(mobs.position), np.asarray(mobs.mask), strict=True
            ):
                if alive:
                    sem[row, col] = ids[G.MOB_NAMES[kind]]
        row, col = (int(v) for v in np.asarray(s.player_position))
        sem[row, col] = ids["player"]
        return np.ascontiguousarray(sem.T)

    def material_at(self, pos: tuple[int, int]) -> str:
        """Crafter's name of the block at world cell (x, y) ('plant' for either plant block,
        'none' outside the world); creatures are not materials."""
        (x, y), (px, py), r = pos, self.frame.pos, self.radius
        if abs(x - px) <= r and abs(y - py) <= r:
            return semantic_names()[int(self.frame.materials[x - px + r, y - py + r])]
        w, h = self._area
        if not (0 <= x < w and 0 <= y < h):
            return "none"
        return G.block_names()[int(self.host_state().map[y, x])]

    def _mark_seen(self) -> None:
        r, (x, y) = self.radius, self.frame.pos
        self._seen[max(0, x - r) : x + r + 1, max(0, y - r) : y + r + 1] = True

    def memory(self) -> bytes:
        """Material ids (x-major) of every world cell the player's view has covered this
        episode, 0 elsewhere: what the agent has seen, as it is now. Plants are blocks in
        craftax, so they are kept as in CrafterEnv.memory()."""
        mats = self._lut[np.asarray(self.host_state().map)].T
        return np.where(self._seen, mats, 0).astype(np.uint8).tobytes()

    def standing(self) -> dict[str, bool]:
        """For each station (table, furnace): whether one still stands in the world (a
        skeleton's arrow turns one into a path; the place_* count stays)."""
        return dict(zip(self._stations, self.frame.standing, strict=True))

    def view_state(self, info: Mapping[str, Any], start: bool = False) -> dict[str, Any]:
        """What a coded action's view reads (the Crafter skill API's ObsView.update), as
        CrafterEnv.view_state: local map, inventory, achievements, facing, position, daylight;
        when a call starts, the memory of what the episode has seen."""
        state = {
            "local": self.local_window().tobytes().hex(),
            "inventory": info["inventory"],
            "achievements": info["achievements"],
            "facing": info["facing"],
            "pos": info["player_pos"],
            "daylight": round(float(self.daylight), 3),
        }
        if start:
            state |= {"memory": self.memory().hex(), "area": self.area}
        return state

    def unsafe_move(self, action: str) -> str | None:
        """'lava' when `action` walks the player onto lava (it dies), else None."""
        if action not in STEPS:
            return None
        (dx, dy), (x, y) = STEPS[action], self.frame.pos
        return "lava" if self.material_at((x + dx, y + dy)) == "lava" else None

    def achievement_counts(self) -> dict[str, int]:
        return dict(zip(self._achievements, self._counts.tolist(), strict=True))

    # -- observation and info -----------------------------------------------------------
    def _info(self) -> StepInfo:
        f = self.frame
        ach = self.achievement_counts()
        return {
            "inventory": dict(zip(self._items, f.inventory.tolist(), strict=True)),
            "achievements": ach,
            "player_pos": f.pos,
            "facing": f.facing,
            "success": ach[self.task.achievement] > 0,
        }

    def _symbolic(self) -> np.ndarray:
        f = self.frame
        counts = f.inventory.astype(np.float32)
        inv = (counts[:, None] >= self._levels).astype(np.float32).ravel()
        facing = np.zeros(4, np.float32)
        facing[FACINGS.index(f.facing)] = 1.0
        return np.concatenate([self._eye[f.window].ravel(), inv, facing])

    def _decode(self, bundle: Any) -> G.Frame:
        return G.Frame.decode(np.asarray(bundle), self.radius)

    def _take(self, frame: G.Frame) -> StepInfo:
        self._frame = frame
        self._mark_seen()
        self._last_info = self._info()
        self._last_obs = None  # built from this frame when read (last_obs)
        return self._last_info

    # -- gymnasium API ------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """A new world: from `seed` (its first episode) or, without one, the next episode of
        the current seed. The same seed and episode always give the same world."""
        super().reset(seed=seed)
        if seed is not None:
            self._seed, self._episode = seed, -1
        self._episode += 1
        self._state, self._key, bundle = self._game.reset(
            np.int32(self._seed % 2**31), np.int32(self._episode)
        )
        self._host = None
        self._counts[:] = 0
        self._steps = 0
        self._seen[:] = False
        info = self._take(self._decode(bundle))
        return self.last_obs, gym_info(info)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        health = int(self.frame.inventory[self._health])
        fresh = self._counts == 0
        self._state, self._key, bundle = self._game.step(
            self._state, self._key, self._actions[int(action)]
        )
        self._host = None
        self._steps += 1
        frame = self._decode(bundle)
        self._counts += frame.events
        reward = float(np.sum(frame.events & fresh))
        reward += (int(frame.inventory[self._health]) - health) / 10
        info = self._take(frame)
        terminated = bool(frame.dead or (self.end_on_success and info["success"]))
        truncated = bool(self._steps >= self.task.max_episode_steps and not terminated)
        obs = self._unobserved if self.defer_observations else self.last_obs
        return obs, reward, terminated, truncated, gym_info(info)

    def refresh(self) -> StepInfo:
        """Re-read the state after the trusted process changed it (as validation scenarios
        do); returns the new info. Counts and the step count are kept."""
        self._host = None  # `_state` may have been set directly (a snapshot's restore)
        # a snapshot taken before packing holds the state as a tree
        self._state = G.layout().as_packed(self._state)
        return self._take(self._decode(self._game.observe(self._state)))

    @property
    def last_obs(self) -> np.ndarray:
        """The observation of the latest reset, step or refresh."""
        if self._last_obs is None:
            self._last_obs = self._symbolic()
        return self._last_obs

    @property
    def last_info(self) -> StepInfo:
        """The info of the latest reset, step or refresh."""
        return self._last_info
