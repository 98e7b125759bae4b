"""Plans (rlgpt/sandbox/plans.py, stepping.py): several steps for one round trip, each checked.

The contract's promises, each tested here: a plan takes the very transitions of its actions
yielded one by one; it is cut right after the first step that breaks its expectation and the
action learns how many steps were taken; the reference skills take the same steps whether the
host checks their plans or cuts every plan after one step (the code's one-at-a-time logic);
what a worker sends as a plan is parsed as hostile bytes; and round trips are counted.
"""

from __future__ import annotations

import random
import re
from typing import Any

import gymnasium as gym
import pytest

from rlgpt.errors import MacroError
from rlgpt.rl.runtime import MacroActionWrapper
from rlgpt.sandbox import stepping
from rlgpt.sandbox.plans import MAX_STEPS, BadPlan, Plan, Step, lost, parse, parse_ends, problem
from rlgpt.sandbox.pool import MacroPool
from rlgpt.worlds import get_world
from rlgpt.worlds.crafter.recipes import actions
from tests.support.world import CRAFTER_SKILLS, grass_plain, wrap

PRIMITIVES = frozenset(actions())
CONDITIONS = frozenset({"before_dawn", "tired"})


class Recorder(gym.Wrapper):  # type: ignore[type-arg]
    """Records every primitive step: the action, reward, ends, the info the runtime reads and
    the map around the player."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.log: list[tuple[Any, ...]] = []

    def step(self, action: int) -> Any:
        obs, reward, term, trunc, info = self.env.step(action)
        window = self.env.unwrapped.local_window().tobytes()  # type: ignore[attr-defined]
        self.log.append((action, reward, term, trunc, info["player_pos"], info["facing"],
                         sorted(info["inventory"].items()),
                         sorted(info["achievements"].items()), window))  # fmt: skip
        return obs, reward, term, trunc, info


def _coded(name: str, body: str, budget: int = 80) -> Any:
    from rlgpt.messages import CodedAction

    return CodedAction(name=name, docstring="test", source=f"def {name}(view):\n{body}",
                       step_budget=budget)  # fmt: skip


def _play(
    coded: list[Any], choose: Any, seed: int, calls: int, task: str = "collect_diamond",
    world: str = "crafter",
) -> tuple[list[tuple[Any, ...]], int, int]:  # fmt: skip
    """`calls` calls of coded actions (`choose(rng)` names each) through the runtime and a
    pool of sandboxed workers on a real episode of `world`: every primitive step, and the
    pool's round trips and steps handed out without one."""
    game = get_world(world)
    env = Recorder(game.make_env(game.task(task), seed=seed))
    pool = MacroPool(coded, game.skills(), isolation="bwrap")
    wrapped = MacroActionWrapper(env, [c.name for c in coded], pool, step_budget=80,
                                 all_primitives=game.primitives(), vitals=game.vitals)  # fmt: skip
    try:
        wrapped.reset(seed=seed)
        rng = random.Random(seed)
        for _ in range(calls):
            *_, term, trunc, _ = wrapped.step(wrapped.index_of(choose(rng)))
            if term or trunc:
                wrapped.reset()
        trips = sum(w.round_trips for w in pool._workers.values())
        planned = sum(w.planned for w in pool._workers.values())
    finally:
        wrapped.close()
    return env.log, trips, planned


ACTS = ["move_left"] * 3 + ["move_up"] * 4 + ["do", "noop", "move_right", "move_down"] * 3


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_plan_takes_the_transitions_of_its_actions_one_by_one(seed):
    """Real worlds (trees, water, creatures in the way): where the plan is cut, the action
    yields the rest one by one; every transition is the same as yielding all one by one."""
    one = _coded("walk", f"    for a in {ACTS!r}:\n        yield a\n")
    planned = _coded("walk", f"    acts = {ACTS!r}\n    taken = yield plan(view, acts)\n"
                     "    for a in acts[taken:]:\n        yield a\n")  # fmt: skip
    log_one, trips_one, _ = _play([one], lambda rng: "walk", seed, 6)
    log_plan, trips_plan, handed = _play([planned], lambda rng: "walk", seed, 6)
    assert log_plan == log_one
    assert len(log_one) > 60
    assert handed > 0 and trips_plan < trips_one


