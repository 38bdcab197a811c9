"""The evaluations (kept in the memory budget: with the beyond-accuracy metrics when the data
set has their files) and what every page draws from them: the curves, the table at K, the
users each model counts, the confidence bands."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.budget import BUDGET
from dashboard.bundles import full_evaluation
from dashboard.cached import HASH, HOUR, shared
from dashboard.cached.inputs import read_file, read_item_attributes, table_of
from dashboard.prepared import Prepared
from dashboard.settings import N_BOOTSTRAP, Settings
from rankmetrics.beyond import BeyondInputs, prepare_beyond
from rankmetrics.conventions import Conventions
from rankmetrics.errors import DataError
from rankmetrics.evaluation import BEYOND_WIDTH, Evaluation, band_cutoffs, evaluate
from rankmetrics.figures import metric_label
from rankmetrics.io import subject_word
from rankmetrics.judgments import judged_note as note_on_judgments
from rankmetrics.judgments import rbp_interval_note
from rankmetrics.metrics import CUTOFF_METRICS, MAIN_METRICS, METRICS
from rankmetrics.relevance import RelevanceMapping
from rankmetrics.report.decision import leaders_by_cutoff
from rankmetrics.results import EvaluationResults


def evaluation(
    prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions, max_cutoff: int
) -> Evaluation:
    if prepared.extras:  # the per-user beyond-accuracy metrics go wherever the others go
        return beyond_evaluation(prepared, relevance, conventions, max_cutoff)
    return shared(("evaluation", prepared.key, relevance, conventions, max_cutoff),
                  lambda: evaluate(prepared.ground_truth, prepared.runs, relevance=relevance,
                                   conventions=conventions, max_cutoff=max_cutoff))


def beyond_inputs(prepared: Prepared, ties: str, max_cutoff: int) -> BeyondInputs | str:
    """Every model's whole top K and the optional files' facts (or why they cannot be read)."""
    return shared(("beyond inputs", prepared.key, ties, max_cutoff),
                  lambda: _beyond_inputs(prepared, ties, max_cutoff))


def pair_lists(prepared: Prepared, ties: str, max_cutoff: int, model_a: str, model_b: str
               ) -> BeyondInputs | str:
    """Two models' whole top K, for comparing their lists: those of every model's when they
    are kept already (another page read them), else the two models' alone (the other models'
    lists and the optional files are not read for them)."""
    key = ("beyond inputs", prepared.key, ties, max_cutoff)
    if key in BUDGET:
        return beyond_inputs(prepared, ties, max_cutoff)
    pair = tuple(sorted({model_a, model_b}))
    return shared(("pair lists", prepared.key, ties, max_cutoff, pair),
                  lambda: _pair_lists(prepared, ties, max_cutoff, pair))


def _pair_lists(prepared: Prepared, ties: str, max_cutoff: int, pair: tuple[str, ...]
                ) -> BeyondInputs | str:
    try:
        return prepare_beyond(prepared.ground_truth,
                              {name: table_of(prepared.specs[name]) for name in pair},
                              ties=ties, max_cutoff=min(max_cutoff, BEYOND_WIDTH))
    except (DataError, ValueError) as error:
        return str(error)


def _beyond_inputs(prepared: Prepared, ties: str, max_cutoff: int) -> BeyondInputs | str:
    extras = prepared.extras
    interactions = read_file(extras["interactions"]) if "interactions" in extras else None
    attributes = read_item_attributes(extras["attributes"]) if "attributes" in extras else None
    read = {"interactions": interactions, "attributes": attributes}
    for kind, spec in extras.items():
        loaded = read[kind]
        if loaded is not None and loaded.table is None:
            return f"{spec.file_name}: {loaded.error}"
    try:
        runs = {name: table_of(prepared.specs[name]) for name in prepared.models}
        return prepare_beyond(
            prepared.ground_truth, runs,
            interactions=interactions.table if interactions is not None else None,
            item_attributes=attributes.table if attributes is not None else None,
            ties=ties, max_cutoff=min(max_cutoff, BEYOND_WIDTH))
    except (DataError, ValueError) as error:
        return str(error)


def beyond_evaluation(
    prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions, max_cutoff: int
) -> Evaluation:
    """The evaluation with the beyond-accuracy metrics (without them when the optional files
    cannot be read: :func:`dashboard.cached.beyond.beyond_problem` says why)."""
    inputs = beyond_inputs(prepared, conventions.ties, max_cutoff)
    return shared(
        ("beyond evaluation", prepared.key, relevance, conventions, max_cutoff),
        lambda: Evaluation(prepared.ground_truth, prepared.runs, relevance, conventions,
                           max_cutoff, beyond=None if isinstance(inputs, str) else inputs))


def shown_evaluation(prepared: Prepared, settings: Settings) -> EvaluationResults:
    """Every user's values, as every page shows them and a report is written from: a saved
    evaluation's own, or evaluated here."""
    return full_evaluation(prepared) or evaluation_of_lists(prepared, settings)


def evaluation_of_lists(prepared: Prepared, settings: Settings) -> Evaluation:
    """The users whose lists are at hand (a saved evaluation's sampled users) evaluated."""
    return evaluation(prepared, settings.relevance, settings.conventions, settings.max_cutoff)


