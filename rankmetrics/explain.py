"""Why one user's metric is what it is: the ranked list and the arithmetic of NDCG (with the
ideal list) and of Precision, Recall, HitRate, RR and AP; and two models' lists for one user
side by side.

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

:func:`explain_metric` does the same for the binary metrics: the hits in the top K, the
precision at each hit and the named denominator, with the value taken from
:func:`rankmetrics.evaluate` on the user's rows.

>>> ap = explain_metric(truth, run, "u", "map", cutoff=5)
>>> ap.hit_ranks, round(ap.numerator, 4), ap.denominator, round(ap.value, 4)
((1, 3), 1.6667, 5.0, 0.3333)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import product

import numpy as np
import pandas as pd

from rankmetrics.checks import check_choice, check_int
from rankmetrics.conventions import AP_DENOMINATORS, GAINS, IDEALS, Conventions
from rankmetrics.metrics import METRICS, discounts, judge
from rankmetrics.ranked_run import rank_order
from rankmetrics.relevance import RelevanceMapping

RANKED_COLUMNS = (
    "rank", "item", "rating", "grade", "gain_linear", "gain_exponential", "gain", "discount",
    "contribution", "running_dcg",
)
IDEAL_COLUMNS = (
    "rank", "item", "rating", "grade", "gain_linear", "gain_exponential", "gain", "discount",
    "contribution", "running_idcg",
)
HIT_COLUMNS = ("rank", "item", "rating", "grade", "relevant", "hits", "precision")
#: The metrics :func:`explain_metric` writes out (NDCG and DCG: :func:`explain_ndcg`).
BINARY_METRICS = ("precision", "recall", "hit_rate", "mrr", "map")
#: Their names for one user, as the registry's formulas write them (MRR and MAP are means).
SHORT_NAMES = {"precision": "P", "recall": "R", "hit_rate": "HR", "mrr": "RR", "map": "AP"}
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
        general = (
            rf"\mathrm{{NDCG@{k}}} = \frac{{\mathrm{{DCG@{k}}}}}{{\mathrm{{IDCG@{k}}}}},"
            rf"\qquad \mathrm{{DCG@{k}}} = \sum_{{i=1}}^{{{k}}} \frac{{{gain}}}{{\log_2(i+1)}}"
        )
        return [
            general,
            _sum_line(rf"\mathrm{{DCG@{k}}}", self.ranked, self.dcg, k),
            _sum_line(rf"\mathrm{{IDCG@{k}}}", self.ideal, self.idcg, k),
            rf"\mathrm{{NDCG@{k}}} = \frac{{{_fixed(self.dcg)}}}{{{_fixed(self.idcg)}}}"
            rf" = {_fixed(self.ndcg)}"
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
    ratings = _user_ratings(truth, user)
    ranked_items = _ranked_items(run, user, conventions.ties)

    # Discounts only as far as a list can reach, however large the cutoff.
    disc = discounts(min(cutoff, max(len(ranked_items), len(ratings))))
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


@dataclass(frozen=True)
class SideBySide:
    """Two models' top-K lists for one user, rank by rank, and the user's ground truth.

    Attributes
    ----------
    user : str
    cutoff : int
        K.
    lists : DataFrame
        One row per rank 1..K (fewer when both lists are shorter): ``rank``, then for each
        model (suffix ``_a`` or ``_b``) the ``item`` at that rank, its ``rating`` (NaN: no
        ground truth) and ``hit`` (the item is relevant under the relevance mapping);
        item None and hit False where that model's list has ended.
    truth : DataFrame
        The user's ground-truth items, highest grade first (then rating, then item id):
        ``item``, ``rating``, ``grade``, ``relevant``, and ``rank_a`` / ``rank_b``, the
        item's rank in each model's whole list (missing when the model did not rank it).
    """

    user: str
    cutoff: int
    lists: pd.DataFrame
    truth: pd.DataFrame


def side_by_side(
    truth: pd.DataFrame,
    run_a: pd.DataFrame,
    run_b: pd.DataFrame,
    user: str,
    *,
    cutoff: int,
    relevance: RelevanceMapping | None = None,
    conventions: Conventions | None = None,
) -> SideBySide:
    """One user's top K from two models next to each other, hits marked, and where each
    model ranked the user's ground-truth items.

    Items are ordered as :func:`explain_ndcg` and the metrics order them (score descending,
    then the tie rule of ``conventions``). Tables as for :func:`explain_ndcg`.

    >>> truth = pd.DataFrame({"user": ["u"] * 2, "item": ["A", "C"], "rating": [1, 1]})
    >>> run_a = pd.DataFrame({"user": ["u"] * 3, "item": list("ABC"), "score": [3, 2, 1]})
    >>> run_b = pd.DataFrame({"user": ["u"] * 2, "item": list("CD"), "score": [2, 1]})
    >>> both = side_by_side(truth, run_a, run_b, "u", cutoff=3)
    >>> both.lists[["item_a", "hit_a", "item_b", "hit_b"]].values.tolist()
    [['A', True, 'C', True], ['B', False, 'D', False], ['C', True, None, False]]
    >>> both.truth[["item", "rank_a", "rank_b"]].values.tolist()
    [['A', 1, <NA>], ['C', 3, 1]]
    """
    relevance = relevance or RelevanceMapping.identity(1)
    conventions = conventions or Conventions()
    cutoff = check_int("cutoff", cutoff)
    ratings = _user_ratings(truth, user)
    judged = judge(ratings.to_numpy(), relevance, conventions)
    grades = judged.grades
    relevant = pd.Series(judged.relevant, index=ratings.index)
    ranked = {side: _ranked_items(run, user, conventions.ties)
              for side, run in (("a", run_a), ("b", run_b))}
    length = max(min(len(items), cutoff) for items in ranked.values())
    # Position -1 (an item without ground truth, or past the end of a list) reads the
    # appended "no rating, not relevant".
    rating_of = np.append(ratings.to_numpy(), np.nan)
    relevant_of = np.append(relevant.to_numpy(dtype=bool), False)
    lists = pd.DataFrame({"rank": np.arange(1, length + 1)})
    for side, items in ranked.items():
        top = [str(item) for item in items[:length]]
        rating_row = np.full(length, -1, dtype=np.int64)
        rating_row[:len(top)] = ratings.index.get_indexer(pd.Index(items[:length]))
        lists[f"item_{side}"] = pd.Series(top + [None] * (length - len(top)), dtype="object")
        lists[f"rating_{side}"] = rating_of[rating_row]
        lists[f"hit_{side}"] = relevant_of[rating_row]
    table = pd.DataFrame({
        "item": pd.Series(ratings.index, dtype="str"),
        "rating": ratings.to_numpy(),
        "grade": grades,
        "relevant": relevant.to_numpy(),
    })
    for side, items in ranked.items():
        position = pd.Series(np.arange(1, len(items) + 1), index=pd.Index(items).astype(str))
        position = position[~position.index.duplicated()]
        table[f"rank_{side}"] = pd.array(position.reindex(table["item"]).to_numpy(),
                                         dtype="Int64")
    order = np.lexsort((table["item"].to_numpy(), -table["rating"].to_numpy(),
                        -table["grade"].to_numpy()))
    return SideBySide(str(user), cutoff, lists, table.iloc[order].reset_index(drop=True))


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


@dataclass(frozen=True)
class MetricArithmetic:
    """The arithmetic of one binary metric at K for one user: Precision, Recall, HitRate, RR
    (reciprocal rank; MRR is its mean) or AP (MAP is its mean).

    Attributes
    ----------
    metric : str
        ``precision``, ``recall``, ``hit_rate``, ``mrr`` or ``map``.
    user : str
    cutoff : int
        K.
    conventions : Conventions
    relevance : RelevanceMapping
    ranked : DataFrame
        The model's top K: ``rank``, ``item``, ``rating`` (NaN: no ground truth), ``grade``,
        ``relevant``, ``hits`` (relevant items at this rank or above) and ``precision``
        (hits / rank, the precision at this rank).
    hit_ranks : tuple of int
        The ranks of the relevant items in the top K.
    n_relevant : int
        |R|, the user's relevant ground-truth items.
    numerator, denominator : float
        The value written as a fraction: hits / K (Precision), hits / |R| (Recall),
        1 / 1 or 0 / 1 (HitRate), 1 / rank of the first hit (RR; 0 / 1 without a hit), the
        sum of the precisions at the hits / the AP denominator (AP).
    value : float
        The metric as :func:`rankmetrics.evaluate` computes it on the user's rows (equal to
        ``numerator / denominator``, 0 when the denominator is 0).
    list_length : int
        How many items the model ranked for the user in all.
    """

    metric: str
    user: str
    cutoff: int
    conventions: Conventions
    relevance: RelevanceMapping
    ranked: pd.DataFrame
    hit_ranks: tuple[int, ...]
    n_relevant: int
    numerator: float
    denominator: float
    value: float
    list_length: int

    def denominator_words(self) -> str:
        """What the fraction divides by, in words with the user's number."""
        k, r, hits = self.cutoff, self.n_relevant, len(self.hit_ranks)
        if self.metric == "precision":
            return f"K = {k}"
        if self.metric == "recall":
            return f"|R| = {r} relevant items"
        if self.metric != "map":
            return ""
        return {
            "relevant": f"|R| = {r} relevant items (trec_eval)",
            "min_k_relevant": f"min(K, |R|) = min({k}, {r}) = {min(k, r)}",
            "hits": f"the {hits} hits in the top {k}",
        }[self.conventions.ap_denominator]

    def latex(self) -> list[str]:
        """The formula, then the same with the user's numbers, as LaTeX lines."""
        return [self._general(), self._with_numbers()]

    def _general(self) -> str:
        if self.metric != "map":
            return METRICS[self.metric].formula
        d = {"relevant": "|R|", "min_k_relevant": r"\min(K, |R|)",
             "hits": r"\text{hits in top } K"}[self.conventions.ap_denominator]
        return (rf"\mathrm{{AP@K}} = \frac{{1}}{{{d}}}"
                r"\sum_{k \le K} \mathrm{P@k}\,\mathrm{rel}(k)")

    def _with_numbers(self) -> str:
        k = self.cutoff
        left = rf"\mathrm{{{SHORT_NAMES[self.metric]}@{k}}}"
        hits = len(self.hit_ranks)
        none = rf"0 \quad \text{{(no relevant item in the top {k})}}"
        if self.metric in ("precision", "recall"):
            if self.denominator == 0:
                return rf"{left} = 0 \quad \text{{(the user has no relevant item)}}"
            return (rf"{left} = \frac{{{hits}}}{{{_num(self.denominator)}}}"
                    rf" = {_fixed(self.value)}")
        if not hits:
            return rf"{left} = {none}"
        first = self.hit_ranks[0]
        if self.metric == "hit_rate":
            return rf"{left} = 1 \quad \text{{(first relevant item at rank {first} }} \le {k})"
        if self.metric == "mrr":
            return rf"{left} = \frac{{1}}{{{first}}} = {_fixed(self.value)}"
        terms = " + ".join(rf"\frac{{{n}}}{{{rank}}}"
                           for n, rank in enumerate(self.hit_ranks, start=1))
        return (rf"{left} = \frac{{{terms}}}{{{_num(self.denominator)}}} = "
                rf"\frac{{{_fixed(self.numerator)}}}{{{_num(self.denominator)}}}"
                rf" = {_fixed(self.value)}")


