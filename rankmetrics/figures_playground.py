"""The playground's curves: every metric of one hand-edited list over K, with the list before
the last change drawn faintly beside it, so a class sees at once which curves moved.

>>> now = pd.DataFrame({"precision": [1.0, 0.5], "dcg": [1.0, 1.0]}, index=[1, 2])
>>> fig = playground_curves(now, now, cutoff=2)
>>> [trace.name for trace in fig.data]
['P', 'P before', 'DCG', 'DCG before']
"""

from __future__ import annotations

import pandas as pd

# plotly through rankmetrics.figures, which says how to install it when it is missing
from rankmetrics.figures import PALETTE, _titled, go, make_subplots
from rankmetrics.playground import COLUMNS, LABELS

#: Panel 1 holds the metrics between 0 and 1, panel 2 DCG and IDCG (unbounded).
SCORES = ("precision", "recall", "hit_rate", "mrr", "map", "ndcg")
SUMS = ("dcg", "idcg")
COLORS = dict(zip(COLUMNS, PALETTE, strict=False))


def playground_curves(now: pd.DataFrame, before: pd.DataFrame | None,
                      cutoff: int) -> go.Figure:
    """Each metric of ``now`` (a table of :func:`rankmetrics.playground.playground_values`)
    as a line over K, ``before`` as a dotted line of the same colour (None: no previous
    list), a dotted vertical line at ``cutoff``.

    Traces carry ``meta = {"metric": ..., "role": "now" | "before"}``.
    """
    fig = make_subplots(rows=1, cols=2, column_widths=[0.62, 0.38], horizontal_spacing=0.08,
                        subplot_titles=["Between 0 and 1", "DCG and IDCG (sums of gains)"])
    for col, metrics in ((1, SCORES), (2, SUMS)):
        for metric in [m for m in metrics if m in now]:
            for role, table in (("now", now), ("before", before)):
                if table is None or metric not in table:
                    continue
                faint = role == "before"
                fig.add_trace(_line(table, metric, role, faint), row=1, col=col)
        fig.add_vline(x=cutoff, line={"color": "#555555", "dash": "dot", "width": 1.5},
                      row=1, col=col)
        fig.update_xaxes(title_text="K", dtick=1 if len(now) <= 20 else None, row=1, col=col)
    fig.update_yaxes(range=[-0.03, 1.05], tickformat=".2f", row=1, col=1)
    fig.update_yaxes(rangemode="tozero", row=1, col=2)
    _titled(fig, f"Every metric at K = 1..{len(now)}; dotted: before the last change; "
                 f"vertical line: K = {cutoff}", height=430)
    fig.update_layout(hovermode="x unified")
    fig.update_annotations(yshift=4)
    return fig


def _line(table: pd.DataFrame, metric: str, role: str, faint: bool) -> go.Scatter:
    label = LABELS[metric]
    return go.Scatter(
        x=[int(k) for k in table.index], y=[float(v) for v in table[metric]],
        mode="lines" if faint else "lines+markers",
        name=f"{label} before" if faint else label, legendgroup=metric, showlegend=not faint,
        line={"color": COLORS[metric], "width": 1.5 if faint else 3,
              "dash": "dot" if faint else "solid"},
        opacity=0.55 if faint else 1.0, marker={"size": 6},
        meta={"metric": metric, "role": role},
        hovertemplate=f"{label}{' before' if faint else ''}: %{{y:.4f}}<extra></extra>",
    )
