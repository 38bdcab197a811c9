"""Choosing K: does the verdict depend on the cutoff, the relevance threshold or ties?"""

import pandas as pd
import streamlit as st

from dashboard import bundles, keys
from dashboard.cached import choosing_k as cached_choosing_k
from dashboard.cached import evaluation as cached_evaluation
from dashboard.cached import significance as cached_significance
from dashboard.charts import show_chart
from dashboard.controls import confidence_control, download_table, ensure_choice
from dashboard.highlight import Highlight, marks
from dashboard.session import header, require_data
from dashboard.text import literal
from rankmetrics.choosing_k.report import PANELS, cutoffs_tested, map_cutoffs, parse_cutoffs
from rankmetrics.choosing_k.ties import tie_flags
from rankmetrics.figures.choosing_k import (
    difference_figure,
    order_figure,
    p_value_figure,
    power_figure,
    tau_figure,
    tie_figure,
    winner_map_figure,
)
from rankmetrics.metrics import MAIN_METRICS, METRICS
from rankmetrics.stats import CORRECTION_NAMES, CORRECTIONS, TEST_NAMES, TESTS, correction_text

PERMUTATIONS = (200, 500, 1_000, 2_000, 5_000)
PANEL_TITLES = {
    "order": "Where the order changes",
    "metrics": "Which metric, which K",
    "significance": "Which K separates the models",
    "relevance": "Relevance thresholds",
    "ties": "Ties",
}

header(
    "Choosing K",
    "Which K should you report? This page follows the models over every K: where their "
    "order changes, which K the tests can tell them apart at, and whether the relevance "
    "threshold or tied scores could change the verdict.",
)
prepared, settings = require_data()
saved = bundles.full_evaluation(prepared)
evaluated = cached_evaluation.shown_evaluation(prepared, settings)
state = st.session_state
k = settings.cutoff

metric_column, test_column, correction_column = st.columns(3)
state.setdefault(keys.CHOOSING_K_METRIC, "ndcg")
metric_column.selectbox("Metric", list(MAIN_METRICS), key=keys.CHOOSING_K_METRIC,
                        format_func=lambda m: METRICS[m].label, persist_state="session")
state.setdefault(keys.CHOOSING_K_TEST, "t")
test_column.selectbox(
    "Test", TESTS, key=keys.CHOOSING_K_TEST, format_func=lambda t: TEST_NAMES[t].capitalize(),
    persist_state="session",
    help="The t-test and the Wilcoxon test run at every K; the randomization test, much "
    "slower, at a spread of cutoffs.")
state.setdefault(keys.CHOOSING_K_CORRECTION, "holm")
correction_column.selectbox("Correction for testing many pairs", CORRECTIONS,
                            key=keys.CHOOSING_K_CORRECTION,
                            format_func=lambda name: CORRECTION_NAMES[name],
                            persist_state="session")
metric, test, correction = (state[keys.CHOOSING_K_METRIC], state[keys.CHOOSING_K_TEST],
                            state[keys.CHOOSING_K_CORRECTION])
every_threshold = list(cached_choosing_k.k_relevance_variants(prepared, settings, every=True))
if not set(state.get(keys.CHOOSING_K_THRESHOLDS, [None])) <= set(every_threshold):
    # first visit, or another data set: the thresholds around the sidebar's
    state[keys.CHOOSING_K_THRESHOLDS] = list(
        cached_choosing_k.k_relevance_variants(prepared, settings))
with st.expander("Confidence level, random flips, relevance thresholds"):
    level_column, flips_column = st.columns(2)
    confidence = confidence_control(level_column)
    state.setdefault(keys.CHOOSING_K_PERMUTATIONS, 1_000)
    flips_column.select_slider("Random sign flips (randomization test)", PERMUTATIONS,
                               key=keys.CHOOSING_K_PERMUTATIONS, format_func="{:,}".format,
                               disabled=test not in ("randomization", "tukey"),
                               persist_state="session")
    st.multiselect("Relevance thresholds to compare", every_threshold,
                   key=keys.CHOOSING_K_THRESHOLDS,
                   help="The rows of the winner map over relevance: the sidebar's mapping "
                   "with each of these thresholds.")
