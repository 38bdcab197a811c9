"""Where the pages are, and the jumps from one page to another that carry a choice along."""

from __future__ import annotations

import streamlit as st

from dashboard import keys
from rankmetrics.explain import STEP_METRICS
from rankmetrics.metrics import MAIN_METRICS

PAGES = {
    "data": "app_pages/data.py",
    "compare": "app_pages/compare.py",
    "users": "app_pages/users.py",
    "significance": "app_pages/significance.py",
    "head_to_head": "app_pages/head_to_head.py",
    "segments": "app_pages/segments.py",
    "beyond": "app_pages/beyond.py",
    "explained": "app_pages/explained.py",
    "playground": "app_pages/playground.py",
    "choosing_k": "app_pages/choosing_k.py",
    "conventions": "app_pages/conventions.py",
}


def explained_metric(metric: str) -> str:
    """The metric Metrics explained works out for a page showing ``metric``: that metric
    when the page can explain it, else NDCG (a beyond-accuracy metric has no rank-by-rank
    arithmetic there)."""
    return metric if metric in (*MAIN_METRICS, *STEP_METRICS) else "ndcg"


def explain_user(model: str, user: str, metric: str, other: str | None = None) -> None:
    """Open the Metrics explained page on ``user``'s ``metric`` (see ``explained_metric``)
    under ``model`` (and ``other`` as the model to compare with)."""
    state = st.session_state
    state[keys.EXPLAIN_MODEL] = model
    state[keys.EXPLAIN_USER] = user
    state[keys.EXPLAIN_METRIC] = explained_metric(metric)
    if other is not None:
        state[keys.EXPLAIN_OTHER] = other
    st.switch_page(PAGES["explained"])


def ndcg_explained() -> None:
    """The page the old address ``/ndcg-explained`` leads to: Metrics explained, on NDCG
    (bookmarks and shared links keep working)."""
    st.session_state[keys.EXPLAIN_METRIC] = "ndcg"
    st.switch_page(PAGES["explained"])


def open_head_to_head(model_a: str, model_b: str, metric: str) -> None:
    """Open the Head-to-head page on two models and a metric."""
    state = st.session_state
    state[keys.H2H_A], state[keys.H2H_B], state[keys.H2H_METRIC] = model_a, model_b, metric
    st.switch_page(PAGES["head_to_head"])
