"""Cached calls into the library: everything a page shows comes through here.

Caching is in two layers, both bounded so that a server many people use does not grow
without limit:

- big objects (read tables, the prepared ground truth, each model's ranked run, the
  Evaluation) live in the server's memory budget (:mod:`dashboard.budget`: bounded in bytes,
  dropped when no session has used them for a while, computed once when sessions ask at the
  same time), keyed on the files' contents and read options and on the settings they depend
  on. They are shared between sessions, never copied and never mutated here: copying a
  10-million-row table on every rerun, as ``st.cache_data`` does, would take seconds;
- everything a page shows (curves, tables, per-user values, NDCG breakdowns, validation
  warnings) comes from ``st.cache_data`` functions keyed on the same data keys and the
  settings, so changing K, a threshold or a preset recomputes only what it changes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import keys
from dashboard.budget import BUDGET
from dashboard.bundles import full_evaluation
from dashboard.demos import demo_specs
from dashboard.files import FileSpec
from dashboard.prepared import Prepared
from dashboard.settings import (
    EDITABLE_RATINGS,
    N_BOOTSTRAP,
    RelevanceDefaults,
    Settings,
)
from rankmetrics import GroundTruth, RankedRun, SavedEvaluation
from rankmetrics.beyond import (
    LONG_TAIL_METRICS,
    SYSTEM_METRICS,
    BeyondAccuracy,
    BeyondInputs,
    prepare_beyond,
)
from rankmetrics.bundle.beyond import SavedBeyond
from rankmetrics.choosing_k.order import crossovers, leaderboard, order_agreement
from rankmetrics.choosing_k.report import (
    Sentence,
    agreement_sentence,
    cutoffs_tested,
    map_cutoffs,
    order_sentence,
    relevance_sentence,
    relevance_variants,
    said_of,
    significance_sentence,
    ties_sentence,
)
from rankmetrics.choosing_k.saved import (
    saved_cutoff_table,
    saved_difference_band,
    saved_significance_over_k,
)
from rankmetrics.choosing_k.significance import (
    cutoff_table,
    difference_band,
    discriminative_power,
    leaders_over_k,
    significance_by_metric,
    winners,
)
from rankmetrics.choosing_k.ties import tie_bounds
from rankmetrics.conventions import Conventions
from rankmetrics.errors import DataError
from rankmetrics.evaluation import BEYOND_WIDTH, Evaluation, band_cutoffs, evaluate
from rankmetrics.explain import (
    BINARY_METRICS,
    MetricArithmetic,
    NdcgBreakdown,
    SideBySide,
    compare_conventions,
    explain_metric,
    explain_ndcg,
    metric_variants,
    side_by_side,
)
from rankmetrics.figures import metric_label
from rankmetrics.io import (
    Attributes,
    LoadedTable,
    check_against_truth,
    interaction_counts,
    rating_values,
    read_attributes,
    read_interactions,
    read_run,
    read_truth,
)
from rankmetrics.metrics import MAIN_METRICS, METRICS
from rankmetrics.playground import USER as PLAYGROUND_USER
from rankmetrics.playground import Playground, Scenario, convention_values, textbook
from rankmetrics.playground import playground_values as values_of_list
from rankmetrics.relevance import RelevanceMapping, suggest_mapping
from rankmetrics.report.decision import describe_across_cutoffs, leaders_by_cutoff
from rankmetrics.segments import (
    Segmentation,
    SegmentComparison,
    compare_segments,
    segment_curves,
    segment_users,
)
from rankmetrics.stats import ModelComparison, compare_models, compare_models_together
from rankmetrics.users import (
    Disagreement,
    biggest_differences,
    distribution_summary,
    head_to_head,
    largest_disagreement,
    surprise_user,
    worst_users,
)

log = logging.getLogger(__name__)

BIGGEST_SHOWN = 10
#: Resamples of the system-level beyond-accuracy metrics (each recounts every item).
BEYOND_BOOTSTRAP = 200
HOUR = 3600  # shared objects unused for this long are dropped

#: The reader of each kind of file (the optional ones: see dashboard.extras).
READERS: dict[str, Callable[..., object]] = {
    "run": read_run, "truth": read_truth, "interactions": read_interactions,
    "attributes": partial(read_attributes, key="item"),
}

HASH = {
    FileSpec: lambda spec: spec.token,
    Prepared: lambda prepared: prepared.key,
}


# ----- files and what is made of them (shared between sessions) --------------------------


@dataclass(frozen=True)
class Loaded:
    """What reading a file gave: the table, or the message saying why not."""

    table: LoadedTable | None  # (item attributes: rankmetrics.io.Attributes)
    error: str | None = None


def shared(key: tuple, compute: Callable[[], object]) -> object:
    """The object kept under ``key`` in the server's memory budget (or ``compute()``), held
    for this session."""
    return BUDGET.get_or_compute(key, compute, st.session_state.get(keys.LEASE))


def read_file(spec: FileSpec) -> Loaded:
    """Read and validate one file; errors become a message instead of an exception."""
    return shared(("read", spec.token), lambda: _read(spec))


def _read(spec: FileSpec) -> Loaded:
    reader = READERS[spec.kind]
    options = {"columns": dict(spec.columns) or None, "format": spec.format}
    try:
        if spec.path is not None:
            table = reader(spec.path, **options)
        else:
            table = reader(spec.data or b"", name=spec.file_name, **options)
    except (DataError, ValueError) as error:
        return Loaded(None, str(error))
    except Exception as error:  # a reader bug must not reach the page as a traceback
        log.exception("reading %s failed", spec.file_name)
        return Loaded(None, f"{spec.file_name}: could not be read ({type(error).__name__}: "
                            f"{error}).")
    return Loaded(table)


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def counts(spec: FileSpec) -> tuple[int, int, int]:
    """Rows, distinct users and distinct items of a file that was read."""
    table = read_file(spec).table
    return table.n_rows, table.n_users, table.n_items


def ground_truth(spec: FileSpec) -> GroundTruth:
    return shared(("truth", spec.token),
                  lambda: GroundTruth.from_loaded(read_file(spec).table))


def ranked_run(spec: FileSpec, truth: FileSpec, ties: str) -> RankedRun | str:
    """One model's output ranked and matched against the ground truth (or an error)."""
    return shared(("ranked", spec.token, truth.token, ties), lambda: _rank(spec, truth, ties))


