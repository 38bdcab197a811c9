"""A ranked list to edit by hand, for teaching: every metric at every K, from the library.

A teacher builds one user's ranked list (each item with a grade), moves items, swaps them,
changes grades and conventions, and watches which metrics move. A :class:`Playground` is that
list as plain, hashable data; the edits (:func:`move`, :func:`swap`, :func:`set_grade`,
:func:`add_item`, :func:`remove_item`, :func:`set_beyond`) return a new one with the words
that describe the edit. :func:`playground_values` turns it into a one-user ground truth and
ranked output and calls :func:`rankmetrics.evaluate`: no metric is computed here.

>>> pg = Playground.from_grades([1, 0, 1, 0, 0], beyond=(1, 1, 1))
>>> table = playground_values(pg)
>>> table.loc[5, ["precision", "recall", "map", "dcg", "idcg", "ndcg"]].round(4).tolist()
[0.4, 0.4, 0.3333, 1.5, 2.9485, 0.5087]
>>> edit = move(pg, 3, 2)
>>> edit.words
'moving C from rank 3 to rank 2'
>>> print(describe_change(table, playground_values(edit.playground), 5, edit.words))
Moving C from rank 3 to rank 2 raises AP@5 by 0.0667, DCG@5 by 0.1309 and NDCG@5 by 0.0444, \
and leaves P@5, R@5, HitRate@5, RR@5 unchanged.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from rankmetrics.checks import check_choice, check_int
from rankmetrics.conventions import AP_DENOMINATORS, GAINS, IDEALS, TIES, Conventions
from rankmetrics.evaluation import evaluate
from rankmetrics.prepared.ranked_run import rank_order
from rankmetrics.relevance import RelevanceMapping

USER = "student"
#: The model's list and, for the ground-truth ideal, the ideal list (its DCG is the IDCG).
LIST, IDEAL = "list", "ideal"
#: The highest grade the playground offers (enough for any lesson; 2^10 - 1 = 1023).
MAX_GRADE = 10
MAX_ITEMS = 30
#: The columns of :func:`playground_values`, in the order a lesson reads them.
COLUMNS = ("precision", "recall", "hit_rate", "mrr", "map", "dcg", "idcg", "ndcg")
#: Names for one user: MRR and MAP are means over users of RR and AP.
LABELS = {"precision": "P", "recall": "R", "hit_rate": "HitRate", "mrr": "RR", "map": "AP",
          "dcg": "DCG", "idcg": "IDCG", "ndcg": "NDCG"}
#: The conventions a lesson switches, and the metrics each one can change.
SWITCHES = {
    "gain": ("dcg", "idcg", "ndcg"),
    "ideal": ("idcg", "ndcg"),
    "ap_denominator": ("map",),
    "threshold": ("precision", "recall", "hit_rate", "mrr", "map"),
    "ties": COLUMNS,
}
UNCHANGED_BELOW = 1e-12
BEYOND_PREFIX = "not listed "


@dataclass(frozen=True)
class ListItem:
    """One item of the list: its id, its grade (0: not relevant) and the model's score."""

    item: str
    grade: int
    score: float


