"""One model's output ordered per user under a tie rule and matched against a ground truth.

:class:`RankedRun` is built from what :mod:`rankmetrics.io` read and checked: users as integer
codes, items as hashes unique within each list. A run's distinct users are looked up once in
the ground truth's (with Arrow's hash tables), lists are ordered with integer sorts, and items
are matched within each user by hash (:mod:`rankmetrics.prepared.matching`); item text is read again
only to confirm matches and to break ties in score by item id.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rankmetrics.conventions import IDENTICAL_IDS, TIES
from rankmetrics.io import HashedIds, LoadedTable, hash_text, run_codes, run_from_dataframe
from rankmetrics.prepared.ground_truth import GroundTruth, named_columns
from rankmetrics.prepared.matching import judged_items
from rankmetrics.prepared.row_order import Reordered

if TYPE_CHECKING:
    from rankmetrics.io._ids import Ids

EXAMPLES_SHOWN = 3


@dataclass(frozen=True)
class RankedRun:
    """One model's output ordered per user and matched against a ground truth.

    Attributes
    ----------
    lengths : int array (n_truth_users,)
        How many items the model ranked for each ground-truth user (0 when it has no list).
    present : bool array (n_truth_users,)
        Whether the model's output contains the user at all.
    judged_user, judged_rank, judged_row : int arrays
        For every ranked item with a ground-truth row: the user, its 0-based rank and the
        ground-truth row, sorted by user, then rank (so a block of users is one contiguous
        slice, and each user's judged items come in ranked order). int32 below 2**31 rows
        of the run and of the ground truth, else int64.
    unknown_users : int
        Users in the model's output that the ground truth does not have (left out).
    unknown_user_examples : tuple of str
    ties : str
        The tie rule the order was made with.
    identical_ids : str
        ``"drop"`` when items whose id is the user's id were dropped from the lists (the
        items below them moved up one rank), else ``"keep"``.
    """

    lengths: np.ndarray
    present: np.ndarray
    judged_user: np.ndarray
    judged_rank: np.ndarray
    judged_row: np.ndarray
    unknown_users: int
    unknown_user_examples: tuple[str, ...]
    ties: str
    identical_ids: str = "keep"

    @classmethod
    def from_loaded(
        cls, run: LoadedTable, truth: GroundTruth, *, ties: str = "item_desc",
        identical_ids: str = "keep",
    ) -> RankedRun:
        """Order a run read by :func:`rankmetrics.io.read_run` (or checked by
        :func:`rankmetrics.io.run_from_dataframe`): per user by score descending, ties broken
        by ``ties``; with ``identical_ids="drop"``, an item whose id is the user's id is
        left out of that user's list."""
        _check_rules(ties, identical_ids)
        ordered = order_rows(run, truth, ties)
        items, order = ordered.items, ordered.order
        block_starts, block_user = ordered.starts, ordered.block_user
        lengths = np.zeros(truth.n_users, dtype=np.int64)
        lengths[block_user] = np.diff(block_starts)
        judged_user, judged_rank, judged_row = judged_items(block_starts, block_user, order,
                                                            items, truth)
        ranked = cls(
            lengths=lengths,
            present=lengths > 0,
            judged_user=judged_user,
            judged_rank=judged_rank,
            judged_row=judged_row,
            unknown_users=ordered.unknown_users,
            unknown_user_examples=ordered.unknown_user_examples,
            ties=ties,
        )
        return ranked if identical_ids == "keep" else _without_own_items(ranked, run, ordered)

    @classmethod
    def from_frame(
        cls, table: pd.DataFrame | LoadedTable, truth: GroundTruth, *, ties: str = "item_desc",
        identical_ids: str = "keep",
    ) -> RankedRun:
        """Order a table with columns ``user``, ``item``, ``score`` (higher is better), or a
        read run.

        The table is checked as :func:`rankmetrics.io.run_from_dataframe` checks it: a
        repeated (user, item) pair is an error naming the rows.
        """
        if isinstance(table, LoadedTable):
            return cls.from_loaded(table, truth, ties=ties, identical_ids=identical_ids)
        _check_rules(ties, identical_ids)
        columns = named_columns(table, "score")
        if len(table) == 0 and columns is not None:
            return cls.nothing_ranked(truth, ties=ties, identical_ids=identical_ids)
        loaded = run_from_dataframe(table, name="model output",
                                    columns=columns)
        return cls.from_loaded(loaded, truth, ties=ties, identical_ids=identical_ids)

    @classmethod
    def nothing_ranked(cls, truth: GroundTruth, *, ties: str = "item_desc",
                       identical_ids: str = "keep") -> RankedRun:
        """A model that recommended nothing to anyone (an empty output table)."""
        nothing = np.zeros(0, dtype=np.int64)
        return cls(
            lengths=np.zeros(truth.n_users, dtype=np.int64),
            present=np.zeros(truth.n_users, dtype=bool),
            judged_user=nothing, judged_rank=nothing, judged_row=nothing,
            unknown_users=0, unknown_user_examples=(), ties=ties, identical_ids=identical_ids,
        )


