"""A scripted model that is not the offline author, served on 127.0.0.1 like any endpoint.

It answers every role rlgpt asks for (slow_decompose, fast_code, fast_repair, fast_rlconfig,
critic, one_agent) from the rendered prompts alone, as an OpenAI-compatible chat-completions
server: it reads the role from the prompt's first line, the game from the system message,
and the task, sub-action, step budget, previous plan and code, critique, validation class and
evaluation from the text rlgpt rendered (prompts/*.md), then answers from the offline author's
game knowledge (`OfflineAuthor.complete` on the context it read back) and spoils the answer
at a fixed, seeded rate with a model's mistakes (benchmarks/scripted_mistakes.py). On repair
it fixes its code with probability `fix_rate`, else makes another mistake (of another class
than the one validation reported). At mistake rate 0 it gives the offline author's answers,
but for one thing: as one agent it copies the code it was shown where the critic found no
fault, where the author writes it anew (the same code, unless that code was a revision).

Mistakes are drawn the same way in both agent modes: per plan (slow_decompose, or a one_agent
reply's plan) and per coded action written (fast_code, or each action a one_agent reply
writes), keyed by the n-th plan and the n-th version of each action in the run, and per
repair by its attempt at the version last written; code the one agent was shown and the
critic did not fault is copied, as the two agents' pipeline reuses it. A difference between
the modes therefore comes from the pipeline, never from this script. It keeps the counts of
one run: serve one run per instance (benchmarks/paper.py starts one per job).

    python benchmarks/scripted_model.py --port 8765 --mistake-rate 0.25   # then
    OPENAI_API_KEY=x rlgpt run --set llm.backend=openai --set llm.base_url=http://127.0.0.1:8765/v1
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: `benchmarks.` lives in the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.chat_server import ChatServer
from benchmarks.scripted_mistakes import (
    CAUGHT_AS,
    CODE_MISTAKES,
    Knowledge,
    MistakeRates,
    knowledge,
    spoil_code,
    spoil_plan,
)
from rlgpt.llm.base import ChatMessage, LLMRequest
from rlgpt.llm.offline import OfflineAuthor
from rlgpt.messages import CodedAction, Decomposition, PlanAndCode, SubAction, TaskSpec
from rlgpt.worlds import DEFAULT_WORLD, get_world, world_names

# The first line of each prompt template (prompts/<kind>.md) -> its kind; longest first.
ROLES = (
    ("# Role: fast agent (coder), repairing code", "fast_repair"),
    ("# Role: fast agent (coder)", "fast_code"),
    ("# Role: fast agent (RL designer)", "fast_rlconfig"),
    ("# Role: fast agent (designer of a learned action)", "fast_learned"),
    ("# Role: slow agent", "slow_decompose"),
    ("# Role: one agent", "one_agent"),
    ("# Role: critic", "critic"),
)
AGENT = {"slow_decompose": "slow", "one_agent": "one", "critic": "critic"}


def label(rate: float) -> str:
    """How results name this model."""
    return f"scripted model (mistake rate {rate:g})"


@dataclass(frozen=True)
class Mistake:
    """One draw that spoilt an answer (or a repair that fixed): what, where and which class."""

    what: str  # plan, write or repair
    task: str
    name: str  # the sub-action ("" for a plan)
    made: str  # the mistake class, or "fixed" (a repair)
    n: int  # the n-th plan, or the n-th version written of the action (0 first)
    seed: int  # the request's sampling seed
    role: str  # the prompt it answered
    attempt: int = 0  # a repair: which attempt at version n


class ReadError(ValueError):
    """A prompt that does not say what the role needs (a template changed?)."""


def json_after(text: str, marker: str) -> Any:
    """The JSON value that follows `marker` in `text`, or None when the marker is absent."""
    at = text.find(marker)
    if at < 0:
        return None
    start = min((i for i in (text.find("{", at), text.find("[", at)) if i >= 0), default=-1)
    if start < 0:
        raise ReadError(f"no JSON after {marker!r}")
    return json.JSONDecoder().raw_decode(text[start:])[0]


def quoted_after(text: str, marker: str) -> str:
    """The JSON string that follows `marker` in `text` ("" when the marker is absent)."""
    at = text.find(marker)
    if at < 0:
        return ""
    start = text.find('"', at)
    if start < 0:
        raise ReadError(f"no quoted text after {marker!r}")
    value = json.JSONDecoder().raw_decode(text[start:])[0]
    return str(value)


def _find(pattern: str, text: str, what: str) -> str:
    m = re.search(pattern, text, re.M)
    if m is None:
        raise ReadError(f"the prompt does not say {what}")
    return m.group(1)


def world_of(system: str) -> str:
    """The world whose title the system message names ("... working on <title>. Agents")."""
    title = _find(r"working on (.*?)\.\s+Agents", system, "the game")
    for name in [DEFAULT_WORLD, *(n for n in world_names() if n != DEFAULT_WORLD)]:
        if get_world(name).title == title:
            return name
    raise ReadError(f"no world is titled {title!r}")


def critique_of(user: str) -> dict[str, Any] | None:
    """The critique as the slow or one agent's prompt shows it: bottleneck names and the code
    feedback (failing_sub_action is not shown, so it is not read)."""
    start = user.find("The critic's feedback on the last iteration:")
    if start < 0:
        return None
    end = user.find("Revise every bottleneck", start)
    section = user[start : end if end > 0 else len(user)]
    names = re.findall(r"^- ([a-z0-9_]+): (.*)$", section, re.M)
    return {"bottlenecks": dict(names), "fast_feedback": json_after(section, "On the code: ") or {}}


class ScriptedModel:
    """The chat server's responder: one JSON answer per request (see the module docstring)."""

    def __init__(self, rates: MistakeRates | None = None, step_budget: int = 80) -> None:
        self.rates = rates or MistakeRates()
        self.step_budget = step_budget  # what a repair assumes when it wrote no code before
        # (seed, task, action) -> the version it last wrote (-1: none) and its step budget: a
        # repair prompt shows neither
        self.mistakes: list[Mistake] = []
        self._lock = threading.Lock()
        self._counts: Counter[tuple[Any, ...]] = Counter()
        self.written: dict[tuple[Any, ...], tuple[int, int]] = {}
        self._authors: dict[str, OfflineAuthor] = {}
        self._know: dict[tuple[str, str], Knowledge] = {}

    def __call__(self, body: dict[str, Any]) -> str:
        with self._lock:  # the counts are the run's: one request at a time
            return self.respond(body)

    def respond(self, body: dict[str, Any]) -> str:
        msgs = body["messages"]
        system = next(m["content"] for m in msgs if m["role"] == "system")
        user = next(m["content"] for m in msgs if m["role"] == "user")  # re-asks append after
        kind = next((k for head, k in ROLES if user.startswith(head)), None)
        if kind is None:
            raise ReadError(f"unknown role: {user[:80]!r}")
        turn = _Turn(self, kind, world_of(system), user, int(body.get("seed") or 0))
        return json.dumps(getattr(turn, kind)())

    def counts(self) -> dict[str, Any]:
        """What the run drew: plans, writes and repairs asked (`drawn`), mistakes made by kind
        (plan, write, repair: a repair that made another), repairs that fixed, and by class."""
        drawn: Counter[str] = Counter()
        for key, n in self._counts.items():
            drawn[key[2]] += n
        made = [m for m in self.mistakes if m.made != "fixed"]
        return {
            "drawn": dict(drawn), "made": dict(Counter(m.what for m in made)),
            "fixed": sum(m.made == "fixed" for m in self.mistakes),
            "by_class": dict(Counter(m.made for m in made)),
        }  # fmt: skip

    def write_log(self, path: Path) -> None:
        path.write_text(json.dumps([asdict(m) for m in self.mistakes], indent=1))

    # -- what the turns share ---------------------------------------------------------------
    def author(self, world: str) -> OfflineAuthor:
        if world not in self._authors:
            self._authors[world] = OfflineAuthor(world=world)
        return self._authors[world]

    def knowledge(self, world: str, task: TaskSpec) -> Knowledge:
        key = (world, task.name)
        if key not in self._know:
            self._know[key] = knowledge(get_world(world), task)
        return self._know[key]

    def next_n(self, *key: Any) -> int:
        n = self._counts[key]
        self._counts[key] += 1
        return n