thresholds = tuple(name for name in every_threshold if name in state[keys.CHOOSING_K_THRESHOLDS])
options = (test, correction, confidence, state[keys.CHOOSING_K_PERMUTATIONS])
label = METRICS[metric].label
paired_users = cached_significance.paired_users(prepared, settings, metric)
several = len(prepared.models) >= 2 and paired_users >= 2
tested = cutoffs_tested(evaluated, test, k)  # a saved evaluation's: its saved cutoffs
mapped = map_cutoffs(evaluated, test, k)
tested_cutoffs = ", ".join(map(str, tested))
sampled_users = f"{prepared.ground_truth.n_users:,} sampled users"


def order_panel() -> None:
    """Where the order of the models changes over K, from the means at every K."""
    st.subheader(PANEL_TITLES["order"], anchor=PANELS["order"])
    table, found, agreement = cached_choosing_k.k_order(prepared, settings, metric)
    show_chart(order_figure(table, found, metric, k, prepared.colors), "k_order",
               name=("choosing K", "order", "K", k))
    if found.empty:
        st.caption(f"No two models cross on {label} between K = 1 and {settings.max_cutoff}.")
    else:
        st.dataframe(found.rename(columns={
            "cutoff": "K", "ahead": "Passes", "behind": "Model passed",
            "value_ahead": f"{label} of the one passing", "value_behind": f"{label} of the other",
            "tied_from": "Equal from K"}), hide_index=True, key="k_crossings",
            placeholder="–")  # models that pass each other without being equal first
    show_chart(tau_figure(agreement, k), "k_tau",
               name=("choosing K", "tau", "K", k))
    st.caption(f"Kendall's tau compares the order of the models at each K with their order at "
               f"K = {k}: 1 is the same order, −1 the reverse.")
    with st.expander("The leaderboard at every K"):
        board = cached_choosing_k.k_leaderboard(prepared, settings, metric)
        st.dataframe(board, hide_index=True, key="k_leaderboard")
        download_table(board, f"leaderboard_{metric}.csv", "k_leaderboard_csv")


def saved_tests_table(tests: pd.DataFrame) -> None:
    """A saved evaluation's pairs tested at each saved cutoff, as a table."""
    st.dataframe(tests, hide_index=True, key="k_saved_tests", column_config={
        "cutoff": st.column_config.NumberColumn("K", format="%d"),
        "model_a": "Model A", "model_b": "Model B",
        "mean_a": st.column_config.NumberColumn(f"{label} of A", format="%.4f"),
        "mean_b": st.column_config.NumberColumn(f"{label} of B", format="%.4f"),
        "difference": st.column_config.NumberColumn("B − A", format="%+.4f"),
        "statistic": st.column_config.NumberColumn("Statistic", format="%.3f"),
        "p_value": st.column_config.NumberColumn("p", format="%.2e"),
        "p_corrected": st.column_config.NumberColumn("Corrected p", format="%.2e"),
        "significant": st.column_config.CheckboxColumn("Significant"),
        "users": st.column_config.NumberColumn("Users", format="localized")})
    download_table(tests, f"tests_over_k_{metric}.csv", "k_saved_tests_csv")


if saved is not None:
    st.info(f"This is a saved evaluation. The order of the models and the values of the table "
            f"of cutoffs follow its means at every K up to {settings.max_cutoff}. The tests, "
            f"the winners by metric, the difference band and the table's green marks need "
            f"every user's values, which it holds at the saved cutoffs {tested_cutoffs} "
            f"only: they are computed at those cutoffs. The winners by relevance threshold and "
            f"the ties need the lists with their scores: they are those of the "
            f"{sampled_users} whose lists it keeps.", icon=":material/info:")

st.subheader(f"In short, on {label}")
with st.spinner("Following the models over every K…", show_time=True):
    summary = cached_choosing_k.k_summary(prepared, settings, metric, options, thresholds)
