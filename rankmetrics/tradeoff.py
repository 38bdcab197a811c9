"""Accuracy against a beyond-accuracy metric, model by model: the trade-off at one K.

Each model is a point: the beyond-accuracy metric on x, an accuracy metric on y, each with its
bootstrap interval over the counted users. Of a saved evaluation, the intervals are those its
saved per-user values allow (a system metric's needs every user's list: it has none).

>>> import pandas as pd
>>> from rankmetrics import evaluate
>>> truth = pd.DataFrame({"user": ["u1", "u2"], "item": ["a", "c"], "rating": [1, 1]})
>>> run = pd.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["a", "b", "a", "c"],
...                     "score": [2, 1, 2, 1]})
>>> ev = evaluate(truth, {"m": run}, max_cutoff=2, catalogue="all")
>>> points = tradeoff_points(ev, "recall", "coverage", 2, n_bootstrap=20, n_system_bootstrap=20)
>>> points[["model", "x", "y"]].to_dict("records")  # coverage@2 = 3 of 3 items; recall 1
[{'model': 'm', 'x': 1.0, 'y': 1.0}]
"""

from __future__ import annotations

import pandas as pd

from rankmetrics.checks import check_int
from rankmetrics.metrics import SYSTEM_METRICS, check_metrics
from rankmetrics.results import EvaluationResults

POINT_COLUMNS = ["model", "x", "x_low", "x_high", "y", "y_low", "y_high"]


def tradeoff_points(evaluation: EvaluationResults, accuracy: str, beyond_metric: str,
                    cutoff: int, *, confidence: float = 0.95, n_bootstrap: int = 1_000,
                    n_system_bootstrap: int = 200, seed: int | None = 0) -> pd.DataFrame:
    """One row per model (the points :func:`rankmetrics.figures.beyond.tradeoff` draws):
    ``beyond_metric`` at ``cutoff`` (x) and ``accuracy`` (y), each with its bootstrap interval
    (``x_low``, ``x_high``, ``y_low``, ``y_high``; NaN where the evaluation cannot resample
    it).

    ``n_system_bootstrap`` resamples a system metric (each resample counts every item again:
    fewer than the per-user metrics need); ``n_bootstrap`` the others. Models without a value
    on either axis (no counted user) are left out.
    """
    (accuracy,) = check_metrics([accuracy])
    cutoff = check_int("cutoff", cutoff, high=evaluation.max_cutoff)
    beyond = evaluation.beyond
    if beyond is None:
        raise ValueError("The trade-off needs the beyond-accuracy metrics: evaluate with "
                         "interactions=, item_attributes= or catalogue=.")
    metric = beyond.check(beyond_metric)
    y = evaluation.confidence_bands([accuracy], cutoffs=[cutoff], n_bootstrap=n_bootstrap,
                                    confidence=confidence, seed=seed).set_index("model")
    x = beyond.bands(metric, cutoff, confidence=confidence, seed=seed,
                     n_bootstrap=n_system_bootstrap if metric in SYSTEM_METRICS
                     else n_bootstrap).set_index("model")
    models = [model for model in evaluation.models if model in x.index and model in y.index]
    return pd.DataFrame({
        "model": models,
        "x": x.loc[models, "mean"].to_numpy(), "x_low": x.loc[models, "ci_low"].to_numpy(),
        "x_high": x.loc[models, "ci_high"].to_numpy(),
        "y": y.loc[models, "mean"].to_numpy(), "y_low": y.loc[models, "ci_low"].to_numpy(),
        "y_high": y.loc[models, "ci_high"].to_numpy(),
    }, columns=POINT_COLUMNS)
