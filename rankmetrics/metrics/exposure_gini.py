r"""Exposure Gini@K: how unequally the attention of the top K lists spreads over the items.

Each rank k of a list gives its item the exposure w(k) a reader pays it (``exposure_weight``:
geometric p^(k - 1), the default with p = 0.85, or NDCG's 1 / log2(k + 1)); an item's exposure
e_i is the sum over the lists, and the Gini index is taken over the catalogue as for Gini:

.. math::

    G_e@K = \frac{\sum_{j=1}^{n} (2j - n - 1)\, e_{(j)}}{n \sum_j e_j},
    \ e_i = \sum_u \sum_{k \le K,\ i_{u,k} = i} w(k)

LensKit's ``ExposureGini`` (``GeometricRankWeight``, patience 0.85, over the items of the
training data). One value for the system, with a bootstrap interval over users.
"""

from __future__ import annotations

from rankmetrics.metrics._metric import Metric

METRIC = Metric(
    name="exposure_gini",
    label="Exposure Gini",
    plain_name="Inequality of attention",
    description="How unequally the attention readers give the lists (more at the top, less "
    "further down) is spread over the items: 0 when every item gets the same, near 1 when a "
    "few items take it all. LensKit's ExposureGini.",
    formula=r"G_e@K = \frac{\sum_{j=1}^{n} (2j - n - 1)\, e_{(j)}}{n \sum_j e_j},"
    r"\ e_i = \sum_u \sum_{k \le K:\, i_{u,k} = i} w(k),\ w(k) = p^{k-1}",
    position=125,
    per_user=None,
    main=False,
    highest=1.0,
    needs="nothing",
    averaged=False,
    higher="concentrates attention on fewer items",
)
