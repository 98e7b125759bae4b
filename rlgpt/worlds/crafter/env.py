"""A gymnasium.Env over crafter.Env: symbolic or image observation, task success, SB3-ready."""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from typing import Any, Literal

import crafter
import gymnasium as gym
import numpy as np
from crafter import objects

from rlgpt.messages import TaskSpec
from rlgpt.worlds.base import StepInfo, gym_info
from rlgpt.worlds.crafter.fast import FastCrafter
from rlgpt.worlds.crafter.recipes import game_data, semantic_names, stations
from rlgpt.worlds.crafter.tasks import get_task

ObsKind = Literal["symbolic", "image"]
_FACINGS = ((-1, 0), (1, 0), (0, -1), (0, 1))
_STEPS = {"move_left": (-1, 0), "move_right": (1, 0), "move_up": (0, -1), "move_down": (0, 1)}
_THERMO = 9  # inventory counts as thermometers: [count >= 1, ..., count >= 9]
RECALL_CELLS = 16  # a remembered thing's offset reads +-1 from here on


class CrafterEnv(gym.Env[np.ndarray, int]):
    """Crafter as a gymnasium env for one task.

    Episodes end (terminated) on death or on the task's achievement; they are truncated at the
    task's step limit. `info` carries inventory, achievements (counts), facing, player position
    and `success`. The symbolic observation is a one-hot local semantic window around the player,
    then the inventory as thermometers (count >= 1..9, so small counts stand out to the
    policy) and the facing direction.
    """

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(
        self,
        task: TaskSpec,
        observation: ObsKind = "symbolic",
        view_radius: int = 4,
        seed: int = 0,
        end_on_success: bool = True,
    ) -> None:
        self.task = task
        self.end_on_success = end_on_success
        self.observation_kind = observation
        self.radius = view_radius
        self._seed = seed
        self._env = FastCrafter(
            render_image=observation == "image", length=task.max_episode_steps, seed=seed
        )
        self._obj_ids = {cls: i for cls, i in self._env._sem_view._obj_ids.items()}
        self._items = list(game_data()["items"])
        self._stations = sorted(stations())
        self._levels = np.arange(1, _THERMO + 1, dtype=np.float32)[None, :]
        self._n_ids = len(semantic_names())
        self._eye = np.eye(self._n_ids, dtype=np.float32)
        n_actions = len(game_data()["actions"])
        self.action_space = gym.spaces.Discrete(n_actions)  # type: ignore[assignment]
        if observation == "image":
            self.observation_space = gym.spaces.Box(0, 255, (64, 64, 3), np.uint8)
        else:
            side = 2 * view_radius + 1
            size = side * side * self._n_ids + len(self._items) * _THERMO + 4
            self.observation_space = gym.spaces.Box(0.0, 1.0, (size,), np.float32)
        self._seen = np.zeros(tuple(self._env._world.area), bool)
        self._last_info: StepInfo
        self._last_obs: np.ndarray | None = np.zeros(self.observation_space.shape, np.float32)
        self._image = np.zeros(0)
        # While True (the coded-action runtime, inside a call), step() returns `_unobserved` and
        # builds the observation only when `last_obs` is read: the policy sees one per call.
        self.defer_observations = False
        self._unobserved = np.zeros(self.observation_space.shape, self.observation_space.dtype)
        self._unobserved.setflags(write=False)

    # -- state helpers -------------------------------------------------------------------
    @property
    def player(self) -> Any:
        return self._env._player

    @property
    def world(self) -> Any:
        """crafter's World (materials, objects): for the trusted process only."""
        return self._env._world

    def local_window(self, radius: int | None = None) -> np.ndarray:
        """Semantic ids in a (2r+1)x(2r+1) window around the player, indexed [dx + r, dy + r];
        0 outside the world. Same values as crafter's semantic map, without building it."""
        r = self.radius if radius is None else radius
        world = self._env._world
        w, h = world.area
        x, y = (int(v) for v in self.player.pos)
        x0, x1, y0, y1 = max(0, x - r), min(w, x + r + 1), max(0, y - r), min(h, y + r + 1)
        out = np.zeros((2 * r + 1, 2 * r + 1), np.uint8)
        ox, oy = x0 - (x - r), y0 - (y - r)
        out[ox : ox + x1 - x0, oy : oy + y1 - y0] = world._mat_map[x0:x1, y0:y1]
        objs = world._obj_map[x0:x1, y0:y1]
        for i, j in zip(*np.nonzero(objs), strict=True):
            out[ox + i, oy + j] = self._obj_ids[type(world._objects[objs[i, j]])]
        return out

    def _mark_seen(self) -> None:
        r, (x, y) = self.radius, (int(v) for v in self.player.pos)
        self._seen[max(0, x - r) : x + r + 1, max(0, y - r) : y + r + 1] = True

    def recall(self, things: tuple[str, ...]) -> np.ndarray:
        """For each material or station of `things`, the nearest cell of it the player has seen
        this episode: [1, dx, dy, distance], offsets over RECALL_CELLS and the (Manhattan)
        distance over twice that, each clipped to 1; zeros where none was seen. A learned
        action reads it beside its view (WorldEnv, docs/design.md)."""
        world = self._env._world
        x, y = (int(v) for v in self.player.pos)
        out = np.zeros(4 * len(things), np.float32)
        for k, name in enumerate(things):
            xs, ys = np.nonzero((world._mat_map == world._mat_ids[name]) & self._seen)
            if len(xs):
                dx, dy = xs - x, ys - y
                d = np.abs(dx) + np.abs(dy)
                i = int(d.argmin())
                out[4 * k : 4 * k + 4] = (1.0, dx[i] / RECALL_CELLS, dy[i] / RECALL_CELLS,
                                          d[i] / (2 * RECALL_CELLS))  # fmt: skip
        return np.clip(out, -1.0, 1.0)

    def memory(self) -> bytes:
        """Material ids (x-major) of every world cell the player's view has covered this
        episode, 0 elsewhere: what the agent has seen, as it is now. Plants count as a
        material here: they never move, and a sapling out of view is one the player tends."""
        world = self._env._world
        out = world._mat_map * self._seen  # uint8: 0 where unseen
        plant = self._obj_ids.get(objects.Plant)
        if plant is not None:
            for obj in world._objects:  # None where an object was removed
                if type(obj) is objects.Plant:
                    x, y = int(obj.pos[0]), int(obj.pos[1])
                    if self._seen[x, y]:
                        out[x, y] = plant
        return out.tobytes()

    @property
    def area(self) -> tuple[int, int]:
        w, h = self._env._world.area
        return int(w), int(h)

    def semantic(self) -> np.ndarray:
        """The whole semantic map (as crafter's info['semantic'])."""
        return self._env.semantic()

    def _info(self, raw: dict[str, Any]) -> StepInfo:
        (x, y), (dx, dy) = raw["player_pos"], self.player.facing
        return {
            "inventory": raw["inventory"],
            "achievements": raw["achievements"],
            "player_pos": (int(x), int(y)),
            "facing": (int(dx), int(dy)),
            "success": raw["achievements"].get(self.task.achievement, 0) > 0,
        }

    def standing(self) -> dict[str, bool]:
        """For each station (table, furnace): whether one still stands in the world. A
        skeleton's arrow turns one into a path, and the place_* achievement count stays."""
        mats, ids = self.world._mat_map, self.world._mat_ids
        return {s: bool((mats == ids[s]).any()) for s in self._stations}

    def view_state(self, info: Mapping[str, Any], start: bool = False) -> dict[str, Any]:
        """The read-only state a coded action sees (skills/view.py, ObsView.update): local map,
        inventory, achievements, facing, position, daylight; when a call starts, also the
        memory of what the episode has seen so far."""
        state = {
            "local": self.local_window().tobytes().hex(),
            "inventory": info["inventory"],
            "achievements": info["achievements"],
            "facing": info["facing"],
            "pos": info["player_pos"],
            "daylight": round(float(self.world.daylight), 3),
        }
        if start:
            state |= {"memory": self.memory().hex(), "area": self.area}
        return state

    def unsafe_move(self, action: str) -> str | None:
        """'lava' when `action` walks the player onto lava (it dies), else None."""
        if action not in _STEPS:
            return None
        dx, dy = _STEPS[action]
        x, y = (int(v) for v in self.player.pos)
        world = self.world
        w, h = world.area
        inside = 0 <= x + dx < w and 0 <= y + dy < h
        return "lava" if inside and world[(x + dx, y + dy)][0] == "lava" else None

    def _symbolic(self, info: Mapping[str, Any]) -> np.ndarray:
        window = self.local_window()
        counts = np.array([info["inventory"][k] for k in self._items], np.float32)
        inv = (counts[:, None] >= self._levels).astype(np.float32).ravel()
        facing = np.zeros(4, np.float32)
        facing[_FACINGS.index(info["facing"])] = 1.0
        return np.concatenate([self._eye[window].ravel(), inv, facing])

    def _observe(self, image: np.ndarray, info: Mapping[str, Any]) -> np.ndarray:
        return image if self.observation_kind == "image" else self._symbolic(info)

    # -- gymnasium API -------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._env.reseed(seed)
        image = self._env.reset()
        self._seen = np.zeros(self.area, bool)
        self._mark_seen()
        player = self.player
        raw = {
            "inventory": player.inventory.copy(),
            "achievements": player.achievements.copy(),
            "player_pos": player.pos,
        }
        info = self._info(raw)
        self._last_info = info
        self._last_obs = obs = self._observe(image, info)
        return obs, gym_info(info)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        image, reward, done, raw = self._env.step(int(action))
        self._mark_seen()
        info = self._info(raw)
        self._last_info = info
        self._image, self._last_obs = image, None
        obs = self._unobserved if self.defer_observations else self.last_obs
        dead = raw["discount"] == 0.0
        terminated = bool(dead or (self.end_on_success and info["success"]))
        truncated = bool(done and not terminated)
        return obs, float(reward), terminated, truncated, gym_info(info)

    def refresh(self) -> StepInfo:
        """Re-read the state after the trusted process changed the world or the player (as
        validation scenarios do); returns the new info."""
        player = self.player
        self._mark_seen()
        raw = {
            "inventory": player.inventory.copy(),
            "achievements": player.achievements.copy(),
            "player_pos": player.pos,
        }
        info = self._info(raw)
        self._last_info = info
        image = np.asarray(self._env._obs()) if self.observation_kind == "image" else None
        self._last_obs = self._observe(image, info)  # type: ignore[arg-type]
        return info

    def snapshot(self) -> bytes:
        """The whole state of the episode (the game, the player, every creature and the random
        stream, the cells seen): `restore` continues it exactly (a learned action's start
        state). Trusted-process data: never from a worker."""
        return pickle.dumps((self._env, self._seen), protocol=pickle.HIGHEST_PROTOCOL)

    def restore(self, blob: bytes) -> StepInfo:
        """Go back to a `snapshot`; the info of that state."""
        self._env, self._seen = pickle.loads(blob)  # noqa: S301 - written by snapshot() only
        return self.refresh()

    def set_clock(self, step: int) -> None:
        """Set the episode's step count, which daylight follows (validation stages dusk and
        night this way); for the trusted process only."""
        self._env._step = step
        self._env._update_time()

    @property
    def last_obs(self) -> np.ndarray:
        """The observation of the latest reset or step (built now if the step deferred it:
        the world has not changed since, the runtime reads it right after its last step)."""
        if self._last_obs is None:
            self._last_obs = self._observe(self._image, self._last_info)
        return self._last_obs

    @property
    def last_info(self) -> StepInfo:
        """The info of the latest reset or step."""
        return self._last_info

    def render(self) -> np.ndarray:
        return np.asarray(crafter.Env.render(self._env))


def make(
    task: str = "make_wood_pickaxe",
    observation: ObsKind = "symbolic",
    view_radius: int = 4,
    seed: int = 0,
) -> CrafterEnv:
    """The env one task trains on, without coded actions (`gymnasium.make("rlgpt/Crafter-v0",
    task=...)` makes it through rlgpt.worlds.make_env, registered on `import rlgpt`)."""
    return CrafterEnv(get_task(task), observation, view_radius, seed)
