"""Compare models: every metric as a curve over K, and a table at the chosen K."""

from collections.abc import Callable, Hashable
from functools import partial

import pandas as pd
import streamlit as st

from dashboard import bundles, keys, runs
from dashboard.cached import beyond as cached_beyond
from dashboard.cached import evaluation as cached_evaluation
from dashboard.charts import show_chart
from dashboard.columns import metric_column_config
from dashboard.controls import confidence_control, confidence_level, download_table
from dashboard.session import header, require_data, subject
from dashboard.settings import N_BOOTSTRAP
from dashboard.text import literal
from dashboard.verdict import (
    DIFFERENCE_COLUMNS,
    baseline,
    baseline_differences,
    bounded_note,
    comparisons,
    mark_leaders,
    significance_choice,
)
from rankmetrics.figures import metric_curves, metric_label
from rankmetrics.metrics import (
    MAIN_METRICS,
    METRICS,
    direction_text,
    higher_says,
    plain_label,
    value_text,
)
from rankmetrics.printed import unbroken_cutoffs
from rankmetrics.report.decision import (
    MetricDecision,
    decision_note,
    describe_across,
    describe_verdict,
    headline,
    short_verdict,
    verdict,
)
from rankmetrics.report.latex import latex_table
from rankmetrics.report.verdict import how_tested, leader_verdict

one, many = subject(), subject(plural=True)
header(
    "Compare models",
    f"Each line is one model's average score over {many} when the {one} sees the top *K* "
    "items, for every *K*; higher is better. The dot marks the *K* chosen in the sidebar.",
)
prepared, settings = require_data()
k = settings.cutoff
decision_area = st.container()
runs.runs_note(prepared)

offered = cached_evaluation.accuracy_metrics(prepared)  # the main ones, then the others
state = st.session_state
state[keys.COMPARE_METRICS] = [metric for metric in state.get(keys.COMPARE_METRICS,
                                                              MAIN_METRICS) if metric in offered]
chosen = st.pills(
    "Metrics", offered, selection_mode="multi", key=keys.COMPARE_METRICS,
    format_func=plain_label, persist_state="session",
    help="The first six are shown by default; the others are for graded judgments and "
    "incomplete judgments (ERR, RBP, bpref, the share judged) and for DCG without "
    "normalizing.\n\n"
    + "\n\n".join(f"**{plain_label(m)}**: {METRICS[m].description} {direction_text(m)}."
                   for m in offered),
)
metrics = [metric for metric in offered if metric in (chosen or [])]
# the table: the main metrics, and any other chosen above
table_metrics = tuple(metric for metric in offered if metric in MAIN_METRICS or metric in metrics)
# the metrics where higher is better: a model can lead on them
tested_metrics = tuple(metric for metric in table_metrics if higher_says(metric) is None)

toggle_column, level_column = st.columns(2, vertical_alignment="center")
level = confidence_level()
show_bands = toggle_column.toggle(
    f"Show {level:.0%} confidence bands", key=keys.COMPARE_BANDS, persist_state="session",
    help="A shaded band around each curve: where the model's mean would likely fall with "
    f"another sample of {many} like these. Bands that overlap a lot mean the gap between "
    "two curves may be chance; the Significance page tests it.",
)
if show_bands:
    level = confidence_control(level_column)

if metrics:
    band_table: pd.DataFrame | None = None
    band_cutoffs: list[int] = []
    if show_bands:
        with st.spinner(f"Resampling the {many} {N_BOOTSTRAP:,} times for the "
                        f"{level:.0%} confidence bands…"):
            band_table, band_cutoffs = cached_evaluation.bands(prepared, settings,
                                                               tuple(metrics), level)
    figure = metric_curves(cached_evaluation.curves(prepared, settings, tuple(metrics)),
                           metrics, k,
                           prepared.colors, bands=band_table, confidence=level,
                           list_end=prepared.longest_list)
    show_chart(figure, "compare_chart", name=("curves", *metrics, "K", k))
    if show_bands:
        note = (f"Shaded: the {level:.0%} bootstrap confidence band of each model's mean (its "
                f"{many} resampled {N_BOOTSTRAP:,} times).")
        if len(band_cutoffs) < settings.max_cutoff:
            note += (f" With this many {many} the bands are computed at K = "
                     f"{', '.join(map(str, band_cutoffs))} only and joined by straight lines.")
        st.caption(note)
