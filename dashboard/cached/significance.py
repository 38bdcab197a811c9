"""The paired tests: the users every model counts, and each metric's comparison of the models."""

from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard.cached import HASH, HOUR
from dashboard.cached.evaluation import shown_evaluation
from dashboard.prepared import Prepared
from dashboard.settings import Settings
from rankmetrics.conventions import Conventions
from rankmetrics.relevance import RelevanceMapping
from rankmetrics.stats import (
    ModelComparison,
    PairPlan,
    RunComparison,
    compare_models,
    compare_models_together,
    compare_runs,
    plan_pair,
)

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
    return len(shown_evaluation(prepared, _settings).paired(metric, cutoff))


def users_every_model_counts(prepared: Prepared, settings: Settings) -> int:
    """How many users every model counts, read from the conventions' masks without computing
    a metric (a saved evaluation: from the users its per-user values are of)."""
    return _users_every_model_counts(prepared, settings.relevance, settings.conventions,
                                     settings)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _users_every_model_counts(prepared: Prepared, relevance: RelevanceMapping,
                              conventions: Conventions, _settings: Settings) -> int:
    return int(np.count_nonzero(shown_evaluation(prepared, _settings).paired_mask()))


def paired_counts(prepared: Prepared, settings: Settings,
                  metrics: tuple[str, ...]) -> dict[str, int]:
    """:func:`paired_users` of each of ``metrics``, their values computed in one pass."""
    return _paired_counts(prepared, settings.relevance, settings.conventions, settings.cutoff,
                          metrics, settings)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _paired_counts(prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions,
                   cutoff: int, metrics: tuple[str, ...], _settings: Settings) -> dict[str, int]:
    tables = shown_evaluation(prepared, _settings).paired_tables(metrics, cutoff)
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
    values = shown_evaluation(prepared, _settings).paired(metric, cutoff)
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
    tables = shown_evaluation(prepared, _settings).paired_tables(metrics, cutoff)
    return compare_models_together(
        tables, test=test,
        correction="holm", n_permutations=n_permutations, n_bootstrap=n_bootstrap,
        confidence=confidence)


def pair_plan(prepared: Prepared, settings: Settings, metric: str, model_a: str, model_b: str,
              power: float, confidence: float, pairs: int) -> PairPlan:
    """Power and sample size of one pair on the users every model counts."""
    return _pair_plan(prepared, settings.relevance, settings.conventions, settings.cutoff,
                      metric, model_a, model_b, power, confidence, pairs, settings)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _pair_plan(prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions,
               cutoff: int, metric: str, model_a: str, model_b: str, power: float,
               confidence: float, pairs: int, _settings: Settings) -> PairPlan:
    values = shown_evaluation(prepared, _settings).paired(metric, cutoff)
    return plan_pair(values[model_a].to_numpy(), values[model_b].to_numpy(), power=power,
                     confidence=confidence, pairs=pairs)


def run_comparison(prepared: Prepared, settings: Settings, metric: str, test: str,
                   correction: str, n_permutations: int, n_bootstrap: int, confidence: float,
                   groups: tuple[tuple[str, tuple[str, ...]], ...]) -> RunComparison:
    """The models of several runs compared over users and over runs, on the users every
    model counts (``groups``: each model and its runs)."""
    return _run_comparison(prepared, settings.relevance, settings.conventions, settings.cutoff,
                           metric, test, correction, n_permutations, n_bootstrap, confidence,
                           groups, settings)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _run_comparison(prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions,
                    cutoff: int, metric: str, test: str, correction: str, n_permutations: int,
                    n_bootstrap: int, confidence: float,
                    groups: tuple[tuple[str, tuple[str, ...]], ...],
                    _settings: Settings) -> RunComparison:
    values = shown_evaluation(prepared, _settings).paired(metric, cutoff)
    return compare_runs(values, {model: list(runs) for model, runs in groups}, test=test,
                        correction=correction, n_permutations=n_permutations,
                        n_bootstrap=n_bootstrap, confidence=confidence)
