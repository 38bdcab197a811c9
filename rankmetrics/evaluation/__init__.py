"""Evaluate several models against one ground truth, at every cutoff at once.

:func:`evaluate` reads the inputs (tables, read files or prepared ones) and returns an
:class:`Evaluation`: means at every K and per-user values, computed on demand. An evaluation
writes itself as a bundle (:meth:`Evaluation.save`), and :func:`load_bundle` reads one back as
a :class:`SavedEvaluation`, which answers the same questions from what was saved. Both satisfy
:class:`rankmetrics.results.EvaluationResults`, the interface every analysis is written
against.

>>> import pandas as pd
>>> truth = pd.DataFrame({"user": ["u"] * 5, "item": list("ACXYZ"), "rating": [1] * 5})
>>> run = pd.DataFrame({"user": ["u"] * 5, "item": list("ABCDE"), "score": [5, 4, 3, 2, 1]})
>>> ev = evaluate(truth, {"model": run}, max_cutoff=5)
>>> float(round(ev.curve("model", "ndcg")[4], 4)), float(round(ev.curve("model", "map")[4], 4))
(0.5087, 0.3333)
"""

from rankmetrics.evaluation._bands import BAND_VALUES, band_cutoffs, band_table
from rankmetrics.evaluation._beyond import BeyondAccuracy
from rankmetrics.evaluation._evaluate import BEYOND_WIDTH, MAX_CUTOFF, evaluate
from rankmetrics.evaluation._evaluation import (
    PER_USER_CACHE_BYTES,
    USERS_PER_BLOCK,
    USERS_PER_PASS,
    Evaluation,
)
from rankmetrics.evaluation._raw_rows import RawSources, loaded_rows
from rankmetrics.evaluation._save import save_evaluation
from rankmetrics.evaluation._saved import SavedEvaluation, load_bundle
from rankmetrics.evaluation._saved_beyond import SavedBeyond
from rankmetrics.evaluation._sums import COUNTS, UserSums, add_sums, extend_values
from rankmetrics.results import BeyondResults, EvaluationResults, ListsAtHand, SavedFrom

__all__ = [
    "BAND_VALUES",
    "BEYOND_WIDTH",
    "COUNTS",
    "MAX_CUTOFF",
    "PER_USER_CACHE_BYTES",
    "USERS_PER_BLOCK",
    "USERS_PER_PASS",
    "BeyondAccuracy",
    "BeyondResults",
    "Evaluation",
    "EvaluationResults",
    "ListsAtHand",
    "RawSources",
    "SavedBeyond",
    "SavedEvaluation",
    "SavedFrom",
    "UserSums",
    "add_sums",
    "band_cutoffs",
    "band_table",
    "evaluate",
    "extend_values",
    "load_bundle",
    "loaded_rows",
    "save_evaluation",
]
