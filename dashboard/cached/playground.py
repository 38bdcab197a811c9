"""The playground's values: every metric of the hand-edited list, under each convention,
written out, and the textbook example it starts from."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from dashboard.cached import HOUR
from dashboard.cached.inputs import table_of
from dashboard.demos import demo_specs
from rankmetrics.explain import (
    BINARY_METRICS,
    MetricArithmetic,
    NdcgBreakdown,
    explain_metric,
    explain_ndcg,
)
from rankmetrics.playground import USER as PLAYGROUND_USER
from rankmetrics.playground import Playground, Scenario, convention_values, textbook
from rankmetrics.playground import playground_values as values_of_list


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
    truth = table_of(truth_spec).table
    run = table_of(run_specs[0]).table
    return textbook(truth, run, str(truth["user"].iloc[0]))
