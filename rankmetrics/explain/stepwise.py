r"""Why one user's ERR, RBP, bpref or Judged is what it is, rank by rank.

:func:`explain_steps` writes out each rank's part of the metric: for ERR the chance that a
reader stops there ((2^g - 1) / 2^g_max) and the chance of getting there; for RBP the rank's
weight (1 - p) p^(rank - 1) and, for the interval with what unjudged items could add, the
weight of the unjudged ranks and of every rank after K; for bpref each relevant item's judged
non-relevant items above it; for Judged which items have a judgment. The value is taken from
:func:`rankmetrics.evaluate` on the user's rows, and the parts add up to it.

>>> truth = pd.DataFrame({"user": ["q"] * 4, "item": ["d1", "d2", "d3", "d4"],
...                       "rating": [3, 2, 0, 1]})
>>> run = pd.DataFrame({"user": ["q"] * 5, "item": ["d3", "d1", "d4", "d5", "d2"],
...                     "score": [5, 4, 3, 2, 1]})
>>> err = explain_steps(truth, run, "q", "err", cutoff=5)
>>> err.ranked["stop"].tolist()
[0.0, 0.875, 0.125, 0.0, 0.375]
>>> round(err.value, 6), round(float(err.ranked["part"].sum()), 6)
(0.450911, 0.450911)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from rankmetrics.checks import check_choice, check_int
from rankmetrics.conventions import Conventions
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

#: The metrics :func:`explain_steps` writes out.
STEP_METRICS = ("err", "rbp", "bpref", "judged")
#: The columns of :attr:`StepArithmetic.ranked` each metric adds to ``rank, item, rating,
#: grade, judged, relevant``: what the rank contributes (``part``) and how it is made.
STEP_COLUMNS = {
    "err": ("stop", "reached", "part", "running"),
    "rbp": ("weight", "part", "running", "unknown"),
    "bpref": ("nonrelevant_above", "part", "running"),
    "judged": ("judged_so_far", "running"),
}


@dataclass(frozen=True)
class StepArithmetic:
    """One user's ERR, RBP, bpref or Judged at K, rank by rank.

    Attributes
    ----------
    metric : str
        ``err``, ``rbp``, ``bpref`` or ``judged``.
    user : str
    cutoff : int
        K.
    ranked : DataFrame
        The model's top K: ``rank``, ``item``, ``rating`` (NaN: no ground truth), ``grade``,
        ``judged`` (a rating with a grade of 0 or more), ``relevant``, then the metric's
        columns (:data:`STEP_COLUMNS`): ERR's ``stop`` (the chance the reader stops at the
        rank), ``reached`` (the chance the reader gets there), ``part`` (reached x stop /
        rank) and ``running`` (ERR down to the rank); RBP's ``weight`` ((1 - p) p^(rank-1)),
        ``part`` (the weight of a relevant item), ``running`` and ``unknown`` (the weight of a
        rank without a judgment); bpref's ``nonrelevant_above`` (judged non-relevant items
        above a relevant one), ``part`` (its term over |R|) and ``running``; Judged's
        ``judged_so_far`` and ``running`` (the share judged down to the rank).
    value : float
        The metric as :func:`rankmetrics.evaluate` computes it on the user's rows.
    n_relevant, n_nonrelevant : int
        |R| and |N|: the user's relevant and judged non-relevant ground-truth items.
    max_grade : float
        g_max (ERR).
    persistence : float
        p (RBP).
    residual : float
        RBP's residual at K: the weight of the unjudged ranks of the top K, plus p^K.
    list_length : int
        How many items the model ranked for the user in all.
    """

    metric: str
    user: str
    cutoff: int
    ranked: pd.DataFrame
    value: float
    n_relevant: int
    n_nonrelevant: int
    max_grade: float
    persistence: float
    residual: float
    list_length: int

    def latex(self) -> list[str]:
        """The formula, then the same with the user's numbers, as LaTeX lines."""
        return [METRICS[self.metric].formula, self._with_numbers()]

    def words(self) -> str:
        """What the numbers of the table are, in one or two sentences with the user's own."""
        k = self.cutoff
        if self.metric == "err":
            return (f"A reader goes down the list and stops at each item with probability "
                    f"(2^g − 1) / 2^{formula_number(self.max_grade)} (g_max = "
                    f"{formula_number(self.max_grade)} for every user): \"stop\". "
                    "\"reached\" is the chance of getting to the rank without stopping "
                    "before; each rank adds reached × stop / rank, and ERR is the sum.")
        if self.metric == "rbp":
            p = formula_number(self.persistence)
            top = four_decimals(self.value + self.residual)
            return (f"A reader goes on to the next rank with probability p = {p}, so rank i "
                    f"weighs (1 − {p}) × {p}^(i − 1); RBP adds the weights of the relevant "
                    f"items. The ranks without a judgment (\"unknown\") and every rank after "
                    f"{k} (together {four_decimals(self.residual)}) could add more, so RBP "
                    f"lies between {four_decimals(self.value)} and {top}.")
        if self.metric == "bpref":
            return (f"Each relevant item in the top {k} scores 1 minus the judged "
                    f"non-relevant items above it (at most |R| = {self.n_relevant}) over "
                    f"min(|R|, |N|) = min({self.n_relevant}, {self.n_nonrelevant}); the scores "
                    f"add up over |R| = {self.n_relevant}. Unjudged items are skipped.")
        shown = min(k, self.list_length)
        return (f"The items of the top {k} that the user's ground truth judges, relevant or "
                f"not, over the {shown} item{'s' if shown != 1 else ''} there.")

    def _with_numbers(self) -> str:
        k, ranked = self.cutoff, self.ranked
        left = rf"\mathrm{{{METRICS[self.metric].label}@{k}}}"
        if self.metric == "judged":
            shown = min(k, self.list_length)
            if shown == 0:
                return rf"{left} = 0 \quad \text{{(an empty list)}}"
            judged = int(ranked["judged"].sum())
            return rf"{left} = \frac{{{judged}}}{{{shown}}} = {four_decimals(self.value)}"
        if self.metric == "bpref" and self.n_relevant == 0:
            return rf"{left} = 0 \quad \text{{(the user has no relevant item)}}"
        used = ranked["relevant"] if self.metric == "bpref" else ranked["part"] > 0
        ranks = [int(rank) for rank in ranked.loc[used, "rank"]]
        if not ranks:
            return rf"{left} = 0 \quad \text{{(no rank of the top {k} adds anything)}}"
        if self.metric == "err":
            terms = " + ".join(
                rf"\frac{{{four_decimals(reached)} \times {four_decimals(stop)}}}{{{rank}}}"
                for rank, reached, stop in zip(ranks, ranked.loc[used, "reached"].tolist(),
                                               ranked.loc[used, "stop"].tolist(), strict=True))
        elif self.metric == "rbp":
            p = formula_number(self.persistence)
            terms = rf"(1 - {p})\left(" + " + ".join(
                f"{p}^{{{rank - 1}}}" for rank in ranks) + r"\right)"
        else:
            smaller = min(self.n_relevant, self.n_nonrelevant)
            above = [int(n) for n in ranked.loc[used, "nonrelevant_above"]]
            terms = r"\frac{1}{" + str(self.n_relevant) + r"}\left(" + " + ".join(
                "1" if n == 0 else
                rf"\left(1 - \frac{{{min(n, self.n_relevant)}}}{{{smaller}}}\right)"
                for n in above) + r"\right)"
        return rf"{left} = {terms} = {four_decimals(self.value)}"


