r"""Entropy@K: the normalized Shannon entropy of how often each item is recommended.

.. math:: H@K = -\frac{1}{\log n} \sum_i p_i \log p_i,\ p_i = \frac{c_i}{\sum_j c_j}

One value for the system, from how often each item is recommended (an evaluation's ``beyond``
computes it, with a bootstrap interval over users).
"""

from __future__ import annotations

from rankmetrics.metrics._metric import Metric

METRIC = Metric(
    name="entropy",
    label="Entropy",
    plain_name="Evenness of recommendations",
    description="Normalized Shannon entropy of how often each item is recommended: 1 when "
    "evenly spread, 0 when one item takes every recommendation.",
    formula=r"H@K = -\frac{1}{\log n} \sum_i p_i \log p_i,\ p_i = \frac{c_i}{\sum_j c_j}",
    position=130,
    per_user=None,
    main=False,
    highest=1.0,
    needs="nothing",
    averaged=False,
    higher="spreads recommendations more evenly over the items",
)
