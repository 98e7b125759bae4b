"""Full Craftax's fight skills on views built by hand (no game): a projectile flying past is
not dodged, a player outfought breaks off, and a fleeing walk goes round monsters."""

from __future__ import annotations

from typing import Any

from rlgpt.worlds import get_world
from rlgpt.worlds.craftax.skills.combat import dodge
from rlgpt.worlds.craftax.skills.navigate import guard, route
from rlgpt.worlds.craftax.skills.view import ObsView

FACTS = get_world("craftax").skills().view
R, SIDE = 4, 9


def _state(mobs: dict[tuple[int, int], str], *, pos=(20, 20), floor=3, health=9,
           items: dict[tuple[int, int], str] | None = None) -> dict[str, Any]:  # fmt: skip
    """A lit window of path (radius 4) with `mobs` and `items` on it, at `pos` on `floor`."""
    layers = {k: bytearray(SIDE * SIDE) for k in ("blocks", "items", "mobs")}
    layers["blocks"][:] = bytes([FACTS["blocks"].index("path")]) * (SIDE * SIDE)
    for key, cells in (("mobs", mobs), ("items", items or {})):
        for (dx, dy), name in cells.items():
            layers[key][(dx + R) * SIDE + dy + R] = FACTS[key].index(name)
    unseen = bytes(48 * 48).hex()  # the floor's memory: what the window shows is kept
    return {k: v.hex() for k, v in layers.items()} | {
        "inventory": {"health": health}, "achievements": {}, "facing": (0, 1), "pos": pos,
        "floor": floor, "kills": 0, "daylight": 1.0, "sleeping": False,
        "memory": unseen, "memory_items": unseen, "area": (48, 48),
    }  # fmt: skip


def _view(*states: dict[str, Any]) -> ObsView:
    view = ObsView(**FACTS)
    for state in states:
        view.update(state)
    return view


def _first(gen: Any) -> Any:
    try:
        return next(gen)
    except StopIteration:
        return None


def test_a_dagger_flying_past_beside_the_player_is_not_dodged():
    # the player walked left and the dagger above it flew left too: it stays beside, harmless
    past = _view(_state({(0, -1): "dagger"}, pos=(21, 20)), _state({(0, -1): "dagger"}))
    assert past._heading(0, -1) == (-1, 0)
    assert _first(dodge(past)) is None
    # one that came down from two cells above flies at the player: step off its column
    coming = _view(_state({(0, -2): "dagger"}), _state({(0, -1): "dagger"}))
    assert coming._heading(0, -1) == (0, 1)
    assert _first(dodge(coming)) in ("move_left", "move_right")


def test_an_outfought_player_strikes_once_and_breaks_off():
    wounded = _view(_state({(1, 0): "frost_troll", (0, 1): "frost_troll"}, floor=7, health=4,
                           items={(-3, 0): "ladder_up"}))  # fmt: skip
    fight = guard(wounded)
    assert next(fight) == "move_right"  # faces the first monster beside it: one blow...
    try:
        fight.send(None)
        raise AssertionError("guard traded blows on at 4 health")
    except StopIteration as done:
        assert done.value is True  # ...then the caller (keep_alive) climbs away
    healthy = _view(_state({(1, 0): "frost_troll"}, floor=7, health=9,
                           items={(-3, 0): "ladder_up"}))  # fmt: skip
    fight = guard(healthy)
    assert [next(fight), next(fight)] == ["move_right", "move_right"]  # fights on


def test_a_fleeing_route_goes_round_the_monsters_in_view():
    view = _view(_state({(1, 0): "knight"}))
    assert route(view, {(3, 0)}) == [(1, 0), (1, 0), (1, 0)]  # straight through the knight
    way = route(view, {(3, 0)}, (), frozenset({(1, 0)}))
    assert way is not None and len(way) == 5 and (1, 0) not in _cells(way)


def _cells(path: list[tuple[int, int]]) -> list[tuple[int, int]]:
    x, y, out = 0, 0, []
    for dx, dy in path:
        x, y = x + dx, y + dy
        out.append((x, y))
    return out
