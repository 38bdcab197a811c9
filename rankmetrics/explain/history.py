r"""Why one user's serendipity or miscalibration is what it is, against the user's history.

:func:`explain_history` takes an evaluation computed with training interactions (and, for
miscalibration, item categories) and writes out one user's arithmetic at K. Serendipity, rank
by rank: whether the item is relevant, its mean similarity to the items the user has seen
(each similarity worked out from the training users who hold both items, or from the item
attributes), its unexpectedness and what it adds. Miscalibration, category by category: the
share of the history and of the top K in the category, the list's share smoothed toward the
history's, and the category's term of the divergence. The parts are computed here from their
definitions, one pair of items at a time, and add up to the value the evaluation gives.

>>> import pandas as pd
>>> from rankmetrics import evaluate
>>> from rankmetrics.io import interactions_from_dataframe
>>> train = pd.DataFrame({"user": ["u", "u", "v", "v"], "item": ["a", "b", "a", "c"]})
>>> truth = pd.DataFrame({"user": ["u"], "item": ["c"], "rating": [1]})
>>> run = pd.DataFrame({"user": ["u", "u"], "item": ["c", "d"], "score": [2, 1]})
>>> ev = evaluate(truth, {"m": run}, max_cutoff=2,
...               interactions=interactions_from_dataframe(train, name="train"))
>>> worked = explain_history(ev, "m", "u", "serendipity", cutoff=2)
>>> worked.ranked[["item", "relevant", "similarity", "unexpected", "part"]].round(4).values.tolist()
[['c', True, 0.3536, 0.6464, 0.6464], ['d', False, 0.0, 1.0, 0.0]]
>>> round(worked.value, 4)  # the parts over the 2 items listed
0.3232
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rankmetrics.beyond import ItemFacts
from rankmetrics.checks import check_choice, check_int, needed
from rankmetrics.explain.ndcg import TERMS_PER_LINE
from rankmetrics.explain.rows import four_decimals
from rankmetrics.metrics import ALL_METRICS, popularity_ranks

if TYPE_CHECKING:
    from rankmetrics.evaluation import Evaluation

#: The metrics :func:`explain_history` writes out.
HISTORY_METRICS = ("serendipity", "miscalibration")
#: Most relevant items' parts written as one fraction; more are written line by line.
SUMMED_IN_A_FRACTION = 6
#: Terms of p ln(p / smoothed) per line of the worked miscalibration.
DIVERGENCE_TERMS_PER_LINE = 3


@dataclass(frozen=True)
class HistoryArithmetic:
    """One user's serendipity or miscalibration at K, against the user's history.

    Attributes
    ----------
    metric : str
        ``serendipity`` or ``miscalibration``.
    model, user : str
    cutoff : int
        K.
    ranked : DataFrame
        The model's top K: ``rank``, ``item``, ``rating`` (NaN: no ground truth),
        ``relevant``; for serendipity also
        ``similarity`` (the item's mean similarity to the history's items; with
        unexpectedness by popularity, ``popularity_rank`` instead), ``unexpected`` (one minus
        it; by popularity 1 or 0), ``part`` (unexpected if relevant) and ``running`` (the
        parts so far); for miscalibration ``categories`` (the item's, joined by ", ").
    categories : DataFrame or None
        Miscalibration's categories of the history: ``category``, ``history`` (p, its share
        of the history), ``top_k`` (q, its share of the top K), ``smoothed``
        ((1 - alpha) q + alpha p) and ``term`` (p ln(p / smoothed)).
    history : list of str
        The items of the user's training history.
    value : float
        The metric as the evaluation computes it.
    listed : int
        The items in the top K (the list may be shorter than K).
    unexpectedness : str
        What made an item unexpected (:class:`~rankmetrics.beyond.BeyondOptions`).
    alpha : float
        Miscalibration's smoothing.
    """

    metric: str
    model: str
    user: str
    cutoff: int
    ranked: pd.DataFrame
    categories: pd.DataFrame | None
    history: list[str]
    value: float
    listed: int
    unexpectedness: str
    alpha: float

    def latex(self) -> list[str]:
        """The formula, then the same with the user's numbers, as LaTeX lines."""
        left = rf"\mathrm{{{ALL_METRICS[self.metric].label}@{self.cutoff}}}"
        if self.metric == "serendipity":
            if self.listed == 0:
                return [ALL_METRICS[self.metric].formula,
                        rf"{left} = 0 \quad \text{{(an empty list)}}"]
            parts = [four_decimals(part) for part in self.ranked.loc[self.ranked["relevant"],
                                                                      "part"]]
            if len(parts) <= SUMMED_IN_A_FRACTION:
                summed = " + ".join(parts) if parts else "0"
                return [ALL_METRICS[self.metric].formula,
                        rf"{left} = \frac{{{summed}}}{{{self.listed}}} = "
                        rf"{four_decimals(self.value)}"]
            return [ALL_METRICS[self.metric].formula,
                    _lines(rf"{left}", rf"\tfrac{{1}}{{{self.listed}}} \big(", parts,
                           r"\big)", TERMS_PER_LINE, self.value)]
        categories = needed(self.categories, "Miscalibration needs item categories.")
        terms = [rf"{four_decimals(p)} \ln \frac{{{four_decimals(p)}}}{{{four_decimals(q)}}}"
                 for p, q in zip(categories["history"].tolist(),
                                 categories["smoothed"].tolist(), strict=True)]
        if not terms:
            return [ALL_METRICS[self.metric].formula, rf"{left} = 0"]
        return [ALL_METRICS[self.metric].formula,
                _lines(left, "", terms, "", DIVERGENCE_TERMS_PER_LINE, self.value)]

    def words(self) -> str:
        """What the numbers of the table are, in one or two sentences with the user's own."""
        k, seen = self.cutoff, len(self.history)
        if self.metric == "serendipity":
            if self.unexpectedness == "popularity":
                return (f"An item is unexpected at K = {k} unless it is one of the {k} most "
                        "popular items, which a popularity model would recommend to "
                        "everyone. Each relevant unexpected item adds 1; the sum is divided "
                        f"by the {self.listed} items listed.")
            how = ("the training users who hold both items, over the square root of the "
                   "product of each item's users" if self.unexpectedness == "cooccurrence"
                   else "one minus the distance ILD uses on the item attributes")
            if seen == 0:
                return ("The user has no training history: every item is unexpected, and "
                        "each relevant item adds 1; the sum is divided by the "
                        f"{self.listed} items listed.")
            return (f"Similarity of two items: {how}. Each item's similarity here is its mean "
                    f"over the {seen} items the user has seen; unexpected is one minus it. "
                    "Each relevant item adds its unexpectedness; the sum is divided by the "
                    f"{self.listed} items listed.")
        if self.categories is None or self.categories.empty:
            return ("The user's history has no category: there is no mix to match, and "
                    "miscalibration is 0.")
        return (f"p: each category's share of the {seen} items the user has seen (an item "
                "shares itself equally among its categories); q: its share of the top "
                f"{k}; the smoothed share (1 − {self.alpha:g}) q + {self.alpha:g} p keeps a "
                "category the list misses from making the divergence infinite. Each category "
                "of the history adds p ln(p / smoothed share).")