def explain_steps(
    truth: pd.DataFrame,
    run: pd.DataFrame,
    user: str,
    metric: str,
    *,
    cutoff: int,
    relevance: RelevanceMapping | None = None,
    conventions: Conventions | None = None,
    max_grade: float | None = None,
) -> StepArithmetic:
    """Write one user's ERR, RBP, bpref or Judged at K out rank by rank.

    Items are ranked as :func:`rankmetrics.explain.explain_ndcg` ranks them; the value comes
    from :func:`rankmetrics.evaluate` on the user's rows (the user always counted), and the
    table's parts add up to it. ERR's g_max is ``conventions.max_grade`` when set, else
    ``max_grade`` (give the whole evaluation's, :attr:`rankmetrics.Evaluation.max_grade`:
    with ratings as grades it is the highest grade of the whole ground truth), else the
    highest grade of this user's rows.
    """
    check_choice("metric", metric, STEP_METRICS)
    relevance = relevance or RelevanceMapping.identity(1)
    conventions = conventions or Conventions()
    cutoff = check_int("cutoff", cutoff)
    ratings = user_ratings(truth, user)
    if ratings.empty:
        raise ValueError(f"User {user!r} has no ground-truth rows: nothing to explain.")
    ranked_items = ranked_list(run, user, conventions.ties,
                               conventions.identical_ids)
    all_grades = relevance.grades(ratings.to_numpy(dtype=np.float64))
    if conventions.max_grade is None:
        g_max = float(max_grade) if max_grade is not None else relevance.highest_grade(
            all_grades)
        conventions = replace(conventions, max_grade=g_max if g_max > 0 else None)
    g_max = float(conventions.max_grade) if conventions.max_grade is not None else 0.0
    ratings = counted_ratings(ratings, ranked_items, conventions)  # after g_max: the user's own
    all_grades = relevance.grades(ratings.to_numpy(dtype=np.float64))
    truth_judged = np.isfinite(ratings.to_numpy(dtype=np.float64)) & (all_grades >= 0)
    truth_relevant = judge(ratings.to_numpy(dtype=np.float64), relevance, conventions).relevant
    n_relevant = int(np.count_nonzero(truth_relevant & truth_judged))
    n_nonrelevant = int(np.count_nonzero(truth_judged)) - n_relevant

    top = ranked_items[:cutoff]
    top_ratings = ratings.reindex(top).to_numpy(dtype=np.float64)
    judgments = judge(top_ratings, relevance, conventions)
    judged = np.isfinite(top_ratings) & (relevance.grades(top_ratings) >= 0)
    ranks = np.arange(1, len(top) + 1)
    table = pd.DataFrame({
        "rank": ranks, "item": pd.Series(top, dtype="str"), "rating": top_ratings,
        "grade": judgments.grades, "judged": judged, "relevant": judgments.relevant,
    })
    p = conventions.rbp_persistence
    weights = (1.0 - p) * p ** (ranks - 1.0)
    residual = float(weights[~judged].sum() + (1.0 - weights.sum()) if len(top) else 1.0)
    if metric == "err":
        grades = np.maximum(judgments.grades, 0.0)
        stop = (np.exp2(grades) - 1.0) / np.exp2(g_max) if g_max > 0 else np.zeros(len(top))
        reached = np.concatenate([[1.0], np.cumprod(1.0 - stop)[:-1]])[:len(top)]
        part = reached * stop / ranks
        table = table.assign(stop=stop, reached=reached, part=part, running=np.cumsum(part))
    elif metric == "rbp":
        part = np.where(judgments.relevant, weights, 0.0)
        table = table.assign(weight=weights, part=part, running=np.cumsum(part),
                             unknown=np.where(judged, 0.0, weights))
    elif metric == "bpref":
        nonrelevant = judged & ~judgments.relevant
        above = np.cumsum(nonrelevant) - nonrelevant
        smaller = min(n_relevant, n_nonrelevant)
        term = np.where(above > 0, 1.0 - np.minimum(above, n_relevant) / max(smaller, 1), 1.0)
        part = np.where(judgments.relevant, term, 0.0) / max(n_relevant, 1)
        table = table.assign(nonrelevant_above=np.where(judgments.relevant, above, 0),
                             part=part, running=np.cumsum(part))
    else:
        so_far = np.cumsum(judged)
        table = table.assign(judged_so_far=so_far, running=so_far / np.maximum(ranks, 1))
    return StepArithmetic(
        metric=metric, user=str(user), cutoff=cutoff, ranked=table,
        value=evaluated_value(truth, run, user, metric, cutoff, relevance, conventions),
        n_relevant=n_relevant, n_nonrelevant=n_nonrelevant, max_grade=g_max, persistence=p,
        residual=residual, list_length=len(ranked_items),
    )