def accuracy_metrics(prepared: Prepared) -> tuple[str, ...]:
    """The accuracy metrics the pages offer, the main ones first: every one with a cutoff
    (R-Precision has none: no curve over K), or those of them a saved evaluation holds."""
    saved = full_evaluation(prepared)
    return tuple(metric for metric in CUTOFF_METRICS if saved is None or metric in saved.metrics)


def per_user_accuracy_metrics(prepared: Prepared) -> tuple[str, ...]:
    """The accuracy metrics the pages of per-user values offer: every one, R-Precision (one
    value per user, no curve over K) included, or those of them a saved evaluation holds."""
    saved = full_evaluation(prepared)
    return tuple(metric for metric in METRICS if saved is None or metric in saved.metrics)


def curves(prepared: Prepared, settings: Settings, metrics: tuple[str, ...] = MAIN_METRICS,
           ) -> dict[str, dict[str, list[float]]]:
    """Model -> metric -> mean at K = 1..max_cutoff: the main metrics, and any other of
    ``metrics`` (computed apart, so asking for one more does not compute the main ones
    again)."""
    means = _means(prepared, settings.relevance, settings.conventions, settings.max_cutoff,
                   MAIN_METRICS)
    others = tuple(metric for metric in metrics if metric not in MAIN_METRICS)
    if others:
        more = _means(prepared, settings.relevance, settings.conventions, settings.max_cutoff,
                      others)
        means = {model: {**by_metric, **more[model]} for model, by_metric in means.items()}
    return means


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner="Computing every metric at K = 1..K max…",
               hash_funcs=HASH)
def _means(
    prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions, max_cutoff: int,
    metrics: tuple[str, ...],
) -> dict[str, dict[str, list[float]]]:
    # Keyed without K: moving the K slider reuses the curves.
    means = (full_evaluation(prepared)
             or evaluation(prepared, relevance, conventions, max_cutoff)).means(metrics)
    return {model: {metric: values.tolist() for metric, values in by_metric.items()}
            for model, by_metric in means.items()}


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def user_counts(prepared: Prepared, settings: Settings) -> pd.DataFrame:
    return shown_evaluation(prepared, settings).user_counts()


def table_at(prepared: Prepared, settings: Settings,
             metrics: tuple[str, ...] = MAIN_METRICS) -> pd.DataFrame:
    """The metrics at the chosen K (by default the main ones): one row per model, plus the
    users averaged."""
    values = curves(prepared, settings, metrics)
    k = settings.cutoff
    rows = {
        model: {metric_label(metric, k): values[model][metric][k - 1] for metric in metrics}
        for model in prepared.models
    }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "Model"
    users = user_counts(prepared, settings).set_index("model")["users"]
    table[averaged_column(prepared)] = users.reindex(table.index).to_numpy()
    return table


def averaged_column(prepared: Prepared) -> str:
    """The column of :func:`table_at` counting each model's users averaged ("Queries
    averaged" where every input is a TREC file)."""
    return f"{subject_word(prepared.formats, plural=True).capitalize()} averaged"


def best_first(prepared: Prepared, settings: Settings, metric: str) -> list[str]:
    """The models by their mean of ``metric`` at the chosen K, best first."""
    means = curves(prepared, settings, (metric,))
    at = settings.cutoff - 1 if METRICS[metric].has_cutoff else 0  # R-Precision: one value
    return sorted(prepared.models, key=lambda model: -means[model][metric][at])


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def bands(prepared: Prepared, settings: Settings, metrics: tuple[str, ...],
          confidence: float) -> tuple[pd.DataFrame, list[int]]:
    """Each model's bootstrap confidence band for each metric, and the cutoffs they were
    computed at: every K when the per-user values fit the library's budget, else a spread."""
    evaluated = shown_evaluation(prepared, settings)
    most = int(evaluated.user_counts()["users"].max())
    cutoffs = band_cutoffs(settings.max_cutoff, keep=[settings.cutoff],
                           n_values_per_cutoff=most * len(evaluated.models) * len(metrics))
    cutoffs = evaluated.cutoffs_with_values(cutoffs)  # a saved evaluation's saved ones
    table = evaluated.confidence_bands(metrics, cutoffs=cutoffs, n_bootstrap=N_BOOTSTRAP,
                                       confidence=confidence)
    return table, cutoffs


def leaders_across_k(prepared: Prepared, settings: Settings,
                     metric: str) -> list[tuple[int, tuple[str, ...]]]:
    """The models with the highest mean of ``metric`` at each K checked (from the curves: no
    other pass over the users)."""
    means = curves(prepared, settings, (metric,))
    return leaders_by_cutoff({model: by_metric[metric] for model, by_metric in means.items()},
                             width=shown_evaluation(prepared, settings).width)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def judged_note(prepared: Prepared, settings: Settings) -> str | None:
    """The sentence saying that little of some model's top K is judged, or None."""
    return note_on_judgments(shown_evaluation(prepared, settings), settings.cutoff)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def rbp_note(prepared: Prepared, settings: Settings) -> str | None:
    """Each model's RBP at K as an interval with what unjudged items could add; None when
    the evaluation cannot give it (a saved evaluation without RBP's residual)."""
    try:
        return rbp_interval_note(shown_evaluation(prepared, settings), settings.cutoff)
    except ValueError:
        return None
