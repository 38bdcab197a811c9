"""The pairwise significance matrix: every model against every other, each cell the row
model's mean minus the column model's with the corrected p-value, coloured by the verdict."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from rankmetrics.figures.style import BETTER_COLOR, NEUTRAL_COLOR, WORSE_COLOR, escaped, styled
from rankmetrics.stats import p_text

MATRIX_KEY = "▲ blue: row significantly better · ▼ red: worse · grey: may be chance"


def matrix_key(higher: str | None = None) -> str:
    """The colour key of the matrix: "better" and "worse", or, for a metric where higher is
    not better, "higher" and what it means.

    >>> matrix_key("recommends more popular items").split(" · ")[:2]
    ['▲ blue: row significantly higher (recommends more popular items)', '▼ red: lower']
    """
    if higher is None:
        return MATRIX_KEY
    return (f"▲ blue: row significantly higher ({higher}) · ▼ red: lower · grey: may be "
            "chance")


def pairwise_matrix(pairs: pd.DataFrame, models: Sequence[str], label: str, *,
                    higher: str | None = None) -> go.Figure:
    """Every model against every other: cell (row, column) holds the row model's mean minus
    the column model's and the corrected p-value, coloured by the verdict.

    Blue and ▲: the row model is significantly better (for a metric where higher is not
    better, ``higher`` says what a higher value means, and the key and hover say "higher");
    red and ▼: significantly worse (lower); grey: no significant difference. The matrix is
    antisymmetric, so it reads from either side; the diagonal is empty.

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
    names = [escaped(model) for model in models]
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
            verdict = 0 if not significant or difference == 0 else (1 if difference > 0 else -1)
            glyph = {1: "▲ ", -1: "▼ ", 0: ""}[verdict]
            z[r][c] = verdict
            text[r][c] = f"{glyph}{difference:+.4f}<br>{p_text(float(p))}"
            words = {1: "significantly better" if higher is None else "significantly higher",
                     -1: "significantly worse" if higher is None else "significantly lower",
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
    styled(fig, f"{label}: row model minus column model<br><sup>{matrix_key(higher)}</sup>",
           height=max(330, 120 + 95 * n))
    fig.update_layout(margin={"t": 110, "b": 20, "l": 60, "r": 20})
    fig.update_xaxes(showline=False)
    fig.update_yaxes(showline=False)
    return fig