class _Turn:
    """One request: what its prompt says, and the answer of its role."""

    def __init__(self, model: ScriptedModel, kind: str, world: str, user: str, seed: int):
        self.m, self.kind, self.world, self.user, self.seed = model, kind, world, user, seed
        self.task = get_world(world).task(_find(r"^Task: ([a-z0-9_]+)", user, "the task"))

    def ask_author(self, kind: str, context: dict[str, Any]) -> dict[str, Any]:
        """The offline author's answer to the context this prompt was rendered from."""
        request = LLMRequest(
            agent=AGENT.get(kind, "fast"), kind=kind,  # type: ignore[arg-type]
            messages=[ChatMessage(role="user", content=self.user)], context=context,
            template_hash="",
        )  # fmt: skip
        answer: dict[str, Any] = json.loads(self.m.author(self.world).complete(request).text)
        return answer

    def note(self, what: str, name: str, made: str | None, n: int, attempt: int = 0) -> None:
        if made is not None:
            self.m.mistakes.append(Mistake(what, self.task.name, name, made, n, self.seed,
                                           self.kind, attempt))  # fmt: skip

    def budget(self) -> int:
        return int(_find(r"At most (\d+)\s+primitive\s+steps", self.user, "the step budget"))

    # -- plans ------------------------------------------------------------------------------
    def plan(self, previous: dict[str, Any] | None) -> Decomposition:
        context = {"task": self.task.model_dump(), "previous": previous,
                   "critique": critique_of(self.user), **self.evidence()}  # fmt: skip
        dec = Decomposition.model_validate(self.ask_author("slow_decompose", context))
        n = self.m.next_n(self.seed, self.task.name, "plan")
        rng = self.m.rates.rng(self.seed, self.task.name, "plan", n)
        rate = self.m.rates.rate if self.m.rates.plan_rate is None else self.m.rates.plan_rate
        dec, made = spoil_plan(self.m.rates.draw(rng, rate, ("forgot_count", "forgot_survival")),
                               dec, rng)  # fmt: skip
        self.note("plan", "", made, n)
        return dec

    def slow_decompose(self) -> dict[str, Any]:
        return self.plan(json_after(self.user, "Your previous decomposition:")).model_dump()

    def evidence(self) -> dict[str, Any]:
        """The evidence the slow prompt shows (none before any), and its threshold."""
        shown = json_after(self.user, "Learn a sub-action where this says its code fails;")
        if not shown:
            return {}
        threshold = float(_find(r"\(success threshold ([0-9.]+)\)", self.user, "the threshold"))
        return {"evidence": shown, "success_threshold": threshold}

    # -- code -------------------------------------------------------------------------------
    def write(self, sub: dict[str, Any], budget: int, feedback: dict[str, str]) -> CodedAction:
        """A fresh coded action for `sub`, spoilt at the write rate."""
        context = {"step_budget": budget, "sub_action": sub, "feedback": feedback}
        action = CodedAction.model_validate(self.ask_author("fast_code", context))
        name = sub["name"]
        n = self.m.next_n(self.seed, self.task.name, "write", name)
        rng = self.m.rates.rng(self.seed, self.task.name, "write", name, n)
        cls = self.m.rates.draw(rng, self.m.rates.rate, CODE_MISTAKES)
        action, made = spoil_code(cls, action, self.m.knowledge(self.world, self.task), rng)
        self.m.written[(self.seed, self.task.name, name)] = (n, action.step_budget)
        self.note("write", name, made, n)
        return action

    def fast_code(self) -> dict[str, Any]:
        sub = json_after(self.user, "Write the coded action for this sub-action:")
        feedback = json_after(self.user, "Critic feedback on earlier code:") or {}
        return self.write(sub, self.budget(), feedback).model_dump()

    def fast_repair(self) -> dict[str, Any]:
        """The author's code for the sub-action (fixed), or that code with another mistake.
        Drawn for the attempt at the version last written, so the pipelines draw alike even
        where one asked for repairs the other did not."""
        name = json_after(self.user, "was rejected by validation:")["name"]
        shown = _find(r"^Validation found `([a-z_]+)`", self.user, "the validation class")
        attempt = int(_find(r"repair attempt (\d+) of", self.user, "the attempt"))
        key = (self.seed, self.task.name, name)
        version, budget = self.m.written.get(key, (-1, self.m.step_budget))
        fixed = self.ask_author("fast_repair", {"action": {"name": name, "step_budget": budget}})
        self.m.next_n(self.seed, self.task.name, "repair", name)  # counted only: see the key
        rng = self.m.rates.rng(self.seed, self.task.name, "repair", name, version, attempt)
        if self.m.rates.rate == 0 or rng.random() < self.m.rates.fix_rate:
            self.note("repair", name, "fixed", version, attempt)
            return fixed
        # another mistake: not one of the kind validation just reported
        others = tuple(c for c in CODE_MISTAKES if CAUGHT_AS[c] != shown) or CODE_MISTAKES
        cls = self.m.rates.draw(rng, 1.0, others)
        know = self.m.knowledge(self.world, self.task)
        reported = tuple(c for c in CODE_MISTAKES if c not in others)
        spoilt, made = spoil_code(
            cls, CodedAction.model_validate(fixed), know, rng, exclude=reported
        )
        self.note("repair", name, made or "fixed", version, attempt)
        return spoilt.model_dump()

    def one_agent(self) -> dict[str, Any]:
        """A plan and its code: code it was shown and the critic did not fault is copied."""
        dec = self.plan(json_after(self.user, "Your previous plan:"))
        shown = json_after(self.user, "Your previous code, by sub-action:") or {}
        feedback = (critique_of(self.user) or {}).get("fast_feedback") or {}
        budget = self.budget()
        actions = []
        for sub in (s for s in dec.sub_actions if s.mode == "code"):
            if sub.name in shown and sub.name not in feedback:
                actions.append(self.kept(sub, shown[sub.name], budget))
            else:
                actions.append(self.write(sub.model_dump(), budget, feedback))
        return PlanAndCode(decomposition=dec, actions=actions).model_dump()

    def kept(self, sub: SubAction, source: str, budget: int) -> CodedAction:
        doc = self.m.author(self.world).author.write_action(sub.name, budget).docstring
        key = (self.seed, self.task.name, sub.name)
        self.m.written[key] = (self.m.written.get(key, (-1, budget))[0], budget)
        return CodedAction(name=sub.name, docstring=doc, source=source, step_budget=budget)

    # -- RL design and critique: the author's, read back from the prompt ------------------
    def fast_rlconfig(self) -> dict[str, Any]:
        coded = _find(r"extra actions\):\n(.*)$", self.user, "the coded actions")
        learned = re.search(r"in `learned_actions`\): (.*)$", self.user, re.M)
        context = {
            "learned": [n.strip() for n in learned.group(1).split(",")] if learned else [],
            "decomposition": json_after(self.user, "Decomposition:"),
            "coded": [c.strip() for c in coded.split(",") if c.strip()],
            "ppo": json_after(self.user, "Default PPO settings:"),
            "sample_budget": int(_find(r"the sample budget \((\d+) primitive", self.user,
                                       "the sample budget")),
        }  # fmt: skip
        return self.ask_author("fast_rlconfig", context)

    def fast_learned(self) -> dict[str, Any]:
        """A learned action's RL config: the author's, read back from the prompt (no mistake
        is drawn here: a config that cannot train is fed back, as validation is)."""
        context = {
            "decomposition": json_after(self.user, "Decomposition:"),
            "sub_action": json_after(self.user, "Sub-action:"),
            "coded": json_after(self.user, "passed validation and join *its* action space"),
            "signals": dict(re.findall(r"^  - `([a-z_]+)`: (.*)$", self.user, re.M)),
            "step_budget": int(_find(r"`step_budget` \(at most (\d+)", self.user,
                                     "the step budget")),
            "sample_budget": int(_find(r"`sample_budget` \(at most (\d+)", self.user,
                                       "the sample budget")),
            "ppo": json_after(self.user, "PPO settings (defaults:"),
            "previous": json_after(self.user, "Its previous configuration"),
            "feedback": quoted_after(self.user, "The critic's feedback on it:"),
        }  # fmt: skip
        return self.ask_author("fast_learned", context)

    def critic(self) -> dict[str, Any]:
        context = {
            "learned": json_after(self.user, "beside their code alone where one exists):"),
            "decomposition": json_after(self.user, "Decomposition:"),
            "evaluation": json_after(self.user, "Evaluation of the trained policy:"),
            "success_threshold": float(_find(r"Success threshold: ([0-9.]+)\.", self.user,
                                             "the threshold")),
        }  # fmt: skip
        return self.ask_author("critic", context)


