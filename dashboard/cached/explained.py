"""The Explained page's values: the users it offers (found, drawn at random, or where two
models disagree most), and one user's metric written out (NDCG's breakdown and its
conventions, the binary metrics' arithmetic and relevance choices, ERR's, RBP's, bpref's and
Judged's ranks and choices, serendipity's and miscalibration's parts against the user's
history)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.bundles import full_evaluation
from dashboard.cached import HASH, HOUR
from dashboard.cached.beyond import beyond_metrics
from dashboard.cached.evaluation import beyond_evaluation, evaluation_of_lists
from dashboard.cached.inputs import user_rows
from dashboard.prepared import Prepared
from dashboard.settings import Settings
from rankmetrics.explain import (
    HISTORY_METRICS,
    HistoryArithmetic,
    MetricArithmetic,
    NdcgBreakdown,
    StepArithmetic,
    compare_conventions,
    explain_history,
    explain_metric,
    explain_ndcg,
    explain_steps,
    metric_variants,
    step_variants,
)
from rankmetrics.users import Disagreement, largest_disagreement, surprise_user


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def disagreement(prepared: Prepared, settings: Settings, model_a: str,
                 model_b: str) -> Disagreement | None:
    return largest_disagreement(evaluation_of_lists(prepared, settings), model_a, model_b, "ndcg",
                                settings.cutoff)


def random_user(prepared: Prepared, settings: Settings, model: str, seed: int) -> str | None:
    return surprise_user(evaluation_of_lists(prepared, settings), model, seed)


def counted(prepared: Prepared, settings: Settings, model: str, user: str) -> bool:
    """Whether ``user`` enters ``model``'s means under the current conventions."""
    evaluated = evaluation_of_lists(prepared, settings)
    position = evaluated.truth.users.get_indexer(pd.Index([user]))[0]
    return bool(position >= 0 and evaluated.included(model)[position])


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def users_containing(prepared: Prepared, text: str, limit: int) -> list[str]:
    """The first ``limit`` users of the ground truth whose id contains ``text``."""
    users = prepared.ground_truth.users
    return list(users[users.str.contains(text, regex=False)][:limit])


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


def _max_grade(prepared: Prepared, settings: Settings) -> float:
    """ERR's g_max as the evaluation uses it: the same for every user (of a saved
    evaluation, over its whole ground truth, not only the sampled users' rows)."""
    saved = full_evaluation(prepared)
    if saved is not None and saved.max_grade is not None:
        return saved.max_grade
    return evaluation_of_lists(prepared, settings).max_grade


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def steps(prepared: Prepared, settings: Settings, model: str, user: str,
          metric: str) -> StepArithmetic:
    """One user's ERR, RBP, bpref or Judged at K, rank by rank."""
    truth, run = user_rows(prepared, model, user)
    return explain_steps(truth, run, user, metric, cutoff=settings.cutoff,
                         relevance=settings.relevance, conventions=settings.conventions,
                         max_grade=_max_grade(prepared, settings))


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def step_choices(prepared: Prepared, settings: Settings, model: str, user: str,
                 metric: str) -> pd.DataFrame:
    """The user's ERR, RBP or bpref at K under each choice that changes it."""
    truth, run = user_rows(prepared, model, user)
    return step_variants(truth, run, user, metric, cutoff=settings.cutoff,
                         relevance=settings.relevance, conventions=settings.conventions,
                         max_grade=_max_grade(prepared, settings))


def history_metrics(prepared: Prepared, settings: Settings) -> tuple[str, ...]:
    """Serendipity and miscalibration where the data set's files allow them and the lists
    are here (not for a saved evaluation, which keeps no training history)."""
    if not prepared.extras or full_evaluation(prepared) is not None:
        return ()
    offered = beyond_metrics(prepared, settings)
    return tuple(metric for metric in HISTORY_METRICS if metric in offered)


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def history_steps(prepared: Prepared, settings: Settings, model: str, user: str,
                  metric: str) -> HistoryArithmetic:
    """One user's serendipity or miscalibration at K against the user's history."""
    evaluation = beyond_evaluation(prepared, settings.relevance, settings.conventions,
                                   settings.max_cutoff)
    return explain_history(evaluation, model, user, metric, cutoff=settings.cutoff)