def _reference_actions(world: str, task: str) -> list[Any]:
    author = get_world(world).author()
    dec = author.decompose(get_world(world).task(task), {}, {})
    return [author.write_action(s.name, 80) for s in dec.sub_actions if s.mode == "code"]


def _both_ways(monkeypatch: Any, coded: list[Any], calls: int, task: str, world: str) -> Any:
    """The same calls with the host checking plans, then with every plan cut after its first
    step (a world that checks nothing: the code decides each step as it did before plans)."""
    names = [c.name for c in coded]

    def choose(rng: random.Random) -> str:
        return rng.choice(names)

    checked = _play(coded, choose, 5, calls, task, world)
    init = stepping.PlanStepper.__init__

    def unchecked(self: Any, skills: Any) -> None:
        init(self, skills)
        self._checks = None

    monkeypatch.setattr(stepping.PlanStepper, "__init__", unchecked)
    return checked, _play(coded, choose, 5, calls, task, world)


def test_the_reference_skills_take_the_same_steps_with_plans_as_one_step_at_a_time(monkeypatch):
    """The offline author's actions for the iron pickaxe (walks, digging, shelters at night,
    sleep, drinking) on real episodes: the game takes the same transitions whether the host
    checks their plans or cuts each after a step, with fewer round trips."""
    coded = _reference_actions("crafter", "make_iron_pickaxe")
    checked, unchecked = _both_ways(monkeypatch, coded, 300, "make_iron_pickaxe", "crafter")
    (with_plans, trips, handed), (one_by_one, trips_one, handed_one) = checked, unchecked
    assert handed_one == 0
    assert with_plans == one_by_one
    assert len(with_plans) > 1500
    sleep = actions().index("sleep")
    assert sum(1 for step in with_plans if step[0] == sleep) > 50, "a night was waited out"
    assert handed > 0.3 * len(with_plans), (handed, len(with_plans))
    assert trips < 0.7 * trips_one, (trips, trips_one)


@pytest.mark.parametrize(("world", "task", "calls"), [("craftax-classic", "make_iron_pickaxe", 120),
                                                    ("craftax", "enter_dungeon", 50)])  # fmt: skip
def test_the_craftax_skills_take_the_same_steps_with_plans(monkeypatch, world, task, calls):
    """Craftax-Classic (Crafter's skills over craftax's game) and full Craftax (its own
    skills: floors, mobs, the dark) likewise."""
    pytest.importorskip("craftax")
    coded = _reference_actions(world, task)
    checked, unchecked = _both_ways(monkeypatch, coded, calls, task, world)
    assert checked[0] == unchecked[0]
    assert checked[2] > 0 and unchecked[2] == 0 and checked[1] < unchecked[1]
    assert len(checked[0]) > 300


def test_a_plan_cut_short_returns_how_many_steps_were_taken(make_worker):
    """Five steps right on open grass; after the second a stone appears where the third goes:
    the host wakes the action after step 2 (no round trip before), with taken == 2 and the
    view as it is then."""
    act = _coded("walk", "    taken = yield plan(view, ['move_right'] * 5)\n"
                 "    for _ in range(taken):\n        yield 'noop'\n"
                 "    yield 'do' if view.at(1, 0) == 'stone' else 'sleep'\n")  # fmt: skip
    worker = make_worker([act])
    env = grass_plain()
    index = {a: i for i, a in enumerate(actions())}
    prim = worker.start("walk", env.view_state(env.last_info, True))
    taken: list[str] = []
    while prim is not None and len(taken) < 20:
        taken.append(prim)
        _, _, _, _, info = env.step(index[prim])
        if len(taken) == 2:
            x, y = (int(v) for v in env.player.pos)
            env.world[(x + 1, y)] = "stone"
            info = env.refresh()
        prim = worker.next(env.view_state(info))
    assert taken == ["move_right", "move_right", "noop", "noop", "do"]
    assert worker.planned == 1  # the second step came without a round trip
    assert worker.round_trips == 1 + 1 + 2 + 1  # start, the cut, the noops, the end


