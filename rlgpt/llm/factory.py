"""Pick the LLM backend named in params."""

from __future__ import annotations

from rlgpt.config import LLMParams
from rlgpt.errors import UserError
from rlgpt.llm.base import LLM
from rlgpt.llm.offline import OfflineAuthor


def make_llm(params: LLMParams) -> LLM:
    if params.backend == "offline":
        return OfflineAuthor(params.model)
    raise UserError(f"unknown llm backend '{params.backend}'; use 'offline'")
