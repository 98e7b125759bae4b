"""Pick the LLM backend named in params."""

from __future__ import annotations

from pathlib import Path

from rlgpt.config import LLMParams
from rlgpt.llm.base import LLM
from rlgpt.worlds import DEFAULT_WORLD


def make_llm(params: LLMParams, runs_dir: Path | str = "runs", world: str = DEFAULT_WORLD) -> LLM:
    """The backend of `params`; the offline author plays the roles from `world`'s knowledge."""
    if params.backend == "openai":
        from rlgpt.llm.openai_backend import OpenAIBackend

        return OpenAIBackend(params)
    if params.backend == "replay":
        from rlgpt.llm.replay import ReplayLLM

        return ReplayLLM(params, Path(runs_dir))
    from rlgpt.llm.offline import OfflineAuthor

    return OfflineAuthor(params.model, world)