def _check_rules(ties: str, identical_ids: str) -> None:
    if ties not in TIES:
        raise ValueError(f"ties must be one of {', '.join(TIES)}. Got {ties!r} instead.")
    if identical_ids not in IDENTICAL_IDS:
        raise ValueError(f"identical_ids must be one of {', '.join(IDENTICAL_IDS)}. Got "
                         f"{identical_ids!r} instead.")


def own_item_rows(users: Ids, items: HashedIds) -> np.ndarray:
    """The rows whose item id is the row's user id (each match found by hash, then
    confirmed by the text)."""
    names = users.values if pa.types.is_string(users.values.type) else pc.cast(
        users.values, pa.string())
    codes = users.codes
    if len(codes) == 0 or len(names) == 0:
        return np.zeros(0, dtype=np.int64)
    user_hashes = hash_text(names, items.seed)
    candidates = np.flatnonzero((codes >= 0) & (user_hashes[np.maximum(codes, 0)]
                                                == items.hashes))
    if not len(candidates):
        return candidates
    same = pc.equal(names.take(pa.array(codes[candidates])),
                    pc.cast(items.rows(candidates), pa.string()))
    return candidates[pc.fill_null(same, False).to_numpy(zero_copy_only=False)]


def has_own_items(run: LoadedTable) -> bool:
    """Whether some row's item id is its user's id."""
    users, items, _ = run_codes(run)
    return len(own_item_rows(users, items)) > 0


def _without_own_items(ranked: RankedRun, run: LoadedTable, ordered: OrderedRows) -> RankedRun:
    """``ranked`` with each user's item whose id is the user's id left out of the list: its
    judged entry goes, the items below it move up one rank, the list is one item shorter
    (the user still counts as one the model returned a list for)."""
    users, items, _ = run_codes(run)
    own = own_item_rows(users, items)
    ranked = replace(ranked, identical_ids="drop")
    order = ordered.order
    if not len(own):
        return ranked
    if order is None:
        positions = own
    elif isinstance(order, Reordered):
        positions = own.copy()
        by_row = np.argsort(order.rows, kind="stable")
        found = np.minimum(np.searchsorted(order.rows[by_row], own), max(len(by_row) - 1, 0))
        moved = (order.rows[by_row][found] == own) if len(by_row) else np.zeros(len(own), bool)
        positions[moved] = order.positions[by_row[found[moved]]]
        # a row that moved left its own position to another; a row in place keeps its own
    else:
        positions = np.flatnonzero(np.isin(order, own))
    positions = np.sort(positions)
    list_number = np.searchsorted(ordered.starts, positions, side="right") - 1
    inside = (list_number >= 0) & (list_number < len(ordered.block_user))
    positions, list_number = positions[inside], list_number[inside]
    user = ordered.block_user[list_number]
    own_rank = np.full(len(ranked.lengths), -1, dtype=np.int64)
    own_rank[user] = positions - ordered.starts[list_number]
    at = own_rank[ranked.judged_user]
    keep = ranked.judged_rank != at
    shift = ((at >= 0) & (ranked.judged_rank > at))[keep]
    lengths = ranked.lengths.copy()
    lengths[user] -= 1
    return replace(
        ranked, lengths=lengths,
        judged_user=ranked.judged_user[keep],
        judged_rank=(ranked.judged_rank[keep] - shift).astype(ranked.judged_rank.dtype),
        judged_row=ranked.judged_row[keep])


@dataclass(frozen=True)
class OrderedRows:
    """A run's rows of ground-truth users, best first, users' lists one after another.

    ``order`` lists the rows (None: the rows are in that order already); list b is the
    listed rows ``starts[b]:starts[b + 1]``, of ground-truth user ``block_user[b]``. Users
    the ground truth does not have are left out and counted.
    """

    items: HashedIds
    order: np.ndarray | Reordered | None
    starts: np.ndarray
    block_user: np.ndarray
    unknown_users: int
    unknown_user_examples: tuple[str, ...]


