"""Curves over K: one panel per metric, titled in words with which way is better, one line
per model, the chosen K marked, each model's confidence band shaded in its colour, and one
hover box per K listing every model.

>>> fig = metric_curves({"a": {"ndcg": [1.0, 0.8, 0.7]}}, ["ndcg"], cutoff=2)
>>> [(trace.name, trace.meta["role"]) for trace in fig.data]
[('a', 'curve'), ('a', 'marker'), (None, 'hover')]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rankmetrics.figures.style import (
    escaped,
    metric_label,
    metric_title,
    model_colors,
    styled,
    translucent,
    wrapped,
)
from rankmetrics.metrics import declared, direction_text

#: Line styles of curves drawn over an equal curve, so that both stay visible.
TWIN_DASHES = ("dash", "dot", "dashdot", "longdash")
#: Characters of a panel title's line, by panels a row (a longer title wraps), for panels
#: down to about 330 px wide (two a row) or 230 px (three); the line under it, in smaller
#: type, takes a sixth more.
PANEL_TITLE_WIDTH = {1: 90, 2: 52, 3: 36}
DIRECTION_SIZE = 12
#: Pixels a panel title's line takes, and its line in smaller type.
PANEL_LINE, DIRECTION_LINE = 18, 15


def metric_curves(
    curves: Mapping[str, Mapping[str, Sequence[float]]],
    metrics: Sequence[str],
    cutoff: int,
    colors: Mapping[str, str] | None = None,
    *,
    bands: pd.DataFrame | None = None,
    confidence: float = 0.95,
    list_end: int | None = None,
    band_name: str | None = None,
) -> go.Figure:
    """One panel per metric, one line per model over K = 1..K_max, a marker at ``cutoff``,
    and optionally each model's confidence band as a shaded area in its colour.

    Hovering a panel shows one box at that K: every model once, highest value first. A curve
    equal to an earlier model's at more than half of the cutoffs is drawn dashed on top of
    it, and a legend entry says which models coincide.

    Parameters
    ----------
    curves : model -> metric -> mean value at each K = 1..K_max
    metrics : the metrics to draw, in order (one panel each; 2 or 3 panels a row)
    cutoff : the chosen K, marked by a dotted line and a dot on every curve
    colors : model -> colour (default :func:`model_colors` of the models in ``curves``)
    bands : long table ``model, metric, cutoff, ci_low, ci_high`` (as made by
        :meth:`rankmetrics.evaluation.Evaluation.confidence_bands`), or None for no bands;
        bands at some cutoffs only are joined by straight lines
    confidence : the bands' level, named in the title
    band_name : what the bands are, for the title when they are not confidence bands (such
        as "the runs' range"); default ``"{confidence:.0%} confidence band"``
    list_end : the length of the longest list; when the curves go further, a dashed line
        marks it (beyond it the curves stay flat, Precision falls as 1/K)

    Traces carry ``meta = {"metric": ..., "role": "curve" | "marker" | "band" | "hover" |
    "coincide"}``; the ``hover`` trace of each panel holds the box's text per K in
    ``customdata``.
    """
    models = list(curves)
    colors = dict(colors or model_colors(models))
    if not metrics:
        raise ValueError("Choose at least one metric to draw.")
    band_of = {} if bands is None else {
        key: group.sort_values("cutoff") for key, group in bands.groupby(["model", "metric"])
    }
    # Two panels a row (three for exactly three): readable from 800 px wide windows up.
    n_cols = 1 if len(metrics) == 1 else 3 if len(metrics) == 3 else 2
    n_rows = math.ceil(len(metrics) / n_cols)
    titles = [panel_title(metric, PANEL_TITLE_WIDTH[n_cols]) for metric in metrics]
    # the panels keep their height; the rows move apart for titles of more than one line
    extra = max(_title_height(title) for title in titles) - PANEL_LINE
    height = (300 + extra) * n_rows + 90
    top = 70 + extra
    plot_height = height - top - 50  # less the top and bottom margins
    fig = make_subplots(
        rows=n_rows, cols=n_cols, subplot_titles=titles,
        horizontal_spacing=0.07, vertical_spacing=min(0.3, (75 + extra) / plot_height),
    )
    max_cutoff = max((len(curves[m][metric]) for m in models for metric in metrics), default=1)
    lines = "lines+markers" if max_cutoff <= 30 else "lines"
    shapes: list[dict] = []
    labels: list[dict] = []
    axes: dict[str, dict] = {}
    for index, metric in enumerate(metrics):
        row, col = index // n_cols + 1, index % n_cols + 1
        values = {model: [float(v) for v in curves[model][metric]] for model in models}
        twins = coinciding(values)
        intervals = {}
        for model in models:
            intervals[model] = _add_band(fig, band_of.get((model, metric)), model, metric,
                                         colors[model], len(values[model]), row, col)
            twin = twins.get(model)
            fig.add_trace(go.Scatter(
                x=list(range(1, len(values[model]) + 1)), y=values[model], mode=lines,
                name=escaped(model), legendgroup=escaped(model), showlegend=index == 0,
                line={"color": colors[model], "width": 2.5,
                      "dash": TWIN_DASHES[twin[1] % len(TWIN_DASHES)] if twin else "solid"},
                marker={"size": 5}, hoverinfo="skip",
                meta={"metric": metric, "role": "curve"},
            ), row=row, col=col)
            if 1 <= cutoff <= len(values[model]):
                fig.add_trace(go.Scatter(
                    x=[cutoff], y=[values[model][cutoff - 1]], mode="markers",
                    name=escaped(model), legendgroup=escaped(model), showlegend=False,
                    marker={"color": colors[model], "size": 12, "symbol": "circle",
                            "line": {"color": "white", "width": 2}},
                    meta={"metric": metric, "role": "marker"}, hoverinfo="skip",
                ), row=row, col=col)
        _add_twin_legend(fig, twins, metric, colors, row, col)
        fig.add_trace(_hover_trace(values, metric, cutoff, colors, intervals, twins),
                      row=row, col=col)
        # Lines, labels and axes as plain layout entries, set in one update below (Plotly's
        # add_vline and per-panel axis updates cost more than the panel's traces).
        axis = "" if index == 0 else str(index + 1)
        shapes.append(_vline(cutoff, axis, {"color": "#888888", "dash": "dot", "width": 1.5}))
        if list_end is not None and 1 <= list_end < max_cutoff:
            shapes.append(_vline(list_end, axis,
                                 {"color": "#888888", "dash": "dash", "width": 1}))
            labels.append({"text": "lists end", "x": list_end, "xref": f"x{axis}",
                           "xanchor": "left", "y": 0, "yref": f"y{axis} domain",
                           "yanchor": "bottom", "showarrow": False, "font": {"size": 12}})
        axes[f"xaxis{axis}"] = {"rangemode": "tozero",
                                **({"title": {"text": "K"}} if row == n_rows else {})}
        axes[f"yaxis{axis}"] = {"rangemode": "tozero", "tickformat": ".2f"}
    fig.update_layout(shapes=shapes, **axes)
    for label in labels:
        fig.add_annotation(label)
    shaded = (f"; shaded: {band_name or f'{confidence:.0%} confidence band'}"
              if bands is not None else "")
    styled(fig, f"Mean over users at K = 1..{max_cutoff}{shaded}; dotted line: K = {cutoff}",
           height=height)
    # The legend goes under the panels, where Plotly makes room for as many rows as a narrow
    # window needs (above them, a wrapped legend would cover the panel titles).
    fig.update_layout(
        hovermode="x", hoverlabel={"align": "left"}, margin={"t": top},
        legend={"orientation": "h", "x": 0, "xanchor": "left", "yref": "paper",
                "y": -45 / plot_height, "yanchor": "top"},
    )
    fig.update_annotations(yshift=4)
    return fig


def panel_title(metric: str, width: int) -> str:
    """A panel's title: the metric in words with its label at K, then which way is better
    (or what a higher value means) in smaller type, in lines of about ``width`` characters.

    >>> panel_title("ndcg", 52)
    "Ranking quality (NDCG@K)<br><span style='font-size:12px'>Higher is better</span>"
    """
    name = wrapped(metric_title(metric), width)
    direction = [f"<span style='font-size:{DIRECTION_SIZE}px'>{line}</span>"
                 for line in wrapped(direction_text(metric), width * 7 // 6).split("<br>")]
    return "<br>".join([name, *direction])


def _title_height(title: str) -> int:
    """Pixels a panel title of :func:`panel_title` takes above its panel."""
    lines = title.split("<br>")
    smaller = sum(1 for line in lines if line.startswith("<span"))
    return PANEL_LINE * (len(lines) - smaller) + DIRECTION_LINE * smaller


def _vline(x: float, axis: str, line: dict) -> dict:
    """A vertical line at ``x`` across the panel whose axes end in ``axis`` ("" for the
    first): what Plotly's ``add_vline`` adds, as a plain layout shape."""
    return {"type": "line", "x0": x, "x1": x, "xref": f"x{axis}", "y0": 0, "y1": 1,
            "yref": f"y{axis} domain", "line": line}




