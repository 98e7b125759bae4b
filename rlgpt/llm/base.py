"""The LLM protocol: a request (rendered messages + structured context) and a reply."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from rlgpt.errors import RLGPTError, UserError


class LLMError(RLGPTError):
    """The endpoint failed for good (after retries of transient errors)."""


class LLMConfigError(UserError):
    """The endpoint cannot be used as configured: no key, key rejected, no model, unreachable."""


class BudgetExceeded(RLGPTError):
    """The run's token or dollar budget is spent; everything so far is saved."""


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: Literal["system", "user", "assistant"]
    content: str


class LLMRequest(BaseModel):
    """One exchange's input. `context` holds the structured values the prompt was rendered from."""

    model_config = ConfigDict(extra="forbid")
    agent: Literal["slow", "fast", "critic", "one"]
    kind: str = Field(description="Prompt template name, e.g. 'slow_decompose'.")
    messages: list[ChatMessage]
    context: dict[str, Any]
    template_hash: str
    response_schema: dict[str, Any] | None = Field(
        default=None, description="JSON schema of the expected answer (structured output)."
    )
    candidate: int = Field(
        default=0, ge=0, description="Which of several samples of one prompt (scale.candidates)."
    )


class LLMReply(BaseModel):
    """One exchange's output and its cost."""

    model_config = ConfigDict(extra="forbid")
    text: str
    backend: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    finish_reason: str = "stop"


class Exchange(BaseModel):
    """One recorded exchange (runs/<id>/iter_<k>/llm/NNN_role_kind.json): the request and the
    reply, under the key a resume or a replay finds it by, with how it was answered (`cached`:
    an earlier identical request's reply; `ok`: the reply parsed and passed its checks)."""

    model_config = ConfigDict(extra="forbid")
    key: str
    model: str = ""
    backend: str = ""
    sampling: dict[str, Any] = Field(default_factory=dict)
    cached: bool = False
    ok: bool = False
    error: str = ""
    request: LLMRequest
    reply: LLMReply


class LLM(Protocol):
    """Anything that answers chat requests (the offline author, an OpenAI-compatible server)."""

    backend: str

    def model_for(self, role: str) -> str: ...

    def sampling(self) -> dict[str, Any]: ...

    def complete(self, request: LLMRequest) -> LLMReply: ...


def sampling_for(llm: LLM, request: LLMRequest) -> dict[str, Any]:
    """The sampling parameters of one request: candidate i of a prompt samples with seed + i
    (the first keeps the run's own, so its key is that of a run without candidates)."""
    sampling = llm.sampling()
    if request.candidate:
        sampling["seed"] = int(sampling.get("seed") or 0) + request.candidate
    return sampling


def exchange_key(model: str, request: LLMRequest, sampling: dict[str, Any]) -> str:
    """sha256 over model + messages + sampling parameters: the identity of one exchange."""
    blob = {
        "model": model,
        "messages": [m.model_dump() for m in request.messages],
        "sampling": sampling,
    }
    return hashlib.sha256(json.dumps(blob, sort_keys=True).encode()).hexdigest()
