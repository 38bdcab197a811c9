"""Two models head to head, user by user: each user's value under one against the other (a
scatter, users with the same pair of values in one dot), and how many users each serves
better (one split bar)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from rankmetrics.agreement import measure_title
from rankmetrics.figures.style import TIE_COLOR, escaped, model_colors, styled

SCATTER_POINTS = 2_500
SCATTER_SMALLEST, SCATTER_LARGEST = 6.0, 40.0
SCATTER_STEPS = (0.001, 0.005, 0.01, 0.02, 0.05, 0.1)


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
    name_a, name_b = escaped(model_a), escaped(model_b)
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
            customdata=[[int(c), escaped(u)] for c, u in zip(counts, examples, strict=True)],
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
    styled(fig, f"{label} per user{rounded}; a bigger dot is more users", height=560)
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
    name_a, name_b = escaped(model_a), escaped(model_b)
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
    styled(fig, f"Who serves each user better at {label}" if higher is None
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


#: Each overlap measure's line: a colour and a dash, so the lines stay apart in grey too.
OVERLAP_LINES = {
    "jaccard": ("#009E73", "solid"),
    "share_a_in_b": ("#CC79A7", "dash"),
    "share_b_in_a": ("#D55E00", "dot"),
    "rbo": ("#56B4E9", "dashdot"),
}


def list_overlap_curves(curves: pd.DataFrame, model_a: str, model_b: str, *,
                        persistence: float, cutoff: int | None = None) -> go.Figure:
    """How much two models' top K have in common, on average, at every K: one line per
    measure of :func:`rankmetrics.agreement.list_overlap` (``curves`` is its
    :meth:`~rankmetrics.agreement.ListOverlap.curves`), K = ``cutoff`` marked.

    Both shares are drawn only where they differ (they are equal when every list has the
    same length). Traces carry ``meta = {"role": "overlap", "measure": ...}``.
    """
    a, b = escaped(model_a), escaped(model_b)
    shown = ["jaccard", "share_a_in_b", "share_b_in_a", "rbo"]
    if np.allclose(curves["share_a_in_b"], curves["share_b_in_a"], rtol=0, atol=1e-12):
        shown.remove("share_b_in_a")
    fig = go.Figure()
    for measure in shown:
        color, dash = OVERLAP_LINES[measure]
        name = measure_title(measure, a, b, persistence)
        if measure == "share_a_in_b" and "share_b_in_a" not in shown:
            name = "Share of one's top K also in the other's"
        fig.add_trace(go.Scatter(
            x=curves.index.tolist(), y=curves[measure].tolist(), name=name,
            mode="lines", line={"color": color, "dash": dash, "width": 2.5},
            meta={"role": "overlap", "measure": measure},
            hovertemplate=f"{name}<br>K = %{{x}}: %{{y:.3f}}<extra></extra>"))
    if cutoff is not None:
        fig.add_vline(x=cutoff, line={"color": TIE_COLOR, "dash": "dot", "width": 1})
    fig.update_xaxes(title_text="K (the top K of each list)")
    # from 0, up to a little above the highest line: lists that share little stay readable
    top = max(float(curves[shown].to_numpy().max()), 0.05)
    fig.update_yaxes(title_text="Mean over users", range=[0, min(1.02, top * 1.15)])
    return styled(fig, f"How much {a}'s and {b}'s lists have in common",
                  subtitle="0: nothing in common, 1: the same items (and, for rank-biased "
                  "overlap, in the same order). Neither is better in itself.")
