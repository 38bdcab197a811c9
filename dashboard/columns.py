"""Table columns named after a metric at K ("NDCG@10"): narrow, so their help says the rest,
the metric in words, what it measures and which way is better."""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st
from streamlit.elements.lib.column_types import ColumnConfig

from rankmetrics.figures import metric_label, metric_title
from rankmetrics.metrics import declared, direction_text


def metric_help(metric: str, cutoff: int) -> str:
    """A metric column's help: "Ranking quality (NDCG@10): what it measures. Higher is
    better."

    >>> metric_help("arp", 10).split(": ")[0]
    'Average popularity of recommended items (ARP@10)'
    """
    return (f"{metric_title(metric, cutoff)}: {declared(metric).description} "
            f"{direction_text(metric)}.")


def metric_column_config(metrics: Iterable[str], cutoff: int) -> dict[str, ColumnConfig]:
    """The column configuration of a table whose columns are the metrics' labels at
    ``cutoff``: each keeps its label, with :func:`metric_help` as its help."""
    return {metric_label(metric, cutoff): st.column_config.Column(help=metric_help(metric, cutoff))
            for metric in metrics}


#: The columns of a table of pairs of models (:func:`rankmetrics.stats.paired_comparison`).
PAIR_COLUMNS = {
    "model_a": st.column_config.TextColumn("Model A"),
    "model_b": st.column_config.TextColumn("Model B"),
    "mean_a": st.column_config.NumberColumn("Mean A", format="%.4f"),
    "mean_b": st.column_config.NumberColumn("Mean B", format="%.4f"),
    "difference": st.column_config.NumberColumn("Difference B − A", format="%+.4f"),
    "ci_low": st.column_config.NumberColumn("Interval: low", format="%+.4f"),
    "ci_high": st.column_config.NumberColumn("Interval: high", format="%+.4f"),
    "effect_size": st.column_config.NumberColumn(
        "Effect size", format="%+.3f",
        help="The mean difference divided by the spread of the per-user differences "
        "(Cohen's d_z): about 0.2 is small, 0.5 medium, 0.8 large."),
    "effect_low": st.column_config.NumberColumn("Effect size: low", format="%+.3f"),
    "effect_high": st.column_config.NumberColumn("Effect size: high", format="%+.3f"),
    "statistic": st.column_config.NumberColumn("Test statistic", format="%.4g"),
    "p_value": st.column_config.NumberColumn("p", format="%.4f"),
    "p_corrected": st.column_config.NumberColumn("Corrected p", format="%.4f"),
    "significant": st.column_config.CheckboxColumn("Significant"),
    "wins": st.column_config.NumberColumn("B better", format="localized",
                                          help="Users for whom B's value is higher."),
    "ties": st.column_config.NumberColumn("Same", format="localized"),
    "losses": st.column_config.NumberColumn("A better", format="localized"),
    "users": st.column_config.NumberColumn("Users", format="localized"),
}
