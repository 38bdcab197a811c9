"""Several runs (seeds) of one model: files named ``model@run`` are runs of one model.

The Data page says which files were grouped; Compare models draws each model's mean curve
with its runs' range and a table of means and SDs across runs; Significance tests the models
over users and over runs (:func:`rankmetrics.stats.compare_runs`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from dashboard.cached import evaluation as cached_evaluation
from dashboard.cached import significance as cached_significance
from dashboard.charts import show_chart
from dashboard.columns import PAIR_COLUMNS
from dashboard.controls import download_table
from dashboard.prepared import Prepared
from dashboard.settings import Settings
from dashboard.text import literal
from rankmetrics.figures import metric_curves, metric_label
from rankmetrics.figures.style import model_colors
from rankmetrics.metrics import MAIN_METRICS
from rankmetrics.stats import (
    RUN_SEPARATOR,
    describe_runs_pair,
    has_runs,
    run_curves,
    run_groups,
    run_name,
    run_summary,
    runs_method_text,
)

#: How the upload's help tells the naming rule.
NAMING_HELP = (f"Several runs of one model (trained with other seeds): name the files "
               f"model{RUN_SEPARATOR}run, such as als{RUN_SEPARATOR}seed1.csv and "
               f"als{RUN_SEPARATOR}seed2.csv (or rename the models below), and the pages "
               "compare the models with the runs' spread.")

#: The columns of the pairs over users and over runs.
RUN_PAIR_COLUMNS = {
    **{column: PAIR_COLUMNS[column]
       for column in ("model_a", "model_b", "mean_a", "mean_b", "difference")},
    "p_corrected": st.column_config.NumberColumn(
        "p over users", format="%.4f",
        help="The paired test on each user's value averaged over the runs, corrected."),
    "runs_p_corrected": st.column_config.NumberColumn(
        "p over runs", format="%.4f",
        help="Welch's t-test on the runs' means, corrected; empty without two runs of each."),
    "spread": st.column_config.NumberColumn(
        "Runs' SD", format="%.4f", help="The larger SD of the two models' run means."),
    "within_spread": st.column_config.CheckboxColumn(
        "Within the runs' spread",
        help="The difference is no larger than the runs' SD: another seed could reverse it."),
    "runs_a": st.column_config.NumberColumn("Runs of A"),
    "runs_b": st.column_config.NumberColumn("Runs of B"),
    "users": PAIR_COLUMNS["users"],
}


def groups_of(prepared: Prepared) -> dict[str, list[str]]:
    """Each model and its runs (a model of one file: itself)."""
    return run_groups(prepared.models)


def data_note(prepared: Prepared | None) -> None:
    """On the Data page: which files are runs of one model, and what the pages do with them."""
    if prepared is None:
        return
    groups = groups_of(prepared)
    if not has_runs(groups):
        return
    listed = "; ".join(
        f"**{literal(model)}**: {len(runs)} runs ("
        + ", ".join(literal(run_name(model, run)) for run in runs) + ")"
        for model, runs in groups.items() if len(runs) >= 2)
    st.info(f"Runs of one model: {listed}. Compare models and Significance show each model's "
            "mean across its runs, the runs' spread, and whether the differences are larger "
            f"than it. Files are grouped by the name before the last {RUN_SEPARATOR}.",
            icon=":material/stacks:")


def compare_section(prepared: Prepared, settings: Settings, metrics: Sequence[str]) -> None:
    """On Compare models: each model's mean curve over its runs with the runs' range, and the
    means and SDs across runs at K."""
    groups = groups_of(prepared)
    if not has_runs(groups):
        return
    k = settings.cutoff
    st.subheader("Several runs of one model")
    st.caption("Each line is a model's mean over its runs; the shaded band goes from its "
               "lowest run to its highest at each K. A model of one file has no band.")
    drawn = list(metrics) or ["ndcg"]
    curves = cached_evaluation.curves(prepared, settings, tuple(drawn))
    means, bands = run_curves(curves, groups)
    figure = metric_curves(means, drawn, k, model_colors(list(groups)), bands=bands,
                           band_name="the runs' range, lowest to highest",
                           list_end=prepared.longest_list)
    show_chart(figure, "runs_chart", name=("runs", *drawn, "K", k))
    shown = list(MAIN_METRICS)
    at_k = cached_evaluation.table_at(prepared, settings, tuple(shown))
    columns = [metric_label(metric, k) for metric in shown]
    summary = run_summary(at_k[columns], groups)
    st.dataframe(_mean_and_sd(summary, columns), key="runs_table")
    download_table(summary.reset_index(), f"runs_at_{k}.csv", "runs_table_csv")
    st.caption("Each cell: the mean of the runs' means (each over the users that run "
               "counts) ± how much the runs differ from each other (their sample standard "
               "deviation); a model of one file has no ±. The CSV has the two as columns. The "
               "Significance page tests whether the models differ by more than the runs do.")


def runs_note(prepared: Prepared) -> None:
    """Above a page's tables: they treat each run as a model; the section below does not."""
    groups = groups_of(prepared)
    if has_runs(groups):
        several = [literal(model) for model, runs in groups.items() if len(runs) >= 2]
        st.info(f"{', '.join(several)} {'has' if len(several) == 1 else 'have'} several runs: "
                "the tables at the top treat each run as a model of its own; *Several runs "
                "of one model*, further down, compares the models across their runs.",
                icon=":material/stacks:")


