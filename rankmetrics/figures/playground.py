"""The playground's curves: every metric of one hand-edited list over K, with the list before
the last change drawn faintly beside it, so a class sees at once which curves moved.

>>> now = pd.DataFrame({"precision": [1.0, 0.5], "dcg": [1.0, 1.0]}, index=[1, 2])
>>> fig = playground_curves(now, now, cutoff=2)
>>> [trace.name for trace in fig.data]
['P', 'P before', 'DCG', 'DCG before']
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from rankmetrics.figures.style import PALETTE, styled
from rankmetrics.playground import COLUMNS, LABELS

#: Panel 1 holds the metrics between 0 and 1, panel 2 DCG and IDCG (unbounded).
SCORES = ("precision", "recall", "hit_rate", "mrr", "map", "ndcg")
SUMS = ("dcg", "idcg")
COLORS = dict(zip(COLUMNS, PALETTE, strict=False))


def playground_curves(now: pd.DataFrame, before: pd.DataFrame | None,
                      cutoff: int) -> go.Figure:
    """Each metric of ``now`` (a table of :func:`rankmetrics.playground.playground_values`)
    as a line over K, ``before`` as a dotted line of the same colour (None: no previous
    list), a dotted vertical line at ``cutoff``: the metrics between 0 and 1 on the left,
    DCG and IDCG on the right.

    Traces carry ``meta = {"metric": ..., "role": "now" | "before"}``. The figure is built
    from plain dicts in one go (a move redraws it, so it must be quick to make).
    """
    traces = []
    for axis, metrics in (("", SCORES), ("2", SUMS)):
        for metric in [m for m in metrics if m in now]:
            for role, table in (("now", now), ("before", before)):
                if table is not None and metric in table:
                    traces.append(_line(table, metric, role, axis))
    line = {"color": "#555555", "dash": "dot", "width": 1.5}
    ticks = {"title": {"text": "K"}, "dtick": 1 if len(now) <= 20 else None}
    layout = {
        "xaxis": {"domain": [0, 0.58], **ticks},
        "xaxis2": {"domain": [0.68, 1], "anchor": "y2", **ticks},
        "yaxis": {"range": [-0.03, 1.05], "tickformat": ".2f"},
        "yaxis2": {"anchor": "x2", "rangemode": "tozero"},
        "shapes": [{"type": "line", "xref": f"x{axis}", "yref": f"y{axis} domain",
                    "x0": cutoff, "x1": cutoff, "y0": 0, "y1": 1, "line": line}
                   for axis in ("", "2")],
        "annotations": [{"text": title, "showarrow": False, "xref": "paper", "yref": "paper",
                         "x": x, "y": 1.0, "xanchor": "center", "yanchor": "bottom",
                         "font": {"size": 14, "color": "#666666"}}
                        for title, x in (("Between 0 and 1", 0.29),
                                         ("DCG and IDCG (sums of gains)", 0.84))],
        "hovermode": "x unified",
    }
    fig = go.Figure(data=traces, layout=layout)
    return styled(fig, f"Every metric at K = 1..{len(now)}; dotted: before the last change; "
                       f"vertical line: K = {cutoff}", height=430)


def _line(table: pd.DataFrame, metric: str, role: str, axis: str) -> dict:
    label, faint = LABELS[metric], role == "before"
    return {
        "type": "scatter", "xaxis": f"x{axis}", "yaxis": f"y{axis}",
        "x": [int(k) for k in table.index], "y": [float(v) for v in table[metric]],
        "mode": "lines" if faint else "lines+markers",
        "name": f"{label} before" if faint else label, "legendgroup": metric,
        "showlegend": not faint, "opacity": 0.55 if faint else 1.0,
        "line": {"color": COLORS[metric], "width": 1.5 if faint else 3,
                 "dash": "dot" if faint else "solid"},
        "marker": {"size": 6}, "meta": {"metric": metric, "role": role},
        "hovertemplate": f"{label}{' before' if faint else ''}: %{{y:.4f}}<extra></extra>",
    }
