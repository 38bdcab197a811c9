"""Which model is better for whom: an evaluation split into segments of users, with tests.

"Better on average" is not "better for new users" or "better for heavy users". This module
splits the ground truth's users into segments (a user attribute such as country or plan, a
number such as age cut into quantile buckets, or the automatic segments: the size of each
user's ground truth, and, given per-user training interaction counts, activity and cold
start), then gives each segment its models' means with confidence intervals, its winner and
whether that winner is significantly best.

Tests are paired within each segment (the users every model counts), and the p-values of all
segment x pair tests form one family for the multiple-comparison correction, so that testing
ten segments does not make ten times as many chance findings look real. Users with no
attribute row form an explicit ``"(no value)"`` segment: nobody is dropped silently.

Simpson's paradox. When every model is averaged over the same users (the default
conventions), the overall difference between two models is the users-weighted mean of the
segment differences, so it cannot point against every segment. It can when each model is
averaged over other users: with ``missing_users="skip"`` a model that leaves out the hard
users looks better overall while it loses in every segment. :func:`compare_segments` warns
when that happens.
"""

from rankmetrics.segments.compare import SegmentComparison, compare_segments, segment_curves
from rankmetrics.segments.split import (
    ACTIVITY,
    COLD_START,
    COLD_START_BELOW,
    GROUND_TRUTH_SIZE,
    MAX_SEGMENTS,
    MIN_USERS,
    N_BUCKETS,
    NO_VALUE,
    OTHER,
    RELEVANT_ITEMS,
    TOO_FEW,
    WARN_SHARE,
    Segmentation,
    quantile_buckets,
    segment_users,
    segmentation_names,
)

__all__ = [
    "ACTIVITY",
    "COLD_START",
    "COLD_START_BELOW",
    "GROUND_TRUTH_SIZE",
    "MAX_SEGMENTS",
    "MIN_USERS",
    "N_BUCKETS",
    "NO_VALUE",
    "OTHER",
    "RELEVANT_ITEMS",
    "TOO_FEW",
    "WARN_SHARE",
    "SegmentComparison",
    "Segmentation",
    "compare_segments",
    "quantile_buckets",
    "segment_curves",
    "segment_users",
    "segmentation_names",
]
