r"""Personalization@K: 1 minus the mean share of the top K two different users have in common.

.. math:: \mathrm{Pers@K} = 1 - \frac{1}{K} \cdot \frac{\sum_i c_i (c_i - 1)}{U (U - 1)}

One value for the system, from how often each item is recommended (an evaluation's ``beyond``
computes it, with a bootstrap interval over users).
"""

from __future__ import annotations

from rankmetrics.metrics._metric import Metric

METRIC = Metric(
    name="personalization",
    label="Personalization",
    plain_name="Difference between users' lists",
    description="1 minus the mean share of K that two different users' top K have in common: "
    "0 when everyone gets the same K items. The share is of K even for shorter lists, so "
    "everyone getting the same 5 items gives 0.5 at K = 10.",
    formula=r"\mathrm{Pers@K} = 1 - \frac{1}{K} \cdot \frac{\sum_i c_i (c_i - 1)}{U (U - 1)}",
    position=140,
    per_user=None,
    main=False,
    highest=1.0,
    needs="nothing",
    averaged=False,
    higher="gives different users more different lists",
)
