"""The mistake corpus: realistic wrong coded actions, each with the class validation must give.

One folder per world: `mistakes/` (Crafter, the default world), `mistakes_craftax_classic/`
(Craftax-Classic: its own recipes, sleep within a zombie's reach, a target out of sight),
`mistakes_craftax/` (full Craftax: its floors, ladders, spells, potions and weapons); and
`correct/<world>/`, correct but unusual actions each world must pass (`# expect: ok`). Every
file starts with four header lines:

    # sub-action: place_table
    # budget: 80
    # expect: invalid_action
    # mistake: one line saying what the model got wrong

followed by the code a model wrote. The whole file is the source handed to the validator (the
header is only comments), so line numbers in validation messages are the file's line numbers.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from pathlib import Path

from rlgpt.config import SandboxParams
from rlgpt.messages import ActionValidation, CodedAction
from rlgpt.sandbox.gate import GateError
from rlgpt.validation.lint import lint
from rlgpt.validation.validate import validate_action
from rlgpt.worlds import get_world

HERE = Path(__file__).parent
MISTAKES = HERE / "mistakes"
FOLDERS = {"crafter": MISTAKES, "craftax-classic": HERE / "mistakes_craftax_classic",
           "craftax": HERE / "mistakes_craftax"}  # fmt: skip
CORRECT = {world: HERE / "correct" / world for world in FOLDERS}
OK = "ok"  # the header's class of a correct action
HEADER = ("sub-action", "budget", "expect", "mistake")
GATE_CLASSES = frozenset({"syntax", "gate", "signature"})  # decided before the lint and any run
SANDBOX = SandboxParams()


@dataclass(frozen=True)
class Mistake:
    """One program of the corpus and what its header says about it."""

    path: Path
    sub_action: str
    budget: int
    expect: frozenset[str]
    mistake: str
    world: str = "crafter"

    @property
    def stem(self) -> str:
        return self.path.stem

    @property
    def source(self) -> str:
        return self.path.read_text()

    def action(self) -> CodedAction:
        return CodedAction(
            name=self.sub_action, docstring=self.mistake, source=self.source,
            step_budget=self.budget,
        )  # fmt: skip

    def lint_finding(self) -> str | None:
        """The class the static lint gives (None: the lint lets it through, or it does not
        parse, which the gate reports first)."""
        try:
            lint(self.source, get_world(self.world).lint_facts())
        except SyntaxError:
            return None
        except GateError as exc:
            return exc.kind
        return None

    @property
    def layer(self) -> str:
        """Where the expected class comes from: gate, lint or runtime."""
        if self.expect <= GATE_CLASSES:
            return "gate"
        return "lint" if self.lint_finding() is not None else "runtime"


def parse(path: Path, world: str = "crafter") -> Mistake:
    lines = path.read_text().splitlines()
    fields: dict[str, str] = {}
    for key, line in zip(HEADER, lines, strict=False):
        prefix = f"# {key}: "
        if not line.startswith(prefix):
            raise ValueError(f"{path.name}: header line {key!r} missing, got {line!r}")
        fields[key] = line.removeprefix(prefix).strip()
    if len(fields) != len(HEADER):
        raise ValueError(f"{path.name}: header incomplete")
    return Mistake(
        path=path, sub_action=fields["sub-action"], budget=int(fields["budget"]),
        expect=frozenset(fields["expect"].split("|")), mistake=fields["mistake"], world=world,
    )  # fmt: skip


def corpus(world: str = "crafter") -> list[Mistake]:
    return [parse(p, world) for p in sorted(FOLDERS[world].glob("*.py"))]


def correct(world: str = "crafter") -> list[Mistake]:
    """The correct but unusual actions of `world` (their header expects "ok")."""
    return [parse(p, world) for p in sorted(CORRECT[world].glob("*.py"))]


@functools.cache
def timed_validate(
    stem: str, lint_code: bool = True, world: str = "crafter"
) -> tuple[ActionValidation, float]:  # fmt: skip
    """The verdict on one corpus program and its wall time in seconds (cached: several tests
    look at the same verdict)."""
    path = FOLDERS[world] / f"{stem}.py"
    item = parse(path if path.exists() else CORRECT[world] / f"{stem}.py", world)
    t0 = time.perf_counter()
    verdict = validate_action(item.action(), sandbox=SANDBOX, lint_code=lint_code, world=world)
    return verdict, time.perf_counter() - t0


def validate(stem: str, lint_code: bool = True, world: str = "crafter") -> ActionValidation:
    return timed_validate(stem, lint_code, world)[0]


STATIC_LINT = ("invalid_action", "api_misuse")


def show(item: Mistake, verdict: ActionValidation) -> str:
    return f"{item.stem} ({item.mistake}): {verdict.feedback() or 'accepted'}"


def assert_rejected_with_its_class(item: Mistake, verdict: ActionValidation) -> None:
    """The verdict rejects the program with its header's class and a message; the header's
    layer (gate, lint, runtime) agrees with where the verdict came from; what ran comes back
    with a trace (the map and the inventory at the end)."""
    assert not verdict.ok, show(item, verdict)
    assert verdict.error_kind in item.expect, show(item, verdict)
    assert verdict.message.strip(), show(item, verdict)
    static = verdict.error_kind in GATE_CLASSES or (
        verdict.error_kind in STATIC_LINT and not verdict.scenarios
    )
    assert static == (item.layer != "runtime"), show(item, verdict)
    if not static:
        assert verdict.scenarios, show(item, verdict)
        assert "local map at the end" in verdict.trace, show(item, verdict)
        assert "inventory:" in verdict.trace, show(item, verdict)
