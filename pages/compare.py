"""Compare models: every metric as a curve over K, and a table at the chosen K."""

import streamlit as st

from pages import _state
from rankmetrics.figures import metric_curves, metric_label
from rankmetrics.metrics import MAIN_METRICS, METRICS

_state.header(
    "Compare models",
    "Each line is one model's average score over users when the user sees the top *K* "
    "items, for every *K*; higher is better. The dot marks the *K* chosen in the sidebar.",
)
prepared, settings = _state.require_data()
k = settings.cutoff

st.session_state.setdefault("compare_metrics", list(MAIN_METRICS))
chosen = st.pills(
    "Metrics", list(MAIN_METRICS), selection_mode="multi", key="compare_metrics",
    format_func=lambda metric: METRICS[metric].label, persist_state="session",
    help="\n\n".join(f"**{METRICS[m].label}**: {METRICS[m].description}" for m in MAIN_METRICS),
)
metrics = [metric for metric in MAIN_METRICS if metric in (chosen or [])]

values = _state.curves(prepared, settings.relevance, settings.conventions, settings.max_cutoff)
if metrics:
    figure = metric_curves(values, metrics, k, prepared.colors)
    st.plotly_chart(figure, key="compare_chart", config={"displaylogo": False})
else:
    st.info("Pick at least one metric above to draw its curves.")

st.subheader(f"Every metric at K = {k}")
table = _state.table_at(prepared, settings)
metric_columns = [metric_label(metric, k) for metric in MAIN_METRICS]
styled = (
    table.style
    .format("{:.4f}", subset=metric_columns, na_rep="–")
    .format("{:,}", subset=["Users averaged"])
    .highlight_max(subset=metric_columns, props="background-color: #d6f5d6; font-weight: bold")
)
st.dataframe(styled, key="compare_table")
counts = _state.user_counts(prepared, settings).iloc[0]
notes = [
    f"Green: the best model for each metric at K = {k}",
    f"{counts['ground_truth_users']:,} users in the ground truth",
]
if counts["no_relevant_items"]:
    policy = ("left out of the averages" if counts["no_relevant_items_policy"] == "skip"
              else "counted with 0")
    notes.append(f"{counts['no_relevant_items']:,} of them have no relevant item and are {policy}")
st.caption("; ".join(notes) + ". Change this under Conventions › Advanced in the sidebar.")