def _rank(spec: FileSpec, truth: FileSpec, ties: str) -> RankedRun | str:
    try:
        return RankedRun.from_loaded(read_file(spec).table, ground_truth(truth), ties=ties)
    except (DataError, ValueError) as error:
        return f"{spec.file_name}: {error}"


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def cross_check(
    spec: FileSpec, truth: FileSpec, relevance: RelevanceMapping, max_cutoff: int
) -> tuple[list[str], str | None]:
    """Warnings from checking a model's file against the ground truth, and an error message
    when they do not belong together."""
    try:
        warnings = check_against_truth(read_file(spec).table, read_file(truth).table,
                                       mapping=relevance, max_cutoff=max_cutoff)
    except (DataError, ValueError) as error:
        return [], str(error)
    return warnings, None


def checks_against_truth(
    truth: FileSpec, runs: Sequence[FileSpec], relevance: RelevanceMapping, max_cutoff: int,
    known: dict[str, str],
) -> tuple[dict[str, tuple[list[str], str | None]], list[str]]:
    """Each readable model file checked against the ground truth (a problem already ``known``
    is kept), and the warnings every model shares (they are about the ground truth)."""
    results = {}
    for spec in runs:
        problem = known.get(spec.name)
        if problem is None and read_file(spec).table is not None:
            results[spec.name] = cross_check(spec, truth, relevance, max_cutoff)
        else:
            results[spec.name] = ([], problem)
    lists = [warnings for warnings, error in results.values() if error is None]
    shared = [w for w in lists[0] if all(w in other for other in lists)] if lists else []
    return results, shared


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def relevance_defaults(truth: FileSpec) -> RelevanceDefaults:
    """The library's suggestion, as starting values for the sidebar's relevance controls."""
    values = np.unique(rating_values(read_file(truth).table))
    suggestion = suggest_mapping(values)
    binary_kind = suggestion.recommended.kind == "binary" or set(values) <= {0.0, 1.0}
    graded = suggestion.graded
    if len(values) <= EDITABLE_RATINGS:
        table = tuple((float(v), float(g)) for v, g in zip(values, graded.grades(values),
                                                            strict=True))
    else:
        table = graded.table
    threshold = suggestion.binary.rating_threshold
    if len(values) <= EDITABLE_RATINGS * 5 and threshold not in values:
        above = values[values >= threshold]
        threshold = float(above[0] if len(above) else values[-1])
    return RelevanceDefaults(
        kind="binary" if binary_kind else "graded",
        threshold=float(threshold),
        table=table,
        grade_threshold=float(graded.threshold),
        ratings=tuple(float(v) for v in values),
        reason=suggestion.reason,
    )


# ----- the evaluation and what pages show ---------------------------------------------------


def evaluation(
    prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions, max_cutoff: int
) -> Evaluation:
    if prepared.extras:  # the per-user beyond-accuracy metrics go wherever the others go
        return beyond_evaluation(prepared, relevance, conventions, max_cutoff)
    return shared(("evaluation", prepared.key, relevance, conventions, max_cutoff),
                  lambda: evaluate(prepared.ground_truth, prepared.runs, relevance=relevance,
                                   conventions=conventions, max_cutoff=max_cutoff))


def _evaluation(prepared: Prepared, settings: Settings) -> Evaluation | SavedEvaluation:
    """Every user's values: a saved evaluation's own, or evaluated here."""
    return full_evaluation(prepared) or _listed(prepared, settings)


def _listed(prepared: Prepared, settings: Settings) -> Evaluation:
    """The users whose lists are at hand (a saved evaluation's sampled users) evaluated."""
    return evaluation(prepared, settings.relevance, settings.conventions, settings.max_cutoff)


def curves(prepared: Prepared, settings: Settings) -> dict[str, dict[str, list[float]]]:
    """Model -> metric -> mean at K = 1..max_cutoff, for the main metrics."""
    return _means(prepared, settings.relevance, settings.conventions, settings.max_cutoff)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner="Computing every metric at K = 1..K max…",
               hash_funcs=HASH)
def _means(
    prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions, max_cutoff: int
) -> dict[str, dict[str, list[float]]]:
    # Keyed without K: moving the K slider reuses the curves.
    means = (full_evaluation(prepared)
             or evaluation(prepared, relevance, conventions, max_cutoff)).means(MAIN_METRICS)
    return {model: {metric: values.tolist() for metric, values in by_metric.items()}
            for model, by_metric in means.items()}


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def user_counts(prepared: Prepared, settings: Settings) -> pd.DataFrame:
    return _evaluation(prepared, settings).user_counts()


