"""Significance: which differences between models are real, and which could be chance."""

import streamlit as st

from dashboard import keys, runs
from dashboard.cached import beyond as cached_beyond
from dashboard.cached import evaluation as cached_evaluation
from dashboard.cached import significance as cached_significance
from dashboard.charts import show_chart
from dashboard.columns import PAIR_COLUMNS
from dashboard.controls import confidence_control, download_table, ensure_choice
from dashboard.navigation import open_head_to_head
from dashboard.segment_choice import segment_filter
from dashboard.session import header, require_data
from dashboard.settings import BOOTSTRAP_SAMPLES, N_BOOTSTRAP, PERMUTATIONS
from dashboard.text import literal
from dashboard.verdict import (
    DEFAULT_CORRECTION,
    DEFAULT_PERMUTATIONS,
    DEFAULT_TEST,
    DIFFERENCE_COLUMNS,
    baseline,
    difference_columns,
)
from rankmetrics.figures import metric_label, metric_title, pairwise_matrix
from rankmetrics.metrics import BEYOND_METRICS, declared, higher_says
from rankmetrics.stats import (
    CORRECTION_HELP,
    CORRECTION_NAMES,
    CORRECTIONS,
    FAMILY_TESTS,
    MIN_USERS,
    TEST_HELP,
    TEST_NAMES,
    TESTS,
    correction_text,
    describe_effect,
    describe_pair,
    describe_plan,
)

#: The powers the sample-size panel offers, and the lift it starts from (in %).
POWERS = (0.5, 0.8, 0.9, 0.95)
DEFAULT_POWER = 0.8
DEFAULT_LIFT_PERCENT = 1.0

header(
    "Significance",
    "A model with a higher mean may just have been lucky with these users. Here each model's "
    "mean comes with a confidence interval, and every two models are compared user by user "
    "to tell real differences from chance.",
)
prepared, settings = require_data()
prepared = segment_filter(prepared, settings)
state = st.session_state
k = settings.cutoff
if len(prepared.models) < 2:
    st.info("Significance compares models with each other: add at least one more model's "
            "output on the Data page.")
    st.stop()

runs.runs_note(prepared)
metric_column, test_column, correction_column = st.columns(3)
offered = cached_beyond.per_user_metrics(prepared, settings)
ensure_choice(keys.SIGNIFICANCE_METRIC, offered, default="ndcg")
metric_column.selectbox("Metric", offered,
                        key=keys.SIGNIFICANCE_METRIC,
                        format_func=lambda m: metric_title(m, k), persist_state="session",
                        help="The cutoff K comes from the sidebar.")
state.setdefault(keys.SIGNIFICANCE_TEST, DEFAULT_TEST)
test_column.selectbox(
    "Test", TESTS, key=keys.SIGNIFICANCE_TEST, format_func=lambda t: TEST_NAMES[t].capitalize(),
    persist_state="session",
    help="The randomization test is the default: it assumes nothing about how per-user "
    "scores are spread (they are bounded, often 0, rarely bell-shaped), and it is the test "
    "information-retrieval studies recommend (Smucker, Allan & Carterette, 2007).",
)
state.setdefault(keys.SIGNIFICANCE_CORRECTION, DEFAULT_CORRECTION)
correction_column.selectbox(
    "Correction for testing many pairs", CORRECTIONS, key=keys.SIGNIFICANCE_CORRECTION,
    format_func=lambda name: CORRECTION_NAMES[name], persist_state="session",
    help="Testing many pairs makes some look significant by chance; a correction raises "
    "the p-values to make up for it.",
)
metric, test, correction = (state[keys.SIGNIFICANCE_METRIC], state[keys.SIGNIFICANCE_TEST],
                            state[keys.SIGNIFICANCE_CORRECTION])
label = metric_label(metric, k)
if metric in BEYOND_METRICS:
    st.info(f"{label} is a beyond-accuracy metric: below, the best model is the one with the "
            "highest value, which is not better in itself (a lower ARP means less popularity "
            "bias). The tests say whether the models differ.", icon=":material/info:")
elif (higher := higher_says(metric)) is not None:  # the share judged, RBP's residual
    st.info(f"{label} describes the judgments, not the model's quality: below, the best model "
            f"is the one whose list {higher}, which is not better in itself. The tests say "
            "whether the models differ.", icon=":material/info:")
st.caption(f"**{TEST_NAMES[test].capitalize()}:** {TEST_HELP[test]}  \n" + (
    "**Correction:** none is needed: Tukey's test covers every pair at once, so the "
    "correction chosen is not applied." if test in FAMILY_TESTS else
    f"**{CORRECTION_NAMES[correction]} correction:** {CORRECTION_HELP[correction]}"))

