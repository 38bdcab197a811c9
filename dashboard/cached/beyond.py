"""The beyond-accuracy metrics' values: which ones the files allow, their curves and table at
K, the trade-off against accuracy, the popularity deciles."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.bundles import full_evaluation
from dashboard.cached import HASH, HOUR
from dashboard.cached.evaluation import (
    beyond_evaluation,
    beyond_inputs,
    per_user_accuracy_metrics,
    shown_evaluation,
)
from dashboard.prepared import Prepared
from dashboard.settings import N_BOOTSTRAP, Settings
from rankmetrics.conventions import Conventions
from rankmetrics.figures import metric_label
from rankmetrics.relevance import RelevanceMapping
from rankmetrics.results import BeyondResults, EvaluationResults
from rankmetrics.tradeoff import tradeoff_points

#: Resamples of the system-level beyond-accuracy metrics (each recounts every item).
BEYOND_BOOTSTRAP = 200
NO_BEYOND = "This data set has no beyond-accuracy metrics."


def beyond_problem(prepared: Prepared, settings: Settings) -> str | None:
    if full_evaluation(prepared) is not None:  # computed when it was saved
        return None
    inputs = beyond_inputs(prepared, settings.conventions.ties, settings.max_cutoff)
    return inputs if isinstance(inputs, str) else None


def _with_beyond(prepared: Prepared, settings: Settings) -> EvaluationResults:
    """The evaluation whose beyond-accuracy results the page shows: a saved evaluation's, as
    saved, or the one computed here with the optional files."""
    return full_evaluation(prepared) or beyond_evaluation(
        prepared, settings.relevance, settings.conventions, settings.max_cutoff)


def _offered(prepared: Prepared, settings: Settings) -> BeyondResults:
    """The beyond-accuracy results, which the pages ask for only when they offer
    beyond-accuracy metrics."""
    beyond = _with_beyond(prepared, settings).beyond
    if beyond is None:
        raise ValueError(NO_BEYOND)
    return beyond


def beyond_metrics(prepared: Prepared, settings: Settings) -> tuple[str, ...]:
    """The beyond-accuracy metrics the data set's files allow."""
    beyond = _with_beyond(prepared, settings).beyond
    return beyond.metrics if beyond is not None else ()


def beyond_per_user_metrics(prepared: Prepared, settings: Settings) -> tuple[str, ...]:
    """The per-user beyond-accuracy metrics the pages of per-user values can offer (only
    when the optional files are part of the data set's evaluation, or were when it was
    saved)."""
    if not prepared.extras and full_evaluation(prepared) is None:
        return ()
    beyond = shown_evaluation(prepared, settings).beyond
    return beyond.per_user_metrics if beyond is not None else ()


def per_user_metrics(prepared: Prepared, settings: Settings) -> tuple[str, ...]:
    """Every metric with a value per user that the data set offers: the accuracy metrics,
    then the per-user beyond-accuracy ones (for the pages of per-user values)."""
    return (*per_user_accuracy_metrics(prepared), *beyond_per_user_metrics(prepared, settings))


def beyond_curves(prepared: Prepared, settings: Settings,
                  metrics: tuple[str, ...]) -> dict[str, dict[str, list[float]]]:
    """Model -> metric -> value at K = 1..max_cutoff."""
    return _beyond_curves(prepared, settings.relevance, settings.conventions,
                          settings.max_cutoff, metrics, settings)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner="Computing the beyond-accuracy metrics…",
               hash_funcs=HASH)
def _beyond_curves(prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions,
                   max_cutoff: int, metrics: tuple[str, ...], _settings: Settings,
                   ) -> dict[str, dict[str, list[float]]]:
    # Keyed without K: moving the K slider reuses the curves (the evaluation they come from
    # is keyed on the relevance, the conventions and the largest K alone).
    beyond = _offered(prepared, _settings)
    return {model: {metric: beyond.curve(model, metric).tolist() for metric in metrics}
            for model in prepared.models}


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def beyond_choices(prepared: Prepared, settings: Settings) -> dict[str, object]:
    return _offered(prepared, settings).choices()


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner="Resampling the users…", hash_funcs=HASH)
def beyond_tradeoff(prepared: Prepared, settings: Settings, accuracy: str, beyond_metric: str,
                    confidence: float) -> pd.DataFrame:
    """One row per model: the beyond-accuracy metric (x) and the accuracy metric (y) at K,
    each with its bootstrap interval (a saved evaluation: where it holds per-user values)."""
    return tradeoff_points(_with_beyond(prepared, settings), accuracy, beyond_metric,
                           settings.cutoff, confidence=confidence, n_bootstrap=N_BOOTSTRAP,
                           n_system_bootstrap=BEYOND_BOOTSTRAP)


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def beyond_deciles(prepared: Prepared, settings: Settings) -> pd.DataFrame:
    return _offered(prepared, settings).popularity_deciles(settings.cutoff)


def beyond_exposure_groups(prepared: Prepared, settings: Settings) -> tuple[str, ...]:
    """How the items can be grouped for their share of exposure (none: no such input)."""
    beyond = _with_beyond(prepared, settings).beyond
    return beyond.exposure_groups if beyond is not None else ()


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def beyond_exposure(prepared: Prepared, settings: Settings, groups: str) -> pd.DataFrame:
    return _offered(prepared, settings).exposure(settings.cutoff, groups)


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
