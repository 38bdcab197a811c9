"""Why one user's Precision, Recall, HitRate, RR or AP is what it is.

:func:`explain_metric` writes the binary metrics out as arithmetic: the hits in the top K,
the precision at each hit and the named denominator, with the value taken from
:func:`rankmetrics.evaluate` on the user's rows; :func:`metric_variants` gives the value
under each relevance threshold and, for AP, each denominator.

>>> truth = pd.DataFrame({"user": ["u"] * 5, "item": list("ACXYZ"), "rating": [1] * 5})
>>> run = pd.DataFrame({"user": ["u"] * 5, "item": list("ABCDE"), "score": [5, 4, 3, 2, 1]})
>>> ap = explain_metric(truth, run, "u", "map", cutoff=5)
>>> ap.hit_ranks, round(ap.numerator, 4), ap.denominator, round(ap.value, 4)
((1, 3), 1.6667, 5.0, 0.3333)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from rankmetrics.checks import check_choice, check_int
from rankmetrics.conventions import AP_DENOMINATORS, Conventions
from rankmetrics.explain.rows import (
    counted_ratings,
    evaluated_value,
    formula_number,
    four_decimals,
    ranked_list,
    threshold_variants,
    user_ratings,
)
from rankmetrics.metrics import METRICS, judge
from rankmetrics.relevance import RelevanceMapping

HIT_COLUMNS = ("rank", "item", "rating", "grade", "relevant", "hits", "precision")
#: The metrics :func:`explain_metric` writes out (NDCG and DCG:
#: :func:`rankmetrics.explain.explain_ndcg`).
BINARY_METRICS = ("precision", "recall", "hit_rate", "mrr", "map")
#: Their names for one user, as the registry's formulas write them (MRR and MAP are means).
SHORT_NAMES = {"precision": "P", "recall": "R", "hit_rate": "HR", "mrr": "RR", "map": "AP"}


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
            if self.conventions.precision_denominator == "list_length":
                return (f"min(K, list length) = min({k}, {self.list_length}) = "
                        f"{min(k, self.list_length)}")
            return f"K = {k}"
        where = " in the model's list" if self.conventions.relevant_items == "in_list" else ""
        if self.metric == "recall":
            if self.conventions.recall_denominator == "min_k_relevant":
                return f"min(K, |R|) = min({k}, {r}) = {min(k, r)}{where and ', |R|' + where}"
            return f"|R| = {r} relevant items{where}"
        if self.metric != "map":
            return ""
        shown = min(k, self.list_length)
        return {
            "relevant": f"|R| = {r} relevant items{where} (trec_eval)",
            "min_k_relevant": f"min(K, |R|) = min({k}, {r}) = {min(k, r)}",
            "hits": f"the {hits} hits in the top {k}",
            "min_shown_relevant": f"min(|R|, items in the top K) = min({r}, {shown}) = "
                                  f"{min(r, shown)}",
        }[self.conventions.ap_denominator]

    def latex(self) -> list[str]:
        """The formula, then the same with the user's numbers, as LaTeX lines."""
        return [self._general(), self._with_numbers()]

    def _general(self) -> str:
        if self.metric == "precision" and self.conventions.precision_denominator == "list_length":
            return (r"\mathrm{P@K} = \frac{|\{\text{relevant in top } K\}|}"
                    r"{\min(K, |\text{list}|)}")
        if self.metric == "recall" and self.conventions.recall_denominator == "min_k_relevant":
            return (r"\mathrm{R@K} = \frac{|\{\text{relevant in top } K\}|}"
                    r"{\min(K, |R|)}")
        if self.metric != "map":
            return METRICS[self.metric].formula
        d = {"relevant": "|R|", "min_k_relevant": r"\min(K, |R|)",
             "hits": r"\text{hits in top } K",
             "min_shown_relevant": r"\min(|R|, |\text{top } K|)"}[self.conventions.ap_denominator]
        return (rf"\mathrm{{AP@K}} = \frac{{1}}{{{d}}}"
                r"\sum_{k \le K} \mathrm{P@k}\,\mathrm{rel}(k)")

    def _with_numbers(self) -> str:
        k = self.cutoff
        left = rf"\mathrm{{{SHORT_NAMES[self.metric]}@{k}}}"
        hits = len(self.hit_ranks)
        none = rf"0 \quad \text{{(no relevant item in the top {k})}}"
        if self.metric in ("precision", "recall"):
            if self.denominator == 0:
                nothing = "the list is empty" if self.metric == "precision" else (
                    "the user has no relevant item")
                return rf"{left} = 0 \quad \text{{({nothing})}}"
            return (rf"{left} = \frac{{{hits}}}{{{formula_number(self.denominator)}}}"
                    rf" = {four_decimals(self.value)}")
        if not hits:
            return rf"{left} = {none}"
        first = self.hit_ranks[0]
        if self.metric == "hit_rate":
            return rf"{left} = 1 \quad \text{{(first relevant item at rank {first} }} \le {k})"
        if self.metric == "mrr":
            return rf"{left} = \frac{{1}}{{{first}}} = {four_decimals(self.value)}"
        terms = " + ".join(rf"\frac{{{n}}}{{{rank}}}"
                           for n, rank in enumerate(self.hit_ranks, start=1))
        return (rf"{left} = \frac{{{terms}}}{{{formula_number(self.denominator)}}} = "
                rf"\frac{{{four_decimals(self.numerator)}}}{{{formula_number(self.denominator)}}}"
                rf" = {four_decimals(self.value)}")


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

    Items are ranked as :func:`rankmetrics.explain.explain_ndcg` ranks them; the value comes
    from :func:`rankmetrics.evaluate` on the user's rows (the user always counted), so the
    arithmetic is checked against the library, not a second implementation of it.
    Tables as for :func:`rankmetrics.explain.explain_ndcg`; the user must have ground-truth
    rows.

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
    ratings = user_ratings(truth, user)
    if ratings.empty:
        raise ValueError(f"User {user!r} has no ground-truth rows: nothing to explain.")
    ranked_items = ranked_list(run, user, conventions.ties,
                               conventions.identical_ids)
    ratings = counted_ratings(ratings, ranked_items, conventions)
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
                                       conventions, len(ranked_items))
    return MetricArithmetic(
        metric=metric, user=str(user), cutoff=cutoff, conventions=conventions,
        relevance=relevance, ranked=ranked, hit_ranks=hit_ranks, n_relevant=n_relevant,
        numerator=numerator, denominator=denominator,
        value=evaluated_value(truth, run, user, metric, cutoff, relevance, conventions),
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
     ['AP denominator', 'hits', 0.5833], ['AP denominator', 'min_shown_relevant', 0.3889]]
    """
    check_choice("metric", metric, BINARY_METRICS)
    relevance = relevance or RelevanceMapping.identity(1)
    conventions = conventions or Conventions()
    rows = []
    for words, mapping in threshold_variants(relevance, user_ratings(truth, user)):
        rows.append({"option": "relevant if", "choice": words, "active": mapping == relevance,
                     "value": evaluated_value(truth, run, user, metric, cutoff, mapping,
                                         conventions)})
    if metric == "map":
        for denominator in AP_DENOMINATORS:
            variant = replace(conventions, ap_denominator=denominator)
            rows.append({"option": "AP denominator", "choice": denominator,
                         "active": variant == conventions,
                         "value": evaluated_value(truth, run, user, metric, cutoff, relevance,
                                             variant)})
    return pd.DataFrame(rows, columns=["option", "choice", "value", "active"])


def _fraction(metric: str, ranked: pd.DataFrame, hit_ranks: tuple[int, ...], n_relevant: int,
              cutoff: int, conventions: Conventions, length: int) -> tuple[float, float]:
    hits = float(len(hit_ranks))
    ap_denominator = conventions.ap_denominator
    if metric == "precision":
        if conventions.precision_denominator == "list_length":
            return hits, float(min(cutoff, length))
        return hits, float(cutoff)
    if metric == "recall":
        if conventions.recall_denominator == "min_k_relevant":
            return hits, float(min(cutoff, n_relevant))
        return hits, float(n_relevant)
    if metric == "hit_rate":
        return float(hits > 0), 1.0
    if metric == "mrr":
        return (1.0, float(hit_ranks[0])) if hit_ranks else (0.0, 1.0)
    precisions = float(ranked.loc[ranked["relevant"], "precision"].sum())
    denominator = {"relevant": n_relevant, "min_k_relevant": min(cutoff, n_relevant),
                   "hits": len(hit_ranks),
                   "min_shown_relevant": min(n_relevant, cutoff, length)}[ap_denominator]
    return precisions, float(denominator)
