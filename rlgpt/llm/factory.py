"""Pick the LLM backend named in params."""

from __future__ import annotations

from pathlib import Path

from rlgpt.config import LLMParams
from rlgpt.llm.base import LLM
from rlgpt.llm.offline import OfflineAuthor


def make_llm(params: LLMParams, runs_dir: Path | str = "runs") -> LLM:
    if params.backend == "openai":
        from rlgpt.llm.openai_backend import OpenAIBackend

        return OpenAIBackend(params)
    if params.backend == "replay":
        from rlgpt.llm.replay import ReplayLLM

        return ReplayLLM(params, Path(runs_dir))
    return OfflineAuthor(params.model)