def test_the_default_tasks_skills_take_the_same_steps_with_plans(monkeypatch):
    """make_wood_pickaxe's actions (act_at: a walk, its turn and its "do" as one plan;
    explore; a table; a failed make tried again) likewise, with fewer round trips."""
    coded = _reference_actions("crafter", "make_wood_pickaxe")
    checked, unchecked = _both_ways(monkeypatch, coded, 200, "make_wood_pickaxe", "crafter")
    assert checked[0] == unchecked[0]
    assert len(checked[0]) > 400
    assert checked[2] > 0.4 * len(checked[0]) and checked[1] < 0.6 * unchecked[1], checked[1:]


def _before_act_at(coded: Any) -> Any:
    """A reference action as written before act_at and repeated makes: go_to, then the
    loop's own "do"; one make a plan."""
    source = re.sub(r'act_at\(view, ("[a-z_]+"), "do", dig, "[a-z_]+"\)', r"go_to(view, \1, dig)",
                    coded.source)  # fmt: skip
    source = re.sub(r'(\["[a-z_]+"\]) \* 8, ends', r"\1, ends", source)
    return coded.model_copy(update={"source": source})


@pytest.mark.parametrize(
    ("task", "calls"), [("make_wood_pickaxe", 200), ("make_iron_pickaxe", 300)]
)
def test_act_at_takes_the_steps_of_go_to_and_the_loops_do(task, calls):
    """The reference actions with act_at (and the plans under it: digging, explore, hits)
    take the transitions the same actions took written with go_to and a "do" of their own
    loop: the skills' choices are those of the code before these plans (and a walk that
    mines an ore it is after ends as that loop ended)."""
    coded = _reference_actions("crafter", task)
    before = [_before_act_at(c) for c in coded]
    assert any("act_at" in c.source for c in coded) and not any(
        "act_at" in c.source for c in before
    )
    names = [c.name for c in coded]
    log_now, trips_now, _ = _play(coded, lambda rng: rng.choice(names), 5, calls, task)
    log_before, trips_before, _ = _play(before, lambda rng: rng.choice(names), 5, calls, task)
    assert log_now == log_before
    assert trips_now < trips_before


def test_a_step_that_does_not_face_what_it_expects_ends_the_plan():
    """A tree to the right: after the turn toward it, a plan expecting to face water is cut
    (the worker is woken), one expecting the tree, or anything but grass, goes on."""
    for faces, then in (("water", None), ("tree", "noop"), ("!grass", "noop"), ("!tree", None)):
        env = grass_plain()
        x, y = (int(v) for v in env.player.pos)
        env.world[(x + 1, y)] = "tree"
        env.player.facing = (0, 1)
        info = env.refresh()
        stepper = stepping.PlanStepper(CRAFTER_SKILLS)
        raw = [["move_right", [0, 0], [1, 0], None, [], faces],
               ["noop", [0, 0], [1, 0], None, [], None]]  # fmt: skip
        assert stepper.begin(raw, env.view_state(info, True)) == "move_right"
        _, _, _, _, after = env.step(actions().index("move_right"))
        assert stepper.after(env.view_state(after)) == then, faces


def test_sipping_stops_where_the_loop_would_with_no_water_in_front():
    """drink_up sips as one plan, each sip expecting water still in front (its loop's own
    condition): an arrow flying over the water cuts the plan, as the loop would have stopped
    and gone on from there; found where plans and steps one at a time parted in a training."""
    from crafter import objects

    from rlgpt.sandbox.plans import reply, steps_of
    from rlgpt.worlds.crafter.skills import survival
    from tests.support.world import view_of

    env = grass_plain()
    x, y = (int(v) for v in env.player.pos)
    env.world[(x + 1, y)] = "water"
    env.player.facing = (1, 0)
    env.player.inventory["drink"] = 2
    info = env.refresh()
    sips = next(survival.drink_up(view_of(env), 9))
    assert isinstance(sips, Plan) and len(sips) == 7
    assert {(s.action, s.faces) for s in steps_of(sips)} == {("do", "water")}
    stepper = stepping.PlanStepper(CRAFTER_SKILLS)
    sent = reply(sips)
    assert stepper.begin(sent["plan"], env.view_state(info, True)) == "do"
    _, _, _, _, info = env.step(actions().index("do"))
    assert stepper.after(env.view_state(info)) == "do"  # water in front: the next sip
    _, _, _, _, info = env.step(actions().index("do"))
    env.world.add(objects.Arrow(env.world, (x + 1, y), (0, 1)))  # in front after this sip
    assert stepper.after(env.view_state(info)) is None  # the plan is cut: the loop looks again


