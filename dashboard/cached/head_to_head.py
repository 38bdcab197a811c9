"""The Head-to-head page's values: two models user by user, how much their lists have in
common, and one user's two lists."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.cached import HASH, HOUR
from dashboard.cached.evaluation import pair_lists, shown_evaluation
from dashboard.cached.inputs import user_rows
from dashboard.prepared import Prepared
from dashboard.settings import Settings
from rankmetrics.agreement import list_overlap
from rankmetrics.explain import SideBySide, side_by_side
from rankmetrics.users import biggest_differences, head_to_head

BIGGEST_SHOWN = 10


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def duel(prepared: Prepared, settings: Settings, model_a: str, model_b: str,
         metric: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Two models user by user (the users both count), then the users B beats A by most and
    those A beats B by most."""
    evaluated = shown_evaluation(prepared, settings)
    pairs = head_to_head(evaluated, model_a, model_b, metric,
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


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner="Comparing the two models' lists…",
               hash_funcs=HASH)
def overlap(prepared: Prepared, settings: Settings, model_a: str, model_b: str,
            persistence: float) -> tuple[pd.DataFrame, pd.DataFrame] | str:
    """How much the two models' top K have in common: the means at every K, and each user's
    values at the sidebar's K (or why the lists cannot be read)."""
    inputs = pair_lists(prepared, settings.conventions.ties, settings.max_cutoff, model_a,
                        model_b)
    if isinstance(inputs, str):
        return inputs
    compared = list_overlap(inputs, model_a, model_b,
                            users=prepared.ground_truth.user_ids.to_pandas(),
                            persistence=persistence, max_cutoff=settings.max_cutoff)
    return compared.curves(), compared.at(settings.cutoff)
