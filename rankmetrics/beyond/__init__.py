"""Beyond accuracy's inputs: catalogue coverage, popularity bias, novelty, diversity and
personalization read what the accuracy metrics do not.

:func:`prepare_beyond` reads each model's whole top K (not only its judged items) and what the
optional inputs say about every item: whether it is in the catalogue, its popularity (from
training interactions), whether it is in the long tail, its categories or numeric features
(from item attributes). The metrics themselves are declared in :mod:`rankmetrics.metrics` with
the accuracy metrics; an evaluation given these inputs (``evaluate(..., interactions=...)``)
computes the per-user ones like any metric, and its ``beyond`` gives the system metrics, the
long-tail accuracy and the popularity deciles.

>>> import pandas as pd
>>> from rankmetrics import evaluate
>>> from rankmetrics.io import interactions_from_dataframe
>>> truth = pd.DataFrame({"user": ["u1", "u2"], "item": ["a", "c"], "rating": [1, 1]})
>>> run = pd.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["a", "b", "a", "c"],
...                     "score": [2, 1, 2, 1]})
>>> seen = interactions_from_dataframe(pd.DataFrame({"user": ["x", "x", "y", "y"],
...     "item": ["a", "b", "a", "c"]}), name="train")
>>> ev = evaluate(truth, {"m": run}, max_cutoff=2, interactions=seen)
>>> ev.beyond.curve("m", "coverage").tolist()  # a: 1 of 3 items at K=1; a, b, c at K=2
[0.3333333333333333, 1.0]
>>> ev.curve("m", "arp").tolist()  # popularity a=2, b=1, c=1
[2.0, 1.5]
"""

from rankmetrics.beyond._history import History
from rankmetrics.beyond._inputs import BeyondInputs, prepare_beyond
from rankmetrics.beyond._items import (
    CATALOGUE,
    MOST_CATEGORY_SETS,
    ItemFacts,
    ItemTraits,
    Popularity,
    jaccard_table,
)
from rankmetrics.beyond._options import (
    DISTANCE,
    DISTRIBUTION,
    EXPOSURE_GROUPS,
    EXPOSURE_WEIGHT,
    LONG_TAIL,
    POPULARITY,
    UNEXPECTEDNESS,
    UNSEEN_ITEMS,
    BeyondOptions,
)

__all__ = [
    "CATALOGUE",
    "DISTANCE",
    "DISTRIBUTION",
    "EXPOSURE_GROUPS",
    "EXPOSURE_WEIGHT",
    "UNSEEN_ITEMS",
    "LONG_TAIL",
    "MOST_CATEGORY_SETS",
    "POPULARITY",
    "UNEXPECTEDNESS",
    "BeyondInputs",
    "BeyondOptions",
    "History",
    "ItemFacts",
    "ItemTraits",
    "Popularity",
    "jaccard_table",
    "prepare_beyond",
]
