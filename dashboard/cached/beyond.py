"""The beyond-accuracy metrics' values: which ones the files allow, their curves and table at
K, the trade-off against accuracy, the popularity deciles."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.bundles import full_evaluation
from dashboard.cached import HASH, HOUR
from dashboard.cached.evaluation import beyond_evaluation, beyond_inputs, shown_evaluation
from dashboard.prepared import Prepared
from dashboard.settings import N_BOOTSTRAP, Settings
from rankmetrics import SavedEvaluation
from rankmetrics.beyond import LONG_TAIL_METRICS, SYSTEM_METRICS, BeyondAccuracy
from rankmetrics.bundle.beyond import SavedBeyond
from rankmetrics.evaluation import Evaluation
from rankmetrics.figures import metric_label

#: Resamples of the system-level beyond-accuracy metrics (each recounts every item).
BEYOND_BOOTSTRAP = 200
NO_BEYOND = "This data set has no beyond-accuracy metrics."


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


def _offered(prepared: Prepared, settings: Settings) -> BeyondAccuracy | SavedBeyond:
    """:func:`_beyond`, which the pages ask for only when they offer beyond-accuracy
    metrics."""
    beyond = _beyond(prepared, settings)
    if beyond is None:
        raise ValueError(NO_BEYOND)
    return beyond


def _computed(evaluation: Evaluation) -> BeyondAccuracy:
    """The beyond-accuracy metrics of an evaluation made with them."""
    if evaluation.beyond is None:
        raise ValueError(NO_BEYOND)
    return evaluation.beyond


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
    beyond = shown_evaluation(prepared, settings).beyond
    return beyond.per_user_metrics if beyond is not None else ()


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner="Computing the beyond-accuracy metrics…",
               hash_funcs=HASH)
def beyond_curves(prepared: Prepared, settings: Settings,
                  metrics: tuple[str, ...]) -> dict[str, dict[str, list[float]]]:
    """Model -> metric -> value at K = 1..max_cutoff."""
    beyond = _offered(prepared, settings)
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
    saved = full_evaluation(prepared)
    if saved is not None:
        return _saved_tradeoff(saved, settings.cutoff, accuracy, beyond_metric, confidence)
    evaluated = beyond_evaluation(prepared, settings.relevance, settings.conventions,
                                  settings.max_cutoff)
    k = settings.cutoff
    y = evaluated.confidence_bands([accuracy], cutoffs=[k], n_bootstrap=N_BOOTSTRAP,
                                   confidence=confidence).set_index("model")
    if beyond_metric in SYSTEM_METRICS:
        x = _computed(evaluated).system_bands([beyond_metric], cutoff=k,
                                              n_bootstrap=BEYOND_BOOTSTRAP,
                                              confidence=confidence)
    elif beyond_metric in LONG_TAIL_METRICS:
        x = _computed(evaluated).long_tail.confidence_bands(
            [LONG_TAIL_METRICS[beyond_metric]], cutoffs=[k], n_bootstrap=N_BOOTSTRAP,
            confidence=confidence)
    else:
        x = evaluated.confidence_bands([beyond_metric], cutoffs=[k],
                                       n_bootstrap=N_BOOTSTRAP, confidence=confidence)
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
    return _offered(prepared, settings).popularity_deciles(settings.cutoff)


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