else:
    st.info("Pick at least one metric above to draw its curves.")

st.subheader(f"Every metric at K = {k}")
table = cached_evaluation.table_at(prepared, settings, table_metrics)
# NDCG, the headline metric, first: the column next to the model, in view in a narrow window
headline_column = metric_label("ndcg", k)
table = table[[headline_column, *(column for column in table.columns
                                  if column != headline_column)]]
metric_columns: list[Hashable] = [metric_label(metric, k) for metric in table_metrics]
beyond_columns = []
shown_metrics = list(table_metrics)  # the table's metric columns, each with its help
if prepared.extras or bundles.saved_beyond(prepared):  # beyond accuracy: files, or saved
    beyond = cached_beyond.beyond_table_at(prepared, settings)
    beyond_columns = list(beyond.columns)
    table = table.join(beyond)
    shown_metrics += cached_beyond.beyond_metrics(prepared, settings)
choice = significance_choice()
with st.spinner("Testing which differences between the models are more than chance…"):
    results = comparisons(prepared, settings, tested_metrics, choice)
averaged = cached_evaluation.averaged_column(prepared)
styled = table.style.format("{:.4f}", subset=metric_columns, na_rep="–").format(
    "{:,}", subset=[averaged])
if beyond_columns:  # popularity with two decimals, whole counts without decimals
    # a dict of formats applies to its columns only when they are the subset (without one,
    # every other column would go back to the default format)
    formats: dict[str, str | Callable[[object], str] | None] = {
        metric_label(metric, k): partial(value_text, metric)
        for metric in cached_beyond.beyond_metrics(prepared, settings)}
    styled = styled.format(formats, subset=list(formats))
for metric, result in results.items():
    if result is not None:
        styled = mark_leaders(styled, leader_verdict(result), metric_label(metric, k))
decided = [(metric, result) for metric in metrics
           if (result := results.get(metric)) is not None]
if decided:
    decisions = [MetricDecision(verdict(result, metric, k), tuple(
        cached_evaluation.leaders_across_k(prepared, settings, metric)), settings.max_cutoff)
        for metric, result in decided]
    def words(text: str) -> str:  # a line never ends in "K ="
        return literal(unbroken_cutoffs(text))

    with decision_area.container(border=True, key="decision"):
        st.markdown(f"**{words(headline(decisions))}**")
        st.markdown("\n".join(f"- **{decision.label}**: {words(short_verdict(decision))}"
                              for decision in decisions))
        st.caption(f"{words(decision_note(decisions))} Change the test on the Significance "
                   "page.")
        with st.expander("Details: each metric's p-value, users and leader at each K"):
            st.markdown("\n".join(f"- {words(describe_verdict(decision.verdict))}  \n  "
                                  f"{words(describe_across(decision))}"
                                  for decision in decisions))
# The model stays in view when a narrow window scrolls the table. NDCG is not pinned beside
# it: the grid draws a pinned column's text faded, which a highlighted cell cannot afford.
st.dataframe(styled, key="compare_table", column_config=metric_column_config(shown_metrics, k))
buttons = st.container(horizontal=True)  # side by side while they fit, else one per line
download_table(table, f"metrics_at_{k}.csv", "compare_table_csv", where=buttons)
if any(result is not None for result in results.values()):  # the models can be tested
    evaluation = cached_evaluation.shown_evaluation(prepared, settings)
    buttons.download_button(
        "Download as LaTeX", lambda: latex_table(
            evaluation,
            metrics or list(table_metrics), [k], test=choice.test,
            correction=choice.correction, confidence=choice.confidence,
            n_permutations=choice.n_permutations),
        file_name=f"metrics_at_{k}.tex", mime="text/x-tex", key="compare_table_latex",
        on_click="ignore", icon=":material/download:",
        help="The table of the metrics shown, with superscripts naming the models each one "
        "is significantly better than (the Significance page's test), for a paper.")
