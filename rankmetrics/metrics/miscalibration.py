r"""Miscalibration@K: how far the category mix of a user's top K is from the mix of the
user's training history (Steck, 2018).

.. math:: \mathrm{MisCal@K} = \sum_c p_c \ln \frac{p_c}{(1 - \alpha)\, q_c + \alpha\, p_c}

with p the history's category shares and q the top K's (each item shares itself equally among
its categories; items without categories are left out), alpha the smoothing (0.01 by default;
:class:`~rankmetrics.beyond.BeyondOptions`), in nats. 0 is a list that mirrors the history;
a user whose history has no category has 0. Computed per user at every cutoff at once.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._history_kernels import miscalibration
from rankmetrics.metrics._kernels import UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """Each user's miscalibration at every cutoff."""
    return miscalibration(block)


METRIC = Metric(
    name="miscalibration",
    label="Miscalibration",
    plain_name="Mismatch with each user's taste mix",
    description="Steck's KL divergence (in nats) of the top K's mix of categories from the "
    "mix of the user's training history, with the list's shares smoothed by alpha = 0.01 "
    "toward the history's: 0 when the list mirrors the history's categories.",
    formula=r"\mathrm{MisCal@K} = \sum_c p_c \ln \frac{p_c}{(1 - \alpha)\, q_c + \alpha\, p_c}",
    position=207,
    per_user=per_user,
    main=False,
    highest=None,
    needs="interactions and attributes",
    higher="recommends lists whose categories stray further from each user's history",
    decimals=4,
)