def explain_metric(
    truth: pd.DataFrame,
    run: pd.DataFrame,
    user: str,
    metric: str,
    *,
    cutoff: int,
    relevance: RelevanceMapping | None = None,
    conventions: Conventions | None = None,
) -> MetricArithmetic:
    r"""Write one user's Precision, Recall, HitRate, RR or AP at K out as arithmetic.

    Items are ranked as :func:`explain_ndcg` ranks them; the value comes from
    :func:`rankmetrics.evaluate` on the user's rows (the user always counted), so the
    arithmetic is checked against the library, not a second implementation of it.
    Tables as for :func:`explain_ndcg`; the user must have ground-truth rows.

    >>> truth = pd.DataFrame({"user": ["u"] * 5, "item": list("ACXYZ"), "rating": [1] * 5})
    >>> run = pd.DataFrame({"user": ["u"] * 5, "item": list("ABCDE"), "score": [5, 4, 3, 2, 1]})
    >>> p = explain_metric(truth, run, "u", "precision", cutoff=5)
    >>> p.numerator, p.denominator, p.value
    (2.0, 5.0, 0.4)
    >>> print(explain_metric(truth, run, "u", "mrr", cutoff=5).latex()[1])
    \mathrm{RR@5} = \frac{1}{1} = 1.0000
    """
    check_choice("metric", metric, BINARY_METRICS)
    relevance = relevance or RelevanceMapping.identity(1)
    conventions = conventions or Conventions()
    cutoff = check_int("cutoff", cutoff)
    ratings = _user_ratings(truth, user)
    if ratings.empty:
        raise ValueError(f"User {user!r} has no ground-truth rows: nothing to explain.")
    ranked_items = _ranked_items(run, user, conventions.ties)
    top = ranked_items[:cutoff]
    top_ratings = ratings.reindex(top).to_numpy(dtype=np.float64)
    judged = judge(top_ratings, relevance, conventions)
    hits = np.cumsum(judged.relevant)
    ranks = np.arange(1, len(top) + 1)
    ranked = pd.DataFrame({
        "rank": ranks, "item": pd.Series(top, dtype="str"), "rating": top_ratings,
        "grade": judged.grades, "relevant": judged.relevant, "hits": hits,
        "precision": hits / np.maximum(ranks, 1),
    })
    hit_ranks = tuple(int(r) for r in ranks[judged.relevant])
    n_relevant = int(np.count_nonzero(judge(ratings.to_numpy(), relevance,
                                            conventions).relevant))
    numerator, denominator = _fraction(metric, ranked, hit_ranks, n_relevant, cutoff,
                                       conventions.ap_denominator)
    return MetricArithmetic(
        metric=metric, user=str(user), cutoff=cutoff, conventions=conventions,
        relevance=relevance, ranked=ranked, hit_ranks=hit_ranks, n_relevant=n_relevant,
        numerator=numerator, denominator=denominator,
        value=_evaluated(truth, run, user, metric, cutoff, relevance, conventions),
        list_length=len(ranked_items),
    )