def test_a_call_whose_plan_ends_with_the_episode_needs_no_stop():
    """The episode ends with the step that raised the plan's end: the runtime cuts the call
    there, and the worker is not asked to stop it (its code is closed at its next start)."""
    act = _coded("chop", "    while True:\n        yield plan(view, ['do'], ends='collect_wood')\n")
    env = grass_plain()
    x, y = (int(v) for v in env.player.pos)
    env.world[(x, y + 1)] = "tree"
    env.player.facing = (0, 1)
    env.refresh()
    pool = MacroPool([act], CRAFTER_SKILLS, isolation="bwrap")
    wrapped = wrap(env, ["chop"], pool, step_budget=1)  # the budget cuts it after its step
    try:
        wrapped._info = env.last_info
        *_, info = wrapped.step(wrapped.index_of("chop"))
        assert info["achievements"]["collect_wood"] == 1 and info["primitive_steps"] == 1
        assert pool._workers["chop"].round_trips == 1  # the start alone: no stop
        env.world[(x, y + 1)] = "tree"  # (a tree felled turns to grass here)
        wrapped._info = env.refresh()
        *_, info = wrapped.step(wrapped.index_of("chop"))  # the next start closes it first
        assert info["achievements"]["collect_wood"] == 2 and info["macro_error"] is None
        assert pool._workers["chop"].round_trips == 2
    finally:
        wrapped.close()


def test_a_plan_that_ends_the_call_needs_no_round_trip_to_hear_it_ended(make_worker):
    """A tree in front: the plan's "do" raises collect_wood and the host ends the call there
    (no "next" to hear "done"); the code after the yield never runs, and its `finally` runs
    at the next start, whose error it is when it fails."""
    act = _coded(
        "chop",
        "    try:\n        yield plan(view, ['do'], ends='collect_wood')\n"
        "        yield 'noop'\n    finally:\n"
        "        if view.inventory['wood'] > 0:\n            raise ValueError('closed')\n",
    )
    worker = make_worker([act])
    env = grass_plain()
    x, y = (int(v) for v in env.player.pos)
    env.world[(x, y + 1)] = "tree"
    env.player.facing = (0, 1)
    info = env.refresh()
    assert worker.start("chop", env.view_state(info, True)) == "do"
    _, _, _, _, info = env.step(actions().index("do"))
    assert info["achievements"]["collect_wood"] == 1
    assert worker.next(env.view_state(info)) is None
    assert worker.round_trips == 1
    with pytest.raises(MacroError) as closed:
        worker.start("chop", env.view_state(info, True))
    assert closed.value.kind == "exception"
    assert "while closing the call a plan ended: ValueError: closed" in closed.value.message
    assert worker.start("chop", env.view_state(info, True)) == "do"  # nothing left to close


def test_a_plan_whose_end_does_not_come_wakes_the_action(make_worker, local_state):
    """Facing grass, "do" raises nothing: the plan ran out, and the action goes on."""
    act = _coded("chop", "    yield plan(view, ['do'], ends='collect_wood')\n    yield 'noop'\n")
    worker = make_worker([act])
    state = local_state({}, achievements={"collect_wood": 0})
    assert worker.start("chop", state) == "do"
    assert worker.next(state) == "noop"
    assert worker.next(state) is None


def test_a_call_of_plans_is_judged_by_its_primitive_steps():
    """Plans of 64 noops for ever: the step budget ends the call at 80 primitive steps, it is
    a dead loop (it changed nothing in its whole budget), and it cost three round trips."""
    spin = _coded("wait", "    while True:\n        yield plan(view, ['noop'] * 64)\n")
    env = grass_plain()
    pool = MacroPool([spin], CRAFTER_SKILLS, isolation="bwrap")
    wrapped = wrap(env, ["wait"], pool, step_budget=80)
    try:
        wrapped.reset(seed=3)
        *_, info = wrapped.step(wrapped.index_of("wait"))
        trips = pool._workers["wait"].round_trips
    finally:
        wrapped.close()
    assert info["primitive_steps"] == 80 and info["dead_loop"] is True
    assert trips == 3  # start, the second plan, the stop at the budget


