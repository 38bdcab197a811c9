"""Plotly figures of the Choosing-K analyses: curves with their crossovers, Kendall's tau
over K, the share of pairs told apart (or one pair's p-value) over K, a difference with its
interval, winner maps and the tie bounds. Each takes the tables of
:mod:`rankmetrics.choosing_k.report` and returns a ``plotly.graph_objects.Figure``; model
names are escaped as in :mod:`rankmetrics.figures`.

>>> from rankmetrics.choosing_k.order import crossovers
>>> table = pd.DataFrame({"a": [0.5, 0.3], "b": [0.2, 0.4]}, index=[1, 2])
>>> fig = order_figure(table, crossovers(table), "ndcg", 1)
>>> [trace.name for trace in fig.data]
['a', 'b', 'crossings']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rankmetrics.figures.style import BAND_OPACITY, FONT, escaped, model_colors, translucent
from rankmetrics.metrics import METRICS

ZERO_COLOR = "#555555"
CHOSEN_COLOR = "#888888"
SIGNIFICANT_SYMBOL, NOT_SIGNIFICANT_SYMBOL = "square", "square-open"
#: A winner map's margins, and how far (pixels) below its plot the legend starts: past the
#: axis's numbers and title.
MAP_MARGINS = {"t": 60, "b": 100, "l": 60, "r": 20}
LEGEND_BELOW_AXIS = 58


def _layout(figure: go.Figure, title: str, y_title: str, height: int = 420) -> go.Figure:
    figure.update_layout(title=title, xaxis_title="K (cutoff)", yaxis_title=y_title,
                         height=height, font=FONT, hovermode="x unified",
                         legend={"orientation": "h", "y": -0.2},
                         margin={"t": 60, "b": 40, "l": 60, "r": 20})
    return figure


def _chosen(figure: go.Figure, chosen: int) -> None:
    figure.add_vline(x=chosen, line={"color": CHOSEN_COLOR, "dash": "dot", "width": 1},
                     annotation_text=f"K = {chosen}", annotation_position="top")


def order_figure(table: pd.DataFrame, found: pd.DataFrame, metric: str, chosen: int,
                 colors: Mapping[str, str] | None = None) -> go.Figure:
    """Each model's curve of ``metric`` over K, a circle where two models cross (the first K
    of the new order) and a dotted line at the chosen K."""
    colors = dict(colors or model_colors([str(m) for m in table.columns]))
    figure = go.Figure()
    cutoffs = table.index.to_list()
    for model in table.columns:
        figure.add_trace(go.Scatter(x=cutoffs, y=table[model].tolist(), name=escaped(model),
                                    mode="lines", line={"color": colors[model], "width": 2.5}))
    figure.add_trace(go.Scatter(
        x=found["cutoff"].tolist(), y=found["value_ahead"].tolist(), name="crossings",
        mode="markers", marker={"symbol": "circle-open", "size": 14, "color": "#000000",
                                "line": {"width": 2}},
        text=[f"{escaped(a)} passes {escaped(b)} at K = {k}" for a, b, k
              in zip(found["ahead"], found["behind"], found["cutoff"], strict=True)],
        hovertemplate="%{text}<extra></extra>",
    ))
    _chosen(figure, chosen)
    label = METRICS[metric].label
    return _layout(figure, f"{label} over K, with the cutoffs where two models cross", label)


def tau_figure(agreement: pd.DataFrame, chosen: int) -> go.Figure:
    """Kendall's tau between the order at each K and at the chosen K."""
    figure = go.Figure(go.Scatter(x=agreement["cutoff"].tolist(),
                                  y=agreement["kendall_tau"].tolist(), mode="lines+markers",
                                  name="Kendall's tau", line={"color": "#0072B2"},
                                  marker={"size": 4}))
    figure.update_yaxes(range=[-1.05, 1.05])
    _chosen(figure, chosen)
    return _layout(figure, f"Agreement of the order at each K with the order at K = {chosen}",
                   "Kendall's tau", height=320)


def power_figure(power: Mapping[str, pd.DataFrame], chosen: int) -> go.Figure:
    """The share of model pairs that differ significantly at each K, one line per metric."""
    figure = go.Figure()
    for position, (label, table) in enumerate(power.items()):
        figure.add_trace(go.Scatter(
            x=table["cutoff"].tolist(), y=table["share"].tolist(), name=label,
            mode="lines+markers", marker={"size": 5},
            line={"width": 3 if position == 0 else 1.5},
        ))
    figure.update_yaxes(range=[-0.03, 1.03], tickformat=".0%")
    _chosen(figure, chosen)
    return _layout(figure, "Share of model pairs that differ significantly, at each K",
                   "pairs significant")


def p_value_figure(tests: pd.DataFrame, level: float, chosen: int, label: str) -> go.Figure:
    """The corrected p-value of the one pair of models at each K, on a log scale, with the
    significance level marked."""
    floor = 1e-16
    figure = go.Figure(go.Scatter(
        x=tests["cutoff"].tolist(), y=np.maximum(tests["p_corrected"], floor).tolist(),
        mode="lines+markers", name="p-value", line={"color": "#0072B2"}, marker={"size": 5}))
    figure.add_hline(y=level, line={"color": "#B2182B", "dash": "dash"},
                     annotation_text=f"significance level {level:g}")
    figure.update_yaxes(type="log")
    _chosen(figure, chosen)
    return _layout(figure, f"p-value of the difference on {label}, at each K", "p-value")


