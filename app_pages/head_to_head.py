"""Head-to-head: two models user by user, down to one user's two lists."""

from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import bundles, keys
from dashboard.cached import beyond as cached_beyond
from dashboard.cached import evaluation as cached_evaluation
from dashboard.cached import head_to_head as cached_head_to_head
from dashboard.charts import show_chart
from dashboard.controls import download_table, ensure_choice, file_name
from dashboard.highlight import Highlight, mask
from dashboard.navigation import explain_user, explained_metric
from dashboard.segment_choice import segment_filter
from dashboard.session import header, require_data
from dashboard.settings import USER_LIST_LIMIT
from dashboard.text import literal
from rankmetrics.agreement import DEFAULT_PERSISTENCE, measure_title
from rankmetrics.figures import (
    head_to_head_scatter,
    list_overlap_curves,
    metric_label,
    metric_title,
    win_tie_loss,
)
from rankmetrics.metrics import higher_says, number_format, value_text
from rankmetrics.users import outcome_counts

UNRATED = "–"

header(
    "Head-to-head",
    "Two models, user by user: for whom is each one better, by how much, and what did each "
    "recommend to them?",
)
prepared, settings = require_data()
prepared = segment_filter(prepared, settings)
state = st.session_state
k = settings.cutoff
models = prepared.models
if len(models) < 2:
    st.info("Head-to-head compares two models: add at least one more model's output on the "
            "Data page.")
    st.stop()


def users_text(count: int) -> str:
    return "1 user" if count == 1 else f"{count:,} users"


def same_text(count: int) -> str:
    """Who gets the same value from both models: "no user gets", "3 users get"."""
    return {0: "no user gets", 1: "1 user gets"}.get(count, f"{count:,} users get")


def swap() -> None:
    state[keys.H2H_A], state[keys.H2H_B] = state[keys.H2H_B], state[keys.H2H_A]


def pick_user(key: str, table: pd.DataFrame) -> None:
    """Table-selection callback: show the selected user's lists below."""
    rows = state[key].selection.rows
    if rows:
        state[keys.H2H_USER] = str(table["user"].iloc[rows[0]])


# every accuracy metric, and the per-user beyond-accuracy ones when the data set has their
# files
metric_options = cached_beyond.per_user_metrics(prepared, settings)
ensure_choice(keys.H2H_METRIC, metric_options, default="ndcg")
# the default pair: the two most accurate models (a higher ARP is not "best")
chosen_metric = state[keys.H2H_METRIC]
ranking = cached_evaluation.best_first(
    prepared, settings, chosen_metric if higher_says(chosen_metric) is None else "ndcg")
ensure_choice(keys.H2H_A, models, default=ranking[1])
a_column, b_column, swap_column, metric_column = st.columns([2, 2, 1.5, 3.5],
                                                            vertical_alignment="bottom")
a_column.selectbox("Model A", models, key=keys.H2H_A, persist_state="session")
others = [m for m in models if m != state[keys.H2H_A]]
ensure_choice(keys.H2H_B, others, default=ranking[0] if ranking[0] in others else None)
b_column.selectbox("Model B", others, key=keys.H2H_B, persist_state="session")
swap_column.button("Swap", icon=":material/swap_horiz:", on_click=swap,
                   help="Exchange models A and B.")
metric_column.selectbox("Metric", metric_options, key=keys.H2H_METRIC,
                        format_func=lambda m: metric_title(m, k), persist_state="session",
                        help="The cutoff K comes from the sidebar.")
model_a, model_b, metric = state[keys.H2H_A], state[keys.H2H_B], state[keys.H2H_METRIC]
label = metric_label(metric, k)
a, b = literal(model_a), literal(model_b)
# for a metric where higher is not better (ARP, ILD...), what a higher value says of a list
higher = higher_says(metric)

pairs, b_ahead, a_ahead = cached_head_to_head.duel(prepared, settings, model_a, model_b, metric)
if pairs.empty:
    st.warning(f"{a} and {b} share no counted user: there is nothing to compare.")
    st.stop()
wins, ties, losses = outcome_counts(pairs)
colors = {model_a: prepared.colors[model_a], model_b: prepared.colors[model_b]}
show_chart(win_tie_loss(wins, ties, losses, model_a, model_b, label, colors, higher=higher),
           "h2h_outcomes", name=(model_b, "vs", model_a, "users", label))
if higher is None:
    st.caption(f"On the {len(pairs):,} users both models count. The Significance page tells "
               "whether the difference in means is more than chance.")
else:
    st.caption(f"On the {len(pairs):,} users both models count: {b} {higher} to "
               f"{users_text(wins)}, {a} to {users_text(losses)}, and {same_text(ties)} "
               f"the same {label} from both. A higher {label} is not better in itself: it says "
               "what the lists hold, and whether that is wanted is yours to judge. The "
               "Significance page tells whether the difference in means is more than chance.")