shown = {"order", "ties"} | ({"significance", "metrics", "relevance"} if several else set())
st.markdown("\n".join(
    f"- {literal(sentence.text)}"
    + (f" [{PANEL_TITLES[sentence.kind]} ↓](#{sentence.panel})" if sentence.kind in shown
       else "")
    for sentence in summary))

order_panel()

if len(prepared.models) < 2:
    st.info("With one model there is nothing to compare: add another model's output on the "
            "Data page to see which K separates models.")
elif not several:
    st.info(f"Only {paired_users} user is counted by every model: the paired tests over K "
            "need at least 2 (and mean little with fewer than 10).")
else:
    st.subheader(PANEL_TITLES["significance"], anchor=PANELS["significance"])
    if saved is not None:
        sampled = f" At the saved cutoffs {tested_cutoffs} only, where every user's values are."
        others = ""
    else:
        sampled = "" if len(tested) == settings.max_cutoff else (
            f" The randomization test runs at K = {tested_cutoffs} only.")
        others = "" if len(mapped) == settings.max_cutoff else (
            f" The other metrics are tested at K = {', '.join(map(str, mapped))}.")
    power = cached_choosing_k.k_power(prepared, settings, metric, options)
    if saved is not None or len(prepared.models) == 2:
        tests = cached_choosing_k.k_tests(prepared, settings, None, metric, options,
                                          tuple(tested))
    if len(prepared.models) == 2:
        show_chart(p_value_figure(tests, 1 - confidence, k, label), "k_p_value",
                   name=("choosing K", "p_value", "K", k))
        st.caption(f"With two models: the corrected p-value of their difference at each K "
                   f"({TEST_NAMES[test]}); below the dashed line they differ significantly."
                   + sampled)
    else:
        show_chart(power_figure(power, k), "k_power",
                   name=("choosing K", "power", "K", k))
        st.caption(f"At each K, the share of the pairs of models whose difference is "
                   f"significant ({TEST_NAMES[test]}, {CORRECTION_NAMES[correction]} "
                   f"correction over the pairs), on the users every model counts. High: "
                   f"that K tells the models apart; low: it cannot." + sampled + others)
    if saved is not None:
        saved_tests_table(tests)
    best_two = cached_evaluation.best_first(prepared, settings, metric)[:2]
    pairs = [(a, b) for a in prepared.models for b in prepared.models if a != b]
    ensure_choice(keys.CHOOSING_K_PAIR, pairs, (best_two[1], best_two[0]))
    st.selectbox("Difference of two models", pairs, key=keys.CHOOSING_K_PAIR,
                 format_func=lambda pair: f"{pair[1]} − {pair[0]}")
    model_a, model_b = state[keys.CHOOSING_K_PAIR]
    band = cached_choosing_k.k_band(prepared, settings, metric, model_a, model_b, confidence)
    show_chart(difference_figure(band, model_a, model_b, label, confidence, k), "k_band",
               name=("choosing K", "band", "K", k))
    st.caption(f"The band is the paired t-test's {confidence:.0%} confidence interval of the "
               "difference, on the users every model counts: where it stays off the zero "
               "line, the difference is larger than chance would make it."
               + ("" if saved is None else f" Drawn between the saved cutoffs {tested_cutoffs}"
                  ", where every user's values are."))

    st.subheader(PANEL_TITLES["metrics"], anchor=PANELS["metrics"])
    by_metric = cached_choosing_k.k_winners_by_metric(prepared, settings, options)
    rows = [METRICS[m].label for m in MAIN_METRICS]
    show_chart(winner_map_figure(by_metric, rows, "The best model at each K, by metric",
                                      prepared.colors, k), "k_metric_map",
               name=("choosing K", "metric_map", "K", k))
    st.caption("Each cell is the model with the highest mean; filled: significantly better "
               "than every other model, open: the data cannot tell it from the next."
               + (f" At the saved cutoffs {tested_cutoffs} only." if saved is not None
                  else others.replace("The other metrics are", " The maps are")))

    st.subheader(PANEL_TITLES["relevance"], anchor=PANELS["relevance"])
    if thresholds:
        by_relevance = cached_choosing_k.k_winners_by_relevance(prepared, settings, metric,
                                                                options, thresholds)
        show_chart(winner_map_figure(by_relevance, thresholds,
                                     f"The best model on {label} at each K, by relevance "
                                     "threshold", prepared.colors, k), "k_relevance_map",
                   name=("choosing K", "relevance_map", "K", k))
        st.caption(f"The sidebar's relevance mapping ({literal(settings.relevance.describe())}) "
                   "with its threshold moved over the ratings found (choose the thresholds "
                   "above, under Confidence level, random flips, relevance thresholds)."
                   + ("" if saved is None else
                      f" Another threshold needs the ratings of every user's lists: this map "
                      f"is that of the {sampled_users} whose lists the saved evaluation "
                      "keeps, at every K."))
    else:
        st.info("Choose at least one relevance threshold above to compare the winners.")

