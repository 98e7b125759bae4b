"""rlgpt.validation.judge: a call is judged whole (its effect, how it ends after it, the player's
life, every step), in the plain met states, the later-episode states and the unmet ones."""

from __future__ import annotations

import pytest

from rlgpt.errors import MacroError
from rlgpt.messages import Scenario
from rlgpt.validation.judge import Rules, Run, judge, outcome, verdict

RULES = Rules(unmet_steps=8, end_steps=8)
ACH = "make_wood_pickaxe"


def _spec(name: str = "met-1", precondition: str = "met", **kw) -> Scenario:
    return Scenario(name=name, seed=1, precondition=precondition, **{"max_steps": 80, **kw})


def _run(spec: Scenario, taken: list[str], *, effect_at: int | None = None, rises: int = 0,
         ended: bool = True, **kw) -> Run:  # fmt: skip
    run = Run(spec, taken=list(taken), ended=ended, **kw)
    run.effect_at, run.rises = effect_at, rises
    return run


def _judge(run: Run, own: str | None = ACH) -> tuple[str | None, str]:
    return judge(run, ACH, own, RULES)


@pytest.mark.parametrize(
    ("after", "ended", "kind"),
    [(8, True, None), (8, False, "no_end"), (7, False, None), (0, True, None)],
)
def test_after_its_effect_a_call_ends_within_end_steps(after, ended, kind):
    run = _run(_spec(), ["noop"] * (3 + after), effect_at=3, rises=1, ended=ended)
    assert _judge(run)[0] == kind
    assert run.seen_enough(8) is (after >= 8)


def test_a_second_rise_in_one_call_is_repeated_effect():
    run = _run(_spec(), ["do"] * 4, effect_at=2, rises=2, ended=False)
    kind, message = _judge(run)
    assert kind == "repeated_effect" and "rose again in the same call" in message
    assert run.seen_enough(8), "the rest of the call cannot change the verdict"


def test_a_refused_step_and_a_death_are_their_own_classes_anywhere():
    for precondition in ("met", "unmet", "unknown"):
        spec = _spec(precondition=precondition, missing="wood")
        kind, message = _judge(_run(spec, ["noop"], unsafe="move_right into lava", ended=False))
        assert kind == "unsafe_step" and "move_right into lava" in message
        assert _judge(_run(spec, ["noop"] * 5, died=True, ended=False))[0] == "died"
    error = MacroError("exception", "KeyError: 'x'")
    kind, _ = _judge(_run(_spec(), [], error=error, unsafe="move_up into lava", ended=False))
    assert kind == "unsafe_step", "the refused step came first; the stop's complaint after it"


def test_unmet_states_fail_on_the_own_craft_even_when_they_end_quickly():
    spec = _spec("unmet-1", "unmet", missing="wood (has 0, needs 1)", max_steps=8)
    kind, message = _judge(_run(spec, ["move_left", ACH, ACH]))
    assert kind == "unmet_precondition" and f"'{ACH}' 2x" in message
    assert _judge(_run(spec, ["move_left", "move_left"]))[0] is None
    assert _judge(_run(spec, ["noop"] * 8, ended=False))[0] == "unmet_precondition"
    assert _judge(_run(spec, ["do"]), own=None)[0] is None, "collect actions have no own craft"


@pytest.mark.parametrize("state", ["dusk", "hostile"])
def test_a_later_episode_state_is_failed_by_giving_up(state):
    effect = "optional" if state == "dusk" else "required"
    spec = _spec(state, state=state, effect=effect, daylight=0.45 if state == "dusk" else None)
    kind, message = _judge(_run(spec, []))
    assert kind == "gave_up" and state in message
    running = _judge(_run(spec, ["noop"] * 80, ended=False))[0]
    assert running == (None if effect == "optional" else "no_effect")
    assert _judge(_run(spec, ["do"], effect_at=1, rises=1))[0] is None


def test_plain_met_states_keep_no_action_and_no_effect():
    assert _judge(_run(_spec(), []))[0] == "no_action"
    assert _judge(_run(_spec(), ["noop"] * 80, ended=False))[0] == "no_effect"


def test_a_call_cut_short_before_the_share_is_known_gets_its_own_class():
    first = _run(_spec("met-1"), ["noop"] * 12, effect_at=3, rises=1, ended=False)
    kind, message = _judge(first)
    result = verdict(ACH, [outcome(first, kind, message)], required=2, expected="x")
    assert (result.ok, result.error_kind) == (False, "no_end")


def _step(pos: tuple[int, int], *, floor: int = 0, health: int = 9, kills: int = 0,
          placed: int = 0) -> dict:  # fmt: skip
    """The info of one step, as every world's env reports it."""
    return {"player_pos": pos, "floor": floor, "inventory": {"health": health},
            "achievements": {"defeat_zombie": kills, "place_plant": placed}}  # fmt: skip


def _noted(spec: Scenario, steps: list[dict]) -> Run:
    run = _run(spec, ["noop"] * len(steps), ended=False)
    for info in steps:
        run.note(info)
    return run


def test_a_search_that_waits_in_place_where_the_target_was_never_seen_fails():
    spec = _spec("unseen", state="unseen", effect="optional", memory="unseen", max_steps=40)
    spun = _noted(spec, [_step((0, 0))] * 40)
    kind, message = _judge(spun)
    assert kind == "no_effect" and "never seen" in message and "1 cells" in message
    walked = _noted(spec, [_step((i, 0)) for i in range(40)])
    assert _judge(walked)[0] is None
    grew = _noted(spec, [_step((0, 0))] * 39 + [_step((0, 0), placed=1)])
    assert _judge(grew)[0] is None, "reaching something on the way is progress too"


def test_a_closed_ladder_is_judged_by_kills_or_a_retreat_upstairs():
    spec = _spec("closed_ladder", state="closed_ladder", effect="optional", floor="dungeon")
    stood = _noted(spec, [_step((0, 0), floor=1)] * 80)
    kind, message = _judge(stood)
    assert kind == "no_effect" and "no monster of the floor was killed" in message
    fought = _noted(spec, [_step((0, 0), floor=1)] * 79 + [_step((0, 0), floor=1, kills=1)])
    assert _judge(fought)[0] is None
    rested = _noted(spec, [_step((0, 0), floor=1)] * 40 + [_step((5, 5), health=4)] * 40)
    assert _judge(rested)[0] is None, "went up hurt: a timely return"
    fled = _noted(spec, [_step((0, 0), floor=1)] * 40 + [_step((5, 5))] * 40)
    assert _judge(fled)[0] == "no_effect", "up and down unhurt is no progress"