def table_at(prepared: Prepared, settings: Settings) -> pd.DataFrame:
    """Every main metric at the chosen K: one row per model, plus the users averaged."""
    values = curves(prepared, settings)
    k = settings.cutoff
    rows = {
        model: {metric_label(metric, k): values[model][metric][k - 1] for metric in MAIN_METRICS}
        for model in prepared.models
    }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "Model"
    users = user_counts(prepared, settings).set_index("model")["users"]
    table["Users averaged"] = users.reindex(table.index).to_numpy()
    return table


def best_first(prepared: Prepared, settings: Settings, metric: str) -> list[str]:
    """The models by their mean of ``metric`` at the chosen K, best first."""
    means = curves(prepared, settings)
    return sorted(prepared.models, key=lambda model: -means[model][metric][settings.cutoff - 1])


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner="Computing per-user values…",
               hash_funcs=HASH)
def per_user(prepared: Prepared, settings: Settings, metric: str) -> dict[str, np.ndarray]:
    """Model -> per-user values of ``metric`` at the chosen K (the users each model counts)."""
    ev = _evaluation(prepared, settings)
    return {model: ev.per_user_at(model, metric, settings.cutoff).to_numpy()
            for model in ev.models}


@st.cache_data(max_entries=8, ttl=HOUR, show_spinner="Collecting every user's values…",
               hash_funcs=HASH)
def per_user_values(prepared: Prepared, settings: Settings, metric: str) -> pd.DataFrame:
    """``metric`` at the chosen K for every user (rows) and model (columns); empty where a
    model does not count the user."""
    table = _evaluation(prepared, settings).per_user_table([metric], [settings.cutoff])
    wide = table.pivot(index="user", columns="model", values="value")
    wide = wide.reindex(columns=prepared.models)
    wide.columns.name = None
    return wide.reset_index()


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def spread(prepared: Prepared, settings: Settings, metric: str) -> pd.DataFrame:
    return distribution_summary(_evaluation(prepared, settings), metric, settings.cutoff)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def worst(prepared: Prepared, settings: Settings, model: str, metric: str,
          count: int) -> pd.DataFrame:
    return worst_users(_evaluation(prepared, settings), model, metric, settings.cutoff,
                       count=count)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def disagreement(prepared: Prepared, settings: Settings, model_a: str,
                 model_b: str) -> Disagreement | None:
    return largest_disagreement(_listed(prepared, settings), model_a, model_b, "ndcg",
                                settings.cutoff)


def random_user(prepared: Prepared, settings: Settings, model: str, seed: int) -> str | None:
    return surprise_user(_listed(prepared, settings), model, seed)


