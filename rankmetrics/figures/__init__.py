"""Plotly figures for comparing models: curves over K (with confidence bands), per-user
distributions, NDCG breakdowns, the pairwise significance matrix and two models head to
head. Every builder takes plain values or the library's tables and returns a
``plotly.graph_objects.Figure``.

Data go into the figures as plain lists (readable in the figure's JSON), large per-user
arrays are binned or thinned first, and model names are escaped, since Plotly reads a few
HTML tags in names. Plotly is an optional dependency (``pip install 'rankmetrics[figures]'``):
the rest of the library works without it.

>>> fig = metric_curves({"a": {"ndcg": [1.0, 0.8, 0.7]}}, ["ndcg"], cutoff=2)
>>> [(trace.name, trace.meta["role"]) for trace in fig.data]
[('a', 'curve'), ('a', 'marker'), (None, 'hover')]
>>> model_colors(["a", "b"])["b"]
'#E69F00'
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

try:
    import plotly.graph_objects as go
    from plotly.colors import qualitative
    from plotly.subplots import make_subplots
except ModuleNotFoundError as missing:
    raise ModuleNotFoundError(
        "rankmetrics.figures draws with plotly, which is not installed: "
        "pip install 'rankmetrics[figures]'",
        name=missing.name,
    ) from missing

from rankmetrics.checks import check_choice
from rankmetrics.explain import NdcgBreakdown
from rankmetrics.metrics import declared
from rankmetrics.stats import p_text

# Okabe-Ito colours (distinguishable with the common colour-vision deficiencies), without its
# yellow, which is unreadable on white; then Plotly's Dark24 for long model lists.
PALETTE = (
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#999999",
    *qualitative.Dark24,
)
IDEAL_COLOR = "#BBBBBB"
TIE_COLOR = "#999999"
# Pairwise matrix: blue and red stay distinct with the common colour-vision deficiencies
# (ColorBrewer RdBu's ends); glyphs ▲ / ▼ repeat the colour in the cell text.
BETTER_COLOR, WORSE_COLOR, NEUTRAL_COLOR = "#2166AC", "#B2182B", "#E8E8E8"
MATRIX_KEY = "▲ blue: row significantly better · ▼ red: worse · grey: may be chance"
BAND_OPACITY = 0.18
SCATTER_POINTS = 2_500
SCATTER_SMALLEST, SCATTER_LARGEST = 6.0, 40.0
SCATTER_STEPS = (0.001, 0.005, 0.01, 0.02, 0.05, 0.1)
DISCRETE_LEVELS = 25
BINS = 10
ECDF_POINTS = 400
FONT = {"size": 14}
AXIS_GREY, GRID_GREY = "rgba(128, 128, 128, 0.8)", "rgba(128, 128, 128, 0.25)"


def model_colors(models: Sequence[str]) -> dict[str, str]:
    """A colour per model, by its position in the data set's model list, so that a model keeps
    its colour on every page and in every figure."""
    return {model: PALETTE[i % len(PALETTE)] for i, model in enumerate(models)}


def metric_label(metric: str, cutoff: int | None = None) -> str:
    """``"NDCG@10"``; ``"NDCG@K"`` without a cutoff; R-Precision has none.

    >>> metric_label("hit_rate", 5), metric_label("ndcg"), metric_label("r_precision", 5)
    ('HitRate@5', 'NDCG@K', 'R-Precision')
    """
    spec = declared(metric)
    if not spec.has_cutoff:
        return spec.label
    return f"{spec.label}@{'K' if cutoff is None else cutoff}"


def metric_curves(
    curves: Mapping[str, Mapping[str, Sequence[float]]],
    metrics: Sequence[str],
    cutoff: int,
    colors: Mapping[str, str] | None = None,
    *,
    bands: pd.DataFrame | None = None,
    confidence: float = 0.95,
    list_end: int | None = None,
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
    height = 300 * n_rows + 90
    plot_height = height - 70 - 50  # less the top and bottom margins
    fig = make_subplots(
        rows=n_rows, cols=n_cols,
        subplot_titles=[metric_label(metric) for metric in metrics],
        horizontal_spacing=0.07, vertical_spacing=min(0.3, 75 / plot_height),
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
                name=_plain(model), legendgroup=_plain(model), showlegend=index == 0,
                line={"color": colors[model], "width": 2.5,
                      "dash": TWIN_DASHES[twin[1] % len(TWIN_DASHES)] if twin else "solid"},
                marker={"size": 5}, hoverinfo="skip",
                meta={"metric": metric, "role": "curve"},
            ), row=row, col=col)
            if 1 <= cutoff <= len(values[model]):
                fig.add_trace(go.Scatter(
                    x=[cutoff], y=[values[model][cutoff - 1]], mode="markers",
                    name=_plain(model), legendgroup=_plain(model), showlegend=False,
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
    shaded = f"; shaded: {confidence:.0%} confidence band" if bands is not None else ""
    _titled(fig, f"Mean over users at K = 1..{max_cutoff}{shaded}; dotted line: K = {cutoff}",
            height=height)
    # The legend goes under the panels, where Plotly makes room for as many rows as a narrow
    # window needs (above them, a wrapped legend would cover the panel titles).
    fig.update_layout(
        hovermode="x", hoverlabel={"align": "left"}, margin={"t": 70},
        legend={"orientation": "h", "x": 0, "xanchor": "left", "yref": "paper",
                "y": -45 / plot_height, "yanchor": "top"},
    )
    fig.update_annotations(yshift=4)
    return fig


def _vline(x: float, axis: str, line: dict) -> dict:
    """A vertical line at ``x`` across the panel whose axes end in ``axis`` ("" for the
    first): what Plotly's ``add_vline`` adds, as a plain layout shape."""
    return {"type": "line", "x0": x, "x1": x, "xref": f"x{axis}", "y0": 0, "y1": 1,
            "yref": f"y{axis} domain", "line": line}