all_counts = cached_evaluation.user_counts(prepared, settings)
counts = all_counts.iloc[0]
notes = [f"{counts['ground_truth_users']:,} {many} in the ground truth"]
if counts["no_relevant_items"]:
    policy = ("left out of the averages" if counts["no_relevant_items_policy"] == "skip"
              else "counted with 0")
    notes.append(f"{counts['no_relevant_items']:,} of them have no relevant item and are {policy}")
missing = all_counts[all_counts["missing_from_model"] > 0]
if len(missing):
    policy = ("left out of that model's averages" if counts["missing_policy"] == "skip"
              else "counted with 0")
    listing = ", ".join(f"{literal(model)} {number:,}" for model, number
                        in zip(missing["model"], missing["missing_from_model"], strict=True))
    notes.append(f"{many} a model returned nothing for are {policy} ({listing})")
policy_noted = bool(counts["no_relevant_items"]) or len(missing) > 0
how_to_change = (". These are the saved evaluation's conventions: evaluate the data again to "
                 "change them." if bundles.full_evaluation(prepared) is not None
                 else ". Change this under Conventions › Advanced in the sidebar.")
st.caption("; ".join(notes) + (how_to_change if policy_noted else ".")
           + (f" The beyond-accuracy columns after {averaged} are explained on the Beyond "
              "accuracy page (higher is not always better there)." if beyond_columns else ""))

judged = cached_evaluation.judged_note(prepared, settings)
if judged:
    st.caption(f":material/info: {literal(judged)}")
if "rbp" in table_metrics:
    interval = cached_evaluation.rbp_note(prepared, settings)
    if interval:
        st.caption(f"{literal(interval)} Were every unjudged item relevant, RBP would be at "
                   "the top of its interval.")

tested = next((result for result in results.values() if result is not None), None)
if tested is None:
    st.caption("No model is marked best: the paired tests need at least two models and two "
               f"{many} every model counts.")
else:
    source = ("chosen on the Significance page" if choice.chosen
              else "the default; choose another on the Significance page")
    st.caption(f"**★ green:** the best model, significantly better than every other model "
               f"(tested with the {how_tested(tested)}: {source}). **≈ yellow:** the leaders, not "
               "distinguishable: the data cannot tell them apart. The tests use the "
               f"{tested.models['users'].iloc[0]:,} {many} every model counts"
               + (f": the means above are over each model's own {many} ({averaged}), so "
                  "the marked model need not have the highest mean." if
                  all_counts["users"].nunique() > 1 else ".")
               + bounded_note(choice, int(tested.models["users"].iloc[0])))
    base = baseline(prepared)
    st.subheader(f"Difference from {literal(base)} at K = {k}")
    differences = baseline_differences(results, base, k)
    st.dataframe(differences, hide_index=True, key="compare_baseline",
                 column_config=DIFFERENCE_COLUMNS)
    download_table(differences, f"difference_from_baseline_at_{k}.csv", "compare_baseline_csv")
    st.caption(f"Each model's mean minus {literal(base)}'s (the baseline, chosen in the sidebar), "
               f"and the same as a share of {literal(base)}'s mean (lift). The interval is the "
               f"{tested.confidence:.0%} bootstrap interval of the difference; a difference "
               "is significant when its corrected p-value is below the significance level. "
               f"**Rank:** the places the model takes in {tested.confidence:.0%} of the "
               "resamples of the users (\"1-2 of 4\": first or second).")

runs.compare_section(prepared, settings, metrics)
