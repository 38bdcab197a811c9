r"""Serendipity@K: the relevant and unexpected items of a user's top K, per item listed.

.. math:: \mathrm{Ser@K} = \frac{1}{|L_u^K|} \sum_{i \in L_u^K} \mathrm{rel}(u, i)\,
   \Bigl(1 - \frac{1}{|H_u|} \sum_{h \in H_u} \mathrm{sim}(i, h)\Bigr)

with H_u the user's training history and sim the cosine similarity of two items' training
users (Microsoft Recommenders' ``user_serendipity`` with ``item_cooccurrence_count``), or
one minus ILD's distance on the item attributes; as an option, the unexpected items are those
a popularity model would not recommend (Ge et al., 2010; see
:class:`~rankmetrics.beyond.BeyondOptions`). Computed per user at every cutoff at once.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._history_kernels import serendipity
from rankmetrics.metrics._kernels import UserBlock
from rankmetrics.metrics._metric import Metric


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """Each user's serendipity at every cutoff."""
    return serendipity(block)


METRIC = Metric(
    name="serendipity",
    label="Serendipity",
    plain_name="Relevant and unexpected",
    description="Relevant items of the top K weighted by how unexpected they are for the "
    "user: one minus their mean similarity to the user's training history (similarity of "
    "two items: cosine on the training users who hold them, as Microsoft Recommenders "
    "computes it), averaged over the items listed.",
    formula=r"\mathrm{Ser@K} = \frac{1}{|L_u^K|} \sum_{i \in L_u^K} \mathrm{rel}(u, i)\,"
    r"\Bigl(1 - \frac{1}{|H_u|} \sum_{h \in H_u} \mathrm{sim}(i, h)\Bigr)",
    position=185,
    per_user=per_user,
    main=False,
    highest=1.0,
    needs="interactions",
    higher="recommends more relevant items unlike what each user has seen",
)
