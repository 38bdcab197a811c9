"""The Users page's values: every user's value of a metric, their spread, the worst users."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.cached import HASH, HOUR
from dashboard.cached.evaluation import shown_evaluation
from dashboard.prepared import Prepared
from dashboard.settings import Settings
from rankmetrics.users import distribution_summary, worst_users


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner="Computing per-user values…",
               hash_funcs=HASH)
def per_user(prepared: Prepared, settings: Settings, metric: str) -> dict[str, np.ndarray]:
    """Model -> per-user values of ``metric`` at the chosen K (the users each model counts)."""
    evaluated = shown_evaluation(prepared, settings)
    return {model: evaluated.per_user_at(model, metric, settings.cutoff).to_numpy()
            for model in evaluated.models}


@st.cache_data(max_entries=8, ttl=HOUR, show_spinner="Collecting every user's values…",
               hash_funcs=HASH)
def per_user_values(prepared: Prepared, settings: Settings, metric: str) -> pd.DataFrame:
    """``metric`` at the chosen K for every user (rows) and model (columns); empty where a
    model does not count the user."""
    table = shown_evaluation(prepared, settings).per_user_table([metric], [settings.cutoff])
    wide = table.pivot(index="user", columns="model", values="value")
    wide = wide.reindex(columns=prepared.models)
    wide.columns.name = None
    return wide.reset_index()


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def spread(prepared: Prepared, settings: Settings, metric: str) -> pd.DataFrame:
    evaluated = shown_evaluation(prepared, settings)
    return distribution_summary(evaluated, metric, settings.cutoff)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def worst(prepared: Prepared, settings: Settings, model: str, metric: str,
          count: int) -> pd.DataFrame:
    evaluated = shown_evaluation(prepared, settings)
    return worst_users(evaluated, model, metric, settings.cutoff,
                       count=count)
