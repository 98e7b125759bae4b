"""One iteration's trial: what the flow hands to training, evaluation, selection, the critic
and the skill library once the iteration's choices are made (docs/design.md, The trial).

An iteration decides, in order: the plan (the slow agent's decomposition), the code (the fast
agent's, validated), the learned actions (trained aside) and the RL config. The flow builds a
`Trial` from them once, frozen, and every stage after that reads the same one: no stage can
see another's list updated in place, and the iteration number travels with what it numbers.
Settings (how many samples, which seeds, where to write) are not part of the trial: each
stage takes them as a keyword-only settings object.
"""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, ConfigDict, Field

from rlgpt.messages import CodedAction, Decomposition, LearnedConfig, RLConfig, TaskSpec
from rlgpt.worlds import get_world


class LearnedAction(BaseModel):
    """A trained learned action as training and evaluation use it: its config (its space and
    budget) and its policy file."""

    model_config = ConfigDict(frozen=True)

    name: str
    config: LearnedConfig
    policy: str
    policy_sha256: str = ""

    def key(self) -> str:
        """What the policy is: its config and its weights."""
        return hashlib.sha256(
            f"{self.config.content_hash()}:{self.policy_sha256}".encode()
        ).hexdigest()


class Trial(BaseModel):
    """Iteration `k` of a run on `task`: its plan, the RL config its policy trains with, the
    coded actions that passed validation (plus earlier code still standing in for a learned
    action that stayed out, and earlier code that only a learned action calls: `trial_code`)
    and the learned actions inserted beside them, in action-space order. The RL config says
    which coded actions are inserted. Frozen: a stage that needs another trial makes a copy."""

    model_config = ConfigDict(frozen=True)

    task: TaskSpec
    k: int = Field(ge=0)
    dec: Decomposition
    cfg: RLConfig
    coded: tuple[CodedAction, ...] = ()
    learned: tuple[LearnedAction, ...] = ()

    @classmethod
    def of(
        cls, task: TaskSpec, cfg: RLConfig, coded: list[CodedAction], *,
        dec: Decomposition | None = None, learned: list[LearnedAction] | None = None, k: int = 0,
    ) -> Trial:  # fmt: skip
        """A trial no agent planned (a benchmark's, a test's); without `dec`, the plan is the
        offline author's, every step coded."""
        if dec is None:
            dec = get_world(task.world).author().decompose(task, {}, {})
        return cls(
            task=task, k=k, dec=dec, cfg=cfg, coded=tuple(coded), learned=tuple(learned or ())
        )


def trial_code(
    usable: list[CodedAction], spare: list[CodedAction], learned: list[LearnedAction]
) -> tuple[list[CodedAction], list[CodedAction]]:
    """An iteration's code once its learned actions are judged: the code that may be inserted
    at the top level (`usable`, the code that passed validation, plus the earlier validated
    code of each sub-action whose learned action stayed out: that code covers it), and the
    earlier code that only the learned actions that joined call, from their own spaces. A
    learned action runs with the code it trained and was judged with: its calls to that code
    reach a worker in the task's training too, while the code itself is not inserted."""
    joined = {a.name for a in learned}
    called = {n for a in learned for n in a.config.macro_actions}
    top = usable + [c for c in spare if c.name not in joined]
    inner = [c for c in spare if c.name in joined and c.name in called]
    return top, inner