def coinciding(values: Mapping[str, Sequence[float]]) -> dict[str, tuple[str, int]]:
    """The curves drawn over an earlier, equal one: model -> (the first model it equals,
    its position among the models equal to that one, from 0).

    Two curves coincide when they are equal (to 1e-12) at more than half of the cutoffs.

    >>> coinciding({"a": [1.0, 1.0], "b": [0.5, 1.0], "c": [1.0, 1.0], "d": [1.0, 1.0]})
    {'c': ('a', 0), 'd': ('a', 1)}
    """
    twins: dict[str, tuple[str, int]] = {}
    firsts: list[str] = []
    for model, curve in values.items():
        array = np.asarray(curve, dtype=np.float64)
        for first in firsts:
            other = np.asarray(values[first], dtype=np.float64)
            if len(other) == len(array) and 2 * np.count_nonzero(
                    np.abs(other - array) <= 1e-12) > len(array):
                twins[model] = (first, sum(1 for f, _ in twins.values() if f == first))
                break
        else:
            firsts.append(model)
    return twins


def _add_band(fig: go.Figure, band: pd.DataFrame | None, model: str, metric: str,
              color: str, length: int, row: int, col: int) -> list[str]:
    """The model's band as a shaded area; the interval text at each K (empty where none)."""
    interval = [""] * length
    if band is None:
        return interval
    ks = band["cutoff"].astype(int).tolist()
    low = band["ci_low"].round(6).tolist()
    high = band["ci_high"].round(6).tolist()
    fig.add_trace(go.Scatter(
        x=ks + ks[::-1], y=high + low[::-1], mode="lines", fill="toself",
        fillcolor=translucent(color), line={"width": 0}, name=escaped(model),
        legendgroup=escaped(model), showlegend=False, hoverinfo="skip",
        meta={"metric": metric, "role": "band"},
    ), row=row, col=col)
    for k, lo, hi in zip(ks, low, high, strict=True):
        if 1 <= k <= length:
            interval[k - 1] = f" [{lo:.4f}, {hi:.4f}]"
    return interval