def explain_history(evaluation: Evaluation, model: str, user: str, metric: str, *,
                    cutoff: int) -> HistoryArithmetic:
    """One user's serendipity or miscalibration at ``cutoff`` in an evaluation computed with
    the training interactions (see the module docstring)."""
    check_choice("metric", metric, HISTORY_METRICS)
    beyond = evaluation.beyond
    inputs = getattr(beyond, "inputs", None)
    if beyond is None or inputs is None or metric not in beyond.metrics:
        raise ValueError(f"{metric} needs an evaluation computed here with training "
                         "interactions" + (" and item categories" if metric == "miscalibration"
                                           else "") + ".")
    users = evaluation.users
    if user not in users:
        raise ValueError(f"User {user!r} is not in the ground truth.")
    check_int("cutoff", cutoff, low=1, high=evaluation.max_cutoff)
    at = users.tolist().index(user)
    facts = inputs.facts
    history = needed(facts.history, f"{metric} needs training interactions.")
    codes = inputs.lists[model][at, :cutoff]
    codes = codes[codes >= 0]
    ids = facts.ids.to_numpy(zero_copy_only=False)
    seen = history.items[history.indptr[at]:history.indptr[at + 1]]
    truth = evaluation.truth
    rows = truth.rows_by_user[truth.user_starts[at]:truth.user_starts[at + 1]]
    judged_items = truth.items[truth.item_index[rows]]
    ratings = pd.Series(truth.ratings[rows], index=judged_items)
    ratings = ratings[~ratings.index.duplicated()]
    relevant_items = set(judged_items[evaluation.truth_relevant[rows]])
    wanted = ratings.reindex(ids[codes]).to_numpy(dtype=np.float64)
    relevant = np.array([item in relevant_items for item in ids[codes]], dtype=bool)
    ranked = pd.DataFrame({"rank": np.arange(1, len(codes) + 1), "item": ids[codes],
                           "rating": wanted, "relevant": relevant})
    value = float(evaluation.per_user_at(model, metric, cutoff).get(
        user, math.nan))
    categories = None
    if metric == "serendipity":
        ranked = _serendipity_rows(ranked, codes, seen, facts, cutoff)
    else:
        ranked, categories = _calibration_rows(ranked, codes, seen, facts)
    return HistoryArithmetic(metric, model, user, cutoff, ranked, categories,
                             [str(item) for item in ids[seen]], value, len(codes),
                             facts.unexpectedness, facts.calibration_alpha)