with st.expander("Precision: confidence level, random flips, bootstrap resamples"):
    level_column, flips_column, resamples_column = st.columns(3)
    confidence = confidence_control(level_column)
    state.setdefault(keys.SIGNIFICANCE_PERMUTATIONS, DEFAULT_PERMUTATIONS)
    flips_column.select_slider(
        "Random sign flips (randomization test)", PERMUTATIONS,
        key=keys.SIGNIFICANCE_PERMUTATIONS, format_func="{:,}".format, persist_state="session",
        disabled=test not in ("randomization", "tukey"),
        help="More flips (or shuffles, for the randomized Tukey test) make the p-value more "
        "precise and take longer.",
    )
    state.setdefault(keys.SIGNIFICANCE_BOOTSTRAP, N_BOOTSTRAP)
    resamples_column.select_slider(
        "Bootstrap resamples (intervals)", BOOTSTRAP_SAMPLES, key=keys.SIGNIFICANCE_BOOTSTRAP,
        format_func="{:,}".format, persist_state="session",
        help="The intervals come from resampling the users this many times.",
    )
n_permutations = state[keys.SIGNIFICANCE_PERMUTATIONS]
n_bootstrap = state[keys.SIGNIFICANCE_BOOTSTRAP]

n_users = cached_significance.paired_users(prepared, settings, metric)
if n_users < 2:
    st.warning(f"Only {n_users} user is counted by every model at {label}. Significance tests "
               f"compare models user by user and are not meaningful with fewer than "
               f"{MIN_USERS} users: there is nothing to test here.")
    st.stop()

n_pairs = len(prepared.models) * (len(prepared.models) - 1) // 2
work = (f"{n_permutations:,} random sign flips for each of {n_pairs} pair(s)"
        if test == "randomization" else
        f"{n_permutations:,} shuffles of every user's values for the {TEST_NAMES[test]}"
        if test == "tukey" else f"the {TEST_NAMES[test]} on {n_pairs} pair(s)")
with st.spinner(f"Running {work} and resampling {n_users:,} users {n_bootstrap:,} times for "
                "the intervals…", show_time=True):
    result = cached_significance.comparison(prepared, settings, metric, test, n_permutations,
                                            n_bootstrap, confidence).with_correction(correction)
for warning in result.warnings:
    st.warning(literal(warning))

st.subheader(f"Every model at {label}")
counts = cached_evaluation.user_counts(prepared, settings).set_index("model")["users"]
if (counts == n_users).all():
    st.caption(f"On the {n_users:,} users every model counts. {declared(metric).description}")
else:
    own = ", ".join(f"{literal(model)} {count:,}" for model, count in counts.items())
    st.caption(f"On the {n_users:,} users every model counts, so that every model is judged on "
               f"the same users (the Compare page averages each model over its own: {own}).")
base = baseline(prepared)
models_table = result.models.rename(columns={"model": "Model", "group": "Group",
                                             "users": "Users"})
models_table.insert(1, "Rank", [result.rank_text(model).removeprefix("ranked ")
                                for model in result.models["model"]])
models_table = models_table.drop(columns=["rank", "rank_low", "rank_high"])
models_table = models_table.join(difference_columns(result, base), on="Model")
st.dataframe(
    models_table, hide_index=True, key="significance_models",
    placeholder="–",  # the baseline's difference from itself has no interval
    column_config={
        **DIFFERENCE_COLUMNS,
        "mean": st.column_config.NumberColumn(f"Mean {label}", format="%.4f"),
        "ci_low": st.column_config.NumberColumn(f"{confidence:.0%} interval: low",
                                                format="%.4f"),
        "ci_high": st.column_config.NumberColumn(f"{confidence:.0%} interval: high",
                                                 format="%.4f"),
        "Rank": st.column_config.TextColumn(
            "Rank", help="Where the model places when the users are resampled: \"1-2 of 4\" "
            "means first or second in most resamples."),
        "Group": st.column_config.TextColumn(
            "Group", help="Models sharing a letter are not significantly different."),
        "Users": st.column_config.NumberColumn("Users", format="localized"),
    },
)
download_table(models_table, f"models_{metric}_at_{k}.csv", "significance_models_csv")
first = result.tied_for_first()
if len(first) > 1:
    st.markdown(f":material/info: **Tied for first:** {literal(', '.join(map(str, first)))}. "
                "With another sample of users like these, each of them could come first.")