def metric_variants(
    truth: pd.DataFrame,
    run: pd.DataFrame,
    user: str,
    metric: str,
    *,
    cutoff: int,
    relevance: RelevanceMapping | None = None,
    conventions: Conventions | None = None,
) -> pd.DataFrame:
    """The user's binary metric at K under each choice that can change it: the relevance
    threshold (over the user's own grades, or ratings for a binary mapping) and, for AP, the
    denominator.

    Returns ``option, choice, value, active`` (``active``: the given relevance and
    conventions).

    >>> truth = pd.DataFrame({"user": ["u"] * 3, "item": list("ABZ"), "rating": [2, 1, 1]})
    >>> run = pd.DataFrame({"user": ["u"] * 3, "item": list("CAB"), "score": [3, 2, 1]})
    >>> table = metric_variants(truth, run, "u", "map", cutoff=3)
    >>> rows = table[["option", "choice", "value"]].round(4).values.tolist()
    >>> rows  # doctest: +NORMALIZE_WHITESPACE
    [['relevant if', 'grade ≥ 1', 0.3889], ['relevant if', 'grade ≥ 2', 0.5],
     ['AP denominator', 'relevant', 0.3889], ['AP denominator', 'min_k_relevant', 0.3889],
     ['AP denominator', 'hits', 0.5833]]
    """
    check_choice("metric", metric, BINARY_METRICS)
    relevance = relevance or RelevanceMapping.identity(1)
    conventions = conventions or Conventions()
    rows = []
    for words, mapping in _threshold_variants(relevance, _user_ratings(truth, user)):
        rows.append({"option": "relevant if", "choice": words, "active": mapping == relevance,
                     "value": _evaluated(truth, run, user, metric, cutoff, mapping,
                                         conventions)})
    if metric == "map":
        for denominator in AP_DENOMINATORS:
            variant = replace(conventions, ap_denominator=denominator)
            rows.append({"option": "AP denominator", "choice": denominator,
                         "active": variant == conventions,
                         "value": _evaluated(truth, run, user, metric, cutoff, relevance,
                                             variant)})
    return pd.DataFrame(rows, columns=["option", "choice", "value", "active"])


