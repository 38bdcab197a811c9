"""One user's NDCG@K drawn: what each rank adds to DCG in the model's list and in the ideal
list (:func:`rankmetrics.explain.explain_ndcg` computes the numbers)."""

from __future__ import annotations

import plotly.graph_objects as go

from rankmetrics.explain import NdcgBreakdown
from rankmetrics.figures.style import IDEAL_COLOR, PALETTE, escaped, styled


def ndcg_contributions(
    breakdown: NdcgBreakdown, color: str = PALETTE[0], model: str = "model"
) -> go.Figure:
    """What each rank adds to DCG (bars: gain / log2(rank + 1), or gain / log2(max(rank, 2))
    under the clipped discount) in the model's list and in the ideal list, with the two totals
    in the legend."""
    k = breakdown.cutoff
    fig = go.Figure()
    ranked, ideal = breakdown.ranked, breakdown.ideal
    name = escaped(model)
    fig.add_trace(go.Bar(
        x=ranked["rank"].tolist(), y=ranked["contribution"].round(6).tolist(),
        name=f"{name}'s list: DCG@{k} = {breakdown.dcg:.4f}", marker_color=color,
        text=[f"{v:.3f}" if v > 0 else "" for v in ranked["contribution"]],
        textposition="outside", meta={"role": "ranked"},
        customdata=ranked["item"].map(escaped).tolist(),
        hovertemplate="rank %{x}: item %{customdata}<br>adds %{y:.4f}<extra></extra>",
    ))
    fig.add_trace(go.Bar(
        x=ideal["rank"].tolist(), y=ideal["contribution"].round(6).tolist(),
        name=f"ideal list: IDCG@{k} = {breakdown.idcg:.4f}", marker_color=IDEAL_COLOR,
        text=[f"{v:.3f}" for v in ideal["contribution"]], textposition="outside",
        meta={"role": "ideal"}, customdata=ideal["item"].map(escaped).tolist(),
        hovertemplate="ideal rank %{x}: item %{customdata}<br>adds %{y:.4f}<extra></extra>",
    ))
    top = max([*ranked["contribution"], *ideal["contribution"], 0.1])
    fig.update_layout(
        barmode="group",
        xaxis={"title": "Rank", "dtick": 1 if k <= 20 else None, "range": [0.4, k + 0.6]},
        yaxis={"title": "gain / log2(max(rank, 2))" if breakdown.conventions.discount
               == "clipped" else "gain / log2(rank + 1)", "range": [0, top * 1.2]},
    )
    styled(fig, f"What each rank adds: NDCG@{k} = {breakdown.dcg:.4f} / "
                f"{breakdown.idcg:.4f} = {breakdown.ndcg:.4f}", height=400)
    return fig