chart_column, tables_column = st.columns([3, 2])
show_chart(head_to_head_scatter(pairs, model_a, model_b, label, colors, higher=higher),
           "h2h_scatter", where=chart_column, name=(model_b, "vs", model_a, "scatter", label))
above = (f"{b} does better, below it {a}" if higher is None
         else f"{b} {higher}, below it {a} does")
chart_column.caption(f"Each dot is the users with these two values: {a}'s across, {b}'s up. "
                     f"Above the dashed diagonal {above}.")
# narrow value columns: beside the chart, the table fits an 800-pixel window
value_columns = {
    "user": st.column_config.TextColumn("User"),
    "value_a": st.column_config.NumberColumn(f"{model_a}", format=number_format(metric),
                                             width=64),
    "value_b": st.column_config.NumberColumn(f"{model_b}", format=number_format(metric),
                                             width=64),
    "difference": st.column_config.NumberColumn("B − A", width=64,
                                                format=number_format(metric, signed=True)),
}
csv_columns = {"value_a": f"{model_a} (A)", "value_b": f"{model_b} (B)", "difference": "B − A"}
for title, table, key, name in (
        (f"Where {b} beats {a} most" if higher is None
         else f"Largest gaps where {b} {higher}", b_ahead, keys.H2H_B_AHEAD, "b_beats_a"),
        (f"Where {a} beats {b} most" if higher is None
         else f"Largest gaps where {a} {higher}", a_ahead, keys.H2H_A_AHEAD, "a_beats_b")):
    tables_column.markdown(f"**{title}**")
    if table.empty:
        tables_column.caption("No such user.")
        continue
    tables_column.dataframe(table, hide_index=True, key=key, column_config=value_columns,
                            on_select=partial(pick_user, key, table),
                            selection_mode="single-row")
    download_table(table.rename(columns=csv_columns), f"{name}_{metric}_at_{k}.csv",
                   f"{key}_csv", where=tables_column)
tables_column.caption(f"{label} per user. Select a row to see that user's two lists below.")

st.subheader("How different are their lists?")
bundles.sample_note(prepared)  # this section and the next read the lists themselves
state.setdefault(keys.H2H_PERSISTENCE, DEFAULT_PERSISTENCE)
compared = cached_head_to_head.overlap(prepared, settings, model_a, model_b,
                                       float(state[keys.H2H_PERSISTENCE]))
if isinstance(compared, str):
    st.warning(literal(compared), icon=":material/warning:")
else:
    curves, at_k = compared
    row_k = curves.loc[min(k, len(curves))]
    same = int((at_k["jaccard"] == 1).sum())
    apart = int((at_k["jaccard"] == 0).sum())
    shares = (f"{row_k['share_a_in_b']:.0%} of {a}'s top {k} is also in {b}'s"
              if np.isclose(row_k["share_a_in_b"], row_k["share_b_in_a"], rtol=0, atol=1e-12)
              else f"{row_k['share_a_in_b']:.0%} of {a}'s top {k} is also in {b}'s, and "
                   f"{row_k['share_b_in_a']:.0%} of {b}'s in {a}'s")
    st.markdown(f"On average **{shares}**. Of {users_text(len(at_k))}, {same_text(same)} the "
                f"same {k} items from both, and {users_text(apart)} not one item in common.")
    show_chart(list_overlap_curves(curves, model_a, model_b,
                                   persistence=float(state[keys.H2H_PERSISTENCE]), cutoff=k),
               "h2h_overlap", name=(model_a, "and", model_b, "lists in common"))
    p_column, notes_column = st.columns([1, 3])
    p_column.number_input(
        "Persistence p of rank-biased overlap", min_value=0.05, max_value=0.99, step=0.05,
        key=keys.H2H_PERSISTENCE, format="%.2f",
        help="How far down the lists rank-biased overlap looks: with p = 0.9 the top 10 "
             "carry about 86% of its weight, with p = 0.5 the top 3 carry 87.5%.")
    notes_column.caption(
        "Items in common (Jaccard): the items in both top K over the items in either. "
        "Rank-biased overlap (Webber, Moffat and Zobel, 2010, extrapolated) weighs agreement "
        "near the top more, and also sees the order. Users with no list from either model "
        "are left out; two empty lists count as the same.")
    download_table(at_k.reset_index().rename(columns={
        measure: measure_title(measure, model_a, model_b,
                               float(state[keys.H2H_PERSISTENCE]))
        for measure in at_k.columns}),
        file_name("lists in common of", model_a, "and", model_b, "at", k, suffix=".csv"),
        "h2h_overlap_csv")

st.subheader("One user, both lists")
listed = [*b_ahead["user"], *a_ahead["user"]]
everyone = pairs["user"].astype(str).tolist()
options = list(dict.fromkeys(listed + (everyone if len(everyone) <= USER_LIST_LIMIT
                                       else [])))
