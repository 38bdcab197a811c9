"""Segments: which model is better for whom, and when the total hides it."""

import streamlit as st

from dashboard import bundles, keys, verdict
from dashboard.cached import evaluation as cached_evaluation
from dashboard.cached import segments as cached_segments
from dashboard.charts import show_chart
from dashboard.controls import confidence_control, download_table, ensure_choice, file_name
from dashboard.highlight import Highlight, marks
from dashboard.segment_choice import attributes_spec, offered_segmentations
from dashboard.session import header, require_data
from dashboard.text import literal
from rankmetrics.figures import metric_label, metric_title
from rankmetrics.figures.segments import segment_curves_figure, segment_heatmap
from rankmetrics.metrics import METRICS, higher_says
from rankmetrics.segments import MIN_USERS, N_BUCKETS, NO_VALUE, TOO_FEW, WARN_SHARE
from rankmetrics.stats import CORRECTION_NAMES, CORRECTIONS, TEST_NAMES, TESTS

header(
    "Segments",
    "Better on average is not better for everyone. Here the users are split into segments "
    "(an attribute such as plan or country, or the size of their ground truth), each with its "
    "own winner, tested user by user.",
)
prepared, settings = require_data()
saved = bundles.full_evaluation(prepared)
if saved is not None:
    st.info("This is a saved evaluation: segments split the users it holds (those some "
            "model counts), from their "
            f"per-user values at K = {', '.join(map(str, saved.cutoffs))} (the curves over K "
            "show those cutoffs only). It holds each user's number of relevant items, not "
            "their ground truth: split by relevant items, or by user attributes (saved with "
            "it, or uploaded on the Data page).", icon=":material/info:")
state = st.session_state
k = settings.cutoff
models = prepared.models
if len(models) < 2:
    st.info("Segments compare models with each other: add at least one more model's output "
            "on the Data page.")
    st.stop()

spec = attributes_spec()
attributes, problem = cached_segments.user_attributes(spec) if spec is not None else (None, None)
if problem:
    st.warning(f"The user attributes could not be read: {literal(problem)} (see the Data page). "
               "Only the automatic segments are offered.")
elif attributes is None:
    st.caption("No user attributes loaded: upload a file with a user column and columns such "
               "as country, plan or age on the **Data** page to split by them. Until then, the "
               "automatic segments are offered.")
names = offered_segmentations(prepared, spec)

by_column, metric_column = st.columns(2)
ensure_choice(keys.SEGMENT_BY, names)
by_column.selectbox("Split users by", names, key=keys.SEGMENT_BY, persist_state="session",
                    help="An attribute column (categories as they are, numbers in quantile "
                    "buckets), the number of items in each user's ground truth, or, with "
                    "training interactions, each user's activity and cold start.")
# the metrics where higher is better: each segment has a winner
offered = [metric for metric in cached_evaluation.per_user_accuracy_metrics(prepared)
           if higher_says(metric) is None]
ensure_choice(keys.SEGMENT_METRIC, offered, default="ndcg")
metric_column.selectbox("Metric", offered, key=keys.SEGMENT_METRIC,
                        format_func=lambda m: metric_title(m, k), persist_state="session",
                        help="The cutoff K comes from the sidebar.")

with st.expander("Segments and tests: buckets, smallest tested segment, warnings, test"):
    buckets_column, users_column, share_column = st.columns(3)
    state.setdefault(keys.SEGMENT_BUCKETS, N_BUCKETS)
    buckets_column.slider("Buckets for numbers", 2, 10, key=keys.SEGMENT_BUCKETS,
                          persist_state="session",
                          help="Numeric columns are cut at their quantiles into this many "
                          "buckets of about equal size (fewer when values repeat).")
    state.setdefault(keys.SEGMENT_MIN_USERS, MIN_USERS)
    users_column.number_input("Smallest segment tested (users)", min_value=2, max_value=10_000,
                              key=keys.SEGMENT_MIN_USERS, persist_state="session",
                              help="Smaller segments are shown greyed and not tested: too few "
                              "users to tell.")
    state.setdefault(keys.SEGMENT_SHARE, WARN_SHARE)
    share_column.slider("Warn from a share of users of", 0.01, 0.5, key=keys.SEGMENT_SHARE,
                        step=0.01, format="percent", persist_state="session",
                        help="A segment holding at least this share of the users whose winner "
                        "is not the overall winner gets a warning.")
    test_column, correction_column, level_column = st.columns(3)
    state.setdefault(keys.SEGMENT_TEST, "randomization")
    test_column.selectbox("Test within each segment", TESTS, key=keys.SEGMENT_TEST,
                          format_func=lambda t: TEST_NAMES[t].capitalize(),
                          persist_state="session")
    state.setdefault(keys.SEGMENT_CORRECTION, "holm")
    correction_column.selectbox(
        "Correction", CORRECTIONS, key=keys.SEGMENT_CORRECTION,
        format_func=lambda name: CORRECTION_NAMES[name], persist_state="session",
        help="Every segment x pair test is one family: testing many segments makes some "
        "differences look real by chance, and the correction makes up for it.")
    confidence = confidence_control(level_column)

