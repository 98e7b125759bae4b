"""What the rules of check_world share: the error a broken rule raises, the context that turns
whatever a world member raises into it, and the facts the first rules read for the later ones."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NoReturn

from rlgpt.messages import TaskSpec


class WorldCheckError(ValueError):
    """A World protocol rule a world breaks: `rule` names it; the message (one line) says it
    and what to fix."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {' '.join(message.split())}")
        self.rule = rule


def fail(rule: str, message: str) -> NoReturn:
    raise WorldCheckError(rule, message)


@contextlib.contextmanager
def checking(rule: str) -> Iterator[None]:
    """Run the checks of `rule`: whatever a world member raises breaks it, in one line."""
    try:
        yield
    except WorldCheckError:
        raise
    except Exception as exc:  # noqa: BLE001 - a member that raises breaks the rule
        text = (str(exc).strip().splitlines() or [""])[0][:200]
        raise WorldCheckError(rule, f"a world member raised {type(exc).__name__}: {text}") from exc


@dataclass
class Facts:
    """What the first rules read from the world, for the later ones."""

    primitives: list[str]
    achievements: list[str]
    tasks: dict[str, TaskSpec]
    plans: dict[str, list[tuple[str, int]]] = field(default_factory=dict)

    def longest_plan(self) -> TaskSpec:
        """The task of the longest plan (the first name among equals): one that exercises
        much of the world, chosen the same way every time."""
        return min(self.tasks.values(), key=lambda t: (-len(self.plans[t.name]), t.name))