def _add_twin_legend(fig: go.Figure, twins: Mapping[str, tuple[str, int]], metric: str,
                     colors: Mapping[str, str], row: int, col: int) -> None:
    """A legend entry per group of coinciding curves (it draws nothing in the panel)."""
    groups: dict[str, list[str]] = {}
    for model, (first, _) in twins.items():
        groups.setdefault(first, [first]).append(model)
    for members in groups.values():
        names = " and ".join(escaped(m) for m in members)
        fig.add_trace(go.Scatter(
            x=[None], y=[None], mode="lines", showlegend=True,
            name=f"{names} coincide on {metric_label(metric)} (dashed)",
            line={"color": colors[members[-1]], "dash": TWIN_DASHES[0], "width": 2.5},
            hoverinfo="skip", meta={"metric": metric, "role": "coincide"},
        ), row=row, col=col)


def _hover_trace(values: Mapping[str, list[float]], metric: str, cutoff: int,
                 colors: Mapping[str, str], intervals: Mapping[str, list[str]],
                 twins: Mapping[str, tuple[str, int]]) -> go.Scatter:
    """An invisible trace along the top curve whose hover box lists every model once at
    each K, highest value first (the curves themselves show no hover box)."""
    label = declared(metric).label
    length = max(len(curve) for curve in values.values())
    texts, tops = [], []
    for k in range(1, length + 1):
        here = sorted(((curve[k - 1], model) for model, curve in values.items()
                       if k <= len(curve)), key=lambda pair: -pair[0])
        chosen = " (chosen K)" if k == cutoff else ""
        lines = [f"<b>{label}@{k}</b>{chosen}"]
        for value, model in here:
            same = f" (= {escaped(twins[model][0])})" if model in twins else ""
            lines.append(f"<span style='color:{colors[model]}'>●</span> {escaped(model)}: "
                         f"{value:.4f}{intervals[model][k - 1]}{same}")
        texts.append("<br>".join(lines))
        tops.append(here[0][0] if here else None)
    return go.Scatter(
        x=list(range(1, length + 1)), y=tops, mode="markers", showlegend=False,
        marker={"size": 8, "opacity": 0}, customdata=texts,
        hovertemplate="%{customdata}<extra></extra>",
        hoverlabel={"bgcolor": "white", "bordercolor": "#888888", "font": {"color": "#262730"}},
        meta={"metric": metric, "role": "hover"},
    )