by, metric = state[keys.SEGMENT_BY], state[keys.SEGMENT_METRIC]
baseline = verdict.baseline(prepared)
test, correction = state[keys.SEGMENT_TEST], state[keys.SEGMENT_CORRECTION]
label = metric_label(metric, k)
with st.spinner(f"Testing every pair of models in every segment of {literal(by)}…", show_time=True):
    result = cached_segments.segment_comparison(
        prepared, settings, spec, by, int(state[keys.SEGMENT_BUCKETS]), metric, baseline, test,
        correction, confidence, int(state[keys.SEGMENT_MIN_USERS]),
        float(state[keys.SEGMENT_SHARE]))

if (spec is not None and attributes is not None and by in attributes.kinds
        and result.segments["segment"].tolist() == [NO_VALUE]):
    st.warning(f"No user of {literal(spec.file_name)} is in the ground truth: every user is "
               f"{NO_VALUE}. The user ids of the two files must match (check the user column "
               "on the Data page).")
for warning in result.warnings:
    if result.simpson and warning == result.warnings[0]:
        st.error(literal(warning), icon=":material/warning:")
    elif warning.startswith("Too few users"):
        st.info(literal(warning))
    else:
        st.warning(literal(warning))

st.subheader(f"{label} in each segment of {literal(by)}")
table = result.table()
USERS_IN_SEGMENT = "Users in segment"
too_few = set(result.segments.loc[result.segments["too_few"], "segment"])
shown = table.rename(columns={"segment": "Segment", "users": USERS_IN_SEGMENT, "share": "Share",
                              "winner": "Winner", "significant": "Significantly best"})
st.dataframe(
    shown.style.format("{:.4f}", subset=list(models), na_rep="–")
    .format("{:.1%}", subset=["Share"]).format("{:,}", subset=[USERS_IN_SEGMENT])
    .apply(lambda row: marks([row["Segment"] in too_few] * len(row), Highlight.FADED),
           axis=1),
    hide_index=True, key="segments_table",
)
download_table(result.export_table(),
               file_name("segments", metric, "at", k, "by", by, suffix=".csv"),
               "segments_table_csv")
overall = result.overall_means
st.caption(
    f"**{USERS_IN_SEGMENT}:** every user of the segment that the data holds. Means are over "
    "the segment's users each model counts (as if evaluating them alone; the conventions "
    "decide whether users without a relevant item or without a list count). "
    "**Significantly best:** "
    f"the winner beats every other model in the segment ({TEST_NAMES[test]} on the users every "
    f"model counts, {CORRECTION_NAMES[correction]} correction over all "
    f"{len(result.pairs):,} segment x pair tests, significance level {1 - confidence:.0%}). "
    f"Greyed: {TOO_FEW} (fewer than {result.min_users} users, not tested). Over all users: "
    + ", ".join(f"{literal(model)} {value:.4f}" for model, value in overall.items()) + "."
)

st.subheader(f"Each model against {literal(baseline)}")
st.caption("The baseline model is chosen in the sidebar.")
show_chart(segment_heatmap(result.models, baseline, label, order=models), "segments_heatmap",
           name=("against", baseline, label, "by", by))
st.caption("Each cell: the model's mean minus the baseline's in that segment, and the "
           "corrected p-value. **Blue ▲**: significantly better than the baseline; **red ▼**: "
           "significantly worse; **grey**: the difference may be chance.")

st.subheader("Over K, segment by segment")
if METRICS[metric].has_cutoff:
    curves = cached_segments.segment_means_over_k(prepared, settings, spec, by,
                                                  int(state[keys.SEGMENT_BUCKETS]), metric)
    users = dict(zip(result.segments["segment"], result.segments["users"], strict=True))
    show_chart(segment_curves_figure(curves, metric, k, prepared.colors, too_few=too_few,
                                     users=users), "segments_curves",
               name=("curves", metric, "by", by))
else:
    st.caption(f"{metric_title(metric)} looks at each user's first |R| items, however many "
               "the user has: it has one value, not a curve over K. Choose another metric "
               "for the curves.")

with st.expander("Every model in every segment: intervals, differences, p-values"):
    st.dataframe(
        result.models, hide_index=True, key="segments_models",
        column_config={
            "segment": st.column_config.TextColumn("Segment"),
            "model": st.column_config.TextColumn("Model"),
            "users": st.column_config.NumberColumn("Users", format="localized"),
            "mean": st.column_config.NumberColumn(f"Mean {label}", format="%.4f"),
            "ci_low": st.column_config.NumberColumn(f"{confidence:.0%} interval: low",
                                                    format="%.4f"),
            "ci_high": st.column_config.NumberColumn(f"{confidence:.0%} interval: high",
                                                     format="%.4f"),
            "difference": st.column_config.NumberColumn(f"Minus {baseline}", format="%+.4f"),
            "p_value": st.column_config.NumberColumn("p", format="%.4f"),
            "p_corrected": st.column_config.NumberColumn("Corrected p", format="%.4f"),
            "significant": st.column_config.CheckboxColumn("Significant"),
            "verdict": st.column_config.TextColumn("Against the baseline"),
        },
    )
    download_table(result.models, file_name("segment_models", metric, "at", k, "by", by,
                                            suffix=".csv"), "segments_models_csv")
