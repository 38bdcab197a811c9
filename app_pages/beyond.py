"""Beyond accuracy: coverage, popularity bias, novelty, diversity and personalization over K,
the trade-off with accuracy at the chosen K, and where the lists fall by item popularity."""

from functools import partial
from typing import cast

import streamlit as st

from dashboard import bundles, keys
from dashboard.cached import beyond as cached_beyond
from dashboard.charts import show_chart
from dashboard.columns import metric_column_config
from dashboard.controls import confidence_control, download_table
from dashboard.extras import EXTRA_KINDS
from dashboard.navigation import PAGES
from dashboard.session import header, require_data
from dashboard.text import literal
from rankmetrics.figures import metric_label, metric_title
from rankmetrics.figures.beyond import (
    beyond_curves,
    exposure_shares,
    popularity_deciles,
    tradeoff,
)
from rankmetrics.metrics import (
    BEYOND_METRICS,
    MAIN_METRICS,
    METRICS,
    SYSTEM_METRICS,
    direction_text,
    plain_label,
    value_text,
)

FIRST_SHOWN = ("coverage", "gini", "personalization", "aplt", "novelty", "ild")
# the trade-off opens on a pair read without notation: accuracy against the share of
# long-tail items (is the accuracy bought with popular items?), else against the share of the
# catalogue recommended, which every data set has
FIRST_TRADEOFF = ("aplt", "coverage", "novelty")
GROUPINGS = {"popularity": "Popularity", "categories": "Category"}

header(
    "Beyond accuracy",
    "Is a model more accurate only because it recommends what is already popular, to "
    "everyone? How much of the catalogue it shows, how popular and how varied its lists are, "
    "and how different two users' lists are, at every *K*.",
)
prepared, settings = require_data()
saved = bundles.beyond_from_saved(prepared)
state = st.session_state
k = settings.cutoff

problem = cached_beyond.beyond_problem(prepared, settings)
if problem:
    st.error(literal(problem), icon=":material/error:")
offered = cached_beyond.beyond_metrics(prepared, settings)
if not offered:
    st.stop()
needs = {metric.needs for name, metric in BEYOND_METRICS.items() if name not in offered}
for kind, need in (("interactions", "interactions"), ("attributes", "attributes")):
    if need in needs:
        extra = EXTRA_KINDS[kind]
        where = ("This evaluation was saved without them." if saved
                 else "Add the file on the Data page.")
        st.info(f"**{extra.title}** ({extra.holds}) would add {extra.enables}. {where}",
                icon=":material/add_circle:")
if needs and not saved:
    st.page_link(PAGES["data"], label="Go to the Data page", icon=":material/upload:")

state.setdefault(keys.BEYOND_METRICS, [m for m in FIRST_SHOWN if m in offered])
state[keys.BEYOND_METRICS] = [m for m in state[keys.BEYOND_METRICS] if m in offered]
chosen = st.pills(
    "Metrics", list(offered), selection_mode="multi", key=keys.BEYOND_METRICS,
    persist_state="session",
    format_func=plain_label,
    help="\n\n".join(f"**{plain_label(m)}**: {BEYOND_METRICS[m].description} "
                     f"{direction_text(m)}." for m in offered),
)
metrics = tuple(metric for metric in offered if metric in (chosen or []))
if metrics:
    curves = cached_beyond.beyond_curves(prepared, settings, metrics)
    show_chart(beyond_curves(curves, metrics, k, prepared.colors), "beyond_chart",
               name=("beyond accuracy", *metrics, "K", k))
else:
    st.info("Pick at least one metric above to draw its curves.")

choices = cached_beyond.beyond_choices(prepared, settings)
notes = [f"Catalogue: {choices['catalogue']} ({choices['catalogue_items']:,} items)",
         f"Gini and entropy over the {choices['distribution']}"]
if "popularity" in choices and "long_tail_items" in choices:
    share = f"{choices['long_tail_share']:.0%}"
    rule = (f"the most popular items holding {share} of the interactions are the short head"
            if choices["long_tail"] == "short_head" else
            f"the {share} least popular items are the long tail")
    notes.append(f"popularity: {choices['popularity']}; {rule} "
                 f"({choices['long_tail_items']:,} long-tail items in the catalogue)")
if "ild_distance" in choices:
    columns = cast(list[str], choices["attribute_columns"])  # as the library lists them
    notes.append(f"ILD: {choices['ild_distance']} distance on {', '.join(columns)}")
