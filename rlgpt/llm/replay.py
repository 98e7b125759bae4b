"""Answers from the recorded exchanges of an earlier run: zero network calls, same code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rlgpt.config import LLMParams
from rlgpt.errors import UserError
from rlgpt.llm.base import Exchange, LLMError, LLMReply, LLMRequest, exchange_key, sampling_for
from rlgpt.llm.exchanges import run_exchanges


def recorded_exchanges(run_root: Path) -> list[Exchange]:
    """Every exchange of a run, in order."""
    return [ex for _, ex in run_exchanges(run_root)]


class ReplayLLM:
    """Serves replies keyed by model + messages + sampling parameters of the recorded run."""

    backend = "replay"

    def __init__(self, params: LLMParams, runs_dir: Path) -> None:
        if not params.replay_from:
            raise UserError("--llm replay needs --from RUN_ID (the run to replay)")
        root = runs_dir / params.replay_from
        if not root.is_dir():
            raise UserError(f"no run '{params.replay_from}' under {runs_dir} to replay")
        self.params = params
        self.source = params.replay_from
        self._replies: dict[str, LLMReply] = {}
        self._models: dict[str, str] = {}
        self._sampling: dict[str, Any] = {}
        for ex in recorded_exchanges(root):
            self._replies[ex.key] = ex.reply
            self._models[ex.request.agent] = ex.model
            self._sampling = ex.sampling
        if not self._replies:
            raise UserError(f"run '{params.replay_from}' has no recorded exchanges to replay")

    def model_for(self, role: str) -> str:
        return self._models.get(role, self.params.model_for(role))

    def sampling(self) -> dict[str, Any]:
        return dict(self._sampling)

    def complete(self, request: LLMRequest) -> LLMReply:
        key = exchange_key(self.model_for(request.agent), request, sampling_for(self, request))
        if key not in self._replies:
            raise LLMError(
                f"replay of '{self.source}': no recorded answer to this {request.agent}/"
                f"{request.kind} request; the run diverged from the recording"
            )
        return self._replies[key].model_copy(update={"latency_s": 0.0})
