"""How per-user values are spread, per model: histograms, box plots and cumulative
distributions. Values are binned or thinned here, so large user counts stay light in the
browser.

>>> fig = distribution({"a": [0.0, 0.5, 1.0, 1.0]}, "hit_rate", 5)
>>> [(trace.x, trace.y) for trace in fig.data]
[(('0', '0.5', '1'), (25.0, 25.0, 50.0))]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from rankmetrics.checks import check_choice
from rankmetrics.figures.style import (
    escaped,
    metric_label,
    metric_title,
    model_colors,
    styled,
    wrapped,
)
from rankmetrics.metrics import direction_text, higher_says

DISCRETE_LEVELS = 25
BINS = 10
ECDF_POINTS = 400
#: Characters of a line of the title and of the subtitle: the two charts of a page side by
#: side stay readable in a 1,280 px wide window.
TITLE_WIDTH, SUBTITLE_WIDTH = 48, 64


def distribution(
    values: Mapping[str, Sequence[float]],
    metric: str,
    cutoff: int | None,
    colors: Mapping[str, str] | None = None,
    *,
    kind: str = "histogram",
) -> go.Figure:
    """How per-user values are spread, per model: a histogram (share of users per value or
    per bin) or box plots (quartiles, 1.5 IQR whiskers, mean as a dashed line).

    Metrics taking at most 25 distinct values (HitRate, Precision at small K) get one bar
    per value; others get a bar for the users at exactly 0 and 10 equal bins above 0. Values
    are binned here, so large user counts stay light in the browser. The title names the
    metric in words, the subtitle which way is better (or what a higher value means).
    """
    check_choice("kind", kind, ("histogram", "box"))
    models = list(values)
    colors = dict(colors or model_colors(models))
    arrays = {m: np.asarray(values[m], dtype=np.float64) for m in models}
    label, title = metric_label(metric, cutoff), metric_title(metric, cutoff)
    fig = go.Figure()
    if kind == "box":
        for model in models:
            _add_box(fig, model, arrays[model], colors[model], label)
        fig.update_layout(yaxis_title=label, xaxis_title="Model", showlegend=False)
    else:
        _add_histogram(fig, models, arrays, colors, label)
        fig.update_layout(xaxis_title=label, yaxis_title="Share of users (%)", barmode="group",
                          bargap=0.15)
    styled(fig, wrapped(f"{title}: how it spreads over users", TITLE_WIDTH),
           subtitle=wrapped(direction_text(metric), SUBTITLE_WIDTH), height=470)
    return fig


def ecdf(
    values: Mapping[str, Sequence[float]],
    metric: str,
    cutoff: int | None,
    colors: Mapping[str, str] | None = None,
) -> go.Figure:
    """The empirical cumulative distribution per model: the share of users whose value is at
    most x. A curve lying to the right is better (or, where higher is not better, has higher
    values: the subtitle says what that means). Thinned to about 400 steps per model."""
    models = list(values)
    colors = dict(colors or model_colors(models))
    label, title = metric_label(metric, cutoff), metric_title(metric, cutoff)
    higher = higher_says(metric)
    fig = go.Figure()
    for model in models:
        x, y = _ecdf_steps(np.asarray(values[model], dtype=np.float64))
        name = escaped(model)
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines", line={"shape": "hv", "color": colors[model], "width": 2.5},
            name=name, meta={"role": "ecdf"},
            hovertemplate=f"{name}: %{{y:.1%}} of users have {label} ≤ %{{x:.4f}}<extra></extra>",
        ))
    fig.update_layout(
        xaxis_title=label, yaxis={"title": "Share of users at or below", "tickformat": ".0%",
                                  "range": [0, 1.02]},
    )
    reading = ("A curve further right is better" if higher is None
               else f"A model whose curve lies further right {higher}")
    styled(fig, wrapped(f"{title}: cumulative share of users", TITLE_WIDTH),
           subtitle=wrapped(reading, SUBTITLE_WIDTH), height=470)
    return fig


def _add_histogram(
    fig: go.Figure,
    models: list[str],
    arrays: dict[str, np.ndarray],
    colors: dict[str, str],
    label: str,
) -> None:
    finite = [a[np.isfinite(a)] for a in arrays.values()]
    pooled = np.concatenate(finite) if finite else np.zeros(0)
    levels = np.unique(pooled)
    if len(levels) <= DISCRETE_LEVELS:
        names = [_level(v) for v in levels]
        for model in models:
            values = arrays[model]
            counts = np.array([np.count_nonzero(values == v) for v in levels])
            name = escaped(model)
            fig.add_trace(go.Bar(
                x=names, y=_percent(counts, len(values)), name=name,
                marker_color=colors[model], meta={"role": "histogram"},
                hovertemplate=f"{name}: %{{y:.1f}}% of users have {label} = %{{x}}"
                              "<extra></extra>",
            ))
        fig.update_xaxes(type="category", categoryorder="array", categoryarray=names)
        return
    high = max(1.0, float(pooled.max()))
    width = high / BINS
    edges = np.linspace(0.0, high, BINS + 1)
    # Users at exactly 0 (nothing relevant found) get their own bar, left of the bins.
    centers = [-width, *((edges[:-1] + edges[1:]) / 2).round(6).tolist()]
    ranges = ["exactly 0", *(f"{a:.2f}–{b:.2f}" for a, b in zip(edges[:-1], edges[1:],
                                                                 strict=True))]
    for model in models:
        values = arrays[model]
        finite = values[np.isfinite(values)]
        positive, _ = np.histogram(finite[finite != 0], bins=edges)
        counts = np.concatenate([[np.count_nonzero(finite == 0)], positive])
        name = escaped(model)
        fig.add_trace(go.Bar(
            x=centers, y=_percent(counts, len(values)), name=name, customdata=ranges,
            marker_color=colors[model], meta={"role": "histogram"},
            hovertemplate=f"{name}: %{{y:.1f}}% of users have {label} %{{customdata}}"
                          "<extra></extra>",
        ))
    ticks = np.linspace(0.0, high, 6).round(6).tolist()[1:]
    fig.update_xaxes(range=[-1.6 * width, high + 0.1 * width], tickvals=[-width, *ticks],
                     ticktext=["= 0", *(f"{t:g}" for t in ticks)])


def _add_box(fig: go.Figure, model: str, values: np.ndarray, color: str, label: str) -> None:
    name = escaped(model)
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return
    q1, median, q3 = np.quantile(values, [0.25, 0.5, 0.75])
    spread = q3 - q1
    inside = values[(values >= q1 - 1.5 * spread) & (values <= q3 + 1.5 * spread)]
    fig.add_trace(go.Box(
        x=[name], q1=[float(q1)], median=[float(median)], q3=[float(q3)],
        lowerfence=[float(inside.min())], upperfence=[float(inside.max())],
        mean=[float(values.mean())], name=name, marker_color=color, boxmean=True,
        meta={"role": "box"}, hoverinfo="y",
    ))


def _ecdf_steps(values: np.ndarray) -> tuple[list[float], list[float]]:
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return [], []
    levels, counts = np.unique(values, return_counts=True)
    shares = np.cumsum(counts) / len(values)
    if len(levels) > ECDF_POINTS:
        keep = np.unique(np.linspace(0, len(levels) - 1, ECDF_POINTS).round().astype(int))
        levels, shares = levels[keep], shares[keep]
    return levels.round(6).tolist(), shares.round(6).tolist()


def _percent(counts: np.ndarray, total: int) -> list[float]:
    if total == 0:
        return [0.0] * len(counts)
    return (100.0 * np.asarray(counts) / total).round(4).tolist()


def _level(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.4g}"
