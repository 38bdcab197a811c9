"""The Segments page's values: the user-attributes file, the users split into segments, and
each segment's comparison of the models and curves."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.bundles import full_evaluation
from dashboard.cached import HASH, HOUR
from dashboard.cached.evaluation import shown_evaluation
from dashboard.cached.inputs import read_file
from dashboard.files import FileSpec
from dashboard.prepared import Prepared
from dashboard.settings import N_BOOTSTRAP, Settings
from rankmetrics.errors import DataError
from rankmetrics.io import Attributes, interaction_counts, read_attributes
from rankmetrics.segments import (
    Segmentation,
    SegmentComparison,
    compare_segments,
    segment_curves,
    segment_users,
)


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def user_attributes(spec: FileSpec) -> tuple[Attributes | None, str | None]:
    """A user-attributes file read, or the message saying why not."""
    try:
        if spec.path is not None:
            return read_attributes(spec.path, key="user"), None
        return read_attributes(spec.data or b"", name=spec.file_name, key="user"), None
    except (DataError, ValueError) as error:
        return None, str(error)


def _attributes_of(spec: FileSpec | None) -> Attributes | None:
    return None if spec is None else user_attributes(spec)[0]


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def training_counts(prepared: Prepared) -> pd.Series | None:
    """Each user's number of training interactions, when the data set has them (readable;
    a saved evaluation's as saved)."""
    saved = full_evaluation(prepared)
    if saved is not None:
        return saved.beyond.activity if saved.beyond is not None else None
    spec = prepared.extras.get("interactions")
    table = read_file(spec).table if spec is not None else None
    return interaction_counts(table) if table is not None else None


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def segmentation(prepared: Prepared, settings: Settings, spec: FileSpec | None, by: str,
                 n_buckets: int) -> Segmentation:
    """The ground truth's users split by ``by`` (an attribute of ``spec``'s file, or an
    automatic segmentation: activity and cold start come from the training interactions)."""
    return segment_users(shown_evaluation(prepared, settings), by, attributes=_attributes_of(spec),
                         training_counts=training_counts(prepared), n_buckets=n_buckets)


def segment_comparison(prepared: Prepared, settings: Settings, spec: FileSpec | None, by: str,
                       n_buckets: int, metric: str, baseline: str, test: str,
                       correction: str, confidence: float, min_users: int,
                       warn_share: float) -> SegmentComparison:
    """Every segment's means, intervals, winner and tests (see
    :func:`rankmetrics.segments.compare_segments`); another baseline tests nothing again."""
    return _segment_tests(prepared, settings, spec, by, n_buckets, metric, test, correction,
                          confidence, min_users, warn_share).with_baseline(baseline)


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _segment_tests(prepared: Prepared, settings: Settings, spec: FileSpec | None, by: str,
                   n_buckets: int, metric: str, test: str, correction: str, confidence: float,
                   min_users: int, warn_share: float) -> SegmentComparison:
    return compare_segments(shown_evaluation(prepared, settings),
                            segmentation(prepared, settings, spec, by, n_buckets), metric,
                            settings.cutoff, test=test, correction=correction,
                            confidence=confidence, min_users=min_users, warn_share=warn_share,
                            n_bootstrap=N_BOOTSTRAP)


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def segment_means_over_k(prepared: Prepared, settings: Settings, spec: FileSpec | None, by: str,
                         n_buckets: int, metric: str) -> pd.DataFrame:
    """Each segment's mean for each model at every K (keyed without K)."""
    return segment_curves(shown_evaluation(prepared, settings),
                          segmentation(prepared, settings, spec, by, n_buckets), metric)