st.caption(f"**Rank:** the places the model takes in {confidence:.0%} of {n_bootstrap:,} "
           "resamples of the users (\"1-2 of 4\": first or second). "
           f"**Group:** models sharing a letter are not significantly different "
           f"({TEST_NAMES[test]}, {correction_text(test, correction)}, significance "
           f"level {1 - confidence:.0%}). **Interval:** where the mean would fall "
           f"{confidence:.0%} of the time with another sample of users like these. "
           f"**Difference, Lift:** the model's mean minus {literal(base)}'s, the baseline chosen "
           "in the sidebar, and its interval.")

st.subheader("Every pair of models")
order = result.models["model"].tolist()
show_chart(pairwise_matrix(result.pairs, order, metric_title(metric, k),
                           higher=higher_says(metric)), "significance_matrix",
           name=("significance", label))
st.caption(
    "Read each row as a sentence: the row's model compared with the column's model. The "
    "number is the difference of their means (row minus column); under it, the corrected "
    "p-value: how likely a difference at least this large would be if the two models were "
    "equally good. **Blue ▲**: the row's model is significantly better; **red ▼**: "
    "significantly worse; **grey**: the difference may be chance."
)

pairs = [(order[j], order[i]) for i in range(len(order)) for j in range(i + 1, len(order))]
if tuple(reversed(state.get(keys.SIGNIFICANCE_PAIR) or ())) in pairs:  # as a link named it
    state[keys.SIGNIFICANCE_PAIR] = tuple(reversed(state[keys.SIGNIFICANCE_PAIR]))
ensure_choice(keys.SIGNIFICANCE_PAIR, pairs)
pair_column, open_column = st.columns([3, 2], vertical_alignment="bottom")
pair_column.selectbox("In words", pairs, key=keys.SIGNIFICANCE_PAIR,
                      format_func=lambda pair: f"{pair[1]} vs {pair[0]}", persist_state="session",
                      help="Pairs listed with the model with the higher mean first.")
model_a, model_b = state[keys.SIGNIFICANCE_PAIR]
row = result.pair(model_a, model_b)
st.info(literal(describe_pair(row, label, correction, test)) + "\n\n"
        + literal(describe_effect(row)))
if open_column.button("See this pair user by user", icon=":material/compare_arrows:",
                      help="Open the two models on the Head-to-head page."):
    open_head_to_head(model_a, model_b, metric)

with st.expander("Every pair as a table"):
    st.dataframe(result.pairs, hide_index=True, key="significance_pairs",
                 column_config=PAIR_COLUMNS)
    download_table(result.pairs, f"pairs_{metric}_at_{k}.csv", "significance_pairs_csv")
    st.caption("Interval: the bootstrap confidence interval of the difference B − A. B better, "
               "Same, A better: users for whom B's value is higher, equal or lower.")

runs.significance_section(prepared, settings, metric, test, correction, n_permutations,
                          n_bootstrap, confidence)

st.subheader("How many users would it take?")
power_column, lift_column = st.columns(2)
state.setdefault(keys.SIGNIFICANCE_POWER, DEFAULT_POWER)
power_column.select_slider(
    "Power", POWERS, key=keys.SIGNIFICANCE_POWER, format_func="{:.0%}".format,
    persist_state="session",
    help="How often a real difference of the size asked about should come out significant.")
state.setdefault(keys.SIGNIFICANCE_LIFT, DEFAULT_LIFT_PERCENT)
lift_column.number_input(
    f"Lift of {model_a}'s mean to detect (%)", min_value=0.1, max_value=100.0, step=0.5,
    key=keys.SIGNIFICANCE_LIFT, format="%.1f",
    help="The relative improvement you would like to be able to see, e.g. 1% of the "
    "lower-mean model's mean.")
power = float(state[keys.SIGNIFICANCE_POWER])
lift = float(state[keys.SIGNIFICANCE_LIFT]) / 100
plan = cached_significance.pair_plan(prepared, settings, metric, model_a, model_b, power,
                                     confidence, n_pairs)
st.markdown("  \n".join(literal(line) for line in
                        describe_plan(plan, label, model_a, model_b, lift)))
st.caption(f"For {literal(model_b)} vs {literal(model_a)}, from the spread of these users' "
           "differences, for a paired t-test; the randomization test has about the same power "
           f"with many users. With {n_pairs} pairs, each is tested at the strictest level "
           f"a correction for {n_pairs} pairs can apply, {1 - confidence:.0%} / {n_pairs}."
           if n_pairs > 1 else
           f"For {literal(model_b)} vs {literal(model_a)}, from the spread of these users' "
           "differences, for a paired t-test; the randomization test has about the same power "
           "with many users.")
