r"""NDCG on long-tail items: NDCG@K with the ground truth restricted to the long tail.

.. math:: \mathrm{NDCG_\Gamma@K} = \mathrm{NDCG@K} \text{ on } R \cap \Gamma

Per user, over the users with a relevant long-tail item: ``ndcg`` on an evaluation of the
ground truth restricted to long-tail items.
"""

from __future__ import annotations

from rankmetrics.metrics._metric import Metric

METRIC = Metric(
    name="ndcg_long_tail",
    label="NDCG (long tail)",
    plain_name="Ranking quality on long-tail items",
    description="NDCG with the ground truth restricted to long-tail items.",
    formula=r"\mathrm{NDCG_\Gamma@K} = \mathrm{NDCG@K} \text{ on } R \cap \Gamma",
    position=220,
    per_user=None,
    main=False,
    highest=1.0,
    needs="interactions",
    long_tail_of="ndcg",
)
