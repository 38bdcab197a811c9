"""Why one user's NDCG is what it is: the ranked list, the ideal list and the arithmetic
between them; the same under each gain and ideal list (:func:`compare_conventions`); and what
a discount slipped at one rank would make of it (:func:`slipped_discount`).

:func:`explain_ndcg` rebuilds, for one user, every number NDCG@K is made of: each ranked item's
rating, grade, gain, discount ``1 / log2(rank + 1)``, contribution and running DCG; the ideal
list and IDCG; and the formula written out with the user's numbers. Items are ordered exactly
as :class:`rankmetrics.RankedRun` orders them (score descending, then the tie rule), so
the result equals ``evaluate(...).per_user_at(model, "ndcg", K)`` for that user.

>>> truth = pd.DataFrame({"user": ["u"] * 5, "item": list("ACXYZ"), "rating": [1] * 5})
>>> run = pd.DataFrame({"user": ["u"] * 5, "item": list("ABCDE"), "score": [5, 4, 3, 2, 1]})
>>> b = explain_ndcg(truth, run, "u", cutoff=5)
>>> round(b.dcg, 4), round(b.idcg, 4), round(b.ndcg, 4)
(1.5, 2.9485, 0.5087)
>>> retrieved = explain_ndcg(truth, run, "u", cutoff=5,
...                          conventions=Conventions.preset("retrieved_ideal"))
>>> round(retrieved.ndcg, 4)
0.9197
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import product

import numpy as np
import pandas as pd

from rankmetrics.checks import check_int
from rankmetrics.conventions import GAINS, IDEALS, Conventions
from rankmetrics.explain.rows import (
    counted_ratings,
    formula_number,
    four_decimals,
    ranked_list,
    user_ratings,
)
from rankmetrics.metrics import discounts, judge
from rankmetrics.relevance import RelevanceMapping

RANKED_COLUMNS = (
    "rank", "item", "rating", "grade", "gain_linear", "gain_exponential", "gain", "discount",
    "contribution", "running_dcg",
)
IDEAL_COLUMNS = (
    "rank", "item", "rating", "grade", "gain_linear", "gain_exponential", "gain", "discount",
    "contribution", "running_idcg",
)
# Up to this cutoff the written-out formula shows every rank, zero terms included.
ALL_TERMS_UP_TO = 10
TERMS_PER_LINE = 5


@dataclass(frozen=True)
class NdcgBreakdown:
    """Every number behind one user's NDCG@K.

    Attributes
    ----------
    user : str
    cutoff : int
        K.
    conventions : Conventions
        Gain, ideal list, threshold on gains and tie rule used.
    relevance : RelevanceMapping
        How ratings became grades.
    ranked : DataFrame
        The model's top K: ``rank`` (1-based), ``item``, ``rating`` (NaN when the item has no
        ground truth), ``grade``, ``gain_linear`` (g) and ``gain_exponential`` (2^g - 1),
        ``gain`` (the one the conventions use), ``discount`` (the multiplier
        1 / log2(rank + 1)), ``contribution`` (gain x discount) and ``running_dcg``.
    ideal : DataFrame
        The ideal list's items with a positive gain, best first, cut at K: the same columns
        with ``running_idcg`` (items without gain add nothing and are left out).
    dcg, idcg, ndcg : float
        ``ndcg = dcg / idcg``, 0 when ``idcg`` is 0.
    list_length : int
        How many items the model ranked for the user in all (0: no list).
    n_relevant : int
        The user's relevant ground-truth items (grade >= the relevance threshold).
    """

    user: str
    cutoff: int
    conventions: Conventions
    relevance: RelevanceMapping
    ranked: pd.DataFrame
    ideal: pd.DataFrame
    dcg: float
    idcg: float
    ndcg: float
    list_length: int
    n_relevant: int

    def latex(self) -> list[str]:
        """The formula with this user's numbers, as LaTeX lines (for ``st.latex``).

        The first line is the general formula under the active gain, then DCG@K, IDCG@K and
        NDCG@K with every term written out (only the terms with a gain when K is large).
        """
        k = self.cutoff
        gain = r"2^{g_i} - 1" if self.conventions.gain == "exponential" else r"g_i"
        clipped = self.conventions.discount == "clipped"
        log = r"\log_2 \max(i, 2)" if clipped else r"\log_2(i+1)"
        general = (
            rf"\mathrm{{NDCG@{k}}} = \frac{{\mathrm{{DCG@{k}}}}}{{\mathrm{{IDCG@{k}}}}},"
            rf"\qquad \mathrm{{DCG@{k}}} = \sum_{{i=1}}^{{{k}}} \frac{{{gain}}}{{{log}}}"
        )
        return [
            general,
            _sum_line(rf"\mathrm{{DCG@{k}}}", self.ranked, self.dcg, k, clipped),
            _sum_line(rf"\mathrm{{IDCG@{k}}}", self.ideal, self.idcg, k, clipped),
            rf"\mathrm{{NDCG@{k}}} = \frac{{{four_decimals(self.dcg)}}}"
            rf"{{{four_decimals(self.idcg)}}} = {four_decimals(self.ndcg)}"
            if self.idcg > 0
            else rf"\mathrm{{NDCG@{k}}} = 0 \quad \text{{(IDCG is 0: nothing to find)}}",
        ]


@dataclass(frozen=True)
class DiscountSlip:
    """What NDCG becomes when the discount at one rank is taken as 1 / log2(rank) instead of
    1 / log2(rank + 1), with the same IDCG: a common slip in hand-worked examples."""

    rank: int
    correct_discount: float
    slipped_discount: float
    dcg: float
    ndcg: float


def explain_ndcg(
    truth: pd.DataFrame,
    run: pd.DataFrame,
    user: str,
    *,
    cutoff: int,
    relevance: RelevanceMapping | None = None,
    conventions: Conventions | None = None,
) -> NdcgBreakdown:
    """Break one user's NDCG@K down into ranks, gains, discounts and the ideal list.

    Parameters
    ----------
    truth : DataFrame
        Ground truth with columns ``user``, ``item``, ``rating`` (other users' rows are
        ignored, so the whole table or only this user's rows will do).
    run : DataFrame
        One model's output with columns ``user``, ``item``, ``score`` (higher is better).
    user : str
    cutoff : int
        K, at least 1.
    relevance : RelevanceMapping, default identity with threshold 1
    conventions : Conventions, default ``Conventions()``

    Returns
    -------
    NdcgBreakdown
    """
    relevance = relevance or RelevanceMapping.identity(1)
    conventions = conventions or Conventions()
    cutoff = check_int("cutoff", cutoff)
    ratings = user_ratings(truth, user)
    ranked_items = ranked_list(run, user, conventions.ties,
                               conventions.identical_ids)
    ratings = counted_ratings(ratings, ranked_items, conventions)

    # Discounts only as far as a list can reach, however large the cutoff.
    disc = discounts(min(cutoff, max(len(ranked_items), len(ratings))), conventions.discount)
    top = ranked_items[:cutoff]
    top_ratings = ratings.reindex(top).to_numpy(dtype=np.float64)
    top_judged = judge(top_ratings, relevance, conventions)
    ranked = _rows(top, top_ratings, top_judged.grades, top_judged.gains, disc, "running_dcg",
                   _gains_by_rule(top_ratings, relevance, conventions))

    all_judged = judge(ratings.to_numpy(), relevance, conventions)
    n_relevant = int(np.count_nonzero(all_judged.relevant))
    if conventions.ideal == "retrieved":
        pool_items, pool_ratings, pool = top, top_ratings, top_judged
    else:
        pool_items, pool_ratings, pool = ratings.index.to_numpy(), ratings.to_numpy(), all_judged
    pool_grades, pool_gains = pool.grades, pool.gains
    positive = pool_gains > 0
    best = np.lexsort((pool_items[positive].astype(str), -pool_gains[positive]))[:cutoff]
    ideal_ratings = pool_ratings[positive][best]
    ideal = _rows(
        pool_items[positive][best], ideal_ratings,
        pool_grades[positive][best], pool_gains[positive][best], disc, "running_idcg",
        _gains_by_rule(ideal_ratings, relevance, conventions),
    )
    dcg = float(ranked["contribution"].sum())
    idcg = float(ideal["contribution"].sum())
    return NdcgBreakdown(
        user=str(user),
        cutoff=cutoff,
        conventions=conventions,
        relevance=relevance,
        ranked=ranked,
        ideal=ideal,
        dcg=dcg,
        idcg=idcg,
        ndcg=dcg / idcg if idcg > 0 else 0.0,
        list_length=len(ranked_items),
        n_relevant=n_relevant,
    )


def compare_conventions(
    truth: pd.DataFrame,
    run: pd.DataFrame,
    user: str,
    *,
    cutoff: int,
    relevance: RelevanceMapping | None = None,
    conventions: Conventions | None = None,
) -> pd.DataFrame:
    """The user's NDCG@K under each gain and each ideal list, the other options unchanged.

    Returns a table with columns ``gain``, ``ideal``, ``dcg``, ``idcg``, ``ndcg`` and
    ``active`` (True on the row of the given conventions).

    >>> truth = pd.DataFrame({"user": ["u"] * 5, "item": list("ACXYZ"), "rating": [1] * 5})
    >>> run = pd.DataFrame({"user": ["u"] * 5, "item": list("ABEDC"), "score": [5, 4, 3, 2, 1]})
    >>> table = compare_conventions(truth, run, "u", cutoff=5)
    >>> table.set_index(["gain", "ideal"])["ndcg"].round(4).tolist()
    [0.4704, 0.8503, 0.4704, 0.8503]
    """
    conventions = conventions or Conventions()
    mine = run.loc[run["user"] == user]
    theirs = truth.loc[truth["user"] == user]
    rows = []
    for gain, ideal in product(GAINS, IDEALS):
        variant = replace(conventions, gain=gain, ideal=ideal)
        breakdown = explain_ndcg(theirs, mine, user, cutoff=cutoff, relevance=relevance,
                                 conventions=variant)
        rows.append({
            "gain": gain, "ideal": ideal, "dcg": breakdown.dcg, "idcg": breakdown.idcg,
            "ndcg": breakdown.ndcg, "active": variant == conventions,
        })
    return pd.DataFrame(rows)


def slipped_discount(breakdown: NdcgBreakdown, rank: int) -> DiscountSlip:
    """NDCG if the discount at ``rank`` were 1 / log2(rank) instead of 1 / log2(rank + 1).

    Reproduces hand-worked figures that used the wrong logarithm at one position, keeping
    their IDCG. ``rank`` must be 2..K (1 / log2(1) is undefined).

    >>> truth = pd.DataFrame({"user": ["u"] * 5, "item": list("ACXYZ"), "rating": [1] * 5})
    >>> run = pd.DataFrame({"user": ["u"] * 5, "item": list("ABEDC"), "score": [5, 4, 3, 2, 1]})
    >>> b = explain_ndcg(truth, run, "u", cutoff=5,
    ...                  conventions=Conventions.preset("retrieved_ideal"))
    >>> round(b.ndcg, 4), round(slipped_discount(b, 5).ndcg, 4)
    (0.8503, 0.8772)
    """
    rank = check_int("rank", rank, low=2, high=breakdown.cutoff)
    correct = 1.0 / math.log2(rank + 1)
    slipped = 1.0 / math.log2(rank)
    at_rank = breakdown.ranked.loc[breakdown.ranked["rank"] == rank, "gain"]
    gain = float(at_rank.iloc[0]) if len(at_rank) else 0.0
    dcg = breakdown.dcg + gain * (slipped - correct)
    ndcg = dcg / breakdown.idcg if breakdown.idcg > 0 else 0.0
    return DiscountSlip(rank, correct, slipped, dcg, ndcg)


def _gains_by_rule(ratings: np.ndarray, relevance: RelevanceMapping,
                   conventions: Conventions) -> dict[str, np.ndarray]:
    """The gain of each rating under each gain rule (the other conventions unchanged)."""
    return {gain: judge(ratings, relevance, replace(conventions, gain=gain)).gains
            for gain in GAINS}


def _rows(
    items: np.ndarray,
    ratings: np.ndarray,
    grades: np.ndarray,
    gains: np.ndarray,
    disc: np.ndarray,
    running: str,
    by_rule: dict[str, np.ndarray],
) -> pd.DataFrame:
    n = len(items)
    contribution = gains * disc[:n]
    return pd.DataFrame({
        "rank": np.arange(1, n + 1),
        "item": pd.Series(items, dtype="str"),
        "rating": ratings,
        "grade": grades,
        "gain_linear": by_rule["linear"],
        "gain_exponential": by_rule["exponential"],
        "gain": gains,
        "discount": disc[:n],
        "contribution": contribution,
        running: np.cumsum(contribution),
    })


def _sum_line(name: str, rows: pd.DataFrame, total: float, cutoff: int,
              clipped: bool = False) -> str:
    if cutoff > ALL_TERMS_UP_TO:
        rows = rows[rows["gain"] > 0]
    terms = [
        rf"\frac{{{formula_number(gain)}}}{{\log_2 {max(rank, 2) if clipped else rank + 1}}}"
        for rank, gain in zip(rows["rank"], rows["gain"], strict=True)
    ]
    if not terms:
        return rf"{name} = 0"
    lines = [" + ".join(terms[i:i + TERMS_PER_LINE])
             for i in range(0, len(terms), TERMS_PER_LINE)]
    body = r" \\ &\quad + ".join(lines)
    note = r" \quad \text{(ranks without gain add 0)}" if cutoff > ALL_TERMS_UP_TO else ""
    return rf"\begin{{aligned}} {name} &= {body}{note} \\ &= {four_decimals(total)} \end{{aligned}}"
