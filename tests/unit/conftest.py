"""Shared helpers for the unit tests: hand-built coded actions and skill-API states."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from rlgpt.messages import CodedAction
from rlgpt.sandbox.client import MacroWorker
from rlgpt.worlds.crafter.recipes import semantic_id


def _coded_action(name: str, body: str, step_budget: int = 64) -> CodedAction:
    """A CodedAction `def <name>(view):` whose body is `body` (already indented by 4)."""
    return CodedAction(
        name=name, docstring="test action", source=f"def {name}(view):\n{body}",
        step_budget=step_budget,
    )  # fmt: skip


def _local_state(
    cells: dict[tuple[int, int], str],
    radius: int = 4,
    default: str = "grass",
    facing: tuple[int, int] = (0, 1),
    inventory: dict[str, int] | None = None,
    achievements: dict[str, int] | None = None,
) -> dict:
    """A skill-API state: `local` is a list of columns indexed [dx + r][dy + r]."""
    side = 2 * radius + 1
    grid = {**cells, (0, 0): "player"}
    local = [
        [semantic_id(grid.get((x - radius, y - radius), default)) for y in range(side)]
        for x in range(side)
    ]
    return {
        "local": local,
        "inventory": dict(inventory or {}),
        "achievements": dict(achievements or {}),
        "facing": facing,
    }


@pytest.fixture
def coded_action() -> Callable[..., CodedAction]:
    """Factory: coded_action(name, body, step_budget=64) -> CodedAction."""
    return _coded_action


@pytest.fixture
def local_state() -> Callable[..., dict]:
    """Factory: local_state(cells, radius=4, default='grass', facing=(0, 1), ...) -> state."""
    return _local_state


@pytest.fixture
def make_worker() -> Iterator[Callable[..., MacroWorker]]:
    """Start MacroWorkers that are always closed at the end of the test."""
    started: list[MacroWorker] = []

    def start(coded: list[CodedAction], **kwargs) -> MacroWorker:
        from tests.support.world import CRAFTER_SKILLS

        skills = kwargs.pop("skills", CRAFTER_SKILLS)
        worker = MacroWorker(coded, skills, **kwargs)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.close()


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """One tiny real PPO run on make_wood_pickaxe with the offline author's plan and actions."""
    from rlgpt.agents.roles import FastAgent, SlowAgent
    from rlgpt.config import TrainParams
    from rlgpt.llm.offline import OfflineAuthor
    from rlgpt.messages import PPOConfig
    from rlgpt.rl.train import TrainSettings, train
    from rlgpt.trial import Trial
    from rlgpt.worlds.crafter.tasks import get_task

    root = tmp_path_factory.mktemp("tiny_run")
    task = get_task("make_wood_pickaxe")
    llm = OfflineAuthor()
    dec = SlowAgent(llm, root / "llm").decompose(task, None, None)
    # collect_wood left to RL (the primitives stay in the space), the rest coded
    subs = [s.model_copy(update={"mode": "rl"}) if s.name == "collect_wood" else s
            for s in dec.sub_actions]  # fmt: skip
    dec = dec.model_copy(update={"sub_actions": subs})
    fast = FastAgent(llm, root / "llm")
    coded = [fast.write_action(task, s, 80, {}) for s in dec.sub_actions if s.mode == "code"]
    ppo = PPOConfig(n_steps=32, batch_size=32, n_epochs=1, net_arch=[32, 32])
    cfg = fast.rl_config(task, dec, [c.name for c in coded], ppo, 600)
    params = TrainParams(n_envs=1, ppo=ppo, sample_budget=600)
    trial = Trial.of(task, cfg, coded, dec=dec)
    settings = TrainSettings(params=params, seed=0, show_progress=False)
    result = train(trial, root / "train", settings=settings)
    return {"task": task, "dec": dec, "coded": coded, "cfg": cfg, "params": params,
            "result": result, "root": root, "trial": trial}  # fmt: skip
