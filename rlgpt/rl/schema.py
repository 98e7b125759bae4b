"""pandera schemas for the tables rlgpt writes."""

from __future__ import annotations

import pandera.pandas as pa

EPISODES = pa.DataFrameSchema(
    {
        "episode": pa.Column(int, pa.Check.ge(0)),
        "seed": pa.Column(int),
        "success": pa.Column(bool),
        "steps": pa.Column(int, pa.Check.ge(0)),
        "decisions": pa.Column(int, pa.Check.ge(0)),
        "macro_calls": pa.Column(int, pa.Check.ge(0)),
        "dead_loop": pa.Column(bool),
        "end": pa.Column(str, pa.Check.isin(["success", "death", "time_limit"])),
        # the achievements reached by the episode's end, comma-separated (world scores)
        "unlocked": pa.Column(str, required=False),
    },
    strict=False,
    coerce=True,
)

ITERATIONS = pa.DataFrameSchema(
    {
        "iteration": pa.Column(int, pa.Check.ge(1)),
        "success_rate": pa.Column(float, pa.Check.in_range(0.0, 1.0)),
        "samples": pa.Column(int, pa.Check.ge(0)),
        "dead_loop_ratio": pa.Column(float, pa.Check.in_range(0.0, 1.0)),
    },
    strict=False,
    coerce=True,
)
