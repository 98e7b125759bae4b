"""The coded-action runtime: coded actions become extra actions of the RL action space."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeAlias

import gymnasium as gym
import numpy as np

from rlgpt.errors import MacroError
from rlgpt.sandbox.pipes import Waits, drive
from rlgpt.worlds.base import MaskRule, WorldEnv

log = logging.getLogger(__name__)
# A hang or a dead worker costs a restart (and the wait): such an action is disabled sooner.
COSTLY = frozenset({"timeout", "crash"})
Step: TypeAlias = tuple[np.ndarray, float, bool, bool, dict[str, Any]]  # what step() returns


def items(inventory: dict[str, int], vitals: frozenset[str]) -> dict[str, int]:
    """The inventory without vitals (entries that drift by themselves, as drink drops about
    every 20 steps in Crafter): what progress is measured on, or no macro call could ever
    count as a dead loop."""
    return {k: v for k, v in inventory.items() if k not in vitals}


class MacroRunner(Protocol):
    """Runs coded actions somewhere else (a sandboxed worker); yields primitive names. A runner
    that also has `start_waits(name, state)`, `next_waits(state)` and `stop_waits()`
    (rlgpt/sandbox/pool.py) lets the env's step wait in turns with other envs' (`step_waits`);
    one with `ended(state, achievements)` is asked, before a call cut short is stopped,
    whether its plan had ended it with that step (then no stop is sent); one with `names`
    (the coded actions it holds) has every other coded name masked."""

    def start(self, name: str, state: dict[str, Any]) -> str | None: ...

    def next(self, state: dict[str, Any]) -> str | None: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


class Option(Protocol):
    """A learned action as the runtime runs it (rlgpt/rl/options.py, LearnedOption): its mask
    over its own space, its next action (a primitive or one of its coded actions, by name),
    and its step budget."""

    step_budget: int
    code_steps: int | None  # most steps of one call of a coded action it picks (None: theirs)

    def mask(
        self, info: Mapping[str, Any], disabled: Callable[[str], bool], standing: Mapping[str, bool]
    ) -> np.ndarray: ...

    def act(self, obs: np.ndarray, mask: np.ndarray, env: Any) -> tuple[str, bool]: ...


class Snapshots(Protocol):
    """Where a training keeps states in which a learned action was called (its start states
    from the task's own episodes: rlgpt/rl/starts.py, SnapshotLog)."""

    def offer(self, name: str, env: WorldEnv) -> None: ...


class MacroActionWrapper(gym.Wrapper[np.ndarray, int, np.ndarray, int]):
    """Extends the world's primitive actions (`all_primitives`) with one action per coded action
    (or keeps only `primitives` of them, in their order, then the coded actions: with every
    sub-action coded, the policy may only sequence them).

    Choosing a coded action runs it to completion: the runner yields one primitive per env
    step until it finishes, the episode ends, or `step_budget` primitive steps pass. Rewards
    are summed. `info["primitive_steps"]` counts the env steps this call took (the honest
    sample count). A call that uses its whole budget without changing inventory or position
    is a dead loop (`info["dead_loop"]`); a call that changes nothing is charged
    `no_effect_penalty`. A call whose code fails in a state validation did not cover (it
    raises, yields something that is not an action, hangs, or kills its worker, which the
    runner restarts) ends there, is charged like a call that changed nothing, and is reported
    in `info["macro_error"]` and `faults`; after `max_errors` such calls, or `max_hangs` hangs
    and crashes, or at once when its worker costs too much CPU (kind "cpu": per step, or
    between calls), the action is disabled (each later call is one no-op tick) and `faults`
    says why. No coded action ever stops training. The wrapper owns its runner and closes it
    in `close()`.

    `options` are learned actions (names in `names` too, after the coded ones): choosing one
    runs its policy until its effect, the episode's end or its budget (`_run_learned`); the
    coded actions it picks run through the same runner. With `snapshots`, each call of a
    learned action offers the state it starts in (its start states for training further).
    """

    def __init__(
        self, env: gym.Env[np.ndarray, int], names: list[str], runner: MacroRunner, *,
        all_primitives: list[str], vitals: frozenset[str], step_budget: int = 80,
        no_effect_penalty: float = 0.0, max_errors: int = 20, max_hangs: int = 3,
        primitives: list[str] | None = None, mask: MaskRule | None = None,
        options: Mapping[str, Option] | None = None, snapshots: Snapshots | None = None,
        recall: tuple[str, ...] = (),
    ) -> None:  # fmt: skip
        super().__init__(env)
        self.recall = recall  # what the world env recalls into each observation (a learned
        # action's own env: World.recalls)
        if recall:
            base = env.observation_space
            n = 4 * len(recall)
            self.observation_space = gym.spaces.Box(
                np.concatenate([base.low, np.full(n, -1.0, np.float32)]),  # type: ignore[attr-defined]
                np.concatenate([base.high, np.ones(n, np.float32)]),  # type: ignore[attr-defined]
                dtype=np.float32,
            )
        self.options = dict(options or {})
        self.snapshots = snapshots
        self.max_errors = max_errors
        self.max_hangs = max_hangs
        self.errors: Counter[str] = Counter()
        self.hangs: Counter[str] = Counter()
        self.faults: dict[str, str] = {}  # action -> its latest failure, for the critic
        self.banned: set[str] = set()  # disabled at once: it cost too much CPU
        self.names = list(names)
        self.runner = runner
        # the coded actions its runner can run (None: any); a learned action's space may name
        # one this run has not (excluded, or turned into a learned action): masked, never asked
        self._runs: frozenset[str] | None = getattr(runner, "names", None)
        self.step_budget = step_budget
        self.no_effect_penalty = no_effect_penalty
        self.world_env: WorldEnv = env.unwrapped  # type: ignore[assignment]
        self.vitals = vitals
        self._prim_index = {a: i for i, a in enumerate(all_primitives)}
        self.primitives = list(all_primitives) if primitives is None else list(primitives)
        unknown = [p for p in self.primitives if p not in self._prim_index]
        if unknown:
            raise ValueError(
                f"unknown primitive action(s) {unknown}; the game has {all_primitives}"
            )
        self._n_prim = len(self.primitives)
        n_actions = self._n_prim + len(self.names)
        self.action_space = gym.spaces.Discrete(n_actions)  # type: ignore[assignment]
        self._info: dict[str, Any] = {}
        self.mask = mask

    def action_masks(self) -> np.ndarray:
        """Which actions the policy may choose now (sb3-contrib's MaskablePPO reads this):
        all of them without a mask rule."""
        if self.mask is None or not self._info:
            return np.ones(int(self.action_space.n), dtype=bool)  # type: ignore[attr-defined]
        info = self._info
        standing = self.world_env.standing()
        return self.mask(info["inventory"], info["achievements"], self.disabled, standing)

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self._info = info
        return self._recalled(obs), {**info, "primitive_steps": 0}

    def _recalled(self, obs: np.ndarray) -> np.ndarray:
        if not self.recall:
            return obs
        return np.concatenate([obs, self.world_env.recall(self.recall)])  # type: ignore[attr-defined]

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        return drive(self.step_waits(action))

    def step_waits(self, action: int) -> Waits[Step]:
        """step(), yielding the worker's reply pipe each time a coded action's call waits on
        it (rlgpt/rl/interleave.py steps other envs meanwhile)."""
        obs, reward, term, trunc, info = yield from self._step_waits(action)
        return self._recalled(obs), reward, term, trunc, info

    def _step_waits(self, action: int) -> Waits[Step]:
        action = int(action)
        if action < self._n_prim:
            obs, reward, term, trunc, info = self.env.step(
                self._prim_index[self.primitives[action]]
            )
            self._info = info
            out = {**info, "primitive_steps": 1, "macro": None}
            return obs, float(reward), term, trunc, out
        name = self.names[action - self._n_prim]
        if name in self.options:
            return (yield from self._run_learned(name))
        return (yield from self._run_macro(name))

    def action_name(self, action: int) -> tuple[str, bool]:
        """The name of an action of this space, and whether it is a coded action."""
        if action < self._n_prim:
            return self.primitives[action], False
        return self.names[action - self._n_prim], True

    def index_of(self, name: str) -> int:
        """The action that calls coded action `name`."""
        return self._n_prim + self.names.index(name)

    def disabled(self, name: str) -> bool:
        return (
            name in self.banned
            or self.errors[name] >= self.max_errors
            or self.hangs[name] >= self.max_hangs
        )

    def _code_off(self, name: str) -> bool:
        """Whether coded action `name` may not run: disabled, or not one its runner holds (a
        learned action's space may share a name with the learned action: this is the code's)."""
        return (self._runs is not None and name not in self._runs) or self.disabled(name)

    def _ask(self, name: str, state: dict[str, Any], op: str) -> Waits[str | None]:
        runner = self.runner
        if op == "stop":
            stop_waits = getattr(runner, "stop_waits", None)
            if stop_waits is None:
                runner.stop()
            else:
                yield from stop_waits()
            return None
        if op == "start":
            waits = getattr(runner, "start_waits", None)
            return (yield from waits(name, state)) if waits else runner.start(name, state)
        waits = getattr(runner, "next_waits", None)
        return (yield from waits(state)) if waits else runner.next(state)

    def _call(self, name: str, state: dict[str, Any], op: str) -> Waits[tuple[str | None, str]]:
        """The runner's next primitive (None: done) and the kind of the error, if one. `op`:
        start, next, or stop (close a call cut short, so its `finally` runs now)."""
        if self._code_off(name):
            return None, "disabled"
        try:
            prim = yield from self._ask(name, state, op)
        except MacroError as exc:
            self.errors[name] += 1
            self.hangs[name] += exc.kind in COSTLY
            if exc.kind == "cpu":
                self.banned.add(name)
            prefix = "disabled: " if self.disabled(name) else ""
            self.faults[name] = f"{prefix}{exc.kind}: {exc.message}"[:300]
            if self.errors[name] == 1 or self.disabled(name):
                log.warning("coded action %s failed in training (%dx): %s: %s%s", name,
                            self.errors[name], exc.kind, exc.message,
                            "; disabled" if self.disabled(name) else "")  # fmt: skip
            return None, exc.kind
        return prim, ""

    def close(self) -> None:
        try:
            self.runner.close()
        finally:
            super().close()

    def _run_macro(self, name: str, budget: int | None = None) -> Waits[Step]:
        """A coded action's call, for at most `budget` primitive steps (the wrapper's own by
        default; a learned action's calls may be shorter)."""
        budget = self.step_budget if budget is None else min(budget, self.step_budget)
        before = self._info
        total, steps = 0.0, 0
        term = trunc = False
        obs: np.ndarray | None = None
        env = self.world_env
        prim, error = yield from self._call(name, env.view_state(before, True), "start")
        finished = prim is None  # a call always costs one game tick, or a policy could stall
        info = before
        # Only the call's last observation reaches the policy: a world env that can (it has
        # `defer_observations` and `last_obs`) skips building the others.
        lazy = getattr(env, "defer_observations", None) is not None
        if lazy:
            env.defer_observations = True  # type: ignore[attr-defined]
        try:
            while prim is not None or finished:
                hazard = env.unsafe_move(prim) if prim is not None else None
                if hazard is not None:  # the runtime never walks into lava (or the like)
                    self.faults[name] = f"{hazard}: yielded {prim} onto {hazard} (turned into noop)"
                    prim = "noop"
                obs, reward, term, trunc, info = self.env.step(self._prim_index[prim or "noop"])
                total += float(reward)
                steps += 1
                if finished or term or trunc or steps >= budget:
                    break
                prim, error = yield from self._call(name, env.view_state(info), "next")
                if error:
                    break
        finally:
            if lazy:
                env.defer_observations = False  # type: ignore[attr-defined]
        if lazy:
            obs = env.last_obs  # type: ignore[attr-defined]
        if prim is not None and not error and not self._ended_anyway(info):
            # cut short by its budget or the episode's end: its code is closed now
            _, error = yield from self._call(name, {}, "stop")
        self._info = info
        assert obs is not None
        return self._ended(
            name, before, info, obs, total, steps, term=term, trunc=trunc, error=error,
            budget=budget,
        )  # fmt: skip

    def _ended_anyway(self, info: dict[str, Any]) -> bool:
        """A call cut short whose last step was its plan's end (rlgpt/sandbox/stepping.py):
        the plan would have ended the call there, and its runner closes the code at its next
        start, without a stop's round trip. A runner without plans says no."""
        ended = getattr(self.runner, "ended", None)
        if ended is None:
            return False
        env = self.world_env
        return bool(ended(lambda: env.view_state(info), info["achievements"]))

    def _ended(
        self, name: str, before: dict[str, Any], info: dict[str, Any], obs: np.ndarray,
        total: float, steps: int, *, term: bool, trunc: bool, error: str, budget: int,
    ) -> Step:  # fmt: skip
        """A call's step: a call that used its whole budget without changing inventory or
        position is a dead loop; one that changed nothing (or failed) is charged."""
        unchanged = (
            items(info["inventory"], self.vitals) == items(before["inventory"], self.vitals)
            and info["player_pos"] == before["player_pos"]
            and info["achievements"] == before["achievements"]
        )
        stuck = steps >= budget and unchanged
        if unchanged or error:  # a call that did nothing (or failed) costs a little
            total -= self.no_effect_penalty
        out = {**info, "primitive_steps": steps, "macro": name, "dead_loop": stuck,
               "macro_error": error or None}  # fmt: skip
        return obs, total, term, trunc, out

    def _run_learned(self, name: str) -> Waits[Step]:
        """A learned action's call: its policy acts (a primitive, or one of its coded actions
        run as any coded call) until its achievement rises, the episode ends, or its step
        budget is spent. A call always costs at least one game tick."""
        option = self.options[name]
        before = info = self._info
        start = int(before["achievements"].get(name, 0))
        env = self.world_env
        if self.snapshots is not None:
            self.snapshots.offer(name, env)
        obs: np.ndarray = env.last_obs  # type: ignore[attr-defined]
        total, steps = 0.0, 0
        term = trunc = False
        while True:
            mask = option.mask(info, self._code_off, env.standing())
            if mask.any():
                chosen, coded = option.act(obs, mask, env)
            else:  # nothing it may do now: the call is one tick
                chosen, coded = (
                    ("noop" if "noop" in self._prim_index else self.primitives[0]),
                    False,
                )
            if coded:
                obs, reward, term, trunc, out = yield from self._run_macro(
                    chosen, option.code_steps
                )
                steps += int(out["primitive_steps"])
                info = self._info
            else:
                obs, r, term, trunc, info = self.env.step(self._prim_index[chosen])
                reward, self._info = float(r), info
                steps += 1
            total += reward
            rose = int(info["achievements"].get(name, 0)) > start
            if rose or term or trunc or steps >= option.step_budget or not mask.any():
                break
        return self._ended(name, before, info, obs, total, steps, term=term, trunc=trunc, error="",
                           budget=option.step_budget)  # fmt: skip
