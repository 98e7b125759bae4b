"""The LLM protocol: a request (rendered messages + structured context) and a reply."""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: Literal["system", "user", "assistant"]
    content: str


class LLMRequest(BaseModel):
    """One exchange's input. `context` holds the structured values the prompt was rendered from."""

    model_config = ConfigDict(extra="forbid")
    agent: Literal["slow", "fast", "critic"]
    kind: str = Field(description="Prompt template name, e.g. 'slow_decompose'.")
    messages: list[ChatMessage]
    context: dict[str, Any]
    template_hash: str


class LLMReply(BaseModel):
    """One exchange's output and its cost."""

    model_config = ConfigDict(extra="forbid")
    text: str
    backend: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0


class LLM(Protocol):
    """Anything that answers chat requests (the offline author, an OpenAI-compatible server)."""

    backend: str
    model: str

    def complete(self, request: LLMRequest) -> LLMReply: ...