def test_every_plan_step_is_checked_for_lava_and_the_budget_holds(make_worker):
    """A forged plan (the gate off: the worker writes it itself) of 64 moves into lava with
    no expectations at all: the runtime still refuses each move (a noop, the player alive),
    and the call ends at its step budget."""
    forged = ('    import os, sys\n'
              '    step = ["move_left", None, None, None, [], None]\n'
              '    os.write(int(sys.argv[2]), (\'{"plan": \' + str([step] * 64).replace("None", '
              '"null").replace("\'", \'"\') + "}\\n").encode())\n'
              '    yield "noop"\n')  # fmt: skip
    env = grass_plain()
    x, y = (int(v) for v in env.player.pos)
    for dx in range(1, 6):
        env.world[(x - dx, y)] = "lava"
    env.refresh()
    pool = MacroPool([_coded("burn", forged)], CRAFTER_SKILLS, isolation="bwrap", gate=False)
    wrapped = wrap(env, ["burn"], pool, step_budget=10)
    try:
        wrapped._info = env.last_info
        *_, term, _, info = wrapped.step(wrapped.index_of("burn"))
    finally:
        wrapped.close()
    assert not term and env.player.health > 0
    assert info["primitive_steps"] == 10
    assert tuple(env.player.pos) == (x, y)
    assert "lava" in wrapped.faults["burn"]


# -- what the worker refuses, with the gate on ------------------------------------------


@pytest.mark.parametrize(
    ("body", "kind", "words"),
    [
        ("    yield plan(view, ['noop', 'move_lfet'])\n", "invalid_action",
         ("step 2", "'move_left'", "(line 2 of act)")),
        ("    yield plan(view, ['noop', 3])\n", "invalid_action", ("(int), not an action name",)),
        ("    yield plan(view, [])\n", "invalid_action", ("empty plan",)),
        ("    yield plan(view, ['noop'] * 1_000_000)\n", "invalid_action", ("more than 64",)),
        ("    yield plan(view, ['noop'], ('asleep',))\n", "api_misuse", ("before_dawn",)),
        ("    yield plan(view, ['noop'], 'tired')\n", "api_misuse", ("a tuple",)),
        ("    yield plan(view, ['do'], ends='colect_wood')\n", "api_misuse", ("'collect_wood'",)),
        ("    yield plan(view, ['do'], ends=3)\n", "api_misuse", ("name of an achievement",)),
        ("    yield ['do', 'do']\n", "invalid_action", ("one action name at a time",)),
        ("    yield 'noop'\n    yield 'fly'\n", "invalid_action", ("(line 3 of act)",)),
    ],
)  # fmt: skip
def test_a_bad_plan_is_the_error_a_bad_action_is(make_worker, local_state, body, kind, words):
    worker = make_worker([_coded("act", body)])
    state = local_state({})
    with pytest.raises(MacroError) as info:
        prim = worker.start("act", state)
        while prim is not None:
            prim = worker.next(state)
    assert info.value.kind == kind
    for word in words:
        assert word in info.value.message


def test_an_invalid_action_in_a_plan_fails_validation_with_its_line():
    from rlgpt.config import SandboxParams
    from rlgpt.validation.validate import validate_action

    src = "def place_table(view):\n    acts = ['noop', 'place_tabel']\n    yield plan(view, acts)\n"
    from rlgpt.messages import CodedAction

    action = CodedAction(name="place_table", docstring="d", source=src, step_budget=40)
    verdict = validate_action(action, sandbox=SandboxParams(scenarios=1), lint_code=False)
    assert verdict.error_kind == "invalid_action"
    assert "line 3: yield plan(view, acts)" in verdict.trace


# -- what the host refuses: a worker's plan is hostile bytes ------------------------------

