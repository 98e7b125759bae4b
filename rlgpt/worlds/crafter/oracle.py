"""The oracle: an agent that sees the whole map and plans from the recipe graph.

It is the ceiling the tech-tree benchmark compares against: it reads crafter's world directly
(trusted process only), walks shortest paths (Dijkstra, digging through what its pickaxe can
mine, never onto lava), keeps itself alive (drinks, eats, sleeps, fights what attacks it), and
follows `plan_steps(target)`. What it cannot reach within the task's step limit, nothing can by
the same plan.
"""

from __future__ import annotations

import heapq
from collections import Counter
from typing import Any

import numpy as np

from rlgpt.worlds.base import OracleEpisode
from rlgpt.worlds.crafter.env import CrafterEnv
from rlgpt.worlds.crafter.planner import plan_steps
from rlgpt.worlds.crafter.preconditions import collect_source
from rlgpt.worlds.crafter.recipes import actions, game_data

_MOVES = {(-1, 0): "move_left", (1, 0): "move_right", (0, -1): "move_up", (0, 1): "move_down"}
_WALK = ("grass", "sand", "path")
_THIRSTY, _HUNGRY, _TIRED = 4, 4, 2


class Oracle:
    """Acts in a CrafterEnv for its task's achievement; `episode(seed)` plays one."""

    def __init__(self, env: CrafterEnv) -> None:
        self.env = env
        self.data = game_data()
        self.index = {a: i for i, a in enumerate(actions())}
        self.plan = plan_steps(env.task.achievement)
        self._path: list[tuple[int, int]] = []
        self._goal: tuple[Any, ...] | None = None

    # -- the world -----------------------------------------------------------------------
    @property
    def _player(self) -> Any:
        return self.env.player

    def _mat(self, pos: tuple[int, int]) -> str | None:
        world = self.env.world
        if not (0 <= pos[0] < world.area[0] and 0 <= pos[1] < world.area[1]):
            return None
        return str(world[pos][0])

    def _mineable(self, material: str) -> bool:
        info = self.data["collect"].get(material)
        if material in ("tree", "water", "grass") or info is None:
            return False
        inv = self._player.inventory
        return all(inv[k] >= n for k, n in info["require"].items())

    def _cost(self, pos: tuple[int, int]) -> int | None:
        mat = self._mat(pos)
        if mat is None or mat == "lava":
            return None
        if self.env.world[pos][1] is not None:  # a creature: it will move, go around if cheap
            return 4
        if mat in _WALK:
            return 1
        return 3 if self._mineable(mat) else None

    def _route(self, goals: set[tuple[int, int]]) -> list[tuple[int, int]]:
        """Cheapest path from the player to a cell in `goals` (cells, player excluded)."""
        start = self._pos()
        dist = {start: 0}
        prev: dict[tuple[int, int], tuple[int, int]] = {}
        heap = [(0, start)]
        while heap:
            d, cur = heapq.heappop(heap)
            if cur in goals:
                path = [cur]
                while path[-1] in prev:
                    path.append(prev[path[-1]])
                return path[::-1][1:]
            if d > dist[cur]:
                continue
            for dx, dy in _MOVES:
                nxt = (cur[0] + dx, cur[1] + dy)
                cost = self._cost(nxt)
                if cost is None or d + cost >= dist.get(nxt, 1 << 30):
                    continue
                dist[nxt], prev[nxt] = d + cost, cur
                heapq.heappush(heap, (d + cost, nxt))
        return []

    def _cells(self, material: str) -> list[tuple[int, int]]:
        world = self.env.world
        if material not in world._mat_ids:
            return []
        ids = np.argwhere(world._mat_map == world._mat_ids[material])
        return [(int(x), int(y)) for x, y in ids]

    def _creatures(self, kind: str) -> list[tuple[int, int]]:
        return [tuple(o.pos) for o in self.env.world.objects if type(o).__name__.lower() == kind]

    # -- acting ----------------------------------------------------------------------------
    def _pos(self) -> tuple[int, int]:
        return (int(self._player.pos[0]), int(self._player.pos[1]))

    def _toward(self, targets: list[tuple[int, int]], verb: str) -> str:
        """One action toward facing one of `targets`, then `verb` ("do", "place_table", ...)."""
        pos = self._pos()
        for t in targets:
            d = (t[0] - pos[0], t[1] - pos[1])
            if d in _MOVES:
                return verb if tuple(self._player.facing) == d else _MOVES[d]
        return self._go({(t[0] + dx, t[1] + dy) for t in targets for dx, dy in _MOVES})

    def _go(self, goals: set[tuple[int, int]]) -> str:
        """One action along the cheapest path onto a cell of `goals` (mining through)."""
        pos = self._pos()
        key = tuple(sorted(goals))[:8]
        if key != self._goal or not self._path:
            self._goal, self._path = key, self._route(goals)
        if not self._path:
            return "noop"
        step = self._path[0]
        d = (step[0] - pos[0], step[1] - pos[1])
        if d not in _MOVES:  # pushed off the path (e.g. it did not move): plan again
            self._path = []
            return self._go(goals) if self._route(goals) else "noop"
        obj = self.env.world[step][1]
        if self._mat(step) in _WALK and obj is None:
            self._path.pop(0)
            return _MOVES[d]
        if tuple(self._player.facing) != d:
            return _MOVES[d]  # blocked: this only turns
        if obj is not None:
            return "do" if type(obj).__name__ in ("Zombie", "Cow") else "noop"
        return "do"  # mine through

    def _stand_near(self, stations: list[str]) -> str | None:
        """None when within one cell of each station, else one action toward such a cell."""
        if all(self._near(s) for s in stations):
            return None
        groups = [self._cells(s) for s in stations]
        goals = set()
        for x, y in groups[0]:
            for dx in range(-1, 2):
                for dy in range(-1, 2):
                    c = (x + dx, y + dy)
                    if self._mat(c) in _WALK and all(
                        any(max(abs(c[0] - a), abs(c[1] - b)) <= 1 for a, b in g)
                        for g in groups[1:]
                    ):
                        goals.add(c)
        return self._go(goals) if goals else None

    def _near(self, station: str) -> bool:
        return station in self.env.world.nearby(tuple(self._player.pos), 1)[0]

    def _survive(self) -> str | None:
        inv = self._player.inventory
        if self._player.sleeping:
            return "noop"
        pos = self._pos()
        for kind in ("zombie", "skeleton"):
            for c in self._creatures(kind):
                d = (c[0] - pos[0], c[1] - pos[1])
                if d in _MOVES:  # next to it: face it and fight
                    return "do" if tuple(self._player.facing) == d else _MOVES[d]
                if kind == "zombie" and max(abs(d[0]), abs(d[1])) == 1:
                    return "noop"  # diagonal: it steps next to the player, then it is hit
        water = self._cells("water") if inv["drink"] < _THIRSTY else []
        if water:
            return self._toward(water, "do")
        if inv["food"] < _HUNGRY and self._creatures("cow"):
            return self._toward(self._creatures("cow"), "do")
        if inv["energy"] < _TIRED:
            return "sleep"
        return None

    def _obtain(self, item: str, qty: int) -> str:
        """One action toward holding `qty` of `item`."""
        inv = self._player.inventory
        if item in self.data["make"]:
            return self._achieve(f"make_{item}")
        source = collect_source(item)
        assert source is not None, item
        for tool, n in self.data["collect"][source]["require"].items():
            if inv[tool] < n:
                return self._obtain(tool, n)
        return self._toward(self._cells(source), "do")

    def _achieve(self, ach: str) -> str:
        kind, _, name = ach.partition("_")
        inv = self._player.inventory
        if kind == "place":
            info = self.data["place"][name]
            for item, n in info["uses"].items():
                if inv[item] < n:
                    return self._obtain(item, n)
            placed = [st for st in ("table", "furnace") if st != name and self._cells(st)]
            if name in ("table", "furnace") and placed:
                walk = self._stand_near([placed[0]])  # stations side by side
                if walk is not None:
                    return walk
            return self._place(ach, info["where"], placed[:1])
        if kind == "make":
            info = self.data["make"][name]
            need: Counter[str] = Counter(info["uses"])
            for station in info["nearby"]:
                if not self._near(station) and not self._cells(station):
                    need.update(self.data["place"][station]["uses"])
            for item, n in need.items():
                if inv[item] < n:
                    return self._obtain(item, n)
            for station in info["nearby"]:
                if not self._near(station) and not self._cells(station):
                    return self._achieve(f"place_{station}")
            walk = self._stand_near(list(info["nearby"]))
            if walk is not None:
                return walk
            missing = [st for st in info["nearby"] if not self._near(st)]
            return self._achieve(f"place_{missing[0]}") if missing else ach
        if kind == "collect":
            return self._obtain(name, inv[name] + 1)
        if ach == "eat_cow":
            return self._toward(self._creatures("cow"), "do")
        return "noop"

    def _free(self, cell: tuple[int, int], where: list[str]) -> bool:
        return self._mat(cell) in where and self.env.world[cell][1] is None

    def _place(self, ach: str, where: list[str], beside: list[str]) -> str:
        """Place facing a free cell; a step that keeps the player beside `beside` first."""
        pos, facing = self._pos(), tuple(self._player.facing)
        if self._free((pos[0] + facing[0], pos[1] + facing[1]), where):
            return ach
        for (dx, dy), move in _MOVES.items():  # moving onto a free cell faces the one beyond
            nxt = (pos[0] + dx, pos[1] + dy)
            if not self._free(nxt, list(_WALK)) or not self._free(
                (nxt[0] + dx, nxt[1] + dy), where
            ):
                continue
            near = self.env.world.nearby(nxt, 1)[0]
            if all(b in near for b in beside):
                return move
        for (dx, dy), move in _MOVES.items():
            if self._free((pos[0] + dx, pos[1] + dy), list(_WALK)):
                return move
        return self._go({c for m in where for c in self._cells(m)[:200]})

    def act(self) -> str:
        """The next primitive action name."""
        survive = self._survive()
        if survive is not None:
            return survive
        done = self._player.achievements
        for ach, count in self.plan:
            if done[ach] < count:
                return self._achieve(ach)
        return self._achieve(self.env.task.achievement)

    def episode(self, seed: int) -> OracleEpisode:
        _, info = self.env.reset(seed=seed)
        self._path, self._goal = [], None
        steps = 0
        while True:
            _, _, term, trunc, info = self.env.step(self.index[self.act()])
            steps += 1
            if term or trunc:
                end = "success" if info["success"] else ("death" if term else "time_limit")
                return OracleEpisode(bool(info["success"]), steps, end)