st.caption("; ".join(notes) + ". The command line and the library name every choice "
           "(see the README).")

st.subheader(f"Trade-off at K = {k}")
left, middle, right = st.columns([2, 2, 1], vertical_alignment="bottom")
state.setdefault(keys.BEYOND_ACCURACY_METRIC, "ndcg")
left.selectbox("Accuracy", list(MAIN_METRICS), key=keys.BEYOND_ACCURACY_METRIC,
               persist_state="session",
               format_func=lambda m: metric_title(m, k))
state.setdefault(keys.BEYOND_TRADEOFF_METRIC,
                 next((m for m in FIRST_TRADEOFF if m in offered), offered[0]))
if state[keys.BEYOND_TRADEOFF_METRIC] not in offered:
    state[keys.BEYOND_TRADEOFF_METRIC] = offered[0]
middle.selectbox("Against", list(offered), key=keys.BEYOND_TRADEOFF_METRIC,
                 persist_state="session",
                 format_func=lambda m: metric_title(m, k))
level = confidence_control(right)
accuracy, against = state[keys.BEYOND_ACCURACY_METRIC], state[keys.BEYOND_TRADEOFF_METRIC]
points = cached_beyond.beyond_tradeoff(prepared, settings, accuracy, against, level)
show_chart(tradeoff(points, accuracy, against, k, prepared.colors, confidence=level),
           "beyond_tradeoff", name=(accuracy, "vs", against, "K", k))
how = ("users resampled, the whole system recounted" if against in SYSTEM_METRICS
       else "users resampled")
if saved:
    how = (f"of {METRICS[accuracy].label} only, users resampled from the per-user values "
           "saved at K" if against in SYSTEM_METRICS else
           "users resampled, from the per-user values saved at K")
st.caption(f"**{plain_label(accuracy)}**: {METRICS[accuracy].description} "
           f"**{plain_label(against)}**: {BEYOND_METRICS[against].description} "
           f"Bars: bootstrap intervals ({how}).")

if "aplt" in offered:
    st.subheader("The long tail")
    deciles = cached_beyond.beyond_deciles(prepared, settings)
    show_chart(popularity_deciles(deciles, k, prepared.colors), "beyond_deciles",
               name=("popularity deciles K", k))
    st.caption("The catalogue's items are split into ten groups of equal size by training "
               "popularity. A model recommending like the users' own taste would follow the "
               "grey bars; one leaning on popularity piles up in decile 1.")

groupings = cached_beyond.beyond_exposure_groups(prepared, settings)
if groupings:
    st.subheader("Who gets the attention")
    state.setdefault(keys.BEYOND_EXPOSURE_GROUPS, groupings[0])
    if state[keys.BEYOND_EXPOSURE_GROUPS] not in groupings:
        state[keys.BEYOND_EXPOSURE_GROUPS] = groupings[0]
    grouping = st.radio("Group the items by", list(groupings), horizontal=True,
                        key=keys.BEYOND_EXPOSURE_GROUPS, persist_state="session",
                        format_func=GROUPINGS.get)
    shares = cached_beyond.beyond_exposure(prepared, settings, grouping)
    show_chart(exposure_shares(shares, k, grouping, prepared.colors), "beyond_exposure",
               name=("exposure by", grouping, "K", k))
    patience = choices.get("exposure_patience", 0.85)
    weight = (f"each rank gets {patience:g} times the attention of the one above it"
              if choices.get("exposure_weight", "geometric") == "geometric" else
              "each rank gets the attention NDCG's discount gives it, 1 / log2(rank + 1)")
    split = ("an item of several categories shares its attention between them"
             if grouping == "categories" else "short head and long tail as for APLT")
    st.caption(f"A reader looks at the top of a list more than at its bottom: {weight}. "
               "Each bar is a group's share of all the attention a model's lists give, "
               "beside the group's share of the catalogue's items (light grey) and of the "
               f"relevant items (hatched); {split}. A model giving a group less than its "
               "share of the relevant items hides what users would have liked.")

st.subheader(f"Every beyond-accuracy metric at K = {k}")
table = cached_beyond.beyond_table_at(prepared, settings)
# shares with four decimals, popularity with two, whole counts without decimals
shown = {metric_label(metric, k): partial(value_text, metric) for metric in offered}
st.dataframe(table.style.format({column: shown[column] for column in table.columns}),
             key="beyond_table", column_config=metric_column_config(offered, k))
download_table(table, f"beyond_accuracy_at_{k}.csv", "beyond_table_csv")
