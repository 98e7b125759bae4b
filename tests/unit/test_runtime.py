"""rlgpt.rl.runtime: coded actions as extra actions of the RL action space."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from rlgpt.rl.runtime import items
from rlgpt.worlds.crafter.author import write_action
from rlgpt.worlds.crafter.env import CrafterEnv
from rlgpt.worlds.crafter.recipes import VITALS, actions
from rlgpt.worlds.crafter.tasks import get_task
from tests.support.world import wrap

N_PRIM = 17


class ScriptRunner:
    """A MacroRunner that plays a fixed list of primitives and records the states it saw."""

    def __init__(self, script: list[str]) -> None:
        self.script = script
        self.states: list[dict] = []
        self._left: list[str] = []

    def start(self, name, state):
        self._left = list(self.script)
        return self.next(state)

    def next(self, state):
        self.states.append(state)
        return self._left.pop(0) if self._left else None

    def stop(self):
        self._left = []

    def close(self):
        self.closed = True


def wrapped(runner, names=("m",), budget=80, penalty=0.0, task="collect_diamond"):
    env = wrap(CrafterEnv(get_task(task)), list(names), runner, budget, penalty)
    env.reset(seed=2)
    return env


@pytest.mark.parametrize("k", [0, 1, 3])
def test_action_space_is_primitives_plus_macros(k):
    env = wrapped(ScriptRunner([]), names=[f"m{i}" for i in range(k)])
    assert env.action_space == gym.spaces.Discrete(N_PRIM + k)
    assert len(actions()) == N_PRIM


def test_primitive_action_passes_through():
    env = wrapped(ScriptRunner(["do"]))
    _, _, _, _, info = env.step(actions().index("move_left"))
    assert info["primitive_steps"] == 1
    assert info["macro"] is None
    assert info["facing"] == (-1, 0)


def test_reset_reports_zero_primitive_steps():
    env = wrapped(ScriptRunner([]))
    _, info = env.reset(seed=3)
    assert info["primitive_steps"] == 0


def test_macro_runs_to_completion_and_counts_primitive_steps():
    runner = ScriptRunner(["move_left", "move_up", "move_right"])
    env = wrapped(runner)
    _, _, _, _, info = env.step(N_PRIM)
    assert info["macro"] == "m"
    assert info["primitive_steps"] == 3
    assert len(runner.states) == 4  # start + one next per primitive step
    # the runner sees the state after each step
    assert [s["facing"] for s in runner.states[1:]] == [(-1, 0), (0, -1), (1, 0)]


def test_view_state_is_the_local_window():
    env = CrafterEnv(get_task("collect_wood"), view_radius=2)
    _, info = env.reset(seed=1)
    state = env.view_state(info)
    assert bytes.fromhex(state["local"]) == env.local_window().tobytes()
    assert len(bytes.fromhex(state["local"])) == 25
    assert state["inventory"] == info["inventory"]
    assert state["facing"] == info["facing"]


def test_collect_wood_macro_takes_several_primitive_steps(make_worker):
    worker = make_worker([write_action("collect_wood", 200)])
    env = wrap(CrafterEnv(get_task("make_wood_pickaxe")), ["collect_wood"], worker, 200, 0.1)
    _, before = env.reset(seed=1)
    _, reward, term, _, info = env.step(N_PRIM)
    assert info["primitive_steps"] > 1
    assert info["achievements"]["collect_wood"] == before["achievements"]["collect_wood"] + 1
    assert info["inventory"]["wood"] == 1
    assert reward > 0  # crafter's +1 for the unlock; no penalty: the call changed something
    assert info["dead_loop"] is False
    assert term is False  # the task is the pickaxe, not the wood


def test_macro_that_does_nothing_costs_one_step_and_the_penalty(make_worker, coded_action):
    worker = make_worker([coded_action("nothing", "    if False:\n        yield 'noop'\n")])
    env = wrap(CrafterEnv(get_task("collect_diamond")), ["nothing"], worker, 80, 0.25)
    _, before = env.reset(seed=3)
    _, reward, _, _, info = env.step(N_PRIM)
    assert info["primitive_steps"] == 1, "a call always costs one game tick"
    assert reward == pytest.approx(-0.25)
    assert info["dead_loop"] is False, "it finished; it did not exhaust its budget"
    assert info["player_pos"] == before["player_pos"]


def test_macro_that_exhausts_its_budget_standing_still_is_a_dead_loop(make_worker, coded_action):
    worker = make_worker([coded_action("spin", "    while True:\n        yield 'noop'\n")])
    env = wrap(CrafterEnv(get_task("collect_diamond")), ["spin"], worker, 30, 0.25)
    _, before = env.reset(seed=3)
    _, reward, _, _, info = env.step(N_PRIM)
    assert info["primitive_steps"] == 30
    # vitals drift on their own (drink drops every ~20 steps): that is not progress
    assert info["inventory"]["drink"] < before["inventory"]["drink"]
    assert info["dead_loop"] is True
    assert reward == pytest.approx(-0.25)


def test_budget_stops_a_moving_macro_without_calling_it_a_dead_loop():
    runner = ScriptRunner(["move_left"] * 10)
    env = wrapped(runner, budget=3, penalty=0.5)
    _, before = env.reset(seed=2)
    _, reward, _, _, info = env.step(N_PRIM)
    assert info["primitive_steps"] == 3
    assert info["player_pos"] == (before["player_pos"][0] - 3, before["player_pos"][1])
    assert info["dead_loop"] is False
    assert reward == pytest.approx(0.0)  # moved: no no-effect penalty


def test_items_drops_vitals():
    inv = {"health": 9, "food": 3, "drink": 2, "energy": 1, "wood": 4}
    assert items(inv, VITALS) == {"wood": 4}
    assert {"health", "food", "drink", "energy"} == VITALS


class FakeCrafter(gym.Env):
    """Pays 0.5 per step and never changes: enough of CrafterEnv for the wrapper."""

    observation_space = gym.spaces.Box(0, 1, (1,), np.float32)
    action_space = gym.spaces.Discrete(N_PRIM)

    def __init__(self) -> None:
        self.taken: list[int] = []

    def reset(self, *, seed=None, options=None):
        return np.zeros(1, np.float32), self._info()

    def step(self, action):
        self.taken.append(int(action))
        return np.zeros(1, np.float32), 0.5, False, False, self._info()

    def local_window(self):
        return np.zeros((3, 3), int)

    area = (3, 3)

    class _World:
        daylight, area = 1.0, (3, 3)

        def __getitem__(self, pos):
            return ("grass", None)

    world = _World()
    player = type("Player", (), {"pos": (1, 1)})()

    def memory(self):
        return bytes(9)

    def view_state(self, info, start=False):
        return {"local": self.local_window().astype("uint8").tobytes().hex(), **info}

    def unsafe_move(self, action):
        return None

    def standing(self):
        return {}

    @staticmethod
    def _info():
        inv = {"wood": 0, "drink": 9}
        return {"inventory": inv, "achievements": {}, "player_pos": (0, 0), "semantic": None,
                "facing": (0, 1)}  # fmt: skip


def test_macro_rewards_are_summed_then_charged():
    fake = FakeCrafter()
    env = wrap(fake, ["m"], ScriptRunner(["noop", "do", "noop", "sleep"]), 80, 0.1)
    env.reset()
    _, reward, _, _, info = env.step(N_PRIM)
    assert fake.taken == [actions().index(a) for a in ("noop", "do", "noop", "sleep")]
    assert info["primitive_steps"] == 4
    assert reward == pytest.approx(4 * 0.5 - 0.1)


def test_a_macro_that_raises_in_training_ends_the_call_and_is_disabled_after_enough(
    make_worker, coded_action
):
    boom = coded_action(
        "boom", "    yield 'move_left'\n    x, y = view.nearest('table')\n    yield 'do'\n"
    )
    env = wrap(
        CrafterEnv(get_task("collect_diamond")), ["boom"], make_worker([boom]), 80, 0.25,
        max_errors=2,
    )  # fmt: skip
    env.reset(seed=3)
    _, reward, _, _, info = env.step(N_PRIM)
    assert info["macro_error"] == "exception" and info["primitive_steps"] == 1
    assert reward == pytest.approx(-0.25)
    env.step(N_PRIM)
    _, _, _, _, info = env.step(N_PRIM)  # two errors: disabled, a no-op tick
    assert info["macro_error"] == "disabled" and info["primitive_steps"] == 1
    _, _, _, _, info = env.step(actions().index("noop"))
    assert info["primitive_steps"] == 1, "training goes on with the primitives"


def test_the_runtime_never_walks_a_coded_action_into_lava():
    crafter = CrafterEnv(get_task("collect_diamond"), seed=2)
    crafter.reset(seed=2)
    x, y = (int(v) for v in crafter.player.pos)
    crafter.world[(x - 1, y)] = "lava"
    crafter.world[(x + 1, y)] = "grass"
    crafter.refresh()
    env = wrap(crafter, ["m"], ScriptRunner(["move_left", "move_right"]), 80)
    env.reset(seed=2)
    crafter.world[(x - 1, y)] = "lava"  # reset rebuilt the world: put the lava back
    crafter.world[(x + 1, y)] = "grass"
    _, _, term, _, info = env.step(N_PRIM)
    assert not term and info["inventory"]["health"] > 0
    assert info["player_pos"] == (x + 1, y)  # the step into lava became a noop; the next ran
    assert "lava" in env.faults["m"]
    _, _, term, _, _ = env.step(actions().index("move_left"))  # the policy's own step is its own
    _, _, term, _, _ = env.step(actions().index("move_left"))
    assert term and crafter.player.health <= 0


def test_a_space_without_primitives_maps_action_zero_to_the_first_coded_action():
    runner = ScriptRunner(["move_left", "move_left"])
    env = wrap(CrafterEnv(get_task("collect_diamond")), ["m", "n"], runner, 80, 0.0, primitives=[])
    env.reset(seed=2)
    assert env.action_space == gym.spaces.Discrete(2)
    _, _, _, _, info = env.step(0)
    assert info["macro"] == "m" and info["primitive_steps"] == 2
    assert env.action_name(1) == ("n", True) and env.index_of("n") == 1


def test_a_kept_subset_of_primitives_comes_first_in_its_order():
    env = wrap(
        CrafterEnv(get_task("collect_diamond")), ["m"], ScriptRunner([]), 80, 0.0,
        primitives=["noop", "move_left"],
    )  # fmt: skip
    env.reset(seed=2)
    assert env.action_space == gym.spaces.Discrete(3)
    _, _, _, _, info = env.step(1)
    assert info["macro"] is None and info["facing"] == (-1, 0)
    assert env.action_name(0) == ("noop", False) and env.action_name(2) == ("m", True)


def test_an_unknown_primitive_is_refused_with_the_valid_names():
    with pytest.raises(ValueError, match="unknown primitive action.*move_lef"):
        wrap(CrafterEnv(get_task("collect_diamond")), [], ScriptRunner([]), primitives=["move_lef"])


class CostlyRunner(ScriptRunner):
    """A runner whose worker was stopped for its CPU after its first call."""

    def __init__(self) -> None:
        super().__init__(["noop"])
        self.calls = 0

    def start(self, name, state):
        self.calls += 1
        if self.calls > 1:
            from rlgpt.errors import MacroError

            raise MacroError("cpu", "costs 185.0 ms of CPU per step over 16 steps, more than "
                             "the 25 ms allowed (sandbox.step_cpu_ms); killed")  # fmt: skip
        return super().start(name, state)


def test_an_action_that_costs_too_much_cpu_is_disabled_at_once_with_its_reason():
    runner = CostlyRunner()
    env = wrapped(runner)
    env.step(N_PRIM)
    _, _, _, _, info = env.step(N_PRIM)
    assert info["macro_error"] == "cpu" and env.disabled("m")
    assert env.faults["m"].startswith("disabled: cpu: costs 185.0 ms of CPU per step")
    _, _, _, _, info = env.step(N_PRIM)
    assert info["macro_error"] == "disabled" and runner.calls == 2, "never called again"


class EagerCrafter(CrafterEnv):
    """CrafterEnv without deferred observations: every step builds its observation."""

    @property  # type: ignore[override]
    def defer_observations(self):  # the runtime finds no such capability
        return None

    @defer_observations.setter
    def defer_observations(self, value):
        pass


def test_a_call_builds_only_its_last_observation_and_it_is_the_eager_one(monkeypatch):
    """Inside a coded-action call the env builds no observation until the call's last step;
    what the policy gets (observation, reward, flags, info) is what an env that builds one
    every step gives, call after call and for the policy's own steps between them."""
    built = []
    observe = CrafterEnv._observe

    def counted(self, image, info):
        built.append(type(self).__name__)
        return observe(self, image, info)

    monkeypatch.setattr(CrafterEnv, "_observe", counted)
    script = ["move_left", "move_left", "do", "move_up", "noop", "move_right"]
    runs = []
    for cls in (CrafterEnv, EagerCrafter):
        env = wrap(cls(get_task("collect_diamond")), ["m"], ScriptRunner(script), 80)
        env.reset(seed=5)
        built.clear()
        out = [env.step(a) for a in (N_PRIM, actions().index("move_down"), N_PRIM, N_PRIM)]
        runs.append((out, len(built)))
    (lazy, n_lazy), (eager, n_eager) = runs
    assert n_eager == 1 + 3 * len(script) and n_lazy == 4  # one per decision
    for a, b in zip(lazy, eager, strict=True):
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1:4] == b[1:4] and a[4] == b[4]
