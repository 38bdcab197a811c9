"""The Choosing K page's values: the curves, tests, winners and ties at every cutoff, and the
summary sentences drawn from them."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.cached import HASH, HOUR
from dashboard.cached.evaluation import curves, evaluation, evaluation_of_lists, shown_evaluation
from dashboard.cached.inputs import read_file
from dashboard.cached.significance import paired_users
from dashboard.prepared import Prepared
from dashboard.settings import Settings
from rankmetrics.choosing_k.order import crossovers, leaderboard, order_agreement
from rankmetrics.choosing_k.report import (
    Sentence,
    agreement_sentence,
    cutoffs_scope,
    cutoffs_tested,
    map_cutoffs,
    order_sentence,
    relevance_sentence,
    relevance_variants,
    said_of,
    significance_sentence,
    ties_sentence,
)
from rankmetrics.choosing_k.significance import (
    cutoff_table,
    difference_band,
    discriminative_power,
    leaders_over_k,
    significance_by_metric,
)
from rankmetrics.choosing_k.ties import tie_bounds
from rankmetrics.figures import metric_label
from rankmetrics.metrics import MAIN_METRICS, METRICS
from rankmetrics.relevance import RelevanceMapping


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


def k_tests(prepared: Prepared, settings: Settings, relevance: RelevanceMapping | None,
            metric: str, options: tuple[str, str, float, int],
            cutoffs: tuple[int, ...]) -> pd.DataFrame:
    """Every pair tested at each of ``cutoffs`` (options: test, correction, confidence,
    random flips): on the evaluation every page shows (``relevance`` None: the sidebar's
    mapping; a saved evaluation's own values, at its saved cutoffs), or on the lists under
    another relevance mapping (a variant of the sidebar's).

    On the evaluation shown, every main metric is tested in one pass over the per-user values
    (and cached together) when the page needs them all at these cutoffs: always for the
    t-test, at the winner maps' cutoffs for the others."""
    together = relevance is None and (
        options[0] == "t"
        or list(cutoffs) == map_cutoffs(shown_evaluation(prepared, settings), options[0],
                                        settings.cutoff))
    metrics = MAIN_METRICS if together else (metric,)
    return _k_tests(prepared, settings, relevance, metrics, options, cutoffs)[metric]


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _k_tests(prepared: Prepared, settings: Settings, relevance: RelevanceMapping | None,
             metrics: tuple[str, ...], options: tuple[str, str, float, int],
             cutoffs: tuple[int, ...]) -> dict[str, pd.DataFrame]:
    test, correction, confidence, n_permutations = options
    evaluated = (shown_evaluation(prepared, settings) if relevance is None else
                 evaluation(prepared, relevance, settings.conventions, settings.max_cutoff))
    return significance_by_metric(evaluated, metrics, cutoffs=cutoffs, test=test,
                                  correction=correction, confidence=confidence,
                                  n_permutations=n_permutations)


def k_leaders(prepared: Prepared, settings: Settings, relevance: RelevanceMapping | None,
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
    return difference_band(shown_evaluation(prepared, settings), metric, model_a, model_b,
                           confidence=confidence)


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def k_tie_bounds(prepared: Prepared, settings: Settings) -> pd.DataFrame | None:
    """Each model's means of the main metrics under the pessimistic and optimistic orders of
    tied scores, or None when a model's file cannot be read again. They need the lists with
    their scores: a saved evaluation's are those of its sampled users."""
    tables = {model: read_file(prepared.specs[model]).table for model in prepared.models}
    runs = {model: table for model, table in tables.items() if table is not None}
    if len(runs) < len(tables):
        return None
    return tie_bounds(evaluation_of_lists(prepared, settings), runs, MAIN_METRICS)


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def k_cutoff_table(prepared: Prepared, settings: Settings, cutoffs: tuple[int, ...],
                   options: tuple[str, str, float, int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every model (rows) and main metric at ``cutoffs`` (columns such as "NDCG@10"), and
    which cells are significantly best in their column."""
    test, correction, confidence, n_permutations = options
    table = cutoff_table(shown_evaluation(prepared, settings), MAIN_METRICS, cutoffs, test=test,
                         correction=correction, confidence=confidence,
                         n_permutations=n_permutations)
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
    shown = shown_evaluation(prepared, settings)
    power = {}
    for name in (metric, *[m for m in MAIN_METRICS if m != metric]):
        cutoffs = (cutoffs_tested(shown, test, settings.cutoff) if name == metric
                   else map_cutoffs(shown, test, settings.cutoff))
        tests = k_tests(prepared, settings, None, name, options, tuple(cutoffs))
        power[METRICS[name].label] = discriminative_power(tests)
    return power


def k_winners_by_metric(prepared: Prepared, settings: Settings,
                        options: tuple[str, str, float, int]) -> pd.DataFrame:
    """The best model at each K for each main metric (rows: metric labels); a saved
    evaluation's at its saved cutoffs."""
    cutoffs = tuple(map_cutoffs(shown_evaluation(prepared, settings), options[0],
                                settings.cutoff))
    return pd.concat([
        k_leaders(prepared, settings, None, name, options, cutoffs)
        .assign(row=METRICS[name].label) for name in MAIN_METRICS], ignore_index=True)


def k_winners_by_relevance(prepared: Prepared, settings: Settings, metric: str,
                           options: tuple[str, str, float, int],
                           thresholds: tuple[str, ...]) -> pd.DataFrame:
    """The best model at each K under each of the named relevance thresholds (names of
    :func:`k_relevance_variants` with ``every``)."""
    cutoffs = tuple(map_cutoffs(evaluation_of_lists(prepared, settings), options[0],
                                settings.cutoff))
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
    shown = shown_evaluation(prepared, settings)
    sampled, tested = shown.lists_at_hand().scope, cutoffs_scope(shown)
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