def order_rows(run: LoadedTable, truth: GroundTruth, ties: str) -> OrderedRows:
    """Order a read run per ground-truth user by score descending, ties broken by ``ties``
    (what :class:`RankedRun` and every reader of whole lists share).

    When each user's rows are together and in score order (a model's output as most write
    it), the lists are found from where each user's rows begin, without a user per row;
    only ties are then reordered.
    """
    if run.kind != "run":
        raise ValueError(f"RankedRun needs a model's output; {run.name!r} is a {run.kind}.")
    users, items, run = run_codes(run)
    truth_user = _positions_in(users.values, truth.user_ids)
    unknown = np.flatnonzero(truth_user < 0)
    examples = tuple(users.values.take(pa.array(unknown[:EXAMPLES_SHOWN])).to_pylist())
    scores = run.numbers()
    tie_keys = _ItemText(items)
    starts = users.run_starts()
    block_user = truth_user[users.codes_at(starts[:-1])].astype(np.int64)
    if not len(unknown) and _in_lists(starts, block_user, scores):
        moves = _tie_order(starts, scores, tie_keys, ties)
        return OrderedRows(items, moves, starts, block_user, len(unknown), examples)
    row_user = users.lookup(truth_user)
    if len(unknown):
        kept = np.flatnonzero(row_user >= 0)
        ranked = rank_order(row_user[kept], scores[kept], tie_keys, kept, ties)
        order = kept if ranked is None else kept[ranked]
    else:
        order = rank_order(row_user, scores, tie_keys, None, ties)
    ordered_user = row_user if order is None else row_user[order]
    del row_user
    starts = _run_starts(ordered_user)
    block_user = ordered_user[starts[:-1]].astype(np.int64)
    return OrderedRows(items, order, starts, block_user, len(unknown), examples)


def _in_lists(starts: np.ndarray, block_user: np.ndarray, scores: np.ndarray) -> bool:
    """Whether each user's rows are together (one run each) and in descending score order
    (``rank_order`` leaves such rows in place but for ties)."""
    if len(block_user) and np.bincount(block_user).max() > 1:
        return False
    rising = scores[1:] > scores[:-1]
    rising[starts[1:-1] - 1] = False  # the last row of one list and the first of the next
    return not rising.any()


def _tie_order(starts: np.ndarray, scores: np.ndarray, items: _ItemText,
               ties: str) -> Reordered | None:
    """:func:`rank_order` of rows already in lists (see :func:`_in_lists`): only tied rows
    move, so the order is held as those moves; None when no row moves."""
    if ties == "input" or len(scores) < 2:
        return None
    tied_with_next = scores[1:] == scores[:-1]
    tied_with_next[starts[1:-1] - 1] = False
    if not tied_with_next.any():
        return None
    positions, group = _tie_groups(tied_with_next)
    moved = positions[_sorted_ties(group, items.numbers(positions), ties)]
    return Reordered(len(scores), positions, moved)


def _starts_group(positions: np.ndarray, tied_with_next: np.ndarray) -> np.ndarray:
    """Whether each tied row (at ``positions``, in order) starts a group of tied rows: it is
    not tied with the row before it."""
    starts = np.ones(len(positions), dtype=bool)
    later = positions > 0
    starts[later] = ~tied_with_next[positions[later] - 1]
    return starts


def _positions_in(values: pa.Array, among: pa.Array) -> np.ndarray:
    """Each value's position in ``among`` (distinct ids), -1 where it is not there."""
    found = pc.index_in(values, value_set=among)
    return pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int32)


def _run_starts(values: np.ndarray) -> np.ndarray:
    """Where each run of equal consecutive values starts, then ``len(values)``."""
    if len(values) == 0:
        return np.zeros(1, dtype=np.int64)
    changes = np.flatnonzero(values[1:] != values[:-1]) + 1
    return np.concatenate([[0], changes, [len(values)]]).astype(np.int64)


class _ItemText:
    """The item ids of given rows, as text (only ties in score read them)."""

    def __init__(self, items: HashedIds) -> None:
        self.items = items

    def __getitem__(self, rows: np.ndarray) -> pa.Array:
        return self.items.rows(rows)

    def numbers(self, rows: np.ndarray) -> tuple[np.ndarray, int]:
        """Each given row's id numbered in sorted order (see :func:`_id_numbers`). Ids that
        came numbered (dictionary-encoded Parquet) are numbered by their codes: the distinct
        ids are sorted once, no row's text is read. (A dictionary may hold an id twice; its
        copies get neighbouring numbers, so ids that differ keep their order, and one list
        never holds an id twice.)"""
        numbered = self.items.numbered
        if self.items.written is not None or numbered is None:
            return _id_numbers(self.items.rows(rows))
        values = numbered.values
        place = np.empty(len(values), dtype=np.int64)
        place[pc.sort_indices(values).to_numpy()] = np.arange(len(values))
        return place[numbered.codes[rows]], len(values)