def _mean_and_sd(summary: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """The summary for reading: each metric as "mean ± SD" (the mean alone for one run)."""
    shown = pd.DataFrame({"Runs": summary["Runs"]}, index=summary.index)
    for column in columns:
        shown[column] = [f"{mean:.4f}" if pd.isna(sd) else f"{mean:.4f} ± {sd:.4f}"
                         for mean, sd in zip(summary[column], summary[f"{column} SD"],
                                             strict=True)]
    return shown


def significance_section(prepared: Prepared, settings: Settings, metric: str, test: str,
                         correction: str, n_permutations: int, n_bootstrap: int,
                         confidence: float) -> None:
    """On Significance: every pair of models tested over users and over runs, in words and
    as a table."""
    groups = groups_of(prepared)
    if not has_runs(groups) or len(groups) < 2:
        return
    label = metric_label(metric, settings.cutoff)
    st.subheader("Several runs of one model")
    with st.spinner("Testing the models over users and over their runs…"):
        result = cached_significance.run_comparison(
            prepared, settings, metric, test, correction, n_permutations, n_bootstrap,
            confidence, tuple((model, tuple(runs)) for model, runs in groups.items()))
    st.caption(literal(runs_method_text(result)))
    models = result.models.rename(columns={"runs": "Runs", "mean": f"Mean {label}",
                                           "sd": "SD across runs", "lowest": "Lowest run",
                                           "highest": "Highest run"})
    models.index.name = "Model"
    # one run has no SD: said in words (a number column would show "None")
    models["SD across runs"] = [f"{sd:.4f}" if not pd.isna(sd) else "– (one run)"
                                for sd in models["SD across runs"]]
    st.dataframe(models, key="runs_models", column_config={
        column: st.column_config.NumberColumn(column, format="%.4f")
        for column in models.columns if column not in ("Runs", "SD across runs")})
    for _, row in result.pairs.iterrows():
        text = literal(describe_runs_pair(row, label))
        if row["within_spread"]:
            st.warning(text, icon=":material/warning:")
        else:
            st.markdown(f"- {text}")
    with st.expander("Every pair over users and over runs, as a table"):
        table = pd.DataFrame(result.pairs[list(RUN_PAIR_COLUMNS)])
        st.dataframe(table, hide_index=True, key="runs_pairs", column_config=RUN_PAIR_COLUMNS)
        download_table(result.pairs, f"runs_pairs_{metric}_at_{settings.cutoff}.csv",
                       "runs_pairs_csv")
