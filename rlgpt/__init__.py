"""RL-GPT as a reproducible, auditable pipeline on grid worlds (Crafter and Craftax)."""

import os as _os

# OpenMP's idle threads (torch's) spin for a long while by default: with two trainings on two
# cores the spinning took in-process PPO from about 1100 samples/s alone to 33 each. A short
# spin costs a lone run about 10% and keeps several runs at about 900 each
# (benchmarks/sandbox_overhead.py). It must be set before torch loads OpenMP, so it is set on
# importing rlgpt, and handed to child processes; a user's own setting wins.
OPENMP_DEFAULTS = {"GOMP_SPINCOUNT": "1000"}
if "OMP_WAIT_POLICY" not in _os.environ:
    for _key, _value in OPENMP_DEFAULTS.items():
        _os.environ.setdefault(_key, _value)


# every world's env as a gymnasium id (rlgpt/worlds/__init__.py), without importing gymnasium;
# the sandbox root may bind rlgpt/ without the worlds package
try:
    from rlgpt.worlds import register_on_import as _register_on_import
except ModuleNotFoundError:
    pass
else:
    _register_on_import()
