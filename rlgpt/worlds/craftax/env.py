"""A gymnasium.Env over full Craftax (the World's trusted env), symbolic, no auto-reset.

The game is craftax's own (`game.py`: its jitted step, explicit resets, one dispatch and one
small read-back per step). This module keeps on the host what craftax does not: achievement
*counts* (docs/worlds-craftax.md says what each counts), the cells the player has seen on each
floor this episode (`memory(floor)`), the step count against the task's limit, and the seed and
episode the next world is drawn from. The observation is `obs.symbolic` (a compact one-hot
window of the current floor and the player's state); the view of coded actions is
`view_state` (what is lit around the player, and the floor's memory when a call starts or the
player changes floor).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

import gymnasium as gym
import numpy as np

from rlgpt.messages import TaskSpec
from rlgpt.worlds.base import StepInfo, gym_info
from rlgpt.worlds.craftax import facts as F
from rlgpt.worlds.craftax import game as G
from rlgpt.worlds.craftax import obs, vocab
from rlgpt.worlds.grid.snapshot import JaxEpisodeSnapshots

ObsKind = Literal["symbolic"]
MOVES = {"move_left": (-1, 0), "move_right": (1, 0), "move_up": (0, -1), "move_down": (0, 1)}
# what craftax's own observation shows round the player: 5 columns and 4 rows each way
SIGHT = (int(G.C.OBS_DIM[1]) // 2, int(G.C.OBS_DIM[0]) // 2)


def inventory_of(frame: G.Frame) -> dict[str, int]:
    """The info's inventory (facts.items()) from a frame: vitals, materials, tools by level,
    armour pieces, potions by colour, spells, attributes, enchantments."""
    s, inv = frame.scalars, frame.inventory
    out = {"health": math.ceil(frame.health - 1e-6), **{k: s[k] for k in G.PLAYER_INTS}}
    for k in ("wood", "stone", "coal", "iron", "diamond", "sapphire", "ruby", "sapling", "bow"):
        out[k] = inv[k]
    out |= {"torch": inv["torches"], "arrow": inv["arrows"], "book": inv["books"]}
    out |= {t: int(inv["pickaxe"] > k) for k, t in enumerate(F.PICKAXES)}
    out |= {t: int(inv["sword"] > k) for k, t in enumerate(F.SWORDS)}
    out["iron_armour"] = sum(a >= 1 for a in frame.armour)
    out["diamond_armour"] = sum(a >= 2 for a in frame.armour)
    out |= {f"potion_{c}": n for c, n in zip(F.POTIONS, frame.potions, strict=True)}
    out |= {"fireball": s["fireball"], "iceball": s["iceball"]}
    out |= {
        "enchanted_sword": int(s["sword_ench"] > 0),
        "enchanted_bow": int(s["bow_ench"] > 0),
        "enchanted_armour": sum(e > 0 for e in frame.armour_enchantments),
    }
    return {k: int(out[k]) for k in F.items()}


class CraftaxEnv(JaxEpisodeSnapshots, gym.Env[np.ndarray, int]):
    """Full Craftax as a gymnasium env for one task.

    Episodes end (terminated) on death, on beating the necromancer, or on the task's
    achievement; they are truncated at the task's step limit. `info` carries inventory
    (facts.items(), vitals included), achievements (counts), facing, player position on its
    floor, `floor` and `success`. The reward is craftax's: each achievement's weight (1, 3, 5
    or 8) the first time it is unlocked in the episode, plus a tenth of the change of health.
    """

    metadata = {"render_modes": []}

    def __init__(
        self, task: TaskSpec, observation: ObsKind = "symbolic", view_radius: int = 4,
        seed: int = 0, end_on_success: bool = True,
    ) -> None:  # fmt: skip
        if observation != "symbolic":
            raise ValueError(f"observation {observation!r}: the craftax world is symbolic only")
        self.task = task
        self.end_on_success = end_on_success
        self.observation_kind = observation
        self.radius = view_radius  # the policy's window (and the traces')
        # the coded actions' view: craftax's own sight (11 x 9 cells), or the policy's window
        # if that is larger, on a square window whose cells beyond the sight are dark
        self.sight = max(view_radius, SIGHT[0]), max(view_radius, SIGHT[1])
        self.view_radius = max(self.sight)
        self._game = G.game(self.view_radius)
        side = 2 * self.view_radius + 1
        dx, dy = np.abs(np.indices((side, side)) - self.view_radius)
        self._in_sight = (dx <= self.sight[0]) & (dy <= self.sight[1])
        self._achievements = F.achievements()
        self._task_index = self._achievements.index(task.achievement)
        self.action_space = gym.spaces.Discrete(len(F.actions()))  # type: ignore[assignment]
        self.observation_space = gym.spaces.Box(0.0, 1.0, (obs.size(view_radius),), np.float32)
        rows, cols = G.STATIC.map_size
        self._area = (int(cols), int(rows))
        self._seed, self._episode = seed, -1
        self._state: Any = None  # craftax's state, packed (game.py: one buffer per dtype)
        self._host: Any = None  # the EnvState of `_state` on the host (numpy) while one is known
        self._key: Any = None
        self._frame: G.Frame | None = None
        self._counts = np.zeros(len(self._achievements), np.int64)
        self._steps = 0
        self._seen = np.zeros((len(F.floors()), *self._area), bool)
        self._sent_floor = -1
        self._last_info: StepInfo
        self._last_obs: np.ndarray | None = None  # built when first asked for (last_obs)
        # as CrafterEnv: while True, step() returns `_unobserved`; `last_obs` builds it
        self.defer_observations = False
        self.cache_resets = False  # validation's: the same seeds again and again (game.py)
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
        """The state on the host (numpy leaves: read them, never write them): kept since the
        last reset from the cache, `place` or fetch, until the next step."""
        if self._host is None:
            self._host = G.layout().host(self._state)
        return self._host

    def place(self, host: Any) -> StepInfo:
        """Make a host-edited state (numpy leaves) the env's and re-read it (as assigning
        `state` on the device, then `refresh()`); returns the new info."""
        self._state, bundle = G.place(host, self.view_radius)
        self._host = host
        self._sent_floor = -1
        return self._take(self._decode(bundle))

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
    def floor(self) -> int:
        return self.frame.floor

    @property
    def daylight(self) -> float:
        """craftax's light level: 1 at noon, near 0 at midnight (the overworld's night)."""
        return self.frame.light

    def _layers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(block, item, mob) ids of the window as the player sees it: unlit cells are 'dark'
        with nothing on them, cells off the map 'none'."""
        f = self.frame
        lit = self.lit()
        blocks = np.where(lit, f.blocks(), vocab.DARK)
        blocks = np.where((f.blocks() == vocab.OUTSIDE) & self._in_sight, vocab.OUTSIDE, blocks)
        mobs = np.where(lit, f.mobs(), 0)
        mobs[self.view_radius, self.view_radius] = G.PLAYER
        return blocks, np.where(lit, f.items(), 0), mobs

    def lit(self) -> np.ndarray:
        """Which cells of the view's window are seen: lit, and within craftax's sight."""
        return self.frame.lit() & self._in_sight

    def _crop(self, window: np.ndarray, radius: int) -> np.ndarray:
        """The centre (2 radius + 1)^2 of a view window ('none' beyond it)."""
        big = self.view_radius
        out = np.zeros((2 * radius + 1, 2 * radius + 1), window.dtype)
        k = min(radius, big)
        out[radius - k : radius + k + 1, radius - k : radius + k + 1] = window[
            big - k : big + k + 1, big - k : big + k + 1
        ]
        return out

    def local_window(self, radius: int | None = None) -> np.ndarray:
        """Semantic ids (vocab.semantic_names) of what is seen around the player, indexed
        [dx + r, dy + r] (the view radius's window; another radius is cut from it, 'none'
        beyond it)."""
        blocks, items, mobs = self._layers()
        ids = np.vectorize(vocab.semantic_id)(blocks, items, mobs).astype(np.uint8)
        return self._crop(ids, self.radius if radius is None else radius)

    def _mark_seen(self) -> None:
        r, (x, y), lit = self.view_radius, self.frame.pos, self.lit()
        w, h = self._area
        xs, ys = np.nonzero(lit)
        xs, ys = xs + x - r, ys + y - r
        keep = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
        self._seen[self.floor, xs[keep], ys[keep]] = True

    def memory(self, floor: int | None = None) -> tuple[bytes, bytes]:
        """(blocks, items) of every cell of `floor` (the current one by default) the player
        has seen lit this episode, x-major, 0 elsewhere: what the agent has seen, as it is
        now. A down ladder is an item whether or not it is open."""
        f = self.floor if floor is None else floor
        host = self.host_state()  # staged or reset from the cache: no fetch
        s = (host.map[f], host.item_map[f])
        blocks = np.where(self._seen[f], np.asarray(s[0]).T, 0).astype(np.uint8)
        items = np.where(self._seen[f], np.asarray(s[1]).T, 0).astype(np.uint8)
        return blocks.tobytes(), items.tobytes()

    def standing(self) -> dict[str, bool]:
        """For each station (table, furnace): whether one stands on the current floor (an
        arrow turns one into a path; one left on the overworld is no use in a dungeon)."""
        return {s: bool(self.frame.scalars[s]) for s in F.STATIONS}

    def view_state(self, info: Mapping[str, Any], start: bool = False) -> dict[str, Any]:
        """What a coded action's view reads (skills/view.py, ObsView.update): the lit window
        as three layers (blocks, items, mobs), inventory, achievements, facing, position,
        floor, kills on it, daylight; when a call starts, or the player has changed floor
        since the last state, the memory of the floor."""
        blocks, items, mobs = self._layers()
        s = self.frame.scalars
        state = {
            "blocks": blocks.astype(np.uint8).tobytes().hex(),
            "items": items.astype(np.uint8).tobytes().hex(),
            "mobs": mobs.astype(np.uint8).tobytes().hex(),
            "inventory": info["inventory"], "achievements": info["achievements"],
            "facing": info["facing"], "pos": info["player_pos"], "floor": s["floor"],
            "kills": s["kills"], "daylight": round(self.daylight, 3),
            "sleeping": bool(s["sleeping"] or s["resting"]),
        }  # fmt: skip
        if start or s["floor"] != self._sent_floor:
            mem_blocks, mem_items = self.memory()
            state |= {
                "memory": mem_blocks.hex(),
                "memory_items": mem_items.hex(),
                "area": self.area,
            }
            self._sent_floor = s["floor"]
        return state

    def unsafe_move(self, action: str) -> str | None:
        """Nothing kills on a step in full Craftax: the player never enters lava or water
        (craftax's `move_player` collides with both), so no move is unsafe."""
        return None

    def achievement_counts(self) -> dict[str, int]:
        return dict(zip(self._achievements, self._counts.tolist(), strict=True))

    # -- observation and info -----------------------------------------------------------
    def _info(self) -> StepInfo:
        f = self.frame
        ach = self.achievement_counts()
        return {
            "inventory": inventory_of(f), "achievements": ach, "player_pos": f.pos,
            "facing": f.facing, "floor": f.floor, "success": ach[self.task.achievement] > 0,
        }  # fmt: skip

    def _take(self, frame: G.Frame) -> StepInfo:
        self._frame = frame
        self._mark_seen()
        self._last_info = self._info()
        self._last_obs = None
        return self._last_info

    def _symbolic(self) -> np.ndarray:
        layers = [self._crop(a, self.radius) for a in (*self._layers(), self.lit())]
        return obs.symbolic(self.frame, self._last_info["inventory"], *layers)

    def _decode(self, bundle: Any) -> G.Frame:
        return G.Frame.decode(np.asarray(bundle), self.view_radius)

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
        seed, episode = self._seed % 2**31, self._episode
        self._host = None
        if self.cache_resets:
            self._state, self._key, bundle = G.reset_once(self.view_radius, seed, episode)
            self._host = G.host_once(self.view_radius, seed, episode)
        else:
            self._state, self._key, bundle = self._game.reset(np.int32(seed), np.int32(episode))
        self._counts[:] = 0
        self._steps = 0
        self._seen[:] = False
        self._sent_floor = -1
        info = self._take(self._decode(bundle))
        return self.last_obs, gym_info(info)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self._state, self._key, bundle = self._game.step(self._state, self._key, np.int32(action))
        self._host = None
        self._steps += 1
        frame = self._decode(bundle)
        self._counts += frame.events
        info = self._take(frame)
        won = frame.scalars["boss"] >= G.STATIC.num_levels - 1  # is_game_over: the boss beaten
        info["won"] = bool(won)
        terminated = bool(frame.dead or won or (self.end_on_success and info["success"]))
        truncated = bool(self._steps >= self.task.max_episode_steps and not terminated)
        obs_ = self._unobserved if self.defer_observations else self.last_obs
        return obs_, frame.reward, terminated, truncated, gym_info(info)

    def refresh(self) -> StepInfo:
        """Re-read the state after the trusted process changed it (as validation scenarios
        do); returns the new info. Counts and the step count are kept."""
        self._sent_floor = -1
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