def _fraction(metric: str, ranked: pd.DataFrame, hit_ranks: tuple[int, ...], n_relevant: int,
              cutoff: int, ap_denominator: str) -> tuple[float, float]:
    hits = float(len(hit_ranks))
    if metric == "precision":
        return hits, float(cutoff)
    if metric == "recall":
        return hits, float(n_relevant)
    if metric == "hit_rate":
        return float(hits > 0), 1.0
    if metric == "mrr":
        return (1.0, float(hit_ranks[0])) if hit_ranks else (0.0, 1.0)
    precisions = float(ranked.loc[ranked["relevant"], "precision"].sum())
    denominator = {"relevant": n_relevant, "min_k_relevant": min(cutoff, n_relevant),
                   "hits": len(hit_ranks)}[ap_denominator]
    return precisions, float(denominator)


def _evaluated(truth: pd.DataFrame, run: pd.DataFrame, user: str, metric: str, cutoff: int,
               relevance: RelevanceMapping, conventions: Conventions) -> float:
    """The metric of one user from :func:`rankmetrics.evaluate` on that user's rows."""
    from rankmetrics.evaluation import evaluate

    theirs = truth.loc[truth["user"] == user, ["user", "item", "rating"]]
    mine = run.loc[run["user"] == user, ["user", "item", "score"]]
    counted = replace(conventions, empty_users="zero", missing_users="zero")
    ev = evaluate(theirs, {"model": mine}, relevance=relevance, conventions=counted,
                  max_cutoff=cutoff)
    return float(ev.per_user_at("model", metric, cutoff).iloc[0])


