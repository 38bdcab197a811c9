"""What every metric is computed from: judged ranks, gains and their shared sums.

A metric (one module of :mod:`rankmetrics.metrics`) reads its inputs from one of two views:

- :class:`UserBlock`: the ranked lists of a block of users as dense matrices with one row per
  user and one column per rank 1..K, for per-user values at every cutoff at once;
- :class:`JudgedItems`: the judged ranked items of the users a mean is taken over, for sums
  over users without a users x K matrix.

Both compute what several metrics share (hits, precision, discounts, DCG) once, on first use,
so a metric asks for what it needs and pays for nothing else. :func:`judge` turns ratings into
grades, relevance and gains for the library and for the explanations alike. Nothing here knows
about item ids, files or pandas.

The module is longer than most because it is one concept: the two views share their cached
intermediates' names and meaning, and every metric module reads only them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from rankmetrics.beyond import ItemFacts
from rankmetrics.conventions import Conventions
from rankmetrics.relevance import RelevanceMapping

#: Each user's ideal-list number and the ideal gains of each distinct list, or None.
IdealLists = tuple[np.ndarray, np.ndarray] | None


def discounts(max_cutoff: int, kind: str = "shifted") -> np.ndarray:
    """The DCG discount of each rank i = 1..max_cutoff: 1 / log2(i + 1) (``shifted``), or
    1 / log2(max(i, 2)) (``clipped``, the first two ranks alike).

    >>> discounts(3).round(4).tolist(), discounts(3, "clipped").round(4).tolist()
    ([1.0, 0.6309, 0.5], [1.0, 1.0, 0.6309])
    """
    ranks = np.arange(1, max_cutoff + 1, dtype=np.float64)
    if kind == "clipped":
        return 1.0 / np.log2(np.maximum(ranks, 2.0))
    return 1.0 / np.log2(ranks + 1.0)


def gain_of(grades: np.ndarray, gain: str) -> np.ndarray:
    """The DCG gain of each grade: ``2**g - 1`` (exponential) or ``g`` (linear).

    Grades below 0 (trec_eval's "junk" judgments, -1) give no gain.

    >>> gain_of(np.array([0.0, 1.0, 3.0, -1.0]), "exponential").tolist()
    [0.0, 1.0, 7.0, 0.0]
    """
    positive = np.maximum(np.asarray(grades, dtype=np.float64), 0.0)
    if gain == "exponential":
        return np.exp2(positive) - 1.0
    return positive


@dataclass(frozen=True)
class Judgments:
    """The grade, relevance and DCG gain of each rating."""

    grades: np.ndarray
    relevant: np.ndarray
    gains: np.ndarray


def judge(
    ratings: np.ndarray, relevance: RelevanceMapping, conventions: Conventions
) -> Judgments:
    """Grades (by the relevance mapping), relevance (grade >= its threshold) and DCG gains
    (by the gain convention, none below the threshold with ``threshold_gains``) of ratings.

    A NaN rating (an item without ground truth) has grade 0, is not relevant and gives no
    gain.

    >>> j = judge(np.array([5.0, 3.0, np.nan]), RelevanceMapping.graded({5: 3, 3: 1}, 2),
    ...           Conventions(threshold_gains=True))
    >>> j.grades.tolist(), j.relevant.tolist(), j.gains.tolist()
    ([3.0, 1.0, 0.0], [True, False, False], [7.0, 0.0, 0.0])
    """
    ratings = np.asarray(ratings, dtype=np.float64)
    unjudged = np.flatnonzero(np.isnan(ratings))
    grades = relevance.grades(ratings)
    grades[unjudged] = 0.0
    relevant = relevance.is_relevant(grades)
    relevant[unjudged] = False
    gains = gain_of(grades, conventions.gain)
    if conventions.threshold_gains:
        gains = np.where(relevant, gains, 0.0)
    return Judgments(grades, relevant, gains)


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


class UserBlock:
    """The ranked lists of a block of users at ranks 1..``width``, for per-user values.

    Parameters
    ----------
    user, rank : int arrays (n_entries,)
        The judged ranked items of the block: user (0..n_users-1 within the block, sorted)
        and 0-based rank, at any rank (R-Precision looks beyond the cutoffs).
    relevant : bool array (n_entries,)
    gain : float array (n_entries,)
        DCG gain of each item.
    n_relevant : int array (n_users,)
        |R|: relevant items in each user's ground truth.
    width : int
        K, the largest cutoff.
    ideal_gains : callable returning a float array (n_users, width), optional
        Each user's ground-truth gains sorted descending (read only by NDCG with the
        ground-truth ideal).
    top_items : callable returning an int array (n_users, width), optional
        Each user's first ``width`` recommended items as item codes, -1 past a list's end
        (read only by the beyond-accuracy metrics, with ``item_facts``).
    item_facts : ItemFacts, optional
        What is known about each item code (:func:`rankmetrics.beyond.prepare_beyond`).
    first_user : int, default 0
        The ground-truth number of the block's first user (where the block's users are in
        per-user tables such as the training histories of ``item_facts``).

    Examples
    --------
    >>> block = UserBlock(np.array([0, 0]), np.array([0, 2]), np.array([True, True]),
    ...                   np.array([1.0, 1.0]), np.array([5]), 4)
    >>> block.hits.tolist(), block.precision.round(2).tolist()
    ([[1, 1, 2, 2]], [[1.0, 0.5, 0.67, 0.5]])
    """

    def __init__(
        self,
        user: np.ndarray,
        rank: np.ndarray,
        relevant: np.ndarray,
        gain: np.ndarray,
        n_relevant: np.ndarray,
        width: int,
        ideal_gains: Callable[[], np.ndarray] | None = None,
        *,
        top_items: Callable[[], np.ndarray] | None = None,
        item_facts: ItemFacts | None = None,
        n_judged: np.ndarray | None = None,
        grade: np.ndarray | None = None,
        max_grade: float | None = None,
        judged: np.ndarray | None = None,
        lengths: np.ndarray | None = None,
        first_user: int = 0,
    ) -> None:
        self.user, self.rank, self.relevant, self.gain = user, rank, relevant, gain
        self.first_user = first_user
        self.n_relevant = n_relevant
        self.n_users, self.width = len(n_relevant), width
        self._n_judged = n_judged
        self._grade, self._max_grade = grade, max_grade
        #: Whether each entry's ground-truth row is a judgment (a grade of 0 or more; every
        #: entry when not given).
        self.judged = np.ones(len(user), dtype=bool) if judged is None else judged
        self._lengths = lengths
        self._ideal_gains = ideal_gains
        self._top_items = top_items
        self._item_facts = item_facts

    @cached_property
    def cutoffs(self) -> np.ndarray:
        """1..K as floats."""
        return np.arange(1, self.width + 1, dtype=np.float64)

    @cached_property
    def n_relevant_column(self) -> np.ndarray:
        """|R| as a float column (n_users, 1)."""
        return self.n_relevant.astype(np.float64)[:, None]

    @cached_property
    def _within(self) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
        """(user, rank) of the items ranked within the first K, and which entries they are."""
        within = self.rank < self.width
        return (self.user[within], self.rank[within]), within

    @property
    def n_judged(self) -> np.ndarray:
        """Each user's ground-truth items (judged, relevant or not): int (n_users,)."""
        return _judged_counts(self._n_judged)

    @property
    def grades(self) -> tuple[np.ndarray, float]:
        """Each entry's grade, and the highest grade ERR divides by."""
        return _graded(self._grade, self._max_grade)

    @property
    def lengths(self) -> np.ndarray:
        """How many items each user's list holds: int (n_users,)."""
        if self._lengths is None:
            raise ValueError("This block of users was made without their lists' lengths.")
        return self._lengths

    @cached_property
    def judged_matrix(self) -> np.ndarray:
        """Whether the item at each rank has a judgment: bool (n_users, K)."""
        at, within = self._within
        matrix = np.zeros((self.n_users, self.width), dtype=bool)
        matrix[at] = self.judged[within]
        return matrix

    def at_ranks(self, weights: np.ndarray) -> np.ndarray:
        """Each entry's weight at its user and rank within the first K, 0 elsewhere: float
        (n_users, K)."""
        at, within = self._within
        matrix = np.zeros((self.n_users, self.width), dtype=np.float64)
        matrix[at] = weights[within]
        return matrix

    @cached_property
    def relevant_matrix(self) -> np.ndarray:
        """Whether the item at each rank is relevant: bool (n_users, K)."""
        at, within = self._within
        matrix = np.zeros((self.n_users, self.width), dtype=bool)
        matrix[at] = self.relevant[within]
        return matrix

    @cached_property
    def gain_matrix(self) -> np.ndarray:
        """The DCG gain at each rank (0 for unjudged items and past a list's end)."""
        at, within = self._within
        matrix = np.zeros((self.n_users, self.width), dtype=np.float64)
        matrix[at] = self.gain[within]
        return matrix

    @cached_property
    def ideal_gain_matrix(self) -> np.ndarray:
        """Each user's ground-truth gains sorted descending, ranks 1..K."""
        if self._ideal_gains is None:
            raise ValueError("This block of users was made without their ideal lists.")
        return self._ideal_gains()

    @cached_property
    def top_items(self) -> np.ndarray:
        """Each user's recommended items at ranks 1..K as item codes (-1: no item)."""
        if self._top_items is None:
            raise ValueError("This block of users was made without their whole lists.")
        return self._top_items()

    @property
    def item_facts(self) -> ItemFacts:
        """What is known about each item code."""
        return _facts(self._item_facts)

    @cached_property
    def hits(self) -> np.ndarray:
        """Relevant items within the first k ranks, for every k: int (n_users, K)."""
        return np.cumsum(self.relevant_matrix, axis=1, dtype=np.int64)

    @cached_property
    def precision(self) -> np.ndarray:
        """hits / k."""
        return self.hits / self.cutoffs

    @cached_property
    def discounts(self) -> np.ndarray:
        """1 / log2(i + 1) for ranks i = 1..K."""
        return discounts(self.width)

    @cached_property
    def dcg(self) -> np.ndarray:
        """DCG at every cutoff: float (n_users, K)."""
        return np.cumsum(self.gain_matrix * self.discounts, axis=1)

    def discounts_of(self, kind: str) -> np.ndarray:
        """The discounts of ranks 1..K of the ``discount`` convention ``kind``."""
        return self.discounts if kind == "shifted" else discounts(self.width, kind)

    def dcg_of(self, kind: str) -> np.ndarray:
        """DCG at every cutoff with the discount ``kind``: float (n_users, K)."""
        if kind == "shifted":
            return self.dcg
        return np.cumsum(self.gain_matrix * self.discounts_of(kind), axis=1)


