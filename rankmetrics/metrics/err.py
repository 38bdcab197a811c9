r"""ERR@K: Expected Reciprocal Rank (Chapelle, Metzler, Zhang and Grinspan, *Expected
reciprocal rank for graded relevance*, CIKM 2009).

.. math:: \mathrm{ERR@K} = \sum_{r=1}^{K} \frac{1}{r}\, R_r \prod_{i=1}^{r-1} (1 - R_i)

.. math:: R_i = \frac{2^{g_i} - 1}{2^{g_{\max}}}

A reader goes down the list and stops at rank i with probability R_i, which grows with the
item's grade g_i; ERR is the expected 1 / (the rank where the reader stops). An unjudged item
has grade 0 and never stops the reader; a grade below 0 counts as 0. g_max is the
``max_grade`` convention: by default the highest grade of the relevance mapping (gdeval,
which ir_measures runs for ``ERR@k``, uses 4).
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import UserBlock, grades_within
from rankmetrics.metrics._metric import Metric


def stop_probabilities(grades: np.ndarray, highest: float) -> np.ndarray:
    """(2^g - 1) / 2^g_max of each grade (grades below 0 as 0).

    >>> stop_probabilities(np.array([0.0, 1.0, 2.0]), 2.0).tolist()
    [0.0, 0.25, 0.75]
    """
    grades = grades_within(grades, highest, "ERR")
    return (np.exp2(grades) - 1.0) / np.exp2(highest)


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """The chance of stopping at each rank, times the chance of getting there, over the rank,
    added up rank by rank."""
    grades, highest = block.grades
    stop = block.at_ranks(stop_probabilities(grades, highest))
    reached = np.ones_like(stop)
    np.cumprod(1.0 - stop[:, :-1], axis=1, out=reached[:, 1:])
    return np.cumsum(reached * stop / block.cutoffs, axis=1)


METRIC = Metric(
    name="err",
    label="ERR",
    plain_name="Where a reader is expected to stop",
    description="Expected 1 / rank at which a reader stops, who stops at each item with a "
    "probability growing with its grade, (2^g - 1) / 2^g_max (g_max: the max_grade "
    "convention, by default the mapping's highest grade).",
    formula=r"\mathrm{ERR@K} = \sum_{r=1}^{K} \frac{1}{r}\, R_r \prod_{i=1}^{r-1} (1 - R_i),"
    r"\quad R_i = \frac{2^{g_i} - 1}{2^{g_{\max}}}",
    position=75,
    per_user=per_user,
    main=False,
    highest=1.0,
)
