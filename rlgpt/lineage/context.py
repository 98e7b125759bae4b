"""The run context: the serialisable value every pipeline task receives."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from rlgpt.config import Params
from rlgpt.lineage.layout import RunLayout
from rlgpt.messages import TaskSpec


class RunContext(BaseModel):
    """Identifies one pipeline run; crosses task boundaries (paths and models only)."""

    model_config = ConfigDict(extra="forbid")
    run_id: str
    params: Params
    task: TaskSpec
    mlflow_run_id: str | None = None
    show_progress: bool = True
    resume: bool = False

    @property
    def layout(self) -> RunLayout:
        return RunLayout(Path(self.params.run.runs_dir), self.run_id)
