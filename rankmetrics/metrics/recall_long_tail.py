r"""Recall on long-tail items: Recall@K with the ground truth restricted to the long tail.

.. math::

    \mathrm{R_\Gamma@K} = \frac{|\{\text{relevant in } \Gamma \text{ in top } K\}|}
    {|R \cap \Gamma|}

Per user, over the users with a relevant long-tail item: ``recall`` on an evaluation of the
ground truth restricted to long-tail items.
"""

from __future__ import annotations

from rankmetrics.metrics._metric import Metric

METRIC = Metric(
    name="recall_long_tail",
    label="Recall (long tail)",
    plain_name="Share of the relevant long-tail items found",
    description="Recall with the ground truth restricted to long-tail items: accuracy where "
    "popularity cannot help.",
    formula=r"\mathrm{R_\Gamma@K} = \frac{|\{\text{relevant in"
    r" } \Gamma \text{ in top } K\}|}{|R \cap \Gamma|}",
    position=210,
    per_user=None,
    main=False,
    highest=1.0,
    needs="interactions",
    long_tail_of="recall",
)
