"""Agent plumbing: render a prompt, ask the LLM, validate the JSON reply, record the exchange."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from rlgpt.agents.prompting import render, template_hash
from rlgpt.config import LLMParams
from rlgpt.errors import RLGPTError
from rlgpt.llm.base import (
    LLM,
    ChatMessage,
    Exchange,
    LLMReply,
    LLMRequest,
    exchange_key,
    sampling_for,
)
from rlgpt.llm.exchanges import run_exchanges, write_exchange
from rlgpt.llm.ledger import check_budget
from rlgpt.worlds import DEFAULT_WORLD, get_world

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)
_FENCE = re.compile(r"```(?:json)?\s*(\{.*\})\s*```", re.S)


class FormatError(RLGPTError):
    """A reply that is not valid JSON for the expected model; the message is LLM feedback."""


def parse_reply(text: str, model: type[M]) -> M:
    """The model in `text`: a bare JSON object, a fenced block, or the outermost {...}."""
    candidates = [text.strip()]
    if m := _FENCE.search(text):
        candidates.append(m.group(1))
    if "{" in text and "}" in text:
        candidates.append(text[text.index("{") : text.rindex("}") + 1])
    last = "no JSON object found in the reply"
    for cand in candidates:
        try:
            return model.model_validate(json.loads(cand))
        except json.JSONDecodeError as exc:
            last = f"invalid JSON: {exc.msg} at line {exc.lineno}"
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(x) for x in err["loc"]) or "<root>"
            last = f"schema mismatch at '{loc}': {err['msg']}"
    raise FormatError(last)


class Agent:
    """Base of the three roles. Every exchange is written to `record_dir` as JSON, keyed by a
    hash of model + messages + sampling; an exchange already answered in this run (`run_root`)
    is served from there, so a resumed run never pays twice."""

    role: str = "agent"

    def __init__(
        self, llm: LLM, record_dir: Path, format_retries: int = 2,
        run_root: Path | None = None, llm_params: LLMParams | None = None,
    ) -> None:  # fmt: skip
        self.llm = llm
        self.record_dir = record_dir
        self.format_retries = format_retries
        self.run_root = run_root
        self.llm_params = llm_params
        self.replies: list[LLMReply] = []

    def ask(
        self, kind: str, model: type[M], fallback: Callable[[str], M | None] | None = None,
        candidate: int = 0, check: Callable[[M], str | None] | None = None, **context: Any,
    ) -> M:  # fmt: skip
        """Render prompts/<kind>.md with `context`, ask, and return a validated `model`.
        `candidate` i > 0: another sample of the same prompt (sampled with seed + i). `check`:
        what keeps a well-formed answer from being used (None: nothing); it goes back to the
        model like a format error."""
        values = {**context, "schema": json.dumps(model.model_json_schema())}
        task = context.get("task") or {}  # every role's request names its task, and so its world
        world = get_world(str(task.get("world", DEFAULT_WORLD)))
        messages = [
            ChatMessage(role="system", content=render("system", world.name, game=world.title)),
            ChatMessage(role="user", content=render(kind, world.name, **values)),
        ]
        for attempt in range(self.format_retries + 1):
            request = LLMRequest(
                agent=self.role,  # type: ignore[arg-type]
                kind=kind,
                messages=messages,
                context=json.loads(json.dumps(context, default=str)),
                template_hash=template_hash(kind, world.name),
                response_schema=model.model_json_schema(),
                candidate=candidate,
            )
            reply, key, cached = self._answer(request)
            try:
                if reply.finish_reason == "length":
                    raise FormatError("the reply was cut off (finish_reason=length): be shorter")
                parsed = _parse(reply.text, model, fallback)
                problem = check(parsed) if check is not None else None
                if problem:
                    raise FormatError(problem)
                self._record(request, reply, key, cached, ok=True)
                return parsed
            except FormatError as exc:
                self._record(request, reply, key, cached, ok=False, error=str(exc))
                log.warning("%s reply rejected (attempt %d): %s", kind, attempt + 1, exc)
                messages = [
                    *messages,
                    ChatMessage(role="assistant", content=reply.text),
                    ChatMessage(
                        role="user",
                        content=f"Your reply was rejected: {exc}. "
                        "Answer again with one JSON object matching the schema.",
                    ),
                ]
        raise FormatError(f"{kind}: no valid reply after {self.format_retries + 1} attempts")

    def _answer(self, request: LLMRequest) -> tuple[LLMReply, str, bool]:
        key = exchange_key(
            self.llm.model_for(request.agent), request, sampling_for(self.llm, request)
        )
        if self.run_root is not None:
            hit = _cached(self.run_root, key)
            if hit is not None:
                return hit, key, True
            if self.llm_params is not None:
                check_budget(self.run_root, self.llm_params)
        reply = self.llm.complete(request)
        self.replies.append(reply)
        return reply, key, False

    def _record(
        self, req: LLMRequest, reply: LLMReply, key: str, cached: bool, ok: bool, error: str = ""
    ) -> None:
        self.record_dir.mkdir(parents=True, exist_ok=True)
        seq = len(list(self.record_dir.glob("*.json"))) + 1
        path = self.record_dir / f"{seq:03d}_{self.role}_{req.kind}.json"
        write_exchange(path, Exchange(
            key=key, model=self.llm.model_for(req.agent), backend=self.llm.backend,
            sampling=sampling_for(self.llm, req), cached=cached, ok=ok, error=error,
            request=req, reply=reply,
        ))  # fmt: skip


def _parse(text: str, model: type[M], fallback: Callable[[str], M | None] | None) -> M:
    try:
        return parse_reply(text, model)
    except FormatError:
        rescued = fallback(text) if fallback is not None else None
        if rescued is None:
            raise
        return rescued


def _cached(run_root: Path, key: str) -> LLMReply | None:
    """A reply already received in this run for the same key, if it validated. A reply that
    did not is kept for audit but never served again: resume and retry ask anew."""
    for _, ex in run_exchanges(run_root):
        if ex.key == key and ex.ok:
            return ex.reply
    return None
