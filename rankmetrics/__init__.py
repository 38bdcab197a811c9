"""rankmetrics: ranking metrics for recommender and search models, every cutoff at once,
every convention named, proven against the reference tools."""

from rankmetrics.beyond import BEYOND_METRICS, BeyondOptions
from rankmetrics.bundle import SavedEvaluation, load_bundle
from rankmetrics.conventions import PRESETS, Conventions
from rankmetrics.errors import DataError
from rankmetrics.evaluation import Evaluation, evaluate
from rankmetrics.ground_truth import GroundTruth
from rankmetrics.metrics import MAIN_METRICS, METRICS
from rankmetrics.ranked_run import RankedRun
from rankmetrics.relevance import RelevanceMapping, suggest_mapping

__version__ = "0.1.0"

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
    "suggest_mapping",
]
