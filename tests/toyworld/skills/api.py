"""The view coded actions read and the skills they call, in Orchard."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

MOVES = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}


class SkillAPIError(Exception):
    """A skill used wrongly."""


class ObsView:
    """The local window (cell names by (dx, dy)), inventory, achievements and facing."""

    def __init__(self, names: list[str], items: list[str]) -> None:
        self.names, self.items = names, items
        self.local: list[list[int]] = []
        self.inventory: dict[str, int] = {}
        self.achievements: dict[str, int] = {}
        self.facing = (0, 1)

    def update(self, state: dict[str, Any]) -> None:
        self.local = state["local"]
        self.inventory, self.achievements = state["inventory"], state["achievements"]
        self.facing = (int(state["facing"][0]), int(state["facing"][1]))

    def at(self, dx: int, dy: int) -> str:
        r = len(self.local) // 2
        inside = abs(dx) <= r and abs(dy) <= r
        return self.names[self.local[dx + r][dy + r]] if inside else "none"

    def cells(self, name: str) -> list[tuple[int, int]]:
        r = len(self.local) // 2
        found = [(dx, dy) for dx in range(-r, r + 1) for dy in range(-r, r + 1)]
        return sorted(
            (c for c in found if self.at(*c) == name), key=lambda c: abs(c[0]) + abs(c[1])
        )


def face(view: ObsView, name: str, limit: int = 20) -> Generator[str, None, bool]:
    """Walk next to the nearest `name` in view and face it (the view follows each step);
    whether it got there."""
    for _ in range(limit):
        cells = view.cells(name)
        if not cells:
            return False
        dx, dy = cells[0]
        if abs(dx) + abs(dy) == 1 and view.facing == (dx, dy):
            return True
        yield ("right" if dx > 0 else "left") if dx else ("down" if dy > 0 else "up")
    return False


SKILL_API: dict[str, Any] = {"face": face, "MOVES": MOVES}