KEY_ENV = "SCRIPTED_MODEL_KEY"  # the loop's llm.api_key_env: a dummy, never a real key


def spec(rates: MistakeRates) -> dict[str, Any]:
    """The benchmark's `llm` section for this model (what a job's record was measured under)."""
    out = {"backend": "scripted", "mistake_rate": rates.rate, "fix_rate": rates.fix_rate,
           "seed": rates.seed}  # fmt: skip
    return out if rates.plan_rate is None else out | {"plan_rate": rates.plan_rate}


def rates_of(llm: Mapping[str, Any]) -> MistakeRates:
    return MistakeRates(rate=llm["mistake_rate"], plan_rate=llm.get("plan_rate"),
                        fix_rate=llm["fix_rate"], seed=llm["seed"])  # fmt: skip


@contextlib.contextmanager
def endpoint(
    llm: Mapping[str, Any], seed: int, step_budget: int = 80
) -> Iterator[tuple[ScriptedModel, dict[str, Any]]]:
    """A scripted model (`llm`: as `spec` writes it) served on 127.0.0.1 for one run, and the
    params.yaml `llm` section that points the loop at it through the openai client, sampling
    with `seed` (so each benchmark seed draws its own mistakes). Set KEY_ENV to any value."""
    rates = rates_of(llm)
    model = ScriptedModel(rates, step_budget)
    with ChatServer(model) as srv:
        yield model, {
            "backend": "openai", "model": f"scripted-r{rates.rate:g}", "base_url": srv.base_url,
            "api_key_env": KEY_ENV, "seed": seed, "backoff_s": 0.2, "timeout_s": 120.0,
        }  # fmt: skip


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--mistake-rate", type=float, default=MistakeRates.rate)
    ap.add_argument("--plan-rate", type=float, help="mistakes per plan (default: --mistake-rate)")
    ap.add_argument("--fix-rate", type=float, default=MistakeRates.fix_rate)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--log", help="write every mistake made here (JSON) on exit")
    args = ap.parse_args()
    rates = MistakeRates(rate=args.mistake_rate, plan_rate=args.plan_rate,
                         fix_rate=args.fix_rate, seed=args.seed)  # fmt: skip
    model = ScriptedModel(rates)
    with ChatServer(model, port=args.port) as srv:
        print(f"{label(rates.rate)} at {srv.base_url} (Ctrl-C stops)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            srv.thread.join()
    if args.log:
        model.write_log(Path(args.log))


if __name__ == "__main__":
    main()