def difference_figure(band: pd.DataFrame, model_a: str, model_b: str, label: str,
                      confidence: float, chosen: int) -> go.Figure:
    """The difference B - A over K with its confidence band, and zero marked."""
    color = "#0072B2"
    cutoffs = band["cutoff"].tolist()
    # cutoffs with gaps (a saved evaluation's): a dot where each difference was computed
    gaps = cutoffs != list(range(cutoffs[0], cutoffs[-1] + 1))
    figure = go.Figure([
        go.Scatter(x=cutoffs + cutoffs[::-1],
                   y=band["ci_high"].tolist() + band["ci_low"].tolist()[::-1],
                   mode="lines", fill="toself", fillcolor=translucent(color),
                   line={"width": 0}, name=f"{confidence:.0%} interval", hoverinfo="skip"),
        go.Scatter(x=cutoffs, y=band["difference"].tolist(),
                   mode="lines+markers" if gaps else "lines", name="difference",
                   line={"color": color, "width": 2.5}, marker={"size": 6}),
    ])
    figure.add_hline(y=0, line={"color": ZERO_COLOR, "width": 1.5})
    _chosen(figure, chosen)
    return _layout(figure, f"{escaped(model_b)} − {escaped(model_a)} on {label}, with its "
                           f"{confidence:.0%} confidence band", "difference")


def winner_map_figure(winners: pd.DataFrame, rows: Sequence[str], title: str,
                      colors: Mapping[str, str], chosen: int) -> go.Figure:
    """Each row's best model at each K (the colour of the model), filled where it is
    significantly best, open where the data cannot tell it from the next."""
    figure = go.Figure()
    for model, color in colors.items():
        mine = winners.loc[winners["best"] == model]
        if mine.empty:
            continue
        figure.add_trace(go.Scatter(
            x=mine["cutoff"].tolist(), y=mine["row"].tolist(), mode="markers",
            name=escaped(model),
            marker={"color": color, "size": 11, "line": {"color": color, "width": 2},
                    "symbol": [SIGNIFICANT_SYMBOL if s else NOT_SIGNIFICANT_SYMBOL
                               for s in mine["significantly_best"]]},
            text=[("significantly best" if s else "tied with " + ", ".join(
                escaped(m) for m in leaders[1:])) for s, leaders
                in zip(mine["significantly_best"], mine["leaders"], strict=True)],
            hovertemplate="K = %{x}, %{y}: " + escaped(model) + " (%{text})<extra></extra>",
        ))
    figure.update_yaxes(categoryorder="array", categoryarray=list(rows)[::-1], type="category")
    _chosen(figure, chosen)
    height = 190 + 34 * len(rows)
    figure = _layout(figure, title, "", height=height)
    # a short plot: the legend placed in pixels below the axis title, not in a share of the
    # plot's height (which put it on the title)
    plot = height - MAP_MARGINS["t"] - MAP_MARGINS["b"]
    figure.update_layout(hovermode="closest", margin=MAP_MARGINS,
                         legend={"y": -LEGEND_BELOW_AXIS / plot, "yanchor": "top"})
    return figure


def tie_figure(bounds: pd.DataFrame, metric: str, chosen: int,
               colors: Mapping[str, str]) -> go.Figure:
    """Per model, the band between the pessimistic and optimistic orders of tied scores
    around the active tie rule's curve (top), and the share of users whose top-K set depends
    on ties (bottom)."""
    label = METRICS[metric].label
    figure = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.68, 0.32],
                           vertical_spacing=0.08)
    of_metric = bounds.loc[bounds["metric"] == metric]
    for model, table in of_metric.groupby("model", sort=False):
        color = colors.get(str(model), "#000000")
        cutoffs = table["cutoff"].tolist()
        figure.add_trace(go.Scatter(
            x=cutoffs + cutoffs[::-1],
            y=table["optimistic"].tolist() + table["pessimistic"].tolist()[::-1],
            mode="lines", fill="toself", fillcolor=translucent(color, BAND_OPACITY * 2),
            line={"width": 0}, showlegend=False, hoverinfo="skip"), row=1, col=1)
        figure.add_trace(go.Scatter(x=cutoffs, y=table["active"].tolist(), name=escaped(model),
                                    mode="lines", line={"color": color, "width": 2}),
                         row=1, col=1)
        figure.add_trace(go.Scatter(x=cutoffs, y=table["tied_share"].tolist(),
                                    name=escaped(model), mode="lines", showlegend=False,
                                    line={"color": color, "width": 1.5, "dash": "dot"}),
                         row=2, col=1)
    figure.update_yaxes(title_text=label, row=1, col=1)
    figure.update_yaxes(title_text="users with ties at K", tickformat=".0%", rangemode="tozero",
                        row=2, col=1)
    _chosen(figure, chosen)
    figure = _layout(figure, f"{label} between the worst and best orders of tied scores",
                     label, height=560)
    figure.update_xaxes(title_text="", row=1, col=1)
    return figure