class JudgedItems:
    """The judged ranked items of the users a mean is taken over, for sums over users.

    Parameters
    ----------
    user, rank, row : int arrays (n_entries,)
        Every ranked item that has a ground-truth judgment: its user, its 0-based rank (any
        rank) and its row in the ground truth; sorted by user, then rank.
    counted : bool array (n_users,)
        The users to sum over.
    truth_relevant, truth_gain : arrays over the ground-truth rows
        Whether each judged item is relevant, and its DCG gain.
    n_relevant : int array (n_users,)
        |R| of every user.
    max_cutoff : int
    ideal_lists : callable returning :data:`IdealLists`, optional
        Each user's ideal-list number and the ideal gains of each distinct list (read only
        by NDCG with the ground-truth ideal), or None when they are too many.
    top_items : callable returning an int array (n_users, at most max_cutoff), optional
        Every user's recommended items as item codes, -1 past a list's end, as far as the
        longest list (read only by the beyond-accuracy metrics, with ``item_facts``).
    item_facts : ItemFacts, optional
    item_rank_sums : callable returning a float array (ranks, 3), optional
        At each rank of ``top_items``, the sum over the counted users of the popularity,
        long-tail membership and self-information of the item there (see
        :func:`rankmetrics.metrics.rank_sums`).

    The attributes ``user``, ``rank``, ``relevant`` and ``gain`` hold the counted users'
    items ranked within max_cutoff; each is gathered on first use.

    Examples
    --------
    >>> items = JudgedItems(np.array([0, 0, 1]), np.array([0, 2, 1]), np.arange(3),
    ...                     np.array([True, True]), np.array([True, True, True]), np.ones(3),
    ...                     np.array([5, 2]), 3)
    >>> items.hit_rank[items.first_hit].tolist()  # user 0's first hit, user 1's first hit
    [0, 1]
    >>> items.accumulated(items.hit_rank).tolist()  # hits at K = 1, 2, 3, over both users
    [1.0, 2.0, 3.0]
    """

    def __init__(
        self,
        user: np.ndarray,
        rank: np.ndarray,
        row: np.ndarray,
        counted: np.ndarray,
        truth_relevant: np.ndarray,
        truth_gain: np.ndarray,
        n_relevant: np.ndarray,
        max_cutoff: int,
        ideal_lists: Callable[[], IdealLists] | None = None,
        *,
        top_items: Callable[[], np.ndarray] | None = None,
        item_facts: ItemFacts | None = None,
        item_rank_sums: Callable[[], np.ndarray] | None = None,
        n_judged: np.ndarray | None = None,
        truth_grade: np.ndarray | None = None,
        max_grade: float | None = None,
        truth_judged: np.ndarray | None = None,
        lengths: np.ndarray | None = None,
    ) -> None:
        self._every = (user, rank, row)
        self._n_judged = n_judged
        self._truth_grade, self._max_grade = truth_grade, max_grade
        self._truth_judged, self._lengths = truth_judged, lengths
        #: Which users the sums are over.
        self.counted = counted
        self._top_items = top_items
        self._item_facts = item_facts
        self._item_rank_sums = item_rank_sums
        self._truth_relevant, self._truth_gain = truth_relevant, truth_gain
        self.n_relevant = n_relevant
        self.max_cutoff = max_cutoff
        self._ideal_lists = ideal_lists

    @cached_property
    def _of_counted_users(self) -> np.ndarray:
        return self.counted[self._every[0]]

    @cached_property
    def _within(self) -> np.ndarray:
        return self._of_counted_users & (self._every[1] < self.max_cutoff)

    @cached_property
    def user(self) -> np.ndarray:
        """The user of each item ranked within max_cutoff."""
        return _selected(self._every[0], self._within)

    @cached_property
    def rank(self) -> np.ndarray:
        """The 0-based rank of each item ranked within max_cutoff."""
        return _selected(self._every[1], self._within)

    @cached_property
    def _row(self) -> np.ndarray:
        return _selected(self._every[2], self._within)

    @cached_property
    def relevant(self) -> np.ndarray:
        """Whether each item ranked within max_cutoff is relevant."""
        return self._truth_relevant[self._row]

    @cached_property
    def gain(self) -> np.ndarray:
        """The DCG gain of each item ranked within max_cutoff."""
        return self._truth_gain[self._row]

    @cached_property
    def uncut(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(user, rank, relevant) of the counted users' items at every rank, max_cutoff or
        beyond (R-Precision reads the first |R| ranks, however many)."""
        user, rank, row = (_selected(column, self._of_counted_users) for column in self._every)
        return user, rank, self._truth_relevant[row]

    @property
    def n_judged(self) -> np.ndarray:
        """Every user's ground-truth items (judged, relevant or not): int (n_users,)."""
        return _judged_counts(self._n_judged)

    @cached_property
    def judged(self) -> np.ndarray:
        """Whether each item ranked within max_cutoff has a judgment (a grade of 0 or more;
        every item when not given)."""
        if self._truth_judged is None:
            return np.ones(len(self.rank), dtype=bool)
        return self._truth_judged[self._row]

    @property
    def lengths(self) -> np.ndarray:
        """How many items each user's list holds: int (n_users,)."""
        if self._lengths is None:
            raise ValueError("These items were gathered without the lists' lengths.")
        return self._lengths

    @property
    def grades(self) -> tuple[np.ndarray, float]:
        """The grade of each item ranked within max_cutoff, and the highest grade ERR
        divides by."""
        grades, highest = _graded(self._truth_grade, self._max_grade)
        return grades[self._row], highest

    @cached_property
    def ideal_lists(self) -> IdealLists:
        """See the ``ideal_lists`` parameter; None when not given."""
        return None if self._ideal_lists is None else self._ideal_lists()

    @cached_property
    def top_items(self) -> np.ndarray:
        """Every user's recommended items as item codes (see the parameter)."""
        if self._top_items is None:
            raise ValueError("These items were gathered without the whole lists.")
        return self._top_items()

    @property
    def item_facts(self) -> ItemFacts:
        """What is known about each item code."""
        return _facts(self._item_facts)

    @cached_property
    def item_rank_sums(self) -> np.ndarray:
        """See the ``item_rank_sums`` parameter."""
        if self._item_rank_sums is None:
            raise ValueError("These items were gathered without the sums of item values.")
        return self._item_rank_sums()

    @cached_property
    def cutoffs(self) -> np.ndarray:
        """1..K as floats."""
        return np.arange(1, self.max_cutoff + 1, dtype=np.float64)

    @cached_property
    def hit_user(self) -> np.ndarray:
        """The user of each relevant item."""
        return self.user[self.relevant]

    @cached_property
    def hit_rank(self) -> np.ndarray:
        """The rank of each relevant item."""
        return self.rank[self.relevant]

    @cached_property
    def hit_n_relevant(self) -> np.ndarray:
        """|R| of the user of each relevant item."""
        return self.n_relevant[self.hit_user]

    @cached_property
    def first_hit(self) -> np.ndarray:
        """Whether each relevant item is its user's first."""
        first = np.ones(len(self.hit_user), dtype=bool)
        np.not_equal(self.hit_user[1:], self.hit_user[:-1], out=first[1:])
        return first

    @cached_property
    def n_users(self) -> int:
        """Every ground-truth user (counted or not)."""
        return len(self.n_relevant)

    @cached_property
    def hits_of_users(self) -> np.ndarray:
        """Each user's relevant items within max_cutoff: int (n_users,)."""
        return np.bincount(self.hit_user, minlength=self.n_users)

    @cached_property
    def nth_hit(self) -> np.ndarray:
        """How many relevant items of its user each relevant item is (1 for the first)."""
        position = np.arange(len(self.hit_rank))
        return position - np.maximum.accumulate(np.where(self.first_hit, position, 0)) + 1

    def of_users(self, users: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Each user's weights added up in rank order: float (n_users,)."""
        return np.bincount(users, weights=weights, minlength=self.n_users).astype(
            np.float64, copy=False)

    def accumulated(self, ranks: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """Sum of the weights (1 each by default) of the entries at ranks below each cutoff
        1..K."""
        k = self.max_cutoff
        return np.cumsum(np.bincount(ranks, weights=weights, minlength=k)[:k], dtype=np.float64)

    def accumulated_per_relevant(
        self, ranks: np.ndarray, weights: np.ndarray | None, n_relevant: np.ndarray
    ) -> np.ndarray:
        """Sum of ``weight / |R|`` over the entries at ranks below each cutoff 1..K.

        The weights are summed per value of |R| first and divided once, so a perfect list
        (its user's weights add up to |R| exactly) gives exactly 1, where adding 1/|R| |R|
        times would not (ten times 0.1 is not 1.0 in floating point).
        """
        k = self.max_cutoff
        if len(ranks) == 0:
            return np.zeros(k)
        present = np.bincount(n_relevant) > 0
        values = np.flatnonzero(present)
        if len(values) * k > MAX_RELEVANT_CELLS:  # very many distinct |R|: one division each
            divided = 1.0 / n_relevant if weights is None else weights / n_relevant
            return np.cumsum(np.bincount(ranks, weights=divided, minlength=k)[:k])
        group = (np.cumsum(present) - 1)[n_relevant]
        table = np.bincount(group * k + ranks, weights=weights, minlength=len(values) * k
                            ).astype(np.float64, copy=False).reshape(len(values), k)
        np.cumsum(table, axis=1, out=table)
        return (table / values[:, None]).sum(axis=0)


    def accumulated_per_min_k_relevant(
        self, ranks: np.ndarray, weights: np.ndarray, n_relevant: np.ndarray
    ) -> np.ndarray:
        """Sum of ``weight / min(K, |R|)`` over the entries at ranks below each cutoff 1..K:
        an entry at rank r (0-based) adds its weight at each K > r, divided by K while
        K <= |R| and by |R| from K = |R| + 1 on."""
        k = self.max_cutoff
        divided_by_k = ranks < n_relevant  # K = r + 1 .. |R|: added at r, removed at |R|
        change = np.bincount(ranks[divided_by_k], weights=weights[divided_by_k],
                             minlength=k + 1)[:k + 1]
        change -= np.bincount(np.minimum(n_relevant[divided_by_k], k),
                              weights=weights[divided_by_k], minlength=k + 1)[:k + 1]
        from_rank = np.maximum(ranks, n_relevant)  # K - 1 >= max(r, |R|)
        later = from_rank < k
        return np.cumsum(change)[:k] / self.cutoffs + self.accumulated_per_relevant(
            from_rank[later], weights[later], n_relevant[later])


def _graded(grades: np.ndarray | None, highest: float | None) -> tuple[np.ndarray, float]:
    if grades is None or highest is None:
        raise ValueError("These users were gathered without their grades.")
    return grades, highest


def grades_within(grades: np.ndarray, highest: float, metric: str) -> np.ndarray:
    """The grades, those below 0 as 0, refused when one is above the highest grade g_max
    that ``metric`` (ERR, graded RBP) divides by.

    >>> grades_within(np.array([-1.0, 2.0]), 3.0, "ERR").tolist()
    [0.0, 2.0]
    """
    grades = np.maximum(np.asarray(grades, dtype=np.float64), 0.0)
    if len(grades) and grades.max() > highest:
        top = grades.max()
        raise ValueError(
            f"{metric}'s highest grade g_max = {highest:g} is below a grade of the ground "
            f"truth ({top:g}), which would count for more than a perfect item: set max_grade "
            f"(--max-grade) to at least {top:g}, or leave it out to use the highest grade of "
            "the relevance mapping.")
    return grades


def _judged_counts(counts: np.ndarray | None) -> np.ndarray:
    if counts is None:
        raise ValueError("These users were gathered without their numbers of judged items.")
    return counts


def nonrelevant_above(user: np.ndarray, nonrelevant: np.ndarray) -> np.ndarray:
    """For each entry (sorted by user, then rank), how many entries of its user marked
    ``nonrelevant`` are ranked above it.

    >>> nonrelevant_above(np.array([0, 0, 0, 1, 1]),
    ...                   np.array([True, False, True, True, False])).tolist()
    [0, 1, 1, 0, 1]
    """
    nonrelevant = nonrelevant.astype(np.int64)
    before = np.cumsum(nonrelevant) - nonrelevant  # over every user so far
    first = np.ones(len(user), dtype=bool)
    np.not_equal(user[1:], user[:-1], out=first[1:])
    start = np.maximum.accumulate(np.where(first, np.arange(len(user)), 0))
    return before - before[start] if len(user) else before


def _facts(facts: ItemFacts | None) -> ItemFacts:
    if facts is None:
        raise ValueError("The beyond-accuracy metrics need what is known about the items: "
                         "evaluate with interactions=, item_attributes= or catalogue=.")
    return facts


def _selected(column: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``column[keep]``, or the column itself, not a copy, when ``keep`` keeps every entry
    (the usual case: every user counted, every list within max_cutoff; the metrics only
    read these arrays)."""
    return column if keep.all() else column[keep]


#: Most (distinct |R| x cutoffs) cells :meth:`JudgedItems.accumulated_per_relevant` sums in.
MAX_RELEVANT_CELLS = 1 << 22
