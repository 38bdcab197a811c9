"""Plotly figures for segments: the curves over K of every segment side by side (small
multiples, the models in their usual colours), and a heatmap segment x model of each model's
difference from a baseline, coloured by the verdict of the corrected tests.

Segments too small to test are drawn faded, with "too few users to tell". Segment and model
names come from the user's files and are escaped, as in :mod:`rankmetrics.figures`.

>>> import pandas as pd
>>> curves = pd.DataFrame({"segment": ["FR", "FR", "DE", "DE"], "model": "a",
...                        "cutoff": [1, 2, 1, 2], "value": [0.5, 0.4, 0.3, 0.2]})
>>> [trace.meta["segment"] for trace in segment_curves_figure(curves, "ndcg", 2).data]
['FR', 'DE']
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rankmetrics.figures.style import (
    BETTER_COLOR,
    NEUTRAL_COLOR,
    WORSE_COLOR,
    escaped,
    metric_title,
    model_colors,
    styled,
    translucent,
)
from rankmetrics.metrics import direction_text
from rankmetrics.segments import TOO_FEW
from rankmetrics.stats import p_text

#: The heatmap's cell value for each verdict against the baseline.
VERDICT_CODES = {"worse": -1, "no significant difference": 0, "better": 1}
FADED = 0.3
PANELS_PER_ROW = 3
UNTESTED_COLOR = "#F7F7F7"


def segment_curves_figure(
    curves: pd.DataFrame,
    metric: str,
    cutoff: int,
    colors: Mapping[str, str] | None = None,
    *,
    too_few: Collection[str] = (),
    users: Mapping[str, int] | None = None,
) -> go.Figure:
    """One panel per segment, one line per model over K, a dotted line at ``cutoff``; the
    title names the metric in words, the subtitle which way is better.

    Parameters
    ----------
    curves : long table ``segment, model, cutoff, value``
        (:func:`rankmetrics.segments.segment_curves`), segments in display order.
    metric : the metric drawn
    cutoff : the chosen K
    colors : model -> colour (default :func:`rankmetrics.figures.model_colors`)
    too_few : segments drawn faded, titled "too few users to tell"
    users : segment -> users, shown in the panel titles

    Traces carry ``meta = {"segment": ..., "role": "curve"}``; panels share the y axis.
    """
    segments = list(dict.fromkeys(curves["segment"]))
    models = list(dict.fromkeys(curves["model"]))
    colors = dict(colors or model_colors(models))
    n_cols = min(PANELS_PER_ROW, max(len(segments), 1))
    n_rows = max(math.ceil(len(segments) / n_cols), 1)
    titles = [_panel_title(segment, users, segment in too_few) for segment in segments]
    fig = make_subplots(rows=n_rows, cols=n_cols, subplot_titles=titles, shared_yaxes=True,
                        horizontal_spacing=0.04, vertical_spacing=0.5 / (n_rows + 1))
    groups = {key: group for key, group in curves.groupby(["segment", "model"], sort=False)}
    for index, segment in enumerate(segments):
        row, col = index // n_cols + 1, index % n_cols + 1
        faded = segment in too_few
        for model in models:
            group = groups.get((segment, model))
            if group is None:
                continue
            name = escaped(model)
            color = translucent(colors[model], FADED) if faded else colors[model]
            fig.add_trace(go.Scatter(
                x=group["cutoff"].astype(int).tolist(),
                y=[float(value) for value in group["value"]], mode="lines", name=name,
                legendgroup=name, showlegend=index == 0,
                line={"color": color, "width": 2}, meta={"segment": segment, "role": "curve"},
                hovertemplate=f"{name}: %{{y:.4f}}<extra>{escaped(segment)}, K = %{{x}}"
                              "</extra>",
            ), row=row, col=col)
        fig.add_vline(x=cutoff, line={"color": "#555555", "dash": "dot", "width": 1},
                      row=row, col=col)
    fig.update_yaxes(rangemode="tozero", tickformat=".2f")
    fig.update_xaxes(rangemode="tozero")
    styled(fig, f"{metric_title(metric)} over K in each segment; dotted line: K = {cutoff}",
           subtitle=direction_text(metric), height=260 * n_rows + 150)
    fig.update_layout(hovermode="x unified")
    for annotation, segment in zip(fig.layout.annotations, segments, strict=False):
        if segment in too_few:
            annotation.font = {"color": "#999999"}
    return fig


def _panel_title(segment: str, users: Mapping[str, int] | None, faded: bool) -> str:
    count = f" ({users[segment]:,} users)" if users is not None and segment in users else ""
    return f"{escaped(segment)}{count}" + (f"<br>{TOO_FEW}" if faded else "")


def segment_heatmap(models: pd.DataFrame, baseline: str, label: str,
                    order: Sequence[str] | None = None) -> go.Figure:
    """Segment x model: each model's mean minus the baseline's in the segment, coloured by the
    verdict of the corrected paired test (blue ▲ better, red ▼ worse, grey no significant
    difference); the baseline's column and untested segments are blank, marked in words.

    Parameters
    ----------
    models : the ``models`` table of :class:`rankmetrics.segments.SegmentComparison`
        (segment, model, difference, p_corrected, verdict)
    baseline : the baseline model
    label : the metric as shown, e.g. "NDCG@10"
    order : the models' column order (default: as in the table)

    The heatmap trace carries ``meta = {"role": "verdicts"}``; its ``z`` is +1 / 0 / -1 and
    None where nothing was tested.
    """
    segments = list(dict.fromkeys(models["segment"]))
    columns = list(order) if order is not None else list(dict.fromkeys(models["model"]))
    cells = models.set_index(["segment", "model"])
    z: list[list[int | None]] = []
    text: list[list[str]] = []
    for segment in segments:
        z.append([])
        text.append([])
        for model in columns:
            row = cells.loc[(segment, model)]
            verdict = str(row["verdict"])
            z[-1].append(VERDICT_CODES.get(verdict))
            text[-1].append(_cell_text(verdict, float(row["difference"]),
                                       float(row["p_corrected"])))
    fig = go.Figure(go.Heatmap(
        z=z, x=[escaped(model) for model in columns], y=[escaped(segment) for segment in segments],
        text=text, texttemplate="%{text}", textfont={"size": 13},
        hovertemplate="%{y} · %{x}<br>%{text}<extra></extra>",
        zmin=-1.5, zmax=1.5, xgap=3, ygap=3,
        colorscale=[[0, WORSE_COLOR], [1 / 3, WORSE_COLOR], [1 / 3, NEUTRAL_COLOR],
                    [2 / 3, NEUTRAL_COLOR], [2 / 3, BETTER_COLOR], [1, BETTER_COLOR]],
        colorbar={"tickvals": [-1, 0, 1], "len": 0.9, "thickness": 16,
                  "ticktext": ["▼ significantly worse", "no significant difference",
                               "▲ significantly better"]},
        meta={"role": "verdicts"},
    ))
    fig.update_layout(
        xaxis={"title": f"… compared with {escaped(baseline)}", "side": "top",
               "showgrid": False},
        yaxis={"title": "Segment", "autorange": "reversed", "showgrid": False},
    )
    styled(fig, f"{label}: each model minus {escaped(baseline)}, in each segment",
           height=max(300, 150 + 60 * len(segments)))
    fig.update_layout(margin={"t": 110, "b": 20, "l": 60, "r": 20},
                      plot_bgcolor=UNTESTED_COLOR)
    return fig


def _cell_text(verdict: str, difference: float, p: float) -> str:
    if verdict == "baseline":
        return "baseline"
    if verdict == TOO_FEW:
        return "too few users"
    glyph = {"better": "▲ ", "worse": "▼ "}.get(verdict, "")
    return f"{glyph}{difference:+.4f}<br>{p_text(p)}"