#: The persistences RBP is shown under beside the one in use: an impatient reader, the
#: default, a patient one (Moffat and Zobel's examples).
PERSISTENCES = (0.5, 0.8, 0.95)
#: gdeval's fixed g_max, which ir_measures' ERR@k uses.
GDEVAL_MAX_GRADE = 4.0


def step_variants(
    truth: pd.DataFrame,
    run: pd.DataFrame,
    user: str,
    metric: str,
    *,
    cutoff: int,
    relevance: RelevanceMapping | None = None,
    conventions: Conventions | None = None,
    max_grade: float | None = None,
) -> pd.DataFrame:
    """The user's ERR, RBP, bpref or Judged at K under each choice that can change it: g_max
    for ERR (the mapping's highest grade, gdeval's 4), the persistence p for RBP (with its
    interval), the relevance threshold for bpref; Judged has none (an empty table).

    Returns ``option, choice, value, active``, and for RBP ``up_to`` (RBP plus its
    residual).

    >>> truth = pd.DataFrame({"user": ["q"] * 2, "item": ["a", "b"], "rating": [2, 1]})
    >>> run = pd.DataFrame({"user": ["q"] * 2, "item": ["b", "a"], "score": [2, 1]})
    >>> table = step_variants(truth, run, "q", "err", cutoff=2)
    >>> table[["choice", "value"]].values.tolist()  # 1/4 + (3/4)(3/4)/2; 1/16 + (15/16)(3/16)/2
    [['2 (the highest grade)', 0.53125], ['4 (gdeval)', 0.150390625]]
    """
    check_choice("metric", metric, STEP_METRICS)
    relevance = relevance or RelevanceMapping.identity(1)
    conventions = conventions or Conventions()

    def steps(mapping: RelevanceMapping, variant: Conventions) -> StepArithmetic:
        return explain_steps(truth, run, user, metric, cutoff=cutoff, relevance=mapping,
                             conventions=variant, max_grade=max_grade)

    rows: list[dict[str, object]] = []
    if metric == "err":
        highest = steps(relevance, replace(conventions, max_grade=None)).max_grade
        for g_max, words in ((highest, "the highest grade"), (GDEVAL_MAX_GRADE, "gdeval")):
            if g_max <= 0 or any(str(row["choice"]).startswith(f"{formula_number(g_max)} ")
                                 for row in rows):
                continue
            variant = replace(conventions, max_grade=g_max)
            rows.append({"option": "g_max", "choice": f"{formula_number(g_max)} ({words})",
                         "value": steps(relevance, variant).value,
                         "active": (conventions.max_grade or highest) == g_max})
    elif metric == "rbp":
        for p in sorted({*PERSISTENCES, conventions.rbp_persistence}):
            result = steps(relevance, replace(conventions, rbp_persistence=p))
            rows.append({"option": "persistence p", "choice": f"p = {formula_number(p)}",
                         "value": result.value, "up_to": result.value + result.residual,
                         "active": p == conventions.rbp_persistence})
    elif metric == "bpref":
        for words, mapping in threshold_variants(relevance, user_ratings(truth, user)):
            rows.append({"option": "relevant if", "choice": words,
                         "value": steps(mapping, conventions).value,
                         "active": mapping == relevance})
    columns = ["option", "choice", "value", *(["up_to"] if metric == "rbp" else []), "active"]
    return pd.DataFrame(rows, columns=columns)