st.subheader(PANEL_TITLES["ties"], anchor=PANELS["ties"])
bounds = cached_choosing_k.k_tie_bounds(prepared, settings)
if bounds is None:
    st.info("The tie bounds need the models' scores, which could not be read again.")
else:
    show_chart(tie_figure(bounds, metric, k, prepared.colors), "k_ties",
               name=("choosing K", "ties", "K", k))
    flags = tie_flags(bounds, metric, k)
    st.dataframe(flags, hide_index=True, key="k_tie_flags", column_config={
        "model": "Model", "active": st.column_config.NumberColumn(f"{label}@{k}",
                                                                  format="%.4f"),
        "low": st.column_config.NumberColumn("Worst tie order", format="%.4f"),
        "high": st.column_config.NumberColumn("Best tie order", format="%.4f"),
        "range": st.column_config.NumberColumn("Range", format="%.4f"),
        "gap": st.column_config.NumberColumn("Gap to nearest model", format="%.4f"),
        "flagged": st.column_config.CheckboxColumn("Ties could change the order")})
    st.caption(f"Band: {label} with the relevant tied items placed last (worst) and first "
               f"(best); the line is the active tie rule ({settings.conventions.ties}). "
               "Dotted, below: the share of users whose top K depends on the order of ties."
               + ("" if saved is None else
                  f" The orders of tied scores need the lists with their scores: these are "
                  f"the {sampled_users} whose lists the saved evaluation keeps, their means "
                  "and the gaps between models among them."))

st.subheader("Several cutoffs side by side", anchor="cutoff-table")
state.setdefault(keys.CHOOSING_K_CUTOFFS, ",".join(
    str(c) for c in sorted({1, 5, 10, k}) if c <= settings.max_cutoff))
text = st.text_input("Cutoffs", key=keys.CHOOSING_K_CUTOFFS,
                     help="Comma-separated values of K, as the command line's --cutoffs.")
try:
    cutoffs = parse_cutoffs(text, settings.max_cutoff)
except ValueError as problem:
    st.warning(literal(problem))
    cutoffs = ()
if cutoffs:
    wide, best = cached_choosing_k.k_cutoff_table(prepared, settings, cutoffs, options)
    st.dataframe(wide.style.format("{:.4f}").apply(
        lambda column: marks(best[column.name], Highlight.BEST)), key="k_cutoff_table")
    download_table(wide, "metrics_at_cutoffs.csv", "k_cutoff_table_csv")
    untested = [str(c) for c in cutoffs if saved is not None and c not in saved.cutoffs]
    st.caption(f"Green: significantly best in its column ({TEST_NAMES[test]}, "
               f"{correction_text(test, correction)}, on the users every model "
               "counts); a column without green has no single best model. The values are "
               "each model's mean over its own users, as on the Compare page."
               + ("" if not untested else
                  f" K = {', '.join(untested)} {'is' if len(untested) == 1 else 'are'} not "
                  f"among the saved cutoffs ({tested_cutoffs}): "
                  f"{'its column shows' if len(untested) == 1 else 'their columns show'} the "
                  "means, untested."))
