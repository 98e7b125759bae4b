"""Agent plumbing: render a prompt, ask the LLM, validate the JSON reply, record the exchange."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from rlgpt.agents.prompting import render, template_hash
from rlgpt.errors import RLGPTError
from rlgpt.llm.base import LLM, ChatMessage, LLMReply, LLMRequest

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
    """Base of the three roles. Every exchange is written to `record_dir` as JSON."""

    role: str = "agent"

    def __init__(self, llm: LLM, record_dir: Path, format_retries: int = 2) -> None:
        self.llm = llm
        self.record_dir = record_dir
        self.format_retries = format_retries
        self.replies: list[LLMReply] = []

    def ask(self, kind: str, model: type[M], **context: Any) -> M:
        """Render prompts/<kind>.md with `context`, ask, and return a validated `model`."""
        values = {**context, "schema": json.dumps(model.model_json_schema())}
        messages = [
            ChatMessage(role="system", content=render("system")),
            ChatMessage(role="user", content=render(kind, **values)),
        ]
        for attempt in range(self.format_retries + 1):
            request = LLMRequest(
                agent=self.role,  # type: ignore[arg-type]
                kind=kind,
                messages=messages,
                context=json.loads(json.dumps(context, default=str)),
                template_hash=template_hash(kind),
            )
            reply = self.llm.complete(request)
            self.replies.append(reply)
            try:
                parsed = parse_reply(reply.text, model)
                self._record(request, reply, ok=True)
                return parsed
            except FormatError as exc:
                self._record(request, reply, ok=False, error=str(exc))
                log.warning("%s reply rejected (attempt %d): %s", kind, attempt + 1, exc)
                messages = [
                    *messages,
                    ChatMessage(role="assistant", content=reply.text),
                    ChatMessage(role="user", content=f"Your reply was rejected: {exc}. "
                                "Answer again with one JSON object matching the schema."),
                ]  # fmt: skip
        raise FormatError(f"{kind}: no valid reply after {self.format_retries + 1} attempts")

    def _record(self, req: LLMRequest, reply: LLMReply, ok: bool, error: str = "") -> None:
        self.record_dir.mkdir(parents=True, exist_ok=True)
        seq = len(list(self.record_dir.glob("*.json"))) + 1
        path = self.record_dir / f"{seq:03d}_{self.role}_{req.kind}.json"
        blob = {"request": req.model_dump(), "reply": reply.model_dump(), "ok": ok, "error": error}
        path.write_text(json.dumps(blob, indent=1))