@dataclass(frozen=True)
class Playground:
    """One user's ranked list, the grades of their relevant items the list misses, the grade
    threshold of the binary metrics and the conventions.

    Attributes
    ----------
    items : tuple of ListItem
        The list as the model scored it; ranks follow the scores, then the tie rule.
    beyond : tuple of int
        The grades of the user's ground-truth items that are not in the list (they count
        in Recall's |R| and in the ground-truth ideal list).
    threshold : int
        A grade at or above it is relevant for Precision, Recall, HitRate, RR and AP.
    conventions : Conventions
        Gain, ideal list, AP denominator, tie rule (users are never skipped: there is one).
    """

    items: tuple[ListItem, ...]
    beyond: tuple[int, ...] = ()
    threshold: int = 1
    conventions: Conventions = Conventions()

    def __post_init__(self) -> None:
        if not 1 <= len(self.items) <= MAX_ITEMS:
            raise ValueError(f"A playground list holds 1 to {MAX_ITEMS} items; got "
                             f"{len(self.items)}.")
        names = [entry.item for entry in self.items]
        if len(set(names)) != len(names):
            raise ValueError(f"Each item appears once in a list; got {names}.")
        for grade in [entry.grade for entry in self.items] + list(self.beyond):
            check_int("grade", grade, low=0, high=MAX_GRADE)
        check_int("threshold", self.threshold, low=1, high=MAX_GRADE)

    @classmethod
    def from_grades(cls, grades: list[int], *, beyond: tuple[int, ...] = (),
                    threshold: int = 1, conventions: Conventions | None = None) -> Playground:
        """Items A, B, C, ... ranked in the given order with the given grades."""
        items = tuple(ListItem(name, int(grade), float(len(grades) - rank))
                      for rank, (name, grade) in enumerate(zip(_names(len(grades)), grades,
                                                               strict=True)))
        return cls(items, tuple(beyond), threshold, conventions or Conventions())

    @classmethod
    def from_frames(cls, truth: pd.DataFrame, run: pd.DataFrame, user: str, *,
                    threshold: int = 1, conventions: Conventions | None = None) -> Playground:
        """One user's list and ground truth (columns user, item, rating / score), the ratings
        taken as grades (negative ones as 0): the list's items keep their scores, ground-truth
        items with a grade that the list misses become ``beyond``."""
        ratings = truth.loc[truth["user"] == user].drop_duplicates("item").set_index("item")
        mine = run.loc[run["user"] == user]
        grades = ratings["rating"].reindex(mine["item"]).fillna(0).clip(lower=0).astype(int)
        items = tuple(ListItem(str(item), int(grade), float(score))
                      for item, grade, score in zip(mine["item"], grades, mine["score"],
                                                    strict=True))
        missed = ratings.loc[~ratings.index.isin(mine["item"]), "rating"]
        beyond = tuple(sorted((int(g) for g in missed if g > 0), reverse=True))
        return cls(items, beyond, threshold, conventions or Conventions())

    def ranked(self) -> tuple[ListItem, ...]:
        """The items best first: score descending, then the tie rule, as the metrics rank."""
        scores = np.array([entry.score for entry in self.items], dtype=np.float64)
        names = pd.Series([entry.item for entry in self.items], dtype="str")
        order = rank_order(np.zeros(len(self.items), dtype=np.int64), scores, names, None,
                           self.conventions.ties)
        positions = range(len(self.items)) if order is None else order
        return tuple(self.items[int(i)] for i in positions)

    def has_ties(self) -> bool:
        """Whether two items share a score (the tie rule orders them)."""
        return len({entry.score for entry in self.items}) < len(self.items)

    def frames(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The one-user ground truth (every listed item and the missed ones, grade as rating)
        and the model's output (item, score), as :func:`rankmetrics.evaluate` reads them."""
        missed = [f"{BEYOND_PREFIX}{i}" for i in range(1, len(self.beyond) + 1)]
        truth = pd.DataFrame({
            "user": USER,
            "item": [entry.item for entry in self.items] + missed,
            "rating": [float(entry.grade) for entry in self.items] + [float(g)
                                                                        for g in self.beyond],
        })
        run = pd.DataFrame({"user": USER, "item": [entry.item for entry in self.items],
                            "score": [entry.score for entry in self.items]})
        return truth, run

    @property
    def relevance(self) -> RelevanceMapping:
        return RelevanceMapping.identity(self.threshold)


@dataclass(frozen=True)
class Edit:
    """A changed playground and the words for what changed (``"moving C from rank 4 to
    rank 2"``)."""

    playground: Playground
    words: str


def playground_values(playground: Playground, max_cutoff: int | None = None) -> pd.DataFrame:
    """Every metric of the list at every K = 1..max_cutoff (default: the list's length).

    Computed by :func:`rankmetrics.evaluate` on the one-user data of
    :meth:`Playground.frames`. IDCG@K is the DCG@K of the ideal list: with the ground-truth
    ideal, a second ranked output holding the ground truth sorted by grade; with the retrieved
    ideal, DCG@K / NDCG@K (0 when nothing in the top K has a gain, as then IDCG@K is 0).

    Returns a table indexed by ``cutoff`` with the columns of :data:`COLUMNS`.
    """
    k = check_int("max_cutoff", max_cutoff if max_cutoff is not None
                  else len(playground.items), high=MAX_ITEMS * 10)
    conventions = replace(playground.conventions, empty_users="zero", missing_users="zero")
    truth, run = playground.frames()
    runs = {LIST: run}
    if conventions.ideal == "ground_truth":
        by_grade = truth.sort_values("rating", ascending=False, kind="stable")
        runs[IDEAL] = pd.DataFrame({"user": USER, "item": by_grade["item"].to_numpy(),
                                    "score": np.arange(len(by_grade), 0, -1, dtype=float)})
    ev = evaluate(truth, runs, relevance=playground.relevance, conventions=conventions,
                  max_cutoff=k)
    table = pd.DataFrame({metric: ev.per_user(LIST, metric).iloc[0].to_numpy()
                          for metric in COLUMNS if metric != "idcg"},
                         index=pd.RangeIndex(1, k + 1, name="cutoff"))
    if IDEAL in runs:
        table["idcg"] = ev.per_user(IDEAL, "dcg").iloc[0].to_numpy()
    else:
        ndcg = table["ndcg"].to_numpy()
        table["idcg"] = np.divide(table["dcg"].to_numpy(), ndcg, out=np.zeros(k),
                                  where=ndcg > 0)
    return table[list(COLUMNS)]


def convention_values(playground: Playground, cutoff: int) -> pd.DataFrame:
    """The metrics each switch can change, at K, under each of its choices.

    Returns a long table ``option, choice, metric, value, active`` (``active``: the
    playground's own choice), for the options of :data:`SWITCHES`; the grade threshold runs
    over the grades the list and the missed items have (at least 1), and the tie rule is
    left out when no two items share a score (it changes nothing then). Each distinct
    variant is evaluated once.
    """
    cutoff = check_int("cutoff", cutoff, high=MAX_ITEMS * 10)
    rows = []
    evaluated: dict[Playground, dict] = {}
    for option, choices in _choices(playground).items():
        for choice in choices:
            variant = _with(playground, option, choice)
            if variant not in evaluated:
                evaluated[variant] = playground_values(variant, cutoff).loc[cutoff].to_dict()
            for metric in SWITCHES[option]:
                rows.append({"option": option, "choice": choice, "metric": metric,
                             "value": float(evaluated[variant][metric]),
                             "active": variant == playground})
    return pd.DataFrame(rows)


def describe_change(before: pd.DataFrame, after: pd.DataFrame, cutoff: int, words: str) -> str:
    """One sentence saying which metrics at K an edit raised or lowered, and by how much, and
    which it left unchanged (IDCG is left out: it is part of NDCG's story).

    >>> a = pd.DataFrame({"precision": [0.4], "ndcg": [0.5]}, index=[5])
    >>> b = pd.DataFrame({"precision": [0.4], "ndcg": [0.62]}, index=[5])
    >>> describe_change(a, b, 5, "moving C from rank 4 to rank 2")
    'Moving C from rank 4 to rank 2 raises NDCG@5 by 0.1200 and leaves P@5 unchanged.'
    """
    metrics = [m for m in COLUMNS if m != "idcg" and m in before and m in after]
    old, new = before.loc[cutoff, metrics], after.loc[cutoff, metrics]
    moved = [m for m in metrics if abs(new[m] - old[m]) > UNCHANGED_BELOW]
    still = [m for m in metrics if m not in moved]
    pieces = []
    for verb, chosen in (("raises", [m for m in moved if new[m] > old[m]]),
                         ("lowers", [m for m in moved if new[m] < old[m]])):
        if chosen:
            pieces.append(f"{verb} " + _join([f"{LABELS[m]}@{cutoff} by "
                                               f"{abs(new[m] - old[m]):.4f}" for m in chosen]))
    changed = ", ".join(pieces)
    kept = ", ".join(f"{LABELS[m]}@{cutoff}" for m in still)
    if not moved:
        sentence = f"{words} changes no metric at K = {cutoff}"
    elif not still:
        sentence = f"{words} {changed}"
    else:
        comma = "," if len(moved) > 1 else ""
        sentence = f"{words} {changed}{comma} and leaves {kept} unchanged"
    return sentence[0].upper() + sentence[1:] + "."


# ----- edits ---------------------------------------------------------------------------


def move(playground: Playground, from_rank: int, to_rank: int) -> Edit:
    """The item at ``from_rank`` moved to ``to_rank`` (1-based), the others shifting."""
    ranked = list(playground.ranked())
    from_rank, to_rank = (check_int(name, value, low=1, high=len(ranked))
                          for name, value in (("from_rank", from_rank), ("to_rank", to_rank)))
    entry = ranked.pop(from_rank - 1)
    ranked.insert(to_rank - 1, entry)
    return Edit(_reordered(playground, ranked),
                f"moving {entry.item} from rank {from_rank} to rank {to_rank}")


def swap(playground: Playground, rank_a: int, rank_b: int) -> Edit:
    """The items at two ranks trade places."""
    ranked = list(playground.ranked())
    rank_a, rank_b = (check_int(name, value, low=1, high=len(ranked))
                      for name, value in (("rank_a", rank_a), ("rank_b", rank_b)))
    first, second = ranked[rank_a - 1], ranked[rank_b - 1]
    ranked[rank_a - 1], ranked[rank_b - 1] = second, first
    return Edit(_reordered(playground, ranked),
                f"swapping {first.item} (rank {rank_a}) and {second.item} (rank {rank_b})")


def set_grade(playground: Playground, item: str, grade: int) -> Edit:
    """One item's grade changed."""
    grade = check_int("grade", grade, low=0, high=MAX_GRADE)
    names = [entry.item for entry in playground.items]
    check_choice("item", item, tuple(names))
    old = playground.items[names.index(item)]
    items = tuple(replace(entry, grade=grade) if entry.item == item else entry
                  for entry in playground.items)
    return Edit(replace(playground, items=items),
                f"changing {item}'s grade from {old.grade} to {grade}")


def add_item(playground: Playground, grade: int) -> Edit:
    """A new item with ``grade`` at the end of the list."""
    grade = check_int("grade", grade, low=0, high=MAX_GRADE)
    ranked = list(playground.ranked())
    if len(ranked) >= MAX_ITEMS:
        raise ValueError(f"A playground list holds at most {MAX_ITEMS} items.")
    taken = {entry.item for entry in ranked}
    name = next(n for n in _names(MAX_ITEMS * 2) if n not in taken)
    ranked.append(ListItem(name, grade, 0.0))
    return Edit(_reordered(playground, ranked),
                f"adding {name} (grade {grade}) at rank {len(ranked)}")


def remove_item(playground: Playground, rank: int) -> Edit:
    """The item at ``rank`` taken out of the list (it stays out of the ground truth too)."""
    ranked = list(playground.ranked())
    rank = check_int("rank", rank, low=1, high=len(ranked))
    if len(ranked) == 1:
        raise ValueError("The list keeps at least one item.")
    entry = ranked.pop(rank - 1)
    return Edit(_reordered(playground, ranked), f"removing {entry.item} from rank {rank}")


def set_beyond(playground: Playground, count: int, grade: int) -> Edit:
    """``count`` relevant items the list misses, each of ``grade``."""
    count = check_int("count", count, low=0, high=MAX_ITEMS * 10)
    grade = check_int("grade", grade, low=1, high=MAX_GRADE)
    beyond = (grade,) * count
    before = len(playground.beyond)
    words = (f"setting the relevant items not in the list from {before} to {count}"
             if count != before else f"giving the items not in the list grade {grade}")
    return Edit(replace(playground, beyond=beyond), words)


def set_option(playground: Playground, option: str, choice: object) -> Edit:
    """One switch of :data:`SWITCHES` set to ``choice``."""
    check_choice("option", option, tuple(SWITCHES))
    return Edit(_with(playground, option, choice),
                f"switching {option.replace('_', ' ')} to {str(choice).replace('_', ' ')}")


# ----- the scenarios a lesson starts from ----------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """A list to start from: its title, what it shows, the K to look at, and optionally the
    list before it (so the class sees the change from one to the other)."""

    title: str
    lesson: str
    playground: Playground
    cutoff: int
    before: Edit | None = None


def scenarios() -> dict[str, Scenario]:
    """The built-in starting points (the textbook example comes from the demo data)."""
    graded = [3, 2, 2, 1, 1, 0, 0, 0, 0, 0]
    one_at_top = Playground.from_grades([1] + [0] * 9)
    many = Playground.from_grades([1, 1, 1, 0, 0, 2])
    one_high = move(move(move(many, 6, 1).playground, 5, 2).playground, 6, 3).playground
    ties = Playground(
        (ListItem("A", 1, 0.9), ListItem("B", 1, 0.5), ListItem("C", 0, 0.5),
         ListItem("D", 0, 0.5), ListItem("E", 1, 0.2)),
    )
    return {
        "perfect": Scenario(
            "A perfect list", "Grades in decreasing order: NDCG is 1 at every K.",
            Playground.from_grades(graded), 5),
        "reversed": Scenario(
            "The reversed list", "The same items worst first: every metric at small K is 0.",
            Playground.from_grades(graded[::-1]), 5),
        "one_relevant": Scenario(
            "One relevant item: rank 1, then rank 10",
            "The same item at the top and at the bottom: RR falls from 1 to 0.1, Precision@10 "
            "and Recall@10 do not move.",
            move(one_at_top, 1, 10).playground, 10,
            before=Edit(one_at_top, "moving A from rank 1 to rank 10")),
        "many_vs_one": Scenario(
            "Many partially relevant items vs one highly relevant item",
            "Three items of grade 1 at the top, then one item of grade 2 at the top instead: "
            "at K = 3, linear gain prefers the three (1 + 0.63 + 0.5 > 2), exponential gain "
            "the one (2² − 1 = 3 > 2.13). Compare both gains in the switches below.",
            one_high, 3,
            before=Edit(many, "putting F (grade 2) and two items of grade 0 at the top "
                         "instead of A, B and C (grade 1)")),
        "ties": Scenario(
            "A list with ties",
            "B, C and D have the same score: the tie rule decides their ranks (trec_eval: "
            "item id descending, so D, C, B).",
            ties, 5),
    }


def textbook(truth: pd.DataFrame, run: pd.DataFrame, user: str) -> Scenario:
    """The textbook example from its files: liked A, C, X, Y, Z; recommended A, B, C, D, E."""
    return Scenario(
        "The textbook example",
        "A user liked A, C, X, Y and Z; the model recommends A, B, C, D, E. X, Y and Z are "
        "relevant but not in the list.",
        Playground.from_frames(truth, run, user), 5)


# ----- helpers -------------------------------------------------------------------------------


def _names(count: int) -> list[str]:
    letters = string.ascii_uppercase
    return [letters[i] if i < len(letters) else f"{letters[i % 26]}{i // 26}"
            for i in range(count)]


def _reordered(playground: Playground, ranked: list[ListItem]) -> Playground:
    """The list in this order, given distinct scores n..1 (an edited order has no ties)."""
    n = len(ranked)
    return replace(playground, items=tuple(replace(entry, score=float(n - i))
                                           for i, entry in enumerate(ranked)))


def _choices(playground: Playground) -> dict[str, tuple]:
    """Each switch's choices for this list."""
    grades = {entry.grade for entry in playground.items} | set(playground.beyond)
    thresholds = tuple(sorted({g for g in grades if g >= 1} | {playground.threshold}))
    choices = {"gain": GAINS, "ideal": IDEALS, "ap_denominator": AP_DENOMINATORS,
               "threshold": thresholds, "ties": TIES}
    if not playground.has_ties():
        del choices["ties"]
    return choices


def _with(playground: Playground, option: str, choice: object) -> Playground:
    if option == "threshold":
        return replace(playground, threshold=check_int("threshold", choice, high=MAX_GRADE))
    options: dict[str, Any] = {**playground.conventions.as_dict(), option: choice}
    conventions = Conventions(**options)
    return replace(playground, conventions=conventions)


def _join(parts: list[str]) -> str:
    if len(parts) <= 2:
        return " and ".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


__all__ = ["COLUMNS", "LABELS", "SWITCHES", "Edit", "ListItem", "Playground",
           "Scenario", "add_item", "convention_values", "describe_change", "move",
           "playground_values", "remove_item", "scenarios", "set_beyond", "set_grade",
           "set_option", "swap", "textbook"]