GOOD = ["move_left", [-1, 0], [-1, 0], [0, -1], ["tired"], "tree"]


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ("move_left", "crash"), ([], "crash"), ([GOOD] * (MAX_STEPS + 1), "crash"),
        ([GOOD[:5]], "crash"), ([[*GOOD, "skip_checks"]], "crash"), ({"0": GOOD}, "crash"),
        ([["fly", None, None, None, [], None]], "invalid_action"),
        ([[["move_left"], None, None, None, [], None]], "invalid_action"),
        ([["noop", None, None, None, ["skip_checks"], None]], "crash"),
        ([["noop", None, None, None, ["tired"] * 5, None]], "crash"),
        ([["noop", None, None, None, "tired", None]], "crash"),
        ([["noop", [10**9, 0], None, None, [], None]], "crash"),
        ([["noop", [True, 0], None, None, [], None]], "crash"),
        ([["noop", [0, False], None, None, [], None]], "crash"),
        ([["noop", [-(MAX_STEPS + 1), 0], None, None, [], None]], "crash"),
        ([["noop", None, None, None, [3], None]], "crash"),
        ([["noop", [0.5, 0], None, None, [], None]], "crash"),
        ([["noop", [0, 0, 0], None, None, [], None]], "crash"),
        ([["noop", None, [0, 0], None, [], None]], "crash"),
        ([["noop", None, None, [0, 2], [], None]], "crash"),
        ([["noop", None, None, [1, 1], [], None]], "crash"),
        ([["noop", None, None, None, [], 3]], "crash"),
        ([["noop", None, None, None, [], ""]], "crash"),
        ([["noop", None, None, None, [], "x" * 33]], "crash"),
    ],
)  # fmt: skip
def test_the_host_refuses_a_plan_that_is_not_one(raw, kind):
    with pytest.raises(BadPlan) as info:
        parse(raw, PRIMITIVES, CONDITIONS)
    assert info.value.kind == kind


@pytest.mark.parametrize("ends", [3, ["collect_wood"], "x" * 65])
def test_the_host_refuses_an_end_that_is_no_name(ends):
    with pytest.raises(BadPlan) as info:
        parse_ends(ends)
    assert info.value.kind == "crash"


def test_the_host_takes_a_well_formed_plan_as_typed_steps():
    steps = parse([GOOD, ["do", None, None, None, [], None]], PRIMITIVES, CONDITIONS)
    assert steps == (Step("move_left", (-1, 0), (-1, 0), (0, -1), ("tired",), "tree"), Step("do"))


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (b'{"plan": ' + b'[["noop", null, null, null, [], null]'
         + b', ["noop", null, null, null, [], null]' * 999 + b"]}",
         "a plan that is not a list of 1 to 64 steps"),
        (b'{"plan": [' + b'["noop", null, null, null, [], null], ' * 10**5 + b"]}", "larger than"),
        (b'{"plan": [["noop", null, null, null, ["skip_checks"], null]]}', "a condition"),
    ],
)  # fmt: skip
def test_a_forged_plan_kills_the_worker_as_a_broken_protocol(make_worker, local_state, line, why):
    """The gate off (the OS layer alone): code that writes its own reply gets a crash."""
    body = (f"    import os, sys\n    os.write(int(sys.argv[2]), {line!r} + b'\\n')\n"
            "    yield 'noop'\n")  # fmt: skip
    worker = make_worker([_coded("forge", body)], gate=False)
    with pytest.raises(MacroError) as info:
        worker.start("forge", local_state({}))
    assert info.value.kind == "crash" and why in info.value.message
    assert not worker.alive


def test_the_worker_refuses_what_it_will_not_encode():
    assert problem(Plan([]), PRIMITIVES) is not None
    assert problem(Plan([Step("noop")] * (MAX_STEPS + 5)), PRIMITIVES) is not None
    assert len(Plan(Step("noop") for _ in range(10**9))) == MAX_STEPS + 1  # bounded work
    assert problem(Plan([Step("noop", faces="x" * 40)]), PRIMITIVES) is not None
    assert problem(Plan([Step("noop"), Step("do", faces="tree")]), PRIMITIVES) is None


def test_a_step_loses_an_item_or_a_vital_beyond_its_drift():
    vitals = ("health", "food")
    before = {"wood": 2, "health": 9, "food": 5}
    assert not lost(before, {"wood": 3, "health": 8, "food": 4}, vitals)
    assert lost({"wood": 2, "health": 9}, {"wood": 1, "health": 9}, vitals)
    assert lost({"wood": 2, "health": 9}, {"wood": 2, "health": 7}, vitals)