if state.get(keys.H2H_USER) in everyone and state[keys.H2H_USER] not in options:
    options.insert(0, state[keys.H2H_USER])
options = bundles.users_with_lists(
    prepared, options + (everyone if bundles.full_evaluation(prepared) else []))
if not options:
    st.info("No sampled user is counted by both models.")
    st.stop()
ensure_choice(keys.H2H_USER, options)
user_column, value_a_column, value_b_column = st.columns([2, 1, 1])
user_column.selectbox("User", options, key=keys.H2H_USER, persist_state="session",
                      help="The users in the tables above first. Type to search.")
user = state[keys.H2H_USER]
row = pairs.loc[pairs["user"].astype(str) == user].iloc[0]
value_a_column.metric(f"{model_a}: {label}", value_text(metric, row["value_a"]))
value_b_column.metric(f"{model_b}: {label}", value_text(metric, row["value_b"]),
                      delta=f"{'+' if row['difference'] >= 0 else '-'}"
                            f"{value_text(metric, abs(row['difference']))} vs A",
                      delta_color="normal"
                      if row["difference"] and higher is None else "off")

both = cached_head_to_head.both_lists(prepared, settings, model_a, model_b, user)


def rating_text(value: float) -> str:
    return UNRATED if pd.isna(value) else f"{value:g}"


def rank_text(rank) -> str:
    """Where a model ranked a rated item, and whether that is inside the top K."""
    if pd.isna(rank):
        return "not recommended"
    return f"{rank}" if rank <= k else f"{rank} (not in top {k})"


def hit_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """Row styles: relevant items in green, as the Compare page marks the best."""
    marked = rows["hit"].eq("✓")
    return mask(pd.DataFrame({column: marked for column in rows.columns}), Highlight.HIT)


list_columns = {
    "rank": st.column_config.NumberColumn("Rank", format="%d"),
    "item": st.column_config.TextColumn("Item"),
    "rating": st.column_config.TextColumn("Rating", help="– : the user did not rate it."),
    "hit": st.column_config.TextColumn("Hit", help="✓ : an item relevant to the user."),
}
left, right = st.columns(2)
for column, model, side in ((left, model_a, "a"), (right, model_b, "b")):
    items = both.lists[f"item_{side}"]
    shown = pd.DataFrame({
        "rank": both.lists["rank"],
        "item": items.fillna(""),
        "rating": [rating_text(v) if item is not None else ""
                   for v, item in zip(both.lists[f"rating_{side}"], items, strict=True)],
        "hit": ["✓" if hit else "" for hit in both.lists[f"hit_{side}"]],
    })
    hits = int(both.lists[f"hit_{side}"].sum())
    column.markdown(f"**{literal(model)}'s top {k}**: {hits} relevant item(s)")
    column.dataframe(shown.style.apply(hit_rows, axis=None), hide_index=True,
                     key=keys.h2h_list(side), column_config=list_columns)
    download_table(shown, file_name("top", k, "of", model, "for user", user, suffix=".csv"),
                   f"{keys.h2h_list(side)}_csv", where=column)
    explained = metric_label(explained_metric(metric), k)
    if column.button(f"Explain {model}'s {explained} for this user",
                     key=keys.h2h_explain(side), icon=":material/calculate:",
                     help=f"Open Metrics explained on this user's {explained} under this model, "
                          "rank by rank."
                          + ("" if explained == label else
                             f" {label} has no rank-by-rank arithmetic there.")):
        explain_user(model, user, metric, other=model_b if side == "a" else model_a)

st.markdown(f"**What user {literal(user)} rated**")
truth = both.truth
rated = pd.DataFrame({
    "item": truth["item"],
    "rating": [rating_text(v) for v in truth["rating"]],
    "grade": truth["grade"],
    "relevant": ["✓" if r else "" for r in truth["relevant"]],
    "rank_a": [rank_text(r) for r in truth["rank_a"]],
    "rank_b": [rank_text(r) for r in truth["rank_b"]],
})
st.dataframe(
    rated,
    hide_index=True, key="h2h_truth",
    column_config={
        "item": st.column_config.TextColumn("Item"),
        "rating": st.column_config.TextColumn("Rating"),
        "grade": st.column_config.NumberColumn("Grade", format="%g"),
        "relevant": st.column_config.TextColumn("Relevant"),
        "rank_a": st.column_config.TextColumn(f"Rank in {model_a}'s list"),
        "rank_b": st.column_config.TextColumn(f"Rank in {model_b}'s list"),
    },
)
download_table(rated.rename(columns={"rank_a": f"rank in {model_a}",
                                     "rank_b": f"rank in {model_b}"}),
               file_name("ratings of user", user, "ranked by", model_a, "and", model_b,
                         suffix=".csv"), "h2h_truth_csv")
st.caption(f"Highest grade first, then highest rating. Only the top {k} of each list count "
           "towards the metrics.")
