"""The report's plots as PNG bytes (matplotlib, no display): per iteration and learning curves."""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from rlgpt.lineage.summary import IterationSummary  # noqa: E402

# (samples since the run began, return, success) per finished training episode
CurvePoint = tuple[int, float, int]


def _png(fig: plt.Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def per_iteration(its: Sequence[IterationSummary]) -> bytes:
    """Evaluation success rate and dead-loop ratio after each iteration."""
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    x = [i.iteration for i in its]
    ax.plot(x, [i.success_rate for i in its], marker="o", label="success rate")
    ax.plot(x, [i.dead_loop_ratio for i in its], marker="s", label="dead-loop ratio")
    ax.set_xlabel("iteration")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xticks(x)
    ax.grid(alpha=0.3)
    ax.legend(loc="best")
    ax.set_title("evaluation per iteration")
    return _png(fig)


def smooth(values: list[float], window: int) -> list[float]:
    """A trailing moving average over `window` values."""
    out, total = [], 0.0
    for k, v in enumerate(values):
        total += v
        if k >= window:
            total -= values[k - window]
        out.append(total / min(k + 1, window))
    return out


def learning_curves(points: Sequence[CurvePoint], boundaries: Sequence[int]) -> bytes:
    """Training episodes' success and return against samples (a moving average over 50
    episodes), with a line where each iteration began."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.4, 5.0), sharex=True)
    if points:
        x = [p[0] for p in points]
        top.plot(x, smooth([float(p[2]) for p in points], 50), color="tab:green")
        bottom.plot(x, smooth([p[1] for p in points], 50), color="tab:blue")
    else:
        top.text(
            0.5, 0.5, "no finished training episode recorded", ha="center", transform=top.transAxes
        )
    for b in boundaries[1:]:
        for ax in (top, bottom):
            ax.axvline(b, color="grey", linestyle=":", linewidth=1)
    top.set_ylabel("success (training)")
    top.set_ylim(-0.02, 1.02)
    bottom.set_ylabel("return (training)")
    bottom.set_xlabel("samples (primitive env steps, all iterations)")
    for ax in (top, bottom):
        ax.grid(alpha=0.3)
    top.set_title("learning curves (dotted: an iteration begins)")
    return _png(fig)
