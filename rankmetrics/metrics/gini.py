r"""Gini@K: how unequally the top K lists spread over the catalogue's items.

.. math::

    G@K = \frac{\sum_{j=1}^{n} (2j - n - 1)\, c_{(j)}}{n \sum_j c_j},
    \ c_{(1)} \le \dots \le c_{(n)}

One value for the system, from how often each item is recommended (an evaluation's ``beyond``
computes it, with a bootstrap interval over users).
"""

from __future__ import annotations

from rankmetrics.metrics._metric import Metric

METRIC = Metric(
    name="gini",
    label="Gini",
    plain_name="Inequality of recommendations",
    description="How unequally recommendations are spread over the items: 0 when every item is "
    "recommended equally often, near 1 when a few items take them all.",
    formula=r"G@K = \frac{\sum_{j=1}^{n} (2j - n - 1)\, c_{(j)}}{n \sum_j c_j},"
    r"\ c_{(1)} \le \dots \le c_{(n)}",
    position=120,
    per_user=None,
    main=False,
    highest=1.0,
    needs="nothing",
    averaged=False,
    higher="concentrates recommendations on fewer items",
)
