"""`snapshot` and `restore` for the envs over craftax's jitted game (Craftax-Classic and full
Craftax keep an episode in the same fields): a learned action's start state, continued exactly.
Trusted-process data: never from a worker."""

from __future__ import annotations

import pickle

from rlgpt.worlds.base import StepInfo

# the episode: craftax's state and key, the achievement counts, the step count, the cells
# seen, the seed and episode; the arrays are copied on restore (the env changes them in place)
_FIELDS = ("_state", "_key", "_counts", "_steps", "_seen", "_seed", "_episode")
_ARRAYS = ("_counts", "_seen")


class JaxEpisodeSnapshots:
    """Mixed into an env that keeps its episode in `_FIELDS` and re-reads its state with
    `refresh()`."""

    def snapshot(self) -> bytes:
        """The whole state of the episode: `restore` continues it exactly."""
        fields = tuple(getattr(self, name) for name in _FIELDS)
        return pickle.dumps(fields, protocol=pickle.HIGHEST_PROTOCOL)

    def restore(self, blob: bytes) -> StepInfo:
        """Go back to a `snapshot`; the info of that state."""
        fields = pickle.loads(blob)  # noqa: S301 - written by snapshot() only
        for name, value in zip(_FIELDS, fields, strict=True):
            setattr(self, name, value.copy() if name in _ARRAYS else value)
        return self.refresh()

    def refresh(self) -> StepInfo:
        raise NotImplementedError  # the env's own
