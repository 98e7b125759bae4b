"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp server) via the SDK.

Transient errors (429, 5xx, timeouts, refused connections) are retried with exponential
backoff; permanent ones (400, 401, 403, 404) are not. Structured output is asked for where the
endpoint supports it; if it rejects the response_format, the request is sent again without it
(the prompt carries the schema, and replies are validated with pydantic either way).
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

import openai

from rlgpt.config import LLMParams
from rlgpt.llm.base import LLMConfigError, LLMError, LLMReply, LLMRequest, sampling_for

log = logging.getLogger(__name__)
_TRANSIENT = (
    openai.RateLimitError,
    openai.InternalServerError,
    openai.APITimeoutError,
    openai.APIConnectionError,
)


class OpenAIBackend:
    """Chat completions over the openai SDK; the key is read from the environment only."""

    backend = "openai"

    def __init__(self, params: LLMParams, sleep: Any = time.sleep) -> None:
        key = os.environ.get(params.api_key_env)
        if not key:
            raise LLMConfigError(
                f"no API key: set ${params.api_key_env} (or llm.api_key_env in params.yaml), "
                "or use --llm offline"
            )
        self.params = params
        self._sleep = sleep
        self._format = params.response_format
        self._client = openai.OpenAI(
            api_key=key,
            base_url=params.base_url or os.environ.get("OPENAI_BASE_URL") or None,
            timeout=params.timeout_s,
            max_retries=0,  # retries are ours: transient only, with backoff, logged
        )
        self.endpoint = str(self._client.base_url)

    def model_for(self, role: str) -> str:
        return self.params.model_for(role)

    def sampling(self) -> dict[str, Any]:
        p = self.params
        return {"temperature": p.temperature, "seed": p.seed, "max_tokens": p.max_tokens}

    def _response_format(self, request: LLMRequest) -> dict[str, Any] | None:
        if self._format == "json_object":
            return {"type": "json_object"}
        if self._format == "json_schema" and request.response_schema is not None:
            schema = {"name": request.kind, "schema": request.response_schema, "strict": False}
            return {"type": "json_schema", "json_schema": schema}
        return None

    def _create(self, request: LLMRequest) -> Any:
        kwargs: dict[str, Any] = {
            "model": self.model_for(request.agent),
            "messages": [m.model_dump() for m in request.messages],
            **{k: v for k, v in sampling_for(self, request).items() if v is not None},
        }
        fmt = self._response_format(request)
        if fmt is not None:
            kwargs["response_format"] = fmt
        try:
            return self._client.chat.completions.create(**kwargs)
        except openai.BadRequestError as exc:
            if fmt is None or "response_format" not in str(exc).lower():
                raise
            log.warning("endpoint rejected response_format %s; using prompt-only JSON", fmt)
            self._format = "none"
            kwargs.pop("response_format")
            return self._client.chat.completions.create(**kwargs)

    def complete(self, request: LLMRequest) -> LLMReply:
        p = self.params
        delay = p.backoff_s
        for attempt in range(p.max_retries + 1):
            t0 = time.perf_counter()
            try:
                resp = self._create(request)
                break
            except _TRANSIENT as exc:
                if attempt == p.max_retries:
                    raise self._final(exc) from None
                log.warning("transient LLM error (%s); retry in %.1fs", _describe(exc), delay)
                self._sleep(delay)
                delay *= 2
            except openai.APIStatusError as exc:
                raise self._final(exc) from None
        choice = resp.choices[0]
        usage = resp.usage
        return LLMReply(
            text=choice.message.content or "",
            backend=self.backend,
            model=str(resp.model or self.model_for(request.agent)),
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            latency_s=time.perf_counter() - t0,
            finish_reason=str(choice.finish_reason or "stop"),
        )

    def _final(self, exc: Exception) -> Exception:
        """The one-line error a user sees; config problems are user errors (exit 2)."""
        where = self.endpoint
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            env = self.params.api_key_env
            return LLMConfigError(f"{where} rejected the API key in ${env} ({_describe(exc)})")
        if isinstance(exc, openai.NotFoundError):
            return LLMConfigError(f"{where}: model or path not found ({_describe(exc)})")
        if isinstance(exc, openai.APITimeoutError):
            return LLMError(f"{where} timed out after {self.params.max_retries + 1} attempts")
        if isinstance(exc, openai.APIConnectionError):
            return LLMConfigError(f"cannot reach {where}: check llm.base_url / OPENAI_BASE_URL")
        return LLMError(f"{where}: {_describe(exc)}")


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    text = str(getattr(exc, "message", "") or exc).splitlines()[0][:160]
    return f"HTTP {status}: {text}" if status else f"{type(exc).__name__}: {text}"
