"""The verdict every page shares: the baseline model chosen in the sidebar, and the test
behind "best" (the Significance page's choices, or its defaults before it was opened).

A model is marked best only when a paired test says so; every page that marks leaders or
shows differences from the baseline reads the same comparison
(:func:`dashboard.cached.significance.comparison`), so the Compare, Users and Significance
pages agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from dashboard import keys
from dashboard.cached import significance as cached_significance
from dashboard.controls import confidence_level, ensure_choice
from dashboard.highlight import Highlight
from dashboard.prepared import Prepared
from dashboard.settings import N_BOOTSTRAP, Settings
from rankmetrics.figures import metric_label
from rankmetrics.report.verdict import (
    BEST_MARK,
    TIED_MARK,
    LeaderVerdict,
    differences_from,
    quick_resamples,
    quick_test,
)
from rankmetrics.stats import TEST_NAMES, ModelComparison

DEFAULT_TEST = "randomization"
DEFAULT_CORRECTION = "holm"
DEFAULT_PERMUTATIONS = 10_000
DIFFERENCE_NAMES = {"difference": "Difference", "lift": "Lift", "ci_low": "Difference: low",
                    "ci_high": "Difference: high", "verdict": "Verdict"}
DIFFERENCE_COLUMNS = {
    "Difference": st.column_config.NumberColumn(
        "Difference", format="%+.4f", help="The model's mean minus the baseline's."),
    "Lift": st.column_config.NumberColumn(
        "Lift", format="percent", help="The difference as a share of the baseline's mean."),
    "Difference: low": st.column_config.NumberColumn(
        "Difference: low", format="%+.4f", help="The low end of the difference's interval."),
    "Difference: high": st.column_config.NumberColumn(
        "Difference: high", format="%+.4f", help="The high end of the difference's interval."),
    "Corrected p": st.column_config.NumberColumn("Corrected p", format="%.4f"),
    "Rank": st.column_config.TextColumn(
        "Rank", help="Where the model places among all the models when the users are "
        "resampled: \"1-2 of 4\" means first or second in most resamples."),
    "Verdict": st.column_config.TextColumn(
        "Verdict", help="better / worse: significantly; otherwise the difference may be "
        "chance."),
}


@dataclass(frozen=True)
class SignificanceChoice:
    """The paired test, correction and precision behind every verdict."""

    test: str
    correction: str
    n_permutations: int
    n_bootstrap: int
    confidence: float
    chosen: bool  # True once the Significance page set them


def significance_choice() -> SignificanceChoice:
    """The Significance page's choices, or its defaults when it has not been opened."""
    state = st.session_state
    return SignificanceChoice(
        test=state.get(keys.SIGNIFICANCE_TEST, DEFAULT_TEST),
        correction=state.get(keys.SIGNIFICANCE_CORRECTION, DEFAULT_CORRECTION),
        n_permutations=state.get(keys.SIGNIFICANCE_PERMUTATIONS, DEFAULT_PERMUTATIONS),
        n_bootstrap=state.get(keys.SIGNIFICANCE_BOOTSTRAP, N_BOOTSTRAP),
        confidence=confidence_level(),
        chosen=keys.SIGNIFICANCE_TEST in state,
    )


def comparison(prepared: Prepared, settings: Settings, metric: str,
               choice: SignificanceChoice, *, quick: bool = False) -> ModelComparison | None:
    """Every pair's test on ``metric`` at the chosen K; None when fewer than 2 models, or
    fewer than 2 users counted by every model (nothing to test). ``quick``: bounded work
    (:func:`bounded`), for pages that test every metric on every change of a setting."""
    n_users = cached_significance.paired_users(prepared, settings, metric)
    if len(prepared.models) < 2 or n_users < 2:
        return None
    if quick:
        choice = bounded(choice, n_users)
    return cached_significance.comparison(prepared, settings, metric, choice.test,
                                          choice.n_permutations, choice.n_bootstrap,
                                          choice.confidence).with_correction(choice.correction)