def rank_order(
    row_user: np.ndarray,
    scores: np.ndarray,
    items: pd.Series | np.ndarray | _ItemText,
    rows: np.ndarray | None,
    ties: str,
) -> np.ndarray | None:
    """Positions (into the given arrays) ordering rows by user, score descending, tie rule;
    None when the rows are in that order already.

    Rows already grouped by user in descending score order are left in place; otherwise a
    stable sort keeps the input order among equal scores. Ties are then broken by item id
    where asked, sorting only the tied rows. ``items`` gives each row's item id (or a value
    that sorts as the id does); ``rows`` maps positions to rows of ``items`` (None: the same).
    """
    n_rows = len(row_user)
    if n_rows == 0:
        return None
    same_user = row_user[1:] == row_user[:-1]
    block_users = row_user[np.concatenate([[0], np.flatnonzero(~same_user) + 1])]
    grouped = np.bincount(block_users).max() <= 1  # (users are known: row_user >= 0)
    rising = scores[1:] > scores[:-1]
    rising &= same_user
    order = None
    if not grouped or rising.any():
        order = np.lexsort((-scores, row_user))
        user_sorted = row_user[order]
        same_user = user_sorted[1:] == user_sorted[:-1]
        del user_sorted
    del rising
    if ties == "input":
        return order
    score_sorted = scores if order is None else scores[order]
    tied_with_next = score_sorted[1:] == score_sorted[:-1]
    tied_with_next &= same_user
    if not tied_with_next.any():
        return order
    if order is None:
        order = np.arange(n_rows, dtype=np.int64)
    return _break_ties(order, tied_with_next, items, rows, ties)


def _break_ties(
    order: np.ndarray, tied_with_next: np.ndarray, items: pd.Series | np.ndarray | _ItemText,
    rows: np.ndarray | None, ties: str,
) -> np.ndarray:
    """``order`` with each group of tied rows (``tied_with_next[i]``: the rows at positions i
    and i + 1 tie) sorted by item id as ``ties`` says, in place (and returned)."""
    positions, group = _tie_groups(tied_with_next)
    tied_rows = order[positions] if rows is None else rows[order[positions]]
    if isinstance(items, _ItemText):
        numbers = items.numbers(tied_rows)
    else:
        numbers = _id_numbers(items.iloc[tied_rows].to_numpy() if isinstance(items, pd.Series)
                              else items[tied_rows])
    order[positions] = order[positions][_sorted_ties(group, numbers, ties)]
    return order


def _tie_groups(tied_with_next: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions of the rows tied with a neighbour (``tied_with_next[i]``: the rows at
    positions i and i + 1 tie), and the number of each one's group of tied rows."""
    tied = np.flatnonzero(tied_with_next)
    marked = np.zeros(len(tied_with_next) + 1, dtype=bool)  # (a mask: no sort of 2n values)
    marked[tied] = True
    marked[tied + 1] = True
    positions = np.flatnonzero(marked)
    return positions, np.cumsum(_starts_group(positions, tied_with_next))


def _id_numbers(tied_items: np.ndarray | pa.Array | pa.ChunkedArray
                ) -> tuple[np.ndarray, int]:
    """Each id numbered in sorted order, and how many numbers there are: the distinct ids are
    numbered once (Arrow's hashing and string sort: the order of their UTF-8 bytes, which is
    the order of their code points, as Python's)."""
    items = (tied_items if isinstance(tied_items, (pa.Array, pa.ChunkedArray))
             else pa.array(np.asarray(tied_items).tolist()))
    if isinstance(items, pa.ChunkedArray):
        items = items.combine_chunks()
    encoded = pc.dictionary_encode(items)
    distinct = len(encoded.dictionary)
    position = np.empty(distinct, dtype=np.int64)
    position[pc.sort_indices(encoded.dictionary).to_numpy()] = np.arange(distinct)
    return position[encoded.indices.to_numpy(zero_copy_only=False)], distinct


def _sorted_ties(group: np.ndarray, numbers: tuple[np.ndarray, int], ties: str) -> np.ndarray:
    """Where each tied row goes: groups in order, within a group by item id as ``ties``
    says, from each row's id number (:func:`_id_numbers`, and how many numbers there are):
    the rows are sorted by (group, number), a key each row holds alone (the ids of one list
    differ)."""
    number, distinct = numbers
    if ties != "item_asc":
        number = distinct - 1 - number
    return np.argsort(np.asarray(group, dtype=np.int64) * distinct + number, kind="stable")
