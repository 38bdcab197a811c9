"""Users: how each model's per-user values are spread, and whom each model serves worst."""

from collections.abc import Hashable, Sequence
from functools import partial
from typing import cast

import streamlit as st

from dashboard import bundles, keys
from dashboard.cached import beyond as cached_beyond
from dashboard.cached import users as cached_users
from dashboard.charts import show_chart
from dashboard.columns import metric_help
from dashboard.controls import download_table, ensure_choice
from dashboard.navigation import explain_user
from dashboard.segment_choice import segment_filter
from dashboard.session import header, require_data, subject
from dashboard.text import literal
from dashboard.verdict import (
    DIFFERENCE_COLUMNS,
    baseline,
    comparison,
    difference_columns,
    significance_choice,
)
from rankmetrics.figures import distribution, ecdf, metric_label, metric_title
from rankmetrics.metrics import declared, higher_says, number_format, value_text
from rankmetrics.report.verdict import how_tested

WORST_SHOWN = 20

one, many = subject(), subject(plural=True)
header(
    many.capitalize(),
    f"An average hides who is served well and who is not. Here is the spread of every {one}'s "
    f"score, per model, and the {many} each model serves worst.",
)
prepared, settings = require_data()
prepared = segment_filter(prepared, settings)
state = st.session_state
k = settings.cutoff

metric_column, chart_column = st.columns([2, 1])
offered = cached_beyond.per_user_metrics(prepared, settings)
ensure_choice(keys.USERS_METRIC, offered, default="ndcg")
metric_column.selectbox("Metric", offered,
                        key=keys.USERS_METRIC,
                        format_func=lambda m: metric_title(m, k), persist_state="session",
                        help="The cutoff K comes from the sidebar.")
state.setdefault(keys.USERS_CHART, "histogram")
chart_column.radio("Chart", ["histogram", "box"], key=keys.USERS_CHART, horizontal=True,
                   format_func={"histogram": "Histogram", "box": "Box plot"}.get,
                   persist_state="session")
metric = state[keys.USERS_METRIC]
label = metric_label(metric, k)
# for a metric where higher is not better (ARP, ILD...), what a higher value says of a list
higher = higher_says(metric)
st.caption(declared(metric).description)

values = cached_users.per_user(prepared, settings, metric)
summary = cached_users.spread(prepared, settings, metric).set_index("model")
summary.index.name = "Model"
summary.columns = [many.capitalize(), f"Mean {label}", "Median", "Share at 0", "10th percentile",
                   "90th percentile"]
numbers: list[Hashable] = list(summary.columns[1:])
result = comparison(prepared, settings, metric, significance_choice(), quick=True)
if result is not None:
    base = baseline(prepared)
    summary = summary.join(difference_columns(result, base))
st.dataframe(
    summary.style.format(partial(value_text, metric), subset=numbers)
    .format("{:.1%}", subset=["Share at 0"]).format("{:,}", subset=[many.capitalize()]),
    key="users_summary",
    column_config={**DIFFERENCE_COLUMNS,
                   f"Mean {label}": st.column_config.Column(help=metric_help(metric, k))},
    placeholder="–",  # the baseline's difference from itself has no interval
)
download_table(summary, f"users_{metric}_at_{k}.csv", "users_summary_csv")
if result is not None:
    st.caption(f"Difference and Lift: each model's mean minus {literal(base)}'s (the "
               f"baseline chosen in the sidebar), on the {result.models['users'].iloc[0]:,} "
               f"{many} every model counts, with its {result.confidence:.0%} bootstrap "
               f"interval ({how_tested(result)}).")
download_table(cached_users.per_user_values(prepared, settings, metric),
               f"per_user_{metric}_at_{k}_every_model.csv", "per_user_csv",
               label=f"Download every {one}'s value (all models) as CSV")

left, right = st.columns(2)
drawn = cast(dict[str, Sequence[float]], values)  # the figures take arrays as sequences
show_chart(distribution(drawn, metric, k, prepared.colors, kind=state[keys.USERS_CHART]),
           "users_distribution", where=left, name=("distribution", label))
show_chart(ecdf(drawn, metric, k, prepared.colors), "users_ecdf", where=right,
           name=("ecdf", label))
if higher is None:
    st.caption(f"Right: the share of {many} scoring at most x. A curve further right is better; "
               "where it starts above 0 at x = 0, that share of users gets nothing relevant.")
else:
    st.caption(f"Right: the share of {many} whose {label} is at most x. A model whose curve "
               f"lies further right {higher}: not better in itself.")

st.subheader(f"{many.capitalize()} a model serves worst at {label}" if higher is None
             else f"{many.capitalize()} with a model's lowest {label}")
ensure_choice(keys.USERS_MODEL, prepared.models)
st.selectbox("Model", prepared.models, key=keys.USERS_MODEL, persist_state="session")
model = state[keys.USERS_MODEL]
worst = cached_users.worst(prepared, settings, model, metric, WORST_SHOWN)
event = st.dataframe(
    worst, key=keys.WORST_TABLE, hide_index=True, on_select="rerun",
    selection_mode="single-row",
    alt=(f"The {len(worst)} {many} {model} serves worst at {label}" if higher is None
         else f"The {len(worst)} {many} with {model}'s lowest {label}"),
    column_config={
        "user": st.column_config.TextColumn(one.capitalize()),
        "relevant": st.column_config.NumberColumn("Relevant items", format="%d"),
        **{name: st.column_config.NumberColumn(f"{name}: {label}", format=number_format(metric))
           for name in prepared.models},
    },
)
download_table(worst, f"worst_users_{metric}_at_{k}.csv", "worst_table_csv")
others_first = (f"{many} the other models serve best come first" if higher is None
                else f"{many} with the other models' highest values come first")
st.caption(f"Lowest {label} for {literal(model)} first; among equal values, {others_first}. "
           f"Select a row, then explain that {one}'s metrics.")
if not worst.empty:
    rows = event.selection.rows
    chosen = str(worst["user"].iloc[rows[0] if rows else 0])
    if not bundles.users_with_lists(prepared, [chosen]):
        st.caption(f"User {literal(chosen)} is not among the sampled users whose lists this saved "
                   "evaluation holds: Metrics explained can show only a sampled user's list.")
    if st.button(f"Explain this user: {literal(chosen)}", icon=":material/calculate:",
                 key="explain_worst", help="Open the Metrics explained page on this user's "
                 "list (the first row until you select another)."):
        explain_user(model, chosen, metric)