def comparisons(prepared: Prepared, settings: Settings, metrics: Sequence[str],
                choice: SignificanceChoice) -> dict[str, ModelComparison | None]:
    """:func:`comparison` with ``quick`` of each of ``metrics``, the users resampled once
    for the metrics tested with the same bounds."""
    bounds: dict[SignificanceChoice, list[str]] = {}
    out: dict[str, ModelComparison | None] = {}
    counts = cached_significance.paired_counts(prepared, settings, tuple(metrics))
    for metric, n_users in counts.items():
        if len(prepared.models) < 2 or n_users < 2:
            out[metric] = None
        else:
            bounds.setdefault(bounded(choice, n_users), []).append(metric)
    for quick, tested in bounds.items():
        found = cached_significance.comparisons(prepared, settings, tuple(tested), quick.test,
                                                quick.n_permutations, quick.n_bootstrap,
                                                quick.confidence)
        out.update({metric: result.with_correction(choice.correction)
                    for metric, result in found.items()})
    return {metric: out[metric] for metric in metrics}


def bounded(choice: SignificanceChoice, n_users: int) -> SignificanceChoice:
    """The choice with its work bounded for many users (:func:`quick_test`,
    :func:`quick_resamples`): the paired t-test in place of the randomization test on many
    users, and fewer resamples for the intervals."""
    return replace(choice, test=quick_test(choice.test, n_users, choice.n_permutations),
                   n_bootstrap=quick_resamples(choice.n_bootstrap, n_users))


def bounded_note(choice: SignificanceChoice, n_users: int) -> str:
    """What ``bounded`` changed, in words ("" when nothing)."""
    quick = bounded(choice, n_users)
    changes = []
    if quick.test != choice.test:
        changes.append(f"the paired t-test stands in for the {TEST_NAMES[choice.test]}")
    if quick.n_bootstrap != choice.n_bootstrap:
        changes.append(f"the intervals come from {quick.n_bootstrap:,} resamples")
    if not changes:
        return ""
    return (f" With {n_users:,} users, to keep this page quick, " + " and ".join(changes)
            + "; the Significance page runs the full test.")


def baseline_control(prepared: Prepared) -> None:
    """The sidebar's baseline model (the first model until another is chosen)."""
    if len(prepared.models) < 2:
        return
    ensure_choice(keys.BASELINE, prepared.models)
    st.subheader("Baseline")
    st.selectbox("Baseline model", prepared.models, key=keys.BASELINE, persist_state="session",
                 help="Tables show every other model's difference from this one: absolute, "
                 "relative (% lift) and its confidence interval.")


def baseline(prepared: Prepared) -> str:
    """The baseline model chosen in the sidebar (the first model by default)."""
    chosen = st.session_state.get(keys.BASELINE)
    return chosen if chosen in prepared.models else prepared.models[0]


def difference_columns(result: ModelComparison, base: str) -> pd.DataFrame:
    """Each model's difference from ``base``, indexed by model, for joining a table of
    means; its columns are named for ``DIFFERENCE_COLUMNS``."""
    table = differences_from(result, base).set_index("model")
    return table[["difference", "lift", "ci_low", "ci_high", "verdict"]].rename(
        columns=DIFFERENCE_NAMES)


def baseline_differences(results: dict[str, ModelComparison | None], base: str,
                         cutoff: int) -> pd.DataFrame:
    """Every other model's difference from ``base`` on each tested metric, one row each."""
    rows = []
    for metric, result in results.items():
        if result is None:
            continue
        table = differences_from(result, base)
        table = table.loc[table["model"] != base]
        rows.append(table.assign(
            metric=metric_label(metric, cutoff),
            rank=[result.rank_text(model).removeprefix("ranked ") for model in table["model"]]))
    columns = ["Metric", "Model", "Rank", *DIFFERENCE_NAMES.values(), "Corrected p"]
    if not rows:
        return pd.DataFrame(columns=columns)
    return pd.concat(rows, ignore_index=True).rename(columns={
        "metric": "Metric", "model": "Model", "rank": "Rank", "p_corrected": "Corrected p",
        **DIFFERENCE_NAMES,
    })[columns]


def mark_leaders(styled: Styler, verdict: LeaderVerdict, column: str) -> Styler:
    """Mark a metric's column: the significantly best model (★, green) or the leaders the
    data cannot tell apart (≈, yellow); dark text on both, in light and dark themes."""
    if not verdict.significant and len(verdict.leaders) < 2:
        return styled
    kind, glyph = ((Highlight.BEST, BEST_MARK) if verdict.significant
                   else (Highlight.TIED, TIED_MARK))
    cells = (list(verdict.leaders), [column])  # rows, columns (as pd.IndexSlice makes)
    return styled.map(lambda _: kind.css, subset=cells).format(f"{{:.4f}} {glyph}", subset=cells)