def counted(prepared: Prepared, settings: Settings, model: str, user: str) -> bool:
    """Whether ``user`` enters ``model``'s means under the current conventions."""
    ev = _listed(prepared, settings)
    position = ev.truth.users.get_indexer([user])[0]
    return bool(position >= 0 and ev.included(model)[position])


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def users_containing(prepared: Prepared, text: str, limit: int) -> list[str]:
    """The first ``limit`` users of the ground truth whose id contains ``text``."""
    users = prepared.ground_truth.users
    return list(users[users.str.contains(text, regex=False)][:limit])


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def user_rows(prepared: Prepared, model: str, user: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One user's ground-truth rows and the model's rows for them."""
    truth = prepared.truth.table
    run = read_file(prepared.specs[model]).table.table
    return (truth.loc[truth["user"] == user].reset_index(drop=True),
            run.loc[run["user"] == user].reset_index(drop=True))


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def breakdown(prepared: Prepared, settings: Settings, model: str, user: str) -> NdcgBreakdown:
    truth, run = user_rows(prepared, model, user)
    return explain_ndcg(truth, run, user, cutoff=settings.cutoff,
                        relevance=settings.relevance, conventions=settings.conventions)


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def convention_variants(prepared: Prepared, settings: Settings, model: str,
                        user: str) -> pd.DataFrame:
    """The user's NDCG@K under each gain and ideal: one row each, the active one marked."""
    truth, run = user_rows(prepared, model, user)
    return compare_conventions(truth, run, user, cutoff=settings.cutoff,
                               relevance=settings.relevance, conventions=settings.conventions)


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def bands(prepared: Prepared, settings: Settings, metrics: tuple[str, ...],
          confidence: float) -> tuple[pd.DataFrame, list[int]]:
    """Each model's bootstrap confidence band for each metric, and the cutoffs they were
    computed at: every K when the per-user values fit the library's budget, else a spread."""
    ev = _evaluation(prepared, settings)
    most = int(ev.user_counts()["users"].max())
    cutoffs = band_cutoffs(settings.max_cutoff, keep=[settings.cutoff],
                           n_values_per_cutoff=most * len(ev.models) * len(metrics))
    if isinstance(ev, SavedEvaluation):
        cutoffs = ev.band_cutoffs(cutoffs)
    table = ev.confidence_bands(metrics, cutoffs=cutoffs, n_bootstrap=N_BOOTSTRAP,
                                confidence=confidence)
    return table, cutoffs


# Values at one K do not depend on the largest K for curves: what is computed from them is
# keyed on the relevance, the conventions and K (``_settings``, not hashed, only gives the
# evaluation to read them from), so raising the largest K reuses the tests already run.


def paired_users(prepared: Prepared, settings: Settings, metric: str) -> int:
    """How many users every model counts (the users the paired tests compare)."""
    return _paired_users(prepared, settings.relevance, settings.conventions, settings.cutoff,
                         metric, settings)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _paired_users(prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions,
                  cutoff: int, metric: str, _settings: Settings) -> int:
    return len(_evaluation(prepared, _settings).paired(metric, cutoff))


def users_every_model_counts(prepared: Prepared, settings: Settings) -> int:
    """How many users every model counts, read from the conventions' masks without computing
    a metric (a saved evaluation: from its NDCG values at K)."""
    return _users_every_model_counts(prepared, settings.relevance, settings.conventions,
                                     settings)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _users_every_model_counts(prepared: Prepared, relevance: RelevanceMapping,
                              conventions: Conventions, _settings: Settings) -> int:
    evaluation = _evaluation(prepared, _settings)
    if isinstance(evaluation, SavedEvaluation):
        return len(evaluation.paired("ndcg", _settings.cutoff))
    counted = np.logical_and.reduce([evaluation.included(model) for model in evaluation.models])
    return int(np.count_nonzero(counted))


def paired_counts(prepared: Prepared, settings: Settings,
                  metrics: tuple[str, ...]) -> dict[str, int]:
    """:func:`paired_users` of each of ``metrics``, their values computed in one pass."""
    return _paired_counts(prepared, settings.relevance, settings.conventions, settings.cutoff,
                          metrics, settings)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _paired_counts(prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions,
                   cutoff: int, metrics: tuple[str, ...], _settings: Settings) -> dict[str, int]:
    tables = _evaluation(prepared, _settings).paired_tables(metrics, cutoff)
    return {metric: len(table) for metric, table in tables.items()}


def comparison(prepared: Prepared, settings: Settings, metric: str, test: str,
               n_permutations: int, n_bootstrap: int, confidence: float) -> ModelComparison:
    """Every model's mean, interval and letters and every pair's test (Holm correction; use
    ``with_correction`` for another: it does not resample)."""
    return _comparison(prepared, settings.relevance, settings.conventions, settings.cutoff,
                       metric, test, n_permutations, n_bootstrap, confidence, settings)


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _comparison(prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions,
                cutoff: int, metric: str, test: str, n_permutations: int, n_bootstrap: int,
                confidence: float, _settings: Settings) -> ModelComparison:
    values = _evaluation(prepared, _settings).paired(metric, cutoff)
    return compare_models(values, test=test, correction="holm",
                          n_permutations=n_permutations, n_bootstrap=n_bootstrap,
                          confidence=confidence)


def comparisons(prepared: Prepared, settings: Settings, metrics: tuple[str, ...], test: str,
                n_permutations: int, n_bootstrap: int,
                confidence: float) -> dict[str, ModelComparison]:
    """:func:`comparison` of several metrics at once: the users are resampled once for all
    of them (``compare_models_together``)."""
    return _comparisons(prepared, settings.relevance, settings.conventions, settings.cutoff,
                        metrics, test, n_permutations, n_bootstrap, confidence, settings)


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _comparisons(prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions,
                 cutoff: int, metrics: tuple[str, ...], test: str, n_permutations: int,
                 n_bootstrap: int, confidence: float,
                 _settings: Settings) -> dict[str, ModelComparison]:
    tables = _evaluation(prepared, _settings).paired_tables(metrics, cutoff)
    return compare_models_together(
        tables, test=test,
        correction="holm", n_permutations=n_permutations, n_bootstrap=n_bootstrap,
        confidence=confidence)


def leader_across_k(prepared: Prepared, settings: Settings, metric: str) -> str:
    """Whether the model with the highest mean of ``metric`` changes with K, in words (from
    the curves: no other pass over the users)."""
    means = curves(prepared, settings)
    return describe_across_cutoffs(metric, leaders_by_cutoff(
        {model: by_metric[metric] for model, by_metric in means.items()},
        width=_evaluation(prepared, settings).width), largest=settings.max_cutoff)


def report_evaluation(prepared: Prepared, settings: Settings) -> Evaluation | SavedEvaluation:
    """The evaluation a report is written from (the one every page shows: a saved one's
    own numbers)."""
    return _evaluation(prepared, settings)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def duel(prepared: Prepared, settings: Settings, model_a: str, model_b: str,
         metric: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Two models user by user (the users both count), then the users B beats A by most and
    those A beats B by most."""
    pairs = head_to_head(_evaluation(prepared, settings), model_a, model_b, metric,
                         settings.cutoff)
    return (pairs, *biggest_differences(pairs, count=BIGGEST_SHOWN))


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def both_lists(prepared: Prepared, settings: Settings, model_a: str, model_b: str,
               user: str) -> SideBySide:
    """One user's top-K lists from two models side by side, and the user's ground truth."""
    truth, run_a = user_rows(prepared, model_a, user)
    _, run_b = user_rows(prepared, model_b, user)
    return side_by_side(truth, run_a, run_b, user, cutoff=settings.cutoff,
                        relevance=settings.relevance, conventions=settings.conventions)


# ----- segments -----------------------------------------------------------------------------


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def user_attributes(spec: FileSpec) -> tuple[Attributes | None, str | None]:
    """A user-attributes file read, or the message saying why not."""
    try:
        if spec.path is not None:
            return read_attributes(spec.path, key="user"), None
        return read_attributes(spec.data or b"", name=spec.file_name, key="user"), None
    except (DataError, ValueError) as error:
        return None, str(error)


def _attributes_of(spec: FileSpec | None) -> Attributes | None:
    return None if spec is None else user_attributes(spec)[0]


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def training_counts(prepared: Prepared) -> pd.Series | None:
    """Each user's number of training interactions, when the data set has them (readable;
    a saved evaluation's as saved)."""
    saved = full_evaluation(prepared)
    if saved is not None:
        return saved.beyond.activity if saved.beyond is not None else None
    spec = prepared.extras.get("interactions")
    table = read_file(spec).table if spec is not None else None
    return interaction_counts(table) if table is not None else None


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def segmentation(prepared: Prepared, settings: Settings, spec: FileSpec | None, by: str,
                 n_buckets: int) -> Segmentation:
    """The ground truth's users split by ``by`` (an attribute of ``spec``'s file, or an
    automatic segmentation: activity and cold start come from the training interactions)."""
    return segment_users(_evaluation(prepared, settings), by, attributes=_attributes_of(spec),
                         training_counts=training_counts(prepared), n_buckets=n_buckets)


def segment_comparison(prepared: Prepared, settings: Settings, spec: FileSpec | None, by: str,
                       n_buckets: int, metric: str, baseline: str, test: str,
                       correction: str, confidence: float, min_users: int,
                       warn_share: float) -> SegmentComparison:
    """Every segment's means, intervals, winner and tests (see
    :func:`rankmetrics.segments.compare_segments`); another baseline tests nothing again."""
    return _segment_tests(prepared, settings, spec, by, n_buckets, metric, test, correction,
                          confidence, min_users, warn_share).with_baseline(baseline)


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _segment_tests(prepared: Prepared, settings: Settings, spec: FileSpec | None, by: str,
                   n_buckets: int, metric: str, test: str, correction: str, confidence: float,
                   min_users: int, warn_share: float) -> SegmentComparison:
    return compare_segments(_evaluation(prepared, settings),
                            segmentation(prepared, settings, spec, by, n_buckets), metric,
                            settings.cutoff, test=test, correction=correction,
                            confidence=confidence, min_users=min_users, warn_share=warn_share,
                            n_bootstrap=N_BOOTSTRAP)


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def segment_means_over_k(prepared: Prepared, settings: Settings, spec: FileSpec | None, by: str,
                         n_buckets: int, metric: str) -> pd.DataFrame:
    """Each segment's mean for each model at every K (keyed without K)."""
    return segment_curves(_evaluation(prepared, settings),
                          segmentation(prepared, settings, spec, by, n_buckets), metric)
# ----- beyond accuracy ----------------------------------------------------------------------


def beyond_inputs(prepared: Prepared, ties: str, max_cutoff: int) -> BeyondInputs | str:
    """Every model's whole top K and the optional files' facts (or why they cannot be read)."""
    return shared(("beyond inputs", prepared.key, ties, max_cutoff),
                  lambda: _beyond_inputs(prepared, ties, max_cutoff))


def _beyond_inputs(prepared: Prepared, ties: str, max_cutoff: int) -> BeyondInputs | str:
    extras = {kind: read_file(spec) for kind, spec in prepared.extras.items()}
    for kind, loaded in extras.items():
        if loaded.table is None:
            return f"{prepared.extras[kind].file_name}: {loaded.error}"
    runs = {name: read_file(prepared.specs[name]).table for name in prepared.models}
    try:
        return prepare_beyond(
            prepared.ground_truth, runs,  # type: ignore[arg-type]
            interactions=extras["interactions"].table if "interactions" in extras else None,
            item_attributes=extras["attributes"].table if "attributes" in extras else None,
            ties=ties, max_cutoff=min(max_cutoff, BEYOND_WIDTH))
    except (DataError, ValueError) as error:
        return str(error)


def beyond_evaluation(
    prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions, max_cutoff: int
) -> Evaluation:
    """The evaluation with the beyond-accuracy metrics (without them when the optional files
    cannot be read: :func:`beyond_problem` says why)."""
    inputs = beyond_inputs(prepared, conventions.ties, max_cutoff)
    return shared(
        ("beyond evaluation", prepared.key, relevance, conventions, max_cutoff),
        lambda: Evaluation(prepared.ground_truth, prepared.runs, relevance, conventions,
                           max_cutoff, beyond=None if isinstance(inputs, str) else inputs))


def beyond_problem(prepared: Prepared, settings: Settings) -> str | None:
    if full_evaluation(prepared) is not None:  # computed when it was saved
        return None
    inputs = beyond_inputs(prepared, settings.conventions.ties, settings.max_cutoff)
    return inputs if isinstance(inputs, str) else None


def _beyond(prepared: Prepared, settings: Settings) -> BeyondAccuracy | SavedBeyond | None:
    """The beyond-accuracy metrics: a saved evaluation's, as saved, or computed here."""
    saved = full_evaluation(prepared)
    if saved is not None:
        return saved.beyond
    return beyond_evaluation(prepared, settings.relevance, settings.conventions,
                             settings.max_cutoff).beyond


def beyond_metrics(prepared: Prepared, settings: Settings) -> tuple[str, ...]:
    """The beyond-accuracy metrics the data set's files allow."""
    beyond = _beyond(prepared, settings)
    return beyond.metrics if beyond is not None else ()


def beyond_per_user_metrics(prepared: Prepared, settings: Settings) -> tuple[str, ...]:
    """The per-user beyond-accuracy metrics the pages of per-user values can offer (only
    when the optional files are part of the data set's evaluation, or were when it was
    saved)."""
    if not prepared.extras and full_evaluation(prepared) is None:
        return ()
    beyond = _evaluation(prepared, settings).beyond
    return beyond.per_user_metrics if beyond is not None else ()


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner="Computing the beyond-accuracy metrics…",
               hash_funcs=HASH)
def beyond_curves(prepared: Prepared, settings: Settings,
                  metrics: tuple[str, ...]) -> dict[str, dict[str, list[float]]]:
    """Model -> metric -> value at K = 1..max_cutoff."""
    beyond = _beyond(prepared, settings)
    return {model: {metric: beyond.curve(model, metric).tolist()  # type: ignore[union-attr]
                    for metric in metrics} for model in prepared.models}


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def beyond_choices(prepared: Prepared, settings: Settings) -> dict[str, object]:
    return _beyond(prepared, settings).choices()  # type: ignore[union-attr]


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner="Resampling the users…", hash_funcs=HASH)
def beyond_tradeoff(prepared: Prepared, settings: Settings, accuracy: str, beyond_metric: str,
                    confidence: float) -> pd.DataFrame:
    """One row per model: the beyond-accuracy metric (x) and the accuracy metric (y) at K,
    each with its bootstrap interval (a saved evaluation: where it holds per-user values)."""
    saved = full_evaluation(prepared)
    if saved is not None:
        return _saved_tradeoff(saved, settings.cutoff, accuracy, beyond_metric, confidence)
    ev = beyond_evaluation(prepared, settings.relevance, settings.conventions,
                           settings.max_cutoff)
    k = settings.cutoff
    y = ev.confidence_bands([accuracy], cutoffs=[k], n_bootstrap=N_BOOTSTRAP,
                            confidence=confidence).set_index("model")
    if beyond_metric in SYSTEM_METRICS:
        x = ev.beyond.system_bands([beyond_metric], cutoff=k,  # type: ignore[union-attr]
                                   n_bootstrap=BEYOND_BOOTSTRAP, confidence=confidence)
    elif beyond_metric in LONG_TAIL_METRICS:
        x = ev.beyond.long_tail.confidence_bands(  # type: ignore[union-attr]
            [LONG_TAIL_METRICS[beyond_metric]], cutoffs=[k], n_bootstrap=N_BOOTSTRAP,
            confidence=confidence)
    else:
        x = ev.confidence_bands([beyond_metric], cutoffs=[k], n_bootstrap=N_BOOTSTRAP,
                                confidence=confidence)
    return _points(x.set_index("model"), y, prepared.models)


