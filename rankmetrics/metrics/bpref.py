r"""bpref@K: how often the relevant items in the top K come before the judged non-relevant
ones, counting only judged items (Buckley and Voorhees, *Retrieval evaluation with
incomplete information*, SIGIR 2004), as trec_eval computes ``bpref``.

.. math:: \mathrm{bpref@K} = \frac{1}{|R|} \sum_{r \in R,\ \mathrm{rank}(r) \le K} t_r

.. math:: t_r = 1 - \frac{\min(|n \text{ above } r|,\ |R|)}{\min(|R|,\ |N|)}

R: the user's relevant items; N: the user's judged non-relevant items (ground-truth items
below the relevance threshold, a grade of 0 or more); "n above r": items of N ranked above r.
Unjudged items (no ground-truth row, or a grade below 0 such as trec_eval's -1) are skipped,
neither relevant nor not, which is what makes bpref stable when many are. At K = the
list's length it is trec_eval's ``bpref`` (which has no cutoff); at a smaller K, trec_eval's
``bpref`` of the list cut to its top K.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.conventions import Conventions
from rankmetrics.metrics._kernels import JudgedItems, UserBlock, nonrelevant_above, safe_divide
from rankmetrics.metrics._metric import Metric


def preferences(user: np.ndarray, relevant: np.ndarray, judged: np.ndarray,
                n_relevant: np.ndarray, n_judged: np.ndarray) -> np.ndarray:
    """Each entry's term of the sum (0 for one that is not relevant); entries sorted by user,
    then rank. An entry without a judgment (a grade below 0) is neither relevant nor judged
    non-relevant."""
    above = nonrelevant_above(user, judged & ~relevant)
    relevant_count = n_relevant[user]
    smaller = np.minimum(relevant_count, n_judged[user] - relevant_count)
    term = 1.0 - safe_divide(np.minimum(above, relevant_count), smaller)
    return np.where(relevant, np.where(above > 0, term, 1.0), 0.0)


def per_user(block: UserBlock, conventions: Conventions) -> np.ndarray:
    """The terms of the relevant items added up in rank order, over |R|."""
    terms = preferences(block.user, block.relevant, block.judged, block.n_relevant,
                        block.n_judged)
    return safe_divide(np.cumsum(block.at_ranks(terms), axis=1), block.n_relevant_column)


def summed(items: JudgedItems, conventions: Conventions) -> np.ndarray:
    """Each relevant item at rank r adds its term / |R| at every cutoff K > r."""
    terms = preferences(items.user, items.relevant, items.judged, items.n_relevant,
                        items.n_judged)
    return items.accumulated_per_relevant(items.hit_rank, terms[items.relevant],
                                          items.hit_n_relevant)


METRIC = Metric(
    name="bpref",
    label="bpref",
    plain_name="Relevant before judged non-relevant",
    description="For each relevant item in the top K, 1 minus the share of judged "
    "non-relevant items ranked above it (at most |R| of them, over min(|R|, |N|)), averaged "
    "over the relevant items; unjudged items are skipped (trec_eval's bpref).",
    formula=r"\mathrm{bpref@K} = \frac{1}{|R|} \sum_{r \in R,\ \mathrm{rank}(r) \le K} "
    r"\left(1 - \frac{\min(|n \text{ above } r|,\ |R|)}{\min(|R|,\ |N|)}\right)",
    position=82,
    per_user=per_user,
    summed=summed,
    main=False,
    highest=1.0,
)
