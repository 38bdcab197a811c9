"""The inputs as integer arrays, built from what :mod:`rankmetrics.io` read and checked: the
ground truth (:class:`GroundTruth`), and each model's lists ordered under the tie rule and
matched against it (:class:`RankedRun`): every metric is computed from these."""

from rankmetrics.prepared.ground_truth import GroundTruth, named_columns
from rankmetrics.prepared.ranked_run import RankedRun, order_rows

__all__ = ["GroundTruth", "RankedRun", "named_columns", "order_rows"]