def _saved_tradeoff(saved: SavedEvaluation, k: int, accuracy: str, beyond_metric: str,
                    confidence: float) -> pd.DataFrame:
    """The trade-off from a saved evaluation: the values saved at K, with bootstrap
    intervals of the metrics whose per-user values it holds (none for the system metrics,
    whose resampling needs every user's list)."""
    y = saved.confidence_bands([accuracy], cutoffs=[k], n_bootstrap=N_BOOTSTRAP,
                               confidence=confidence).set_index("model")
    beyond = saved.beyond
    if beyond is None:
        raise ValueError("This saved evaluation holds no beyond-accuracy results.")
    if beyond_metric in beyond.per_user_metrics:
        x = saved.confidence_bands([beyond_metric], cutoffs=[k], n_bootstrap=N_BOOTSTRAP,
                                   confidence=confidence).set_index("model")
    elif beyond_metric in LONG_TAIL_METRICS and beyond.long_tail_saved:
        x = beyond.long_tail_bands(beyond_metric, k, n_bootstrap=N_BOOTSTRAP,
                                   confidence=confidence).set_index("model")
    else:
        x = pd.DataFrame({"mean": [beyond.curve(model, beyond_metric)[k - 1]
                                   for model in saved.models],
                          "ci_low": np.nan, "ci_high": np.nan},
                         index=pd.Index(saved.models, name="model"))
    return _points(x, y, saved.models)


