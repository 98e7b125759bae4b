"""The rules of `check_world` that run a world's envs: info, env, view, lint, masks and
scenarios (rlgpt/check/world.py lists every rule)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import gymnasium as gym
import numpy as np

from rlgpt.check.rules import Facts, checking, fail
from rlgpt.messages import Scenario, TaskSpec
from rlgpt.worlds.base import StepInfo, World, WorldEnv

SEED = 0
STEPS = 40  # random steps of a real episode (the info rule)
RADIUS = 4  # the view radius of the validation envs
FEW = 3  # achievements whose validation states are staged
CONTRACT = tuple(sorted(StepInfo.__required_keys__))


def run_env_rules(world: World, facts: Facts) -> None:
    task = facts.longest_plan()
    with checking("info"):
        env = world.make_env(task, seed=SEED)
    try:
        with checking("info"):
            _info(world, facts, env, task)
        with checking("env"):
            _env_members(world, facts, env)
        with checking("view"):
            api, view = _view(world, facts, env)
        with checking("lint"):
            _lint(world, facts, api, view)
        with checking("masks"):
            _masks(world, facts, env, task)
    finally:
        env.close()
    with checking("scenarios"):
        _scenarios(world, facts)


# -- info ---------------------------------------------------------------------------------
def _is_int(v: Any) -> bool:
    return isinstance(v, int | np.integer) and not isinstance(v, bool)


def _counts(m: Any) -> bool:
    return isinstance(m, Mapping) and all(isinstance(k, str) and _is_int(v) for k, v in m.items())


def check_info(info: Any, world: World, facts: Facts, task: TaskSpec, where: str) -> None:
    """The `info` contract of rlgpt/worlds/base.py on one real info."""
    if not isinstance(info, Mapping) or set(CONTRACT) - set(info):
        have = sorted(info) if isinstance(info, Mapping) else type(info).__name__
        fail("info", f"{where}: info must carry {list(CONTRACT)} (it has {have})")
    if not _counts(info["inventory"]):
        fail("info", f"{where}: info['inventory'] must map item names to int counts")
    if world.vitals - set(info["inventory"]):
        fail("info", f"{where}: info['inventory'] lacks the vitals {sorted(world.vitals)}")
    ach = info["achievements"]
    if not _counts(ach) or set(ach) - set(facts.achievements) or min(ach.values(), default=0) < 0:
        fail(
            "info",
            f"{where}: info['achievements'] must map achievements (of "
            "achievement_rewards()) to counts >= 0",
        )
    for key in ("player_pos", "facing"):
        v = info[key]
        if not (isinstance(v, tuple | list) and len(v) == 2 and all(_is_int(x) for x in v)):
            fail("info", f"{where}: info['{key}'] must be a pair of ints, not {v!r}")
    for key in ("success", "won"):
        if key in info and not isinstance(info[key], bool | np.bool_):
            fail("info", f"{where}: info['{key}'] must be a bool")
    if bool(info["success"]) != (ach.get(task.achievement, 0) > 0):
        fail(
            "info",
            f"{where}: info['success'] is {info['success']} while achievements"
            f"['{task.achievement}'] is {ach.get(task.achievement, 0)}: success must say the "
            "task's achievement was reached",
        )


def _contract(info: Mapping[str, Any]) -> str:
    return json.dumps({k: info[k] for k in CONTRACT}, sort_keys=True, default=int)


def _info(world: World, facts: Facts, env: WorldEnv, task: TaskSpec) -> None:
    space, n = env.action_space, len(facts.primitives)
    if not isinstance(space, gym.spaces.Discrete) or int(space.n) != n:
        fail("info", f"the env's action space is {space}: make it Discrete({n}), the primitives")
    first: Any = env.reset(seed=SEED)
    if not (isinstance(first, tuple) and len(first) == 2):
        fail("info", "reset() must return (observation, info)")
    obs, info = first
    rng, counts = np.random.default_rng(SEED), dict[str, int]()
    for i in range(STEPS + 1):
        where = "reset" if i == 0 else f"step {i}"
        if not env.observation_space.contains(obs):
            fail("info", f"{where}: the observation is outside the env's observation_space")
        check_info(info, world, facts, task, where)
        if _contract(env.last_info) != _contract(info):
            fail("env", f"{where}: `last_info` must be the info of the latest reset or step")
        fell = [k for k, v in counts.items() if info["achievements"].get(k, 0) < v]
        if fell:
            fail("info", f"{where}: achievements {fell} fell: they count this episode's unlocks")
        counts = dict(info["achievements"])
        out: Any = env.step(int(rng.integers(n)))
        if not (isinstance(out, tuple) and len(out) == 5):
            fail("info", "step() must return (obs, reward, terminated, truncated, info)")
        obs, reward, terminated, truncated, info = out
        if not isinstance(reward, int | float | np.number) or not math.isfinite(float(reward)):
            fail("info", f"step {i + 1}: the reward must be a finite number, not {reward!r}")
        if not all(isinstance(f, bool | np.bool_) for f in (terminated, truncated)):
            fail("info", f"step {i + 1}: terminated and truncated must be bools")
        if terminated or truncated:
            obs, info = env.reset()
            counts = {}


# -- env members -------------------------------------------------------------------------
def _env_members(world: World, facts: Facts, env: WorldEnv) -> None:
    standing = env.standing()
    if not isinstance(standing, Mapping) or not all(
        isinstance(k, str) and isinstance(v, bool | np.bool_) for k, v in standing.items()
    ):
        fail("env", "`standing()` must map station names to bools")
    for prim in facts.primitives:
        why = env.unsafe_move(prim)
        if why is not None and (not isinstance(why, str) or not why):
            fail("env", f"`unsafe_move('{prim}')` must be None or a reason (text)")
    window = env.local_window()
    side = window.shape[0] if isinstance(window, np.ndarray) and window.ndim == 2 else 0
    if side % 2 != 1 or window.shape != (side, side):
        fail("env", "`local_window()` must be a square 2-D array of odd side, the player central")
    if env.local_window(2).shape != (5, 5):
        fail("env", "`local_window(2)` must be 5x5: the radius chooses the window")
    text = world.render_map(window, env.last_info["facing"])
    if not isinstance(text, str) or not text.strip():
        fail("env", "`render_map()` must render the window as text")
    snapshot, restore = getattr(env, "snapshot", None), getattr(env, "restore", None)
    if callable(snapshot) and callable(restore):
        _snapshot(facts, env, snapshot, restore)


def _snapshot(facts: Facts, env: WorldEnv, snapshot: Any, restore: Any) -> None:
    before, blob = _contract(env.last_info), snapshot()
    if not isinstance(blob, bytes):
        fail("env", "`snapshot()` must return bytes")
    rng = np.random.default_rng(SEED + 1)
    actions = [int(a) for a in rng.integers(len(facts.primitives), size=5)]
    first = [_contract(env.step(a)[4]) for a in actions]
    if _contract(restore(blob)) != before:
        fail("env", "`restore(snapshot())` must return the info of the snapshot's state")
    if [_contract(env.step(a)[4]) for a in actions] != first:
        fail("env", "after `restore`, the same actions must give the same infos")


# -- the view a skill package reads ------------------------------------------------------
def _view(world: World, facts: Facts, env: WorldEnv) -> tuple[ModuleType, Any]:
    skills = world.skills()
    if tuple(skills.primitives) != tuple(facts.primitives):
        fail("view", "`skills().primitives` must be `primitives()`, in the same order")
    try:
        api = importlib.import_module(skills.api)
    except Exception as exc:  # noqa: BLE001 - the rule says what broke
        fail("view", f"the skill package's api ({skills.api}) does not import: {exc}")
    missing = [n for n in ("SKILL_API", "ObsView", "SkillAPIError") if not hasattr(api, n)]
    if missing:
        fail("view", f"{skills.api} must export {missing}")
    if not isinstance(api.SKILL_API, dict) or not issubclass(api.SkillAPIError, Exception):
        fail("view", f"{skills.api}: SKILL_API must be a dict, SkillAPIError an Exception")
    _standard_library_only(skills.package)
    view = api.ObsView(**skills.view)
    start = _json(env.view_state(env.last_info, start=True))
    kept = set(skills.sent_when_changed) - set(start)
    if kept:
        fail("view", f"sent_when_changed names {sorted(kept)}, which view_state never sends")
    view.update(start)
    rng = np.random.default_rng(SEED + 2)
    for _ in range(3):
        *_, done, cut, info = env.step(int(rng.integers(len(facts.primitives))))
        view.update(_json(env.view_state(info)))
        if done or cut:
            env.reset()
    return api, view


def _json(state: Any) -> dict[str, Any]:
    """The view state as the sandboxed worker gets it (JSON)."""
    try:
        out = json.loads(json.dumps(state))
    except (TypeError, ValueError) as exc:
        fail("view", f"`view_state()` must be JSON (the worker reads it so): {exc}")
    if not isinstance(out, dict):
        fail("view", "`view_state()` must be a dict")
    return out


def _imports(path: Path, package: str, top_only: bool) -> set[str]:
    """The modules a file imports (relative ones resolved); `top_only`: at import time."""
    tree = ast.parse(path.read_text())
    nodes: list[ast.AST] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.If) and "TYPE_CHECKING" in ast.unparse(stmt.test):
            continue
        if top_only and isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        nodes += list(ast.walk(stmt))
    mods: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            mods |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            mods.add(".".join(p for p in (base, node.module or "") if p))
    return mods


def _standard_library_only(package: str) -> None:
    """The skill package and its parents' `__init__` files are what the sandbox root holds,
    with the standard library and rlgpt.sandbox (rlgpt/sandbox/boundary.py)."""
    parts = package.split(".")
    parents = [".".join(parts[:i]) for i in range(1, len(parts))]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        fail("view", f"the skill package {package} must be a package (a directory)")
    root = Path(next(iter(spec.submodule_search_locations)))
    files = [(_init_of(p), p, True) for p in parents]
    for path in sorted(root.rglob("*.py")):
        rel = path.parent.relative_to(root).parts
        files.append((path, ".".join((package, *rel)), False))
    for path, owner, top_only in files:
        bad = {
            m
            for m in _imports(path, owner, top_only)
            if m.split(".")[0] not in sys.stdlib_module_names
            and m != "__future__"
            and not m.startswith((package, "rlgpt.sandbox"))
            and m not in parents
        }
        if bad:
            fail(
                "view",
                f"{path.name} of {owner} imports {sorted(bad)}: the sandbox root "
                "holds the standard library only",
            )


def _init_of(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        fail("view", f"the skill package's parent {module} has no __init__.py")
    return Path(spec.origin)


# -- lint facts and masks ----------------------------------------------------------------
def _lint(world: World, facts: Facts, api: ModuleType, view: Any) -> None:
    lint = world.lint_facts()
    if tuple(lint.primitives) != tuple(facts.primitives):
        fail("lint", "`lint_facts().primitives` must be `primitives()`")
    if set(lint.achievements) != set(facts.achievements):
        fail("lint", "`lint_facts().achievements` must be the achievements of the rewards")
    unknown = set(lint.view_members) - set(dir(view))
    if unknown:
        fail("lint", f"`lint_facts().view_members` names {sorted(unknown)}, not on ObsView")
    skills = set(lint.generator_skills) | set(lint.name_args)
    if skills - set(api.SKILL_API):
        fail(
            "lint",
            f"`lint_facts()` names skills {sorted(skills - set(api.SKILL_API))} that "
            "SKILL_API lacks",
        )


def _masks(world: World, facts: Facts, env: WorldEnv, task: TaskSpec) -> None:
    names = list(dict.fromkeys(a for a, _ in facts.plans[task.name]))
    info, standing = env.last_info, env.standing()
    for prims in (facts.primitives, []):
        for ordered in (False, True):
            rule = world.action_mask(task, names, list(prims), ordered)
            mask = rule(info["inventory"], info["achievements"], lambda n: False, standing)
            size = len(prims) + len(names)
            if not isinstance(mask, np.ndarray) or mask.dtype != bool or mask.shape != (size,):
                got = getattr(mask, "shape", None), getattr(mask, "dtype", type(mask).__name__)
                fail(
                    "masks",
                    f"a mask of {len(prims)} primitives and {len(names)} coded actions "
                    f"must be {size} bools (one per action of the space), not {got}",
                )
            if not mask.any():
                fail("masks", "a mask must allow some action (allow all where none would be)")
    rule = world.action_mask(task, names, list(facts.primitives), False)
    off = rule(info["inventory"], info["achievements"], lambda n: n == names[0], standing)
    if off[len(facts.primitives)]:
        fail("masks", f"a disabled coded action ('{names[0]}') must be masked")


# -- validation states -------------------------------------------------------------------
def _candidates(world: World, facts: Facts) -> dict[str, list[Scenario]]:
    """A few achievements whose states differ in kind: one a primitive takes where it stands,
    one with stations, one more; in the order the plans meet them."""
    order = [a for t in sorted(facts.plans) for a, _ in facts.plans[t]] + facts.achievements
    picked: dict[str, list[Scenario]] = {}
    kinds: set[str] = set()
    for name in dict.fromkeys(order):
        if name not in facts.achievements or world.requirement_text(name) is None:
            continue
        specs = world.scenarios(name, count=1, seed_base=10_000, budget=80, radius=RADIUS,
                                unmet_steps=8, unknown_steps=50, episode=False)  # fmt: skip
        if not any(s.precondition == "met" for s in specs):
            fail(
                "scenarios",
                f"`scenarios('{name}')` builds no met state, yet '{name}' has a "
                "requirement: build one where it holds",
            )
        met = next(s for s in specs if s.precondition == "met")
        kind = "now" if _takes_now(name, met, facts) else "stations" if met.stations else "other"
        if kind not in kinds:
            kinds.add(kind)
            picked[name] = specs
        if len(picked) == FEW:
            break
    if picked and not any(s.precondition == "unmet" for sp in picked.values() for s in sp):
        fail("scenarios", f"no unmet state for any of {list(picked)}: withhold what each needs")
    return picked


def _takes_now(name: str, spec: Scenario, facts: Facts) -> bool:
    """Whether primitive `name` reaches it from the state without a walk."""
    near = all(max(abs(dx), abs(dy)) <= 1 for dx, dy in spec.stations.values())
    return name in facts.primitives and near and spec.target is None


def _scenarios(world: World, facts: Facts) -> None:
    for name, specs in _candidates(world, facts).items():
        env = world.validation_env(name, RADIUS)
        try:
            _stage_all(world, facts, env, name, specs)
        finally:
            env.close()


def _stage_all(world: World, facts: Facts, env: WorldEnv, name: str, specs: list[Scenario]) -> None:
    met_cells: dict[str, int] = {}
    seen: list[tuple[Scenario, set[int]]] = []
    for spec in specs:
        where = f"'{name}' {spec.name}"
        info = world.stage(env, spec)
        check_info(info, world, facts, env.task, f"the staged state {where}")
        for item, n in spec.inventory.items():
            if info["inventory"].get(item) != n:
                fail(
                    "scenarios",
                    f"{where}: staged {item}={info['inventory'].get(item)}, the "
                    f"scenario gives {n}: stage() must give what the scenario says",
                )
        if tuple(info["facing"]) != tuple(spec.facing):
            fail("scenarios", f"{where}: staged facing {info['facing']}, not {spec.facing}")
        window = env.local_window(RADIUS)
        for station, (dx, dy) in spec.stations.items():
            if max(abs(dx), abs(dy)) > RADIUS:
                continue  # out of view: what the scenario says of it, the view cannot check
            cell = int(window[dx + RADIUS, dy + RADIUS])
            if cell == int(window[RADIUS, RADIUS]) or met_cells.setdefault(station, cell) != cell:
                fail("scenarios", f"{where}: no {station} at {(dx, dy)} where it is staged")
        seen.append((spec, {int(c) for c in np.unique(window)}))
        if spec.precondition != "unknown" and _takes_now(name, specs[0], facts):
            before = info["achievements"].get(name, 0)
            after = env.step(facts.primitives.index(name))[4]["achievements"].get(name, 0)
            if (after > before) != (spec.precondition == "met"):
                state = spec.precondition + (f": {spec.missing}" if spec.missing else "")
                fail("scenarios", f"{where} ({state}): the primitive '{name}' "
                     f"{'failed' if after == before else 'succeeded'}: "
                     "a met state must let it succeed, an unmet one not")  # fmt: skip
    met = [s for s, _ in seen if s.precondition == "met"]
    for spec, cells in seen:
        if spec.precondition != "unmet":
            continue
        gone = [st for st in met_cells if st not in spec.stations and met_cells[st] in cells]
        if gone:
            fail("scenarios", f"'{name}' {spec.name} withholds the {gone[0]}, yet one is in view")
        if not any(_withholds(spec, m) for m in met):
            fail("scenarios", f"'{name}' {spec.name} ({spec.missing}) withholds nothing its met "
                 "state has: stage the precondition failing")  # fmt: skip


def _withholds(unmet: Scenario, met: Scenario) -> bool:
    short = any(unmet.inventory.get(k, 0) < n for k, n in met.inventory.items())
    absent = any(st not in unmet.stations for st in met.stations)
    return short or absent or unmet.target != met.target or unmet.front != met.front