def _threshold_variants(relevance: RelevanceMapping,
                        ratings: pd.Series) -> list[tuple[str, RelevanceMapping]]:
    """The relevance mapping with each threshold the user's ratings make a difference at."""
    values = ratings.to_numpy(dtype=np.float64)
    if relevance.kind == "binary":
        current = float(relevance.table[0][0])
        ratings_seen = sorted({float(v) for v in values if np.isfinite(v)} | {current})
        return [(f"rating ≥ {_num(t)}", RelevanceMapping.binary(t)) for t in ratings_seen]
    grades = relevance.grades(values)
    levels = sorted({float(g) for g in grades if g > 0} | {relevance.threshold})
    return [(f"grade ≥ {_num(t)}", replace(relevance, threshold=t)) for t in levels]


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


def _user_ratings(truth: pd.DataFrame, user: str) -> pd.Series:
    """The user's ground-truth ratings, indexed by item (the first row of an item counts)."""
    judged = truth.loc[truth["user"] == user, ["item", "rating"]].drop_duplicates("item")
    return pd.Series(judged["rating"].to_numpy(dtype=np.float64),
                     index=judged["item"].to_numpy())


def _ranked_items(run: pd.DataFrame, user: str, ties: str) -> np.ndarray:
    """The items a model ranked for the user, best first, ordered as RankedRun orders them."""
    mine = run.loc[run["user"] == user, ["item", "score"]]
    items = mine["item"].reset_index(drop=True)
    scores = mine["score"].to_numpy(dtype=np.float64)
    order = rank_order(np.zeros(len(items), dtype=np.int64), scores, items, None, ties)
    return items.to_numpy() if order is None else items.to_numpy()[order]


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


def _sum_line(name: str, rows: pd.DataFrame, total: float, cutoff: int) -> str:
    if cutoff > ALL_TERMS_UP_TO:
        rows = rows[rows["gain"] > 0]
    terms = [
        rf"\frac{{{_num(gain)}}}{{\log_2 {rank + 1}}}"
        for rank, gain in zip(rows["rank"], rows["gain"], strict=True)
    ]
    if not terms:
        return rf"{name} = 0"
    lines = [" + ".join(terms[i:i + TERMS_PER_LINE])
             for i in range(0, len(terms), TERMS_PER_LINE)]
    body = r" \\ &\quad + ".join(lines)
    note = r" \quad \text{(ranks without gain add 0)}" if cutoff > ALL_TERMS_UP_TO else ""
    return rf"\begin{{aligned}} {name} &= {body}{note} \\ &= {_fixed(total)} \end{{aligned}}"


def _num(value: float) -> str:
    """A gain as written in a formula: 1, 3, 0.5."""
    return str(int(value)) if float(value).is_integer() else f"{value:.4g}"


def _fixed(value: float) -> str:
    return f"{value:.4f}"
