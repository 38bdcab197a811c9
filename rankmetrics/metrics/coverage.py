r"""Coverage@K: the share of the catalogue recommended to at least one user in their top K.

.. math:: \mathrm{Coverage@K} = \frac{|\bigcup_u L_u^K \cap C|}{|C|}

One value for the system, from how often each item is recommended (an evaluation's ``beyond``
computes it, with a bootstrap interval over users).
"""

from __future__ import annotations

from rankmetrics.metrics._metric import Metric

METRIC = Metric(
    name="coverage",
    label="Coverage",
    plain_name="Share of the catalogue recommended",
    description="Share of the catalogue recommended to at least one user in their top K.",
    formula=r"\mathrm{Coverage@K} = \frac{|\bigcup_u L_u^K \cap C|}{|C|}",
    position=110,
    per_user=None,
    main=False,
    highest=1.0,
    needs="nothing",
    averaged=False,
    higher="recommends more of the catalogue",
)
