"""Plotly figures for comparing models: curves over K, per-user distributions, NDCG
breakdowns. Every builder takes plain values and returns a ``plotly.graph_objects.Figure``.

Data go into the figures as plain lists (readable in the figure's JSON), large per-user
arrays are binned or thinned first, and model names are escaped, since Plotly reads a few
HTML tags in names.

>>> fig = metric_curves({"a": {"ndcg": [1.0, 0.8, 0.7]}}, ["ndcg"], cutoff=2)
>>> [trace.name for trace in fig.data]
['a', 'a']
>>> model_colors(["a", "b"])["b"]
'#E69F00'
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from rankmetrics.explain import NdcgBreakdown
from rankmetrics.metrics import METRICS

# Okabe-Ito colours (distinguishable with the common colour-vision deficiencies), without its
# yellow, which is unreadable on white; then Plotly's Dark24 for long model lists.
PALETTE = (
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#999999",
    *qualitative.Dark24,
)
IDEAL_COLOR = "#BBBBBB"
DISCRETE_LEVELS = 25
BINS = 10
ECDF_POINTS = 400
FONT = {"size": 14}


def model_colors(models: Sequence[str]) -> dict[str, str]:
    """A colour per model, by its position in the data set's model list, so that a model keeps
    its colour on every page and in every figure."""
    return {model: PALETTE[i % len(PALETTE)] for i, model in enumerate(models)}


def metric_label(metric: str, cutoff: int | None = None) -> str:
    """``"NDCG@10"``; ``"NDCG@K"`` without a cutoff; R-Precision has none.

    >>> metric_label("hit_rate", 5), metric_label("ndcg"), metric_label("r_precision", 5)
    ('HitRate@5', 'NDCG@K', 'R-Precision')
    """
    spec = METRICS[metric]
    if not spec.has_cutoff:
        return spec.label
    return f"{spec.label}@{'K' if cutoff is None else cutoff}"


def metric_curves(
    curves: Mapping[str, Mapping[str, Sequence[float]]],
    metrics: Sequence[str],
    cutoff: int,
    colors: Mapping[str, str] | None = None,
) -> go.Figure:
    """One panel per metric, one line per model over K = 1..K_max, a marker at ``cutoff``.

    Parameters
    ----------
    curves : model -> metric -> mean value at each K = 1..K_max
    metrics : the metrics to draw, in order (one panel each; 2 or 3 panels a row)
    cutoff : the chosen K, marked by a dotted line and a dot on every curve
    colors : model -> colour (default :func:`model_colors` of the models in ``curves``)

    Traces carry ``meta = {"metric": ..., "role": "curve" | "marker"}``.
    """
    models = list(curves)
    colors = dict(colors or model_colors(models))
    if not metrics:
        raise ValueError("Choose at least one metric to draw.")
    n_cols = 1 if len(metrics) == 1 else 2 if len(metrics) in (2, 4) else 3
    n_rows = math.ceil(len(metrics) / n_cols)
    fig = make_subplots(
        rows=n_rows, cols=n_cols,
        subplot_titles=[metric_label(metric) for metric in metrics],
        horizontal_spacing=0.07, vertical_spacing=0.16 if n_rows > 1 else 0.1,
    )
    max_cutoff = max((len(curves[m][metric]) for m in models for metric in metrics), default=1)
    lines = "lines+markers" if max_cutoff <= 30 else "lines"
    for index, metric in enumerate(metrics):
        row, col = index // n_cols + 1, index % n_cols + 1
        label = METRICS[metric].label
        for model in models:
            values = [float(v) for v in curves[model][metric]]
            name = _plain(model)
            fig.add_trace(go.Scatter(
                x=list(range(1, len(values) + 1)), y=values, mode=lines, name=name,
                legendgroup=name, showlegend=index == 0,
                line={"color": colors[model], "width": 2.5}, marker={"size": 5},
                meta={"metric": metric, "role": "curve"},
                hovertemplate=f"{name}: %{{y:.4f}}<extra>{label}@%{{x}}</extra>",
            ), row=row, col=col)
            if 1 <= cutoff <= len(values):
                fig.add_trace(go.Scatter(
                    x=[cutoff], y=[values[cutoff - 1]], mode="markers", name=name,
                    legendgroup=name, showlegend=False,
                    marker={"color": colors[model], "size": 12, "symbol": "circle",
                            "line": {"color": "white", "width": 2}},
                    meta={"metric": metric, "role": "marker"},
                    hovertemplate=f"{name}: %{{y:.4f}}<extra>{label}@{cutoff} (chosen K)</extra>",
                ), row=row, col=col)
        fig.add_vline(x=cutoff, line={"color": "#555555", "dash": "dot", "width": 1.5},
                      row=row, col=col)
        fig.update_xaxes(title_text="K" if row == n_rows else None, rangemode="tozero",
                         row=row, col=col)
        fig.update_yaxes(rangemode="tozero", tickformat=".2f", row=row, col=col)
    _titled(fig, f"Mean over users at K = 1..{max_cutoff}; dotted line: K = {cutoff}",
             height=330 * n_rows + 60)
    fig.update_layout(hovermode="x unified")
    fig.update_annotations(yshift=4)
    return fig


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
    are binned here, so large user counts stay light in the browser.
    """
    if kind not in ("histogram", "box"):
        raise ValueError(f"kind must be 'histogram' or 'box'. Got {kind!r}.")
    models = list(values)
    colors = dict(colors or model_colors(models))
    arrays = {m: np.asarray(values[m], dtype=np.float64) for m in models}
    label = metric_label(metric, cutoff)
    fig = go.Figure()
    if kind == "box":
        for model in models:
            _add_box(fig, model, arrays[model], colors[model], label)
        fig.update_layout(yaxis_title=label, xaxis_title="Model", showlegend=False)
    else:
        _add_histogram(fig, models, arrays, colors, label)
        fig.update_layout(xaxis_title=label, yaxis_title="Share of users (%)", barmode="group",
                          bargap=0.15)
    _titled(fig, f"Distribution of {label} over users")
    return fig