def _lines(left: str, opening: str, terms: list[str], closing: str, per_line: int,
           value: float) -> str:
    """``left = opening terms closing = value`` as aligned LaTeX lines of ``per_line``
    terms each, so a long sum wraps instead of running off the page."""
    lines = [" + ".join(terms[i:i + per_line]) for i in range(0, len(terms), per_line)]
    body = r" \\[4pt] &\quad + ".join(lines)
    return (rf"\begin{{aligned}} {left} &= {opening}{body}{closing} \\[4pt] "
            rf"&= {four_decimals(value)} \end{{aligned}}")


def _serendipity_rows(ranked: pd.DataFrame, codes: np.ndarray, seen: np.ndarray,
                      facts: ItemFacts, cutoff: int) -> pd.DataFrame:
    mode = facts.unexpectedness
    if mode == "popularity":
        ranks = popularity_ranks(facts)[codes]
        unexpected = (ranks > cutoff).astype(np.float64)
        ranked = ranked.assign(popularity_rank=np.where(
            ranks <= len(facts.in_catalogue), ranks, 0))
    else:
        similar = [_mean_similarity(int(code), seen, facts) for code in codes]
        ranked = ranked.assign(similarity=np.array(similar, dtype=np.float64))
        unexpected = 1.0 - ranked["similarity"].to_numpy() if len(seen) else np.ones(len(codes))
    part = np.where(ranked["relevant"], unexpected, 0.0)
    return ranked.assign(unexpected=unexpected, part=part, running=np.cumsum(part))


def _mean_similarity(item: int, seen: np.ndarray, facts: ItemFacts) -> float:
    """The item's similarity to each history item, one pair at a time, averaged."""
    if len(seen) == 0:
        return 0.0
    return float(np.mean([_similarity(item, int(other), facts) for other in seen]))


def _similarity(one: int, other: int, facts: ItemFacts) -> float:
    """Two items' similarity from its definition (see BeyondOptions.unexpectedness)."""
    if facts.unexpectedness == "cooccurrence":
        history = needed(facts.history, "Co-occurrence similarity needs training interactions.")
        holders_one = set(history.pairs_user[history.pairs_item == one].tolist())
        holders_other = set(history.pairs_user[history.pairs_item == other].tolist())
        if not holders_one or not holders_other:
            return 0.0
        return len(holders_one & holders_other) / math.sqrt(len(holders_one)
                                                            * len(holders_other))
    traits = needed(facts.attributes, "Similarity by item attributes needs item attributes.")
    if traits.distance == "cosine":
        unit = needed(traits.unit_features, "Cosine distance needs numeric item features.")
        return float(unit[one] @ unit[other])
    if traits.distance == "hamming":
        binary = needed(traits.binary_features, "Hamming distance needs binary item features.")
        return 1.0 - float(np.abs(binary[one] - binary[other]).sum()) / max(binary.shape[1], 1)
    category_bits = needed(traits.category_bits, "Jaccard similarity needs item categories.")
    bits_one, bits_other = category_bits[one], category_bits[other]
    union = int(np.bitwise_count(bits_one | bits_other).sum())
    if union == 0:
        return 1.0  # two items without categories are alike, as ILD has it
    return int(np.bitwise_count(bits_one & bits_other).sum()) / union


def _category_names(facts: ItemFacts) -> list[str]:
    traits = facts.attributes
    return list(traits.category_names) if traits is not None else []


def _item_categories(code: int, facts: ItemFacts, names: list[str]) -> list[str]:
    traits = needed(facts.attributes, "Item categories need item attributes.")
    bits = needed(traits.category_bits, "The item attributes have no categories.")[code]
    held = np.unpackbits(bits.astype("<u8").view(np.uint8), bitorder="little")
    return [names[c] for c in np.flatnonzero(held) if c < len(names)]


def _calibration_rows(ranked: pd.DataFrame, codes: np.ndarray, seen: np.ndarray,
                      facts: ItemFacts) -> tuple[pd.DataFrame, pd.DataFrame]:
    names = _category_names(facts)
    alpha = facts.calibration_alpha

    def mix(items: np.ndarray) -> dict[str, float]:
        shares: dict[str, float] = {}
        counted = 0
        for code in items:
            held = _item_categories(int(code), facts, names)
            if held:
                counted += 1
                for name in held:
                    shares[name] = shares.get(name, 0.0) + 1.0 / len(held)
        return {name: share / counted for name, share in shares.items()} if counted else {}

    p, q = mix(seen), mix(codes)
    rows = []
    for name in sorted(p, key=lambda c: (-p[c], c)):
        smoothed = (1 - alpha) * q.get(name, 0.0) + alpha * p[name]
        rows.append((name, p[name], q.get(name, 0.0), smoothed,
                     p[name] * math.log(p[name] / smoothed)))
    table = pd.DataFrame(rows, columns=["category", "history", "top_k", "smoothed", "term"])
    listed = ranked.assign(categories=[", ".join(_item_categories(int(code), facts, names))
                                       for code in codes])
    return listed, table
