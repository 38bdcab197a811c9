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