def ecdf(
    values: Mapping[str, Sequence[float]],
    metric: str,
    cutoff: int | None,
    colors: Mapping[str, str] | None = None,
) -> go.Figure:
    """The empirical cumulative distribution per model: the share of users whose value is at
    most x. A curve lying to the right is better. Thinned to about 400 steps per model."""
    models = list(values)
    colors = dict(colors or model_colors(models))
    label = metric_label(metric, cutoff)
    fig = go.Figure()
    for model in models:
        x, y = _ecdf_steps(np.asarray(values[model], dtype=np.float64))
        name = _plain(model)
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines", line={"shape": "hv", "color": colors[model], "width": 2.5},
            name=name, meta={"role": "ecdf"},
            hovertemplate=f"{name}: %{{y:.1%}} of users have {label} ≤ %{{x:.4f}}<extra></extra>",
        ))
    fig.update_layout(
        xaxis_title=label, yaxis={"title": "Share of users at or below", "tickformat": ".0%",
                                  "range": [0, 1.02]},
    )
    _titled(fig, f"Cumulative share of users by {label}")
    return fig


def ndcg_contributions(
    breakdown: NdcgBreakdown, color: str = PALETTE[0], model: str = "model"
) -> go.Figure:
    """What each rank adds to DCG (bars: gain / log2(rank + 1)) in the model's list and in the
    ideal list, with the two totals in the legend."""
    k = breakdown.cutoff
    fig = go.Figure()
    ranked, ideal = breakdown.ranked, breakdown.ideal
    name = _plain(model)
    fig.add_trace(go.Bar(
        x=ranked["rank"].tolist(), y=ranked["contribution"].round(6).tolist(),
        name=f"{name}'s list: DCG@{k} = {breakdown.dcg:.4f}", marker_color=color,
        text=[f"{v:.3f}" if v > 0 else "" for v in ranked["contribution"]],
        textposition="outside", meta={"role": "ranked"},
        customdata=ranked["item"].map(_plain).tolist(),
        hovertemplate="rank %{x}: item %{customdata}<br>adds %{y:.4f}<extra></extra>",
    ))
    fig.add_trace(go.Bar(
        x=ideal["rank"].tolist(), y=ideal["contribution"].round(6).tolist(),
        name=f"ideal list: IDCG@{k} = {breakdown.idcg:.4f}", marker_color=IDEAL_COLOR,
        text=[f"{v:.3f}" for v in ideal["contribution"]], textposition="outside",
        meta={"role": "ideal"}, customdata=ideal["item"].map(_plain).tolist(),
        hovertemplate="ideal rank %{x}: item %{customdata}<br>adds %{y:.4f}<extra></extra>",
    ))
    top = max([*ranked["contribution"], *ideal["contribution"], 0.1])
    fig.update_layout(
        barmode="group",
        xaxis={"title": "Rank", "dtick": 1 if k <= 20 else None, "range": [0.4, k + 0.6]},
        yaxis={"title": "gain / log2(rank + 1)", "range": [0, top * 1.2]},
    )
    _titled(fig, f"What each rank adds: NDCG@{k} = {breakdown.dcg:.4f} / "
                 f"{breakdown.idcg:.4f} = {breakdown.ndcg:.4f}", height=400)
    return fig


def _titled(fig: go.Figure, title: str, *, height: int = 440) -> go.Figure:
    """The shared look: the title on top, the legend in a row under it, then the plot."""
    fig.update_layout(
        height=height, font=FONT, margin={"t": 125, "b": 50, "l": 60, "r": 20},
        title={"text": title, "font": {"size": 16}, "x": 0, "xref": "paper",
               "y": 1, "yref": "container", "yanchor": "top", "pad": {"t": 12}},
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1 - 46 / height,
                "yref": "container", "yanchor": "top"},
        plot_bgcolor="white",
    )
    fig.update_xaxes(showline=True, linecolor="#888888", gridcolor="#eeeeee")
    fig.update_yaxes(showline=True, linecolor="#888888", gridcolor="#eeeeee")
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
            name = _plain(model)
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
        name = _plain(model)
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
    name = _plain(model)
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


def _plain(text: object) -> str:
    """Text shown literally by Plotly, which would otherwise read tags such as <b> or <a>."""
    return html.escape(str(text), quote=False)
