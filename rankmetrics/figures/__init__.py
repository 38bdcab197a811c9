"""Plotly figures for comparing models: curves over K (with confidence bands), per-user
distributions, NDCG breakdowns, the pairwise significance matrix and two models head to
head. Every builder takes plain values or the library's tables and returns a
``plotly.graph_objects.Figure``.

Data go into the figures as plain lists (readable in the figure's JSON), large per-user
arrays are binned or thinned first, and model names are escaped, since Plotly reads a few
HTML tags in names. Plotly is an optional dependency (``pip install 'rankmetrics[figures]'``):
the rest of the library works without it.

The modules, by what they draw: :mod:`~rankmetrics.figures.style` (the palette, the models'
colours, the metrics' labels and titles in words, and the shared layout),
:mod:`~rankmetrics.figures.curves`, :mod:`~rankmetrics.figures.users`,
:mod:`~rankmetrics.figures.ndcg`, :mod:`~rankmetrics.figures.significance` and
:mod:`~rankmetrics.figures.head_to_head`, whose builders are importable from here; and the
figures of the beyond-accuracy metrics (:mod:`~rankmetrics.figures.beyond`), of choosing K
(:mod:`~rankmetrics.figures.choosing_k`), of segments (:mod:`~rankmetrics.figures.segments`),
of the playground (:mod:`~rankmetrics.figures.playground`) and figures in words
(:mod:`~rankmetrics.figures.text`).

>>> fig = metric_curves({"a": {"ndcg": [1.0, 0.8, 0.7]}}, ["ndcg"], cutoff=2)
>>> [(trace.name, trace.meta["role"]) for trace in fig.data]
[('a', 'curve'), ('a', 'marker'), (None, 'hover')]
>>> model_colors(["a", "b"])["b"]
'#E69F00'
"""

from __future__ import annotations

# Every module of the package draws with plotly: say how to install it before one of them
# fails to import it (this module runs before any of them).
try:
    import plotly.graph_objects  # noqa: F401
except ModuleNotFoundError as missing:
    raise ModuleNotFoundError(
        "rankmetrics.figures draws with plotly, which is not installed: "
        "pip install 'rankmetrics[figures]'",
        name=missing.name,
    ) from missing

from rankmetrics.figures.curves import coinciding, metric_curves
from rankmetrics.figures.head_to_head import (
    head_to_head_scatter,
    list_overlap_curves,
    win_tie_loss,
)
from rankmetrics.figures.ndcg import ndcg_contributions
from rankmetrics.figures.significance import pairwise_matrix
from rankmetrics.figures.style import (
    BETTER_COLOR,
    IDEAL_COLOR,
    NEUTRAL_COLOR,
    PALETTE,
    TIE_COLOR,
    WORSE_COLOR,
    metric_label,
    metric_title,
    model_colors,
)
from rankmetrics.figures.users import distribution, ecdf

__all__ = [
    "BETTER_COLOR",
    "IDEAL_COLOR",
    "NEUTRAL_COLOR",
    "PALETTE",
    "TIE_COLOR",
    "WORSE_COLOR",
    "coinciding",
    "distribution",
    "ecdf",
    "head_to_head_scatter",
    "list_overlap_curves",
    "metric_curves",
    "metric_label",
    "metric_title",
    "model_colors",
    "ndcg_contributions",
    "pairwise_matrix",
    "win_tie_loss",
]