def _points(x: pd.DataFrame, y: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    models = [model for model in models if model in x.index and model in y.index]
    return pd.DataFrame({
        "model": models,
        "x": x.loc[models, "mean"].to_numpy(), "x_low": x.loc[models, "ci_low"].to_numpy(),
        "x_high": x.loc[models, "ci_high"].to_numpy(),
        "y": y.loc[models, "mean"].to_numpy(), "y_low": y.loc[models, "ci_low"].to_numpy(),
        "y_high": y.loc[models, "ci_high"].to_numpy(),
    })


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def beyond_deciles(prepared: Prepared, settings: Settings) -> pd.DataFrame:
    return _beyond(prepared, settings).popularity_deciles(  # type: ignore[union-attr]
        settings.cutoff)


def beyond_table_at(prepared: Prepared, settings: Settings) -> pd.DataFrame:
    """The beyond-accuracy metrics at the chosen K: one row per model, one column each."""
    metrics = beyond_metrics(prepared, settings)
    values = beyond_curves(prepared, settings, metrics)
    k = settings.cutoff
    table = pd.DataFrame.from_dict({
        model: {metric_label(metric, k): values[model][metric][k - 1] for metric in metrics}
        for model in prepared.models}, orient="index")
    table.index.name = "Model"
    return table


# ----- the other metrics explained, and the playground's hand-edited list -----------------


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def arithmetic(prepared: Prepared, settings: Settings, model: str, user: str,
               metric: str) -> MetricArithmetic:
    """One user's Precision, Recall, HitRate, RR or AP at K written out."""
    truth, run = user_rows(prepared, model, user)
    return explain_metric(truth, run, user, metric, cutoff=settings.cutoff,
                          relevance=settings.relevance, conventions=settings.conventions)


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def metric_choices(prepared: Prepared, settings: Settings, model: str, user: str,
                   metric: str) -> pd.DataFrame:
    """The user's binary metric at K under each relevance threshold (and AP denominator)."""
    truth, run = user_rows(prepared, model, user)
    return metric_variants(truth, run, user, metric, cutoff=settings.cutoff,
                           relevance=settings.relevance, conventions=settings.conventions)


@st.cache_data(max_entries=512, ttl=HOUR, show_spinner=False)
def playground_values(playground: Playground, max_cutoff: int) -> pd.DataFrame:
    """Every metric of the hand-edited list at K = 1..max_cutoff, from ``evaluate``."""
    return values_of_list(playground, max_cutoff)


@st.cache_data(max_entries=256, ttl=HOUR, show_spinner=False)
def playground_switches(playground: Playground, cutoff: int) -> pd.DataFrame:
    """The list's metrics at K under each choice of each convention switch."""
    return convention_values(playground, cutoff)


@st.cache_data(max_entries=256, ttl=HOUR, show_spinner=False)
def playground_arithmetic(playground: Playground, metric: str,
                          cutoff: int) -> MetricArithmetic | NdcgBreakdown:
    """One metric of the hand-edited list at K written out (NDCG and DCG: the breakdown)."""
    truth, run = playground.frames()
    conventions = replace(playground.conventions, empty_users="zero")
    if metric in BINARY_METRICS:
        return explain_metric(truth, run, PLAYGROUND_USER, metric, cutoff=cutoff,
                              relevance=playground.relevance, conventions=conventions)
    return explain_ndcg(truth, run, PLAYGROUND_USER, cutoff=cutoff,
                        relevance=playground.relevance, conventions=conventions)


@st.cache_data(max_entries=4, show_spinner=False)
def textbook_scenario() -> Scenario:
    """The playground's textbook example, read from the textbook demo's files (its one user
    and its first model's list)."""
    truth_spec, run_specs = demo_specs("textbook")
    truth = read_file(truth_spec).table.table
    run = read_file(run_specs[0]).table.table
    return textbook(truth, run, str(truth["user"].iloc[0]))
# ----- choosing K ---------------------------------------------------------------------------


def k_curves(prepared: Prepared, settings: Settings, metric: str) -> pd.DataFrame:
    """Each model's mean of ``metric`` at every K (rows) from the cached curves."""
    means = curves(prepared, settings)
    return pd.DataFrame({model: means[model][metric] for model in prepared.models},
                        index=pd.Index(range(1, settings.max_cutoff + 1), name="cutoff"))


def k_relevance_variants(prepared: Prepared, settings: Settings,
                         every: bool = False) -> dict[str, RelevanceMapping]:
    """The sidebar's relevance mapping with its threshold moved over the ratings found: a
    few around the current one, or ``every`` one."""
    return relevance_variants(settings.relevance, prepared.ground_truth.ratings,
                              most=None if every else 5)


def k_tests(prepared: Prepared, settings: Settings, relevance: RelevanceMapping, metric: str,
            options: tuple[str, str, float, int], cutoffs: tuple[int, ...]) -> pd.DataFrame:
    """Every pair tested at each of ``cutoffs`` (options: test, correction, confidence,
    random flips) under ``relevance`` (the sidebar's or a variant of it).

    Under the sidebar's mapping, every main metric is tested in one pass over the per-user
    values (and cached together) when the page needs them all at these cutoffs: always for
    the t-test, at the winner maps' cutoffs for the others."""
    together = relevance == settings.relevance and (
        options[0] == "t"
        or list(cutoffs) == map_cutoffs(options[0], settings.max_cutoff, settings.cutoff))
    metrics = MAIN_METRICS if together else (metric,)
    return _k_tests(prepared, settings, relevance, metrics, options, cutoffs)[metric]


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _k_tests(prepared: Prepared, settings: Settings, relevance: RelevanceMapping,
             metrics: tuple[str, ...], options: tuple[str, str, float, int],
             cutoffs: tuple[int, ...]) -> dict[str, pd.DataFrame]:
    test, correction, confidence, n_permutations = options
    ev = evaluation(prepared, relevance, settings.conventions, settings.max_cutoff)
    return significance_by_metric(ev, metrics, cutoffs=cutoffs, test=test,
                                  correction=correction, confidence=confidence,
                                  n_permutations=n_permutations)


def k_leaders(prepared: Prepared, settings: Settings, relevance: RelevanceMapping,
              metric: str, options: tuple[str, str, float, int],
              cutoffs: tuple[int, ...]) -> pd.DataFrame:
    """The best model at each cutoff and whether it is significantly best."""
    tests = k_tests(prepared, settings, relevance, metric, options, cutoffs)
    return leaders_over_k(tests)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def k_band(prepared: Prepared, settings: Settings, metric: str, model_a: str, model_b: str,
           confidence: float) -> pd.DataFrame:
    """The difference B - A at every K (a saved evaluation: at its saved cutoffs) with its
    confidence interval."""
    saved = full_evaluation(prepared)
    if saved is not None:
        return saved_difference_band(saved, metric, model_a, model_b, confidence=confidence)
    return difference_band(_listed(prepared, settings), metric, model_a, model_b,
                           confidence=confidence)


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def k_tie_bounds(prepared: Prepared, settings: Settings) -> pd.DataFrame | None:
    """Each model's means of the main metrics under the pessimistic and optimistic orders of
    tied scores, or None when a model's file cannot be read again. They need the lists with
    their scores: a saved evaluation's are those of its sampled users."""
    runs = {model: read_file(prepared.specs[model]).table for model in prepared.models}
    if any(run is None for run in runs.values()):
        return None
    return tie_bounds(_listed(prepared, settings), runs, MAIN_METRICS)


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def k_cutoff_table(prepared: Prepared, settings: Settings, cutoffs: tuple[int, ...],
                   options: tuple[str, str, float, int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every model (rows) and main metric at ``cutoffs`` (columns such as "NDCG@10"), and
    which cells are significantly best in their column."""
    test, correction, confidence, n_permutations = options
    saved = full_evaluation(prepared)
    table = (saved_cutoff_table if saved is not None else cutoff_table)(
        saved or _listed(prepared, settings), MAIN_METRICS, cutoffs, test=test,
        correction=correction, confidence=confidence, n_permutations=n_permutations)
    table["column"] = [metric_label(metric, cutoff)
                       for metric, cutoff in zip(table["metric"], table["cutoff"], strict=True)]
    order = list(dict.fromkeys(table["column"]))
    wide = table.pivot(index="model", columns="column", values="value")
    best = table.pivot(index="model", columns="column", values="significantly_best")
    wide, best = wide.loc[prepared.models, order], best.loc[prepared.models, order]
    wide.index.name = best.index.name = "Model"
    wide.columns.name = best.columns.name = None
    return wide, best.astype(bool)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def k_leaderboard(prepared: Prepared, settings: Settings, metric: str) -> pd.DataFrame:
    """The models at every K, best first (place, model, mean)."""
    return leaderboard(k_curves(prepared, settings, metric))


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner="Testing at the saved cutoffs…",
               hash_funcs=HASH)
def k_saved_tests(prepared: Prepared, settings: Settings, metric: str,
                  options: tuple[str, str, float, int]) -> pd.DataFrame:
    """A saved evaluation's pairs tested at each of its saved cutoffs."""
    saved = full_evaluation(prepared)
    if saved is None:
        raise ValueError("The tests at saved cutoffs need a saved evaluation.")
    test, correction, confidence, n_permutations = options
    return saved_significance_over_k(saved, metric, test=test, correction=correction,
                                     confidence=confidence, n_permutations=n_permutations)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def k_order(prepared: Prepared, settings: Settings,
            metric: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The curves of ``metric``, where two models cross, and Kendall's tau against the
    chosen K."""
    table = k_curves(prepared, settings, metric)
    return table, crossovers(table), order_agreement(table, settings.cutoff)


def k_power(prepared: Prepared, settings: Settings, metric: str,
            options: tuple[str, str, float, int]) -> dict[str, pd.DataFrame]:
    """Metric label -> the share of pairs significant at each K tested, ``metric`` first
    (at every K it is tested at; the others at the winner maps' cutoffs)."""
    test = options[0]
    saved = full_evaluation(prepared) is not None
    power = {}
    for name in (metric, *[m for m in MAIN_METRICS if m != metric]):
        if saved:
            tests = k_saved_tests(prepared, settings, name, options)
        else:
            cutoffs = (cutoffs_tested(test, settings.max_cutoff, settings.cutoff)
                       if name == metric
                       else map_cutoffs(test, settings.max_cutoff, settings.cutoff))
            tests = k_tests(prepared, settings, settings.relevance, name, options,
                            tuple(cutoffs))
        power[METRICS[name].label] = discriminative_power(tests)
    return power


def k_winners_by_metric(prepared: Prepared, settings: Settings,
                        options: tuple[str, str, float, int]) -> pd.DataFrame:
    """The best model at each K for each main metric (rows: metric labels); a saved
    evaluation's at its saved cutoffs."""
    if full_evaluation(prepared) is not None:
        return winners({METRICS[name].label: k_saved_tests(prepared, settings, name, options)
                        for name in MAIN_METRICS})
    cutoffs = tuple(map_cutoffs(options[0], settings.max_cutoff, settings.cutoff))
    return pd.concat([
        k_leaders(prepared, settings, settings.relevance, name, options, cutoffs)
        .assign(row=METRICS[name].label) for name in MAIN_METRICS], ignore_index=True)


def k_winners_by_relevance(prepared: Prepared, settings: Settings, metric: str,
                           options: tuple[str, str, float, int],
                           thresholds: tuple[str, ...]) -> pd.DataFrame:
    """The best model at each K under each of the named relevance thresholds (names of
    :func:`k_relevance_variants` with ``every``)."""
    cutoffs = tuple(map_cutoffs(options[0], settings.max_cutoff, settings.cutoff))
    variants = k_relevance_variants(prepared, settings, every=True)
    return pd.concat([
        k_leaders(prepared, settings, variants[name], metric, options, cutoffs).assign(row=name)
        for name in thresholds], ignore_index=True)


def k_summary(prepared: Prepared, settings: Settings, metric: str,
              options: tuple[str, str, float, int],
              thresholds: tuple[str, ...]) -> list[Sentence]:
    """The Choosing-K summary sentences, from the same tables the page's panels draw (on a
    saved evaluation, the relevance thresholds and the ties are those of its sampled users,
    and the sentences say so)."""
    test, correction = options[0], options[1]
    k = settings.cutoff
    by_metric = {name: k_curves(prepared, settings, name) for name in MAIN_METRICS}
    sentences = [order_sentence(by_metric[metric], metric, k)]
    saved = full_evaluation(prepared)
    sampled, tested = (None, None) if saved is None else (
        f"On the {prepared.ground_truth.n_users:,} sampled users",
        f"At the saved cutoffs {', '.join(map(str, saved.cutoffs))}")
    if len(prepared.models) >= 2:
        sentences.append(agreement_sentence(by_metric, metric))
    if len(prepared.models) >= 2 and paired_users(prepared, settings, metric) >= 2:
        power = k_power(prepared, settings, metric, options)[METRICS[metric].label]
        sentences.append(said_of(significance_sentence(power, metric, test, correction, k),
                                 tested))
        if thresholds:
            sentences.append(said_of(relevance_sentence(
                k_winners_by_relevance(prepared, settings, metric, options, thresholds),
                metric, k), sampled))
    sentences.append(said_of(ties_sentence(k_tie_bounds(prepared, settings), metric, k),
                             sampled))
    return sentences
