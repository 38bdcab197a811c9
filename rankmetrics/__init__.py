"""rankmetrics: ranking metrics for recommender and search models, every cutoff at once,
every convention named, proven against the reference tools."""

from rankmetrics.beyond import BeyondOptions
from rankmetrics.conventions import PRESETS, Conventions
from rankmetrics.errors import DataError
from rankmetrics.evaluation import Evaluation, SavedEvaluation, evaluate, load_bundle
from rankmetrics.metrics import BEYOND_METRICS, MAIN_METRICS, METRICS
from rankmetrics.prepared.ground_truth import GroundTruth
from rankmetrics.prepared.ranked_run import RankedRun
from rankmetrics.relevance import RelevanceMapping, suggest_mapping
from rankmetrics.version import __version__

__all__ = [
    "BEYOND_METRICS",
    "BeyondOptions",
    "PRESETS",
    "Conventions",
    "DataError",
    "Evaluation",
    "GroundTruth",
    "MAIN_METRICS",
    "METRICS",
    "RankedRun",
    "RelevanceMapping",
    "SavedEvaluation",
    "evaluate",
    "load_bundle",
    "__version__",
    "suggest_mapping",
]
