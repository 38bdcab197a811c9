"""Figures of the beyond-accuracy metrics: curves over K, the accuracy trade-off at one K
and the popularity deciles. Pure builders returning plotly figures, like
:mod:`rankmetrics.figures` (whose curves and colours they reuse)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go

from rankmetrics.figures.curves import metric_curves
from rankmetrics.figures.style import (
    escaped,
    in_sentence,
    metric_label,
    metric_title,
    model_colors,
    styled,
    wrapped,
)
from rankmetrics.metrics import SYSTEM_METRICS, declared, higher_says

TRUTH_COLOR = "#7f7f7f"


def beyond_curves(
    curves: Mapping[str, Mapping[str, Sequence[float]]],
    metrics: Sequence[str],
    cutoff: int,
    colors: Mapping[str, str] | None = None,
) -> go.Figure:
    """One panel per beyond-accuracy metric, one line per model over K, as
    :func:`rankmetrics.figures.metric_curves` draws the accuracy metrics."""
    fig = metric_curves(curves, metrics, cutoff, colors)
    system = [declared(m).label for m in metrics if m in SYSTEM_METRICS]
    words = "Mean over users"
    if system:
        words += f" ({', '.join(system)}: one value for all users)"
    max_cutoff = max(len(values) for by_metric in curves.values()
                     for values in by_metric.values())
    fig.update_layout(title={"text": f"{words} at K = 1..{max_cutoff}; dotted line: K = "
                                     f"{cutoff}"})
    fig.update_yaxes(tickformat=".3~g")
    return fig


def tradeoff(
    points: pd.DataFrame,
    accuracy: str,
    beyond: str,
    cutoff: int,
    colors: Mapping[str, str] | None = None,
    *,
    confidence: float = 0.95,
) -> go.Figure:
    """One point per model: a beyond-accuracy metric (x) against an accuracy metric (y) at
    one cutoff, each with its confidence interval as error bars. The title and the axes name
    both metrics in words; the subtitle says which way is better on each axis, or what a
    model further right does where higher is not better.

    ``points`` has one row per model: ``model``, ``x``, ``x_low``, ``x_high``, ``y``,
    ``y_low``, ``y_high``; an interval of NaN is not drawn (a value without one).
    """
    models = points["model"].tolist()
    colors = dict(colors or model_colors(models))
    x_label, y_label = metric_label(beyond, cutoff), metric_label(accuracy, cutoff)
    x_title, y_title = metric_title(beyond, cutoff), metric_title(accuracy, cutoff)
    fig = go.Figure()
    for row in points.to_dict("records"):
        model, x, y = str(row["model"]), float(row["x"]), float(row["y"])
        name = escaped(model)
        error_x, x_range = _interval(x, float(row["x_low"]), float(row["x_high"]),
                                     colors[model])
        error_y, y_range = _interval(y, float(row["y_low"]), float(row["y_high"]),
                                     colors[model])
        fig.add_trace(go.Scatter(
            x=[x], y=[y], mode="markers+text", name=name, text=[name],
            textposition="top center", marker={"color": colors[model], "size": 14},
            error_x=error_x, error_y=error_y,
            hovertemplate=(f"{name}<br>{x_label}: %{{x:.4f}}{x_range}"
                           f"<br>{y_label}: %{{y:.4f}}{y_range}<extra></extra>"),
        ))
    fig.update_xaxes(title_text=x_title)
    fig.update_yaxes(title_text=y_title)
    styled(fig, wrapped(f"{y_title} against {in_sentence(x_title)}", 90),
           subtitle=f"{_directions(accuracy, beyond)}; bars: {confidence:.0%} confidence "
                    "intervals", height=480)
    return fig


def _directions(up: str, right: str) -> str:
    """Which way is better on a scatter of ``up`` against ``right``, or what a model further
    that way does where higher is not better.

    >>> _directions("ndcg", "recall_long_tail")
    'Higher is better on both axes'
    >>> _directions("ndcg", "arp")
    'Further up is better; a model further right recommends more popular items'
    """
    up_higher, right_higher = higher_says(up), higher_says(right)
    if up_higher is None and right_higher is None:
        return "Higher is better on both axes"
    up_words = "Further up is better" if up_higher is None else f"A model further up {up_higher}"
    right_words = ("further right is better" if right_higher is None
                   else f"a model further right {right_higher}")
    return f"{up_words}; {right_words}"


def _interval(value: float, low: float, high: float, color: str) -> tuple[dict, str]:
    """An error bar from ``low`` to ``high`` and its text for the hover (none for NaN)."""
    if math.isnan(low) or math.isnan(high):
        return {"visible": False}, ""
    return ({"type": "data", "symmetric": False, "array": [high - value],
             "arrayminus": [value - low], "color": color}, f" [{low:.4f}, {high:.4f}]")


def popularity_deciles(
    shares: pd.DataFrame, cutoff: int, colors: Mapping[str, str] | None = None,
) -> go.Figure:
    """How each model's top K spreads over the catalogue's popularity deciles (1: the most
    popular tenth of the items), next to the relevant items of the ground truth (grey).

    ``shares`` is :meth:`rankmetrics.beyond.BeyondAccuracy.popularity_deciles`' table.
    """
    sources = list(dict.fromkeys(shares["source"]))
    models = [source for source in sources if source != "ground truth"]
    colors = dict(colors or model_colors(models))
    fig = go.Figure()
    for source in sources:
        part = shares[shares["source"] == source]
        name = escaped(source)
        fig.add_trace(go.Bar(
            x=part["decile"].tolist(), y=part["share"].tolist(), name=name,
            marker={"color": colors.get(source, TRUTH_COLOR),
                    "pattern": {"shape": "/" if source == "ground truth" else ""}},
            hovertemplate=f"{name}: %{{y:.1%}} in decile %{{x}}<extra></extra>",
        ))
    fig.update_xaxes(title_text="Popularity decile of the catalogue (1: most popular)",
                     tickmode="linear", dtick=1)
    fig.update_yaxes(title_text="Share", tickformat=".0%")
    fig.update_layout(barmode="group")
    styled(fig, f"Where the top {cutoff} falls by item popularity, against the relevant "
                "items of the ground truth", height=420)
    return fig


#: The bars of what a model's exposure is set against: the catalogue and the relevant items.
BASELINES = {"catalogue": ("#bdbdbd", ""), "relevant items": (TRUTH_COLOR, "/")}


def exposure_shares(
    shares: pd.DataFrame, cutoff: int, groups: str,
    colors: Mapping[str, str] | None = None,
) -> go.Figure:
    """Each item group's share of each model's exposure in the top K, next to its share of
    the catalogue's items (light grey) and of the relevant items (grey, hatched).

    ``shares`` is :meth:`rankmetrics.evaluation.BeyondAccuracy.exposure`'s table; ``groups``
    the grouping it was made with (``popularity`` or ``categories``).
    """
    sources = list(dict.fromkeys(shares["source"]))
    models = [source for source in sources if source not in BASELINES]
    colors = dict(colors or model_colors(models))
    fig = go.Figure()
    for source in sources:
        part = shares[shares["source"] == source]
        name = escaped(source)
        color, pattern = BASELINES.get(source, (colors.get(source, TRUTH_COLOR), ""))
        what = "of the exposure" if source not in BASELINES else "of the items"
        fig.add_trace(go.Bar(
            x=[escaped(group) for group in part["group"]], y=part["share"].tolist(),
            name=name, marker={"color": color, "pattern": {"shape": pattern}},
            hovertemplate=f"{name}: %{{y:.1%}} {what} in %{{x}}<extra></extra>",
        ))
    fig.update_xaxes(title_text="Popularity" if groups == "popularity" else "Category")
    fig.update_yaxes(title_text="Share", tickformat=".0%")
    fig.update_layout(barmode="group")
    styled(fig, f"Each group's share of the attention in the top {cutoff}, against its share "
                "of the catalogue and of the relevant items", height=420)
    return fig