#: Line styles of curves drawn over an equal curve, so that both stay visible.
TWIN_DASHES = ("dash", "dot", "dashdot", "longdash")


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
        fillcolor=_translucent(color), line={"width": 0}, name=_plain(model),
        legendgroup=_plain(model), showlegend=False, hoverinfo="skip",
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
        names = " and ".join(_plain(m) for m in members)
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
            same = f" (= {_plain(twins[model][0])})" if model in twins else ""
            lines.append(f"<span style='color:{colors[model]}'>●</span> {_plain(model)}: "
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
    check_choice("kind", kind, ("histogram", "box"))
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


def pairwise_matrix(pairs: pd.DataFrame, models: Sequence[str], label: str) -> go.Figure:
    """Every model against every other: cell (row, column) holds the row model's mean minus
    the column model's and the corrected p-value, coloured by the verdict.

    Blue and ▲: the row model is significantly better; red and ▼: significantly worse;
    grey: no significant difference. The matrix is antisymmetric, so it reads from either
    side; the diagonal is empty.

    Parameters
    ----------
    pairs : a comparison table (:func:`rankmetrics.stats.paired_comparison`): model_a,
        model_b, difference (B - A), ci_low, ci_high, p_corrected, significant
    models : the models in display order (rows top to bottom, columns left to right),
        e.g. highest mean first
    label : the metric as shown, e.g. "NDCG@10"

    The heatmap trace carries ``meta = {"role": "matrix"}``; its ``z`` is +1 / -1 / 0 (NaN
    on the diagonal) and its ``text`` the cell labels.
    """
    models = list(models)
    index = {model: i for i, model in enumerate(models)}
    n = len(models)
    z: list[list[int | None]] = [[None] * n for _ in range(n)]
    text = [["–"] * n for _ in range(n)]
    hover = [[""] * n for _ in range(n)]
    names = [_plain(model) for model in models]
    columns = ["model_a", "model_b", "difference", "ci_low", "ci_high", "p_corrected",
               "significant"]
    for model_a, model_b, gap, ci_low, ci_high, p, significant in pairs[columns].itertuples(
        index=False, name=None
    ):
        if model_a not in index or model_b not in index:
            continue
        a, b = index[model_a], index[model_b]
        for r, c, sign in ((b, a, 1.0), (a, b, -1.0)):  # row r minus column c
            difference = sign * float(gap)
            low, high = sorted((sign * float(ci_low), sign * float(ci_high)))
            verdict = 0 if not significant else (1 if difference > 0 else -1)
            glyph = {1: "▲ ", -1: "▼ ", 0: ""}[verdict]
            z[r][c] = verdict
            text[r][c] = f"{glyph}{difference:+.4f}<br>{p_text(float(p))}"
            words = {1: "significantly better", -1: "significantly worse",
                     0: "no significant difference"}[verdict]
            hover[r][c] = (f"{names[r]} − {names[c]}: {difference:+.4f} "
                           f"[{low:.4f}, {high:.4f}]<br>corrected {p_text(float(p))}"
                           f"<br>{names[r]}: {words}")
    fig = go.Figure(go.Heatmap(
        z=z, x=names, y=names, text=text, customdata=hover, texttemplate="%{text}",
        textfont={"size": 13}, hovertemplate="%{customdata}<extra></extra>",
        zmin=-1.5, zmax=1.5, xgap=3, ygap=3,
        colorscale=[[0, WORSE_COLOR], [1 / 3, WORSE_COLOR], [1 / 3, NEUTRAL_COLOR],
                    [2 / 3, NEUTRAL_COLOR], [2 / 3, BETTER_COLOR], [1, BETTER_COLOR]],
        showscale=False,
        meta={"role": "matrix"},
    ))
    fig.update_layout(
        xaxis={"title": "… compared with this model", "side": "top", "showgrid": False},
        yaxis={"title": "This model …", "autorange": "reversed", "showgrid": False},
    )
    # The colour key is a line of the title rather than a colour bar, which would take a
    # third of a narrow window's width.
    _titled(fig, f"{label}: row model minus column model<br><sup>{MATRIX_KEY}</sup>",
            height=max(330, 120 + 95 * n))
    fig.update_layout(margin={"t": 110, "b": 20, "l": 60, "r": 20})
    fig.update_xaxes(showline=False)
    fig.update_yaxes(showline=False)
    return fig


def head_to_head_scatter(
    pairs: pd.DataFrame,
    model_a: str,
    model_b: str,
    label: str,
    colors: Mapping[str, str] | None = None,
    *,
    max_points: int = SCATTER_POINTS,
    higher: str | None = None,
) -> go.Figure:
    """Each user's value under model A (x) against model B (y), the diagonal marked.

    Users with the same pair of values share one dot, sized by their number (area), so
    every user is drawn however many there are; when that still leaves more than
    ``max_points`` dots, values are rounded to the first step of 0.001, 0.005, 0.01, 0.02,
    0.05 or 0.1 that leaves few enough, and the title says so. Dots above the diagonal (B
    better) take B's colour, below it A's, on it grey.

    Parameters
    ----------
    pairs : table of :func:`rankmetrics.users.head_to_head` (user, value_a, value_b,
        difference)
    model_a, model_b : the two models' names
    label : the metric as shown, e.g. "NDCG@10"
    colors : model -> colour (default :func:`model_colors` of the two)
    higher : what a higher value says of a model's list, for a metric where higher is not
        better (:func:`rankmetrics.beyond.higher_says`): the sides are named with it
        ("B recommends more popular items") instead of "B better"

    Traces carry ``meta = {"role": "users", "outcome": "b_better" | "a_better" | "tie"}``
    (``customdata``: users in the dot, an example user) and ``{"role": "diagonal"}``.
    """
    colors = dict(colors or model_colors([model_a, model_b]))
    a = pairs["value_a"].to_numpy(dtype=np.float64)
    b = pairs["value_b"].to_numpy(dtype=np.float64)
    users = pairs["user"].to_numpy().astype(str)
    outcome = np.sign(b - a).astype(np.int64)
    for step in (None, *SCATTER_STEPS):
        x, y = _rounded(a, step), _rounded(b, step)
        if len(np.unique(np.column_stack([x, y, outcome]), axis=0)) <= max_points:
            break
    name_a, name_b = _plain(model_a), _plain(model_b)
    fig = go.Figure()
    peak = 1
    groups: list[tuple[str, str, str, np.ndarray, np.ndarray, np.ndarray]] = []
    for sign, key, color, name in (
        (1, "b_better", colors[model_b], _ahead(name_b, higher)),
        (-1, "a_better", colors[model_a], _ahead(name_a, higher)),
        (0, "tie", TIE_COLOR, "same value"),
    ):
        chosen = np.flatnonzero(outcome == sign)
        if len(chosen):
            points, first, counts = np.unique(
                np.column_stack([x[chosen], y[chosen]]), axis=0, return_index=True,
                return_counts=True)
            peak = max(peak, int(counts.max()))
        else:
            points, first, counts = np.zeros((0, 2)), np.zeros(0, dtype=int), np.zeros(0, dtype=int)
        groups.append((key, color, f"{name}: {_users(len(chosen))}", points,
                       users[chosen][first], counts))
    # A dot's area grows with its users: 6 px across for one user, the largest at most 40.
    shrink = min(1.0, SCATTER_LARGEST / (SCATTER_SMALLEST * math.sqrt(peak)))
    for key, color, name, points, examples, counts in groups:
        sizes = np.maximum(4.0, SCATTER_SMALLEST * np.sqrt(counts) * shrink).round(2)
        fig.add_trace(go.Scatter(
            x=points[:, 0].tolist(), y=points[:, 1].tolist(), mode="markers", name=name,
            marker={"color": color, "size": sizes.tolist(), "opacity": 0.6,
                    "line": {"color": "white", "width": 0.5}},
            customdata=[[int(c), _plain(u)] for c, u in zip(counts, examples, strict=True)],
            hovertemplate=f"%{{customdata[0]}} user(s): {name_a} %{{x:.4f}}, {name_b} "
                          "%{y:.4f}<br>e.g. user %{customdata[1]}<extra></extra>",
            meta={"role": "users", "outcome": key},
        ))
    values = np.concatenate([a, b]) if len(a) else np.zeros(1)
    low, high = min(0.0, float(values.min())), max(1.0, float(values.max()))
    # room at both ends for the corner labels: no dot lies under them (at 10% of the range,
    # the top row of dots sits below 92% of the plot's height, the labels above 93%)
    pad = (high - low) * 0.1
    fig.add_trace(go.Scatter(
        x=[low, high], y=[low, high], mode="lines", name="diagonal: same value for both",
        line={"color": "#555555", "dash": "dash", "width": 1.5}, hoverinfo="skip",
        meta={"role": "diagonal"},
    ))
    for text, xa, ya, anchor in ((f"↖ {_ahead(name_b, higher)}", 0.02, 0.98, "left"),
                                 (f"{_ahead(name_a, higher)} ↘", 0.98, 0.02, "right")):
        fig.add_annotation(text=text, x=xa, y=ya, xref="x domain", yref="y domain",
                           xanchor=anchor, yanchor="top" if ya > 0.5 else "bottom",
                           showarrow=False, font={"color": "#333333"},
                           bgcolor="rgba(255, 255, 255, 0.85)")
    fig.update_layout(
        xaxis={"title": f"{name_a}: {label}", "range": [low - pad, high + pad],
               "constrain": "domain"},
        yaxis={"title": f"{name_b}: {label}", "range": [low - pad, high + pad],
               "scaleanchor": "x", "scaleratio": 1, "constrain": "domain"},
    )
    rounded = "" if step is None else f" (values rounded to {step:g})"
    _titled(fig, f"{label} per user{rounded}; a bigger dot is more users", height=560)
    return fig


def win_tie_loss(
    wins: int,
    ties: int,
    losses: int,
    model_a: str,
    model_b: str,
    label: str,
    colors: Mapping[str, str] | None = None,
    *,
    higher: str | None = None,
) -> go.Figure:
    """One bar split into the users model B serves better (``wins``), the users both serve
    equally (``ties``) and those A serves better (``losses``), in the models' colours.

    ``higher``: what a higher value says of a model's list, for a metric where higher is
    not better (:func:`rankmetrics.beyond.higher_says`): the parts and the title are worded
    with it ("B recommends more popular items") instead of "better".

    Traces carry ``meta = {"role": "outcome", "outcome": "b_better" | "tie" | "a_better"}``
    and ``x = [count]``.
    """
    colors = dict(colors or model_colors([model_a, model_b]))
    total = max(1, wins + ties + losses)
    name_a, name_b = _plain(model_a), _plain(model_b)
    fig = go.Figure()
    for key, count, color, name in (
        ("b_better", wins, colors[model_b], _ahead(name_b, higher)),
        ("tie", ties, TIE_COLOR, "same value"),
        ("a_better", losses, colors[model_a], _ahead(name_a, higher)),
    ):
        fig.add_trace(go.Bar(
            x=[int(count)], y=[""], orientation="h", name=name, marker_color=color,
            text=[f"{count:,} ({count / total:.0%})"], textposition="inside",
            insidetextanchor="middle", textfont={"color": "white"},
            hovertemplate=f"{name}: {count:,} users ({count / total:.1%})<extra></extra>",
            meta={"role": "outcome", "outcome": key},
        ))
    fig.update_layout(barmode="stack", xaxis={"title": "Users", "range": [0, total]},
                      yaxis={"showticklabels": False}, legend={"traceorder": "normal"})
    _titled(fig, f"Who serves each user better at {label}" if higher is None
            else f"Who {higher} to each user, at {label}", height=230)
    fig.update_layout(margin={"t": 95, "b": 45, "l": 20, "r": 20})
    return fig


def _ahead(name: str, higher: str | None) -> str:
    """A side of a comparison: "B better", or "B recommends more popular items" for a metric
    where a higher value is not better."""
    return f"{name} better" if higher is None else f"{name} {higher}"


def _rounded(values: np.ndarray, step: float | None) -> np.ndarray:
    """Values rounded to a multiple of ``step`` (to 6 decimals when None)."""
    if step is None:
        return values.round(6)
    return (np.round(values / step) * step).round(6)


def _users(count: int) -> str:
    return "1 user" if count == 1 else f"{count:,} users"


def _translucent(color: str, opacity: float = BAND_OPACITY) -> str:
    """A ``#RRGGBB`` colour as ``rgba(r, g, b, opacity)``."""
    red, green, blue = (int(color.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({red}, {green}, {blue}, {opacity})"


def _titled(fig: go.Figure, title: str, *, height: int = 440) -> go.Figure:
    """The shared look: the title on top, the legend in a row under it, then the plot."""
    fig.update_layout(
        height=height, font=FONT, margin={"t": 125, "b": 50, "l": 60, "r": 20},
        title={"text": title, "font": {"size": 16}, "x": 0, "xref": "paper",
               "y": 1, "yref": "container", "yanchor": "top", "pad": {"t": 12}},
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1 - 46 / height,
                "yref": "container", "yanchor": "top"},
    )
    # No background of its own and greys that show on white and on a dark page alike, so the
    # figure follows the page's theme (light or dark).
    # Sizes set here, not left to a page's template (Streamlit's draws ticks at 12 px).
    fig.update_xaxes(showline=True, linecolor=AXIS_GREY, gridcolor=GRID_GREY,
                     tickfont_size=13, title_font_size=14)
    fig.update_yaxes(showline=True, linecolor=AXIS_GREY, gridcolor=GRID_GREY,
                     tickfont_size=13, title_font_size=14)
    fig.update_layout(legend_font_size=14)
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
