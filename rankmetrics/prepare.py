"""Turn long tables into integer arrays once, so every metric, cutoff and mapping is cheap.

:class:`GroundTruth` indexes a ground-truth table (user, item, rating) by user and item.
:class:`RankedRun` orders one model's output (user, item, score) per user under a tie rule
and records, for every recommended item that has a ground-truth row, where it stands: the
user, the rank and the ground-truth row. Relevance mappings and metric conventions are applied
later to these arrays, so changing a threshold does not re-read or re-sort anything.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankmetrics.conventions import TIES
from rankmetrics.errors import DataError

EXAMPLES_SHOWN = 3


def _require_columns(table: pd.DataFrame, needed: tuple[str, ...], what: str) -> None:
    missing = [column for column in needed if column not in table.columns]
    if missing:
        raise DataError(
            f"the {what} table needs the columns {', '.join(needed)}; "
            f"{', '.join(missing)} missing (found: {', '.join(map(str, table.columns))})"
        )


def _ids(values: pd.Series, what: str, column: str) -> pd.Series:
    """Ids as strings; missing ids are an error naming the rows."""
    missing = values.isna().to_numpy()
    if missing.any():
        raise DataError(
            f"{_count_rows(missing)} {what} rows have no {column} id "
            f"(rows {_example_rows(values.index, missing)})",
            column=column,
        )
    if values.dtype == object or isinstance(values.dtype, pd.StringDtype):
        return values
    return values.astype("str")


def _numbers(values: pd.Series, what: str, column: str) -> np.ndarray:
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(numbers)
    if bad.any():
        first = np.flatnonzero(bad)[0]
        raise DataError(
            f"{_count_rows(bad)} {what} rows have a {column} that is not a finite number, "
            f"for example {values.iloc[first]!r} (rows {_example_rows(values.index, bad)})",
            column=column,
        )
    return numbers


def _count_rows(mask: np.ndarray) -> int:
    return int(np.count_nonzero(mask))


def _example_rows(index: pd.Index, mask: np.ndarray) -> str:
    rows = index[np.flatnonzero(mask)[:EXAMPLES_SHOWN]]
    text = ", ".join(str(row) for row in rows)
    rest = _count_rows(mask) - len(rows)
    return text + (f" and {rest} more" if rest > 0 else "")


@dataclass(frozen=True)
class GroundTruth:
    """A ground-truth table indexed for fast lookups.

    Attributes
    ----------
    users : pd.Index
        Every ground-truth user, in order of first appearance; metric rows follow it.
    items : pd.Index
        Every judged item.
    user_index, item_index : int arrays (n_rows,)
        Each ground-truth row's position in ``users`` and ``items``.
    ratings : float array (n_rows,)
        Each row's rating.
    duplicates_dropped : int
        Identical repeated rows that were dropped.
    """

    users: pd.Index
    items: pd.Index
    user_index: np.ndarray
    item_index: np.ndarray
    ratings: np.ndarray
    duplicates_dropped: int
    _sorted_keys: np.ndarray
    _sorted_rows: np.ndarray

    @classmethod
    def from_frame(cls, table: pd.DataFrame) -> GroundTruth:
        """Index a table with columns ``user``, ``item``, ``rating``.

        Repeated (user, item) rows with the same rating are dropped (and counted); with
        different ratings they are an error naming the rows.
        """
        _require_columns(table, ("user", "item", "rating"), "ground-truth")
        if len(table) == 0:
            raise DataError("the ground-truth table has no rows")
        users_column = _ids(table["user"], "ground-truth", "user")
        items_column = _ids(table["item"], "ground-truth", "item")
        ratings = _numbers(table["rating"], "ground-truth", "rating")
        user_index, users = pd.factorize(users_column.array)
        item_index, items = pd.factorize(items_column.array)
        keys = user_index.astype(np.int64) * len(items) + item_index
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        repeat = sorted_keys[1:] == sorted_keys[:-1]
        dropped = 0
        if repeat.any():
            conflict = repeat & (ratings[order][1:] != ratings[order][:-1])
            if conflict.any():
                key = sorted_keys[np.flatnonzero(conflict)[0]]
                rows = table.index[np.flatnonzero(keys == key)]
                n_conflicts = len(np.unique(sorted_keys[1:][conflict]))
                raise DataError(
                    f"user {users[key // len(items)]!r} rates item {items[key % len(items)]!r} "
                    f"more than once with different ratings (rows "
                    f"{', '.join(map(str, rows[:EXAMPLES_SHOWN]))}); {n_conflicts} "
                    "(user, item) pairs conflict in all. Keep one rating per user and item.",
                    column="rating",
                )
            first = np.concatenate([[True], ~repeat])
            dropped = int(np.count_nonzero(~first))
            keep = np.sort(order[first])
            user_index, item_index, ratings = user_index[keep], item_index[keep], ratings[keep]
            keys = keys[keep]
            order = np.argsort(keys, kind="stable")
            sorted_keys = keys[order]
        return cls(
            users=pd.Index(users),
            items=pd.Index(items),
            user_index=user_index.astype(np.int64),
            item_index=item_index.astype(np.int64),
            ratings=ratings,
            duplicates_dropped=dropped,
            _sorted_keys=sorted_keys,
            _sorted_rows=order,
        )

    @property
    def n_users(self) -> int:
        return len(self.users)

    def rows_of_sorted(self, keys: np.ndarray) -> np.ndarray:
        """The ground-truth row of each key ``user * len(items) + item`` (-1 where there is
        none); fastest when ``keys`` is sorted."""
        position = np.searchsorted(self._sorted_keys, keys)
        position[position == len(self._sorted_keys)] = 0
        found = self._sorted_keys[position] == keys
        return np.where(found, self._sorted_rows[position], -1)


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
        ground-truth row, sorted by user (so a block of users is one contiguous slice).
    unknown_users : int
        Users in the model's output that the ground truth does not have (left out).
    unknown_user_examples : tuple of str
    ties : str
        The tie rule the order was made with.
    """

    lengths: np.ndarray
    present: np.ndarray
    judged_user: np.ndarray
    judged_rank: np.ndarray
    judged_row: np.ndarray
    unknown_users: int
    unknown_user_examples: tuple[str, ...]
    ties: str

    @classmethod
    def from_frame(
        cls, table: pd.DataFrame, truth: GroundTruth, *, ties: str = "item_desc"
    ) -> RankedRun:
        """Order a table with columns ``user``, ``item``, ``score`` (higher is better).

        Rows are ranked per user by score descending, ties broken by ``ties``; a repeated
        (user, item) pair is an error naming the rows.
        """
        if ties not in TIES:
            raise ValueError(f"ties must be one of {', '.join(TIES)}. Got {ties!r} instead.")
        _require_columns(table, ("user", "item", "score"), "model output")
        users = _ids(table["user"], "model output", "user")
        items = _ids(table["item"], "model output", "item")
        scores = _numbers(table["score"], "model output", "score")

        row_user, unknown, unknown_examples = _user_of_rows(users, truth.users)
        if unknown:
            kept = np.flatnonzero(row_user >= 0)
            within = _rank_order(row_user[kept], scores[kept], items, kept, ties)
            order = kept if within is None else kept[within]
        else:
            order = _rank_order(row_user, scores, items, None, ties)
        ordered_user = row_user if order is None else row_user[order]
        del row_user
        lengths = np.bincount(ordered_user, minlength=truth.n_users).astype(np.int64)
        # Each user's rows are one contiguous block, in whatever order the users come.
        block_start = np.flatnonzero(np.diff(ordered_user, prepend=-1) != 0)
        starts = np.zeros(truth.n_users, dtype=np.int64)
        starts[ordered_user[block_start]] = block_start
        rank = np.arange(len(ordered_user), dtype=np.int64)
        rank -= starts[ordered_user]

        item_codes, item_values = pd.factorize(items.array)
        if order is not None:
            item_codes = item_codes[order]
        # Items the ground truth knows keep its codes; the others get codes after them.
        known = truth.items.get_indexer(item_values)
        code_of = np.where(known >= 0, known, len(truth.items) + np.arange(len(item_values)))
        codes = code_of[item_codes]
        del item_codes
        judged_user, judged_rank, judged_code = _sorted_pairs(
            ordered_user, codes, rank, len(truth.items) + len(item_values), lengths.max()
        )
        repeated = np.flatnonzero(
            (judged_user[1:] == judged_user[:-1]) & (judged_code[1:] == judged_code[:-1])
        )
        if len(repeated):
            _raise_duplicates(judged_user, judged_code, judged_rank, repeated, starts, order,
                              table.index)
        in_truth = judged_code < len(truth.items)
        judged_user, judged_rank = judged_user[in_truth], judged_rank[in_truth]
        judged_row = truth.rows_of_sorted(judged_user * len(truth.items) + judged_code[in_truth])
        found = judged_row >= 0
        return cls(
            lengths=lengths,
            present=lengths > 0,
            judged_user=judged_user[found],
            judged_rank=judged_rank[found],
            judged_row=judged_row[found],
            unknown_users=unknown,
            unknown_user_examples=unknown_examples,
            ties=ties,
        )


def _sorted_pairs(
    user: np.ndarray, code: np.ndarray, rank: np.ndarray, n_codes: int, longest: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(user, code, rank) triples sorted by user, then code.

    When the three fit in 63 bits they are packed into one integer and sorted as such (much
    faster than an argsort); otherwise an argsort orders them.
    """
    code_bits = max(int(n_codes - 1).bit_length(), 1)
    rank_bits = max(int(longest - 1).bit_length(), 1) if longest > 0 else 1
    user_bits = max(int(user.max(initial=0)).bit_length(), 1)
    if user_bits + code_bits + rank_bits <= 63:
        packed = user.astype(np.int64) << (code_bits + rank_bits)
        packed |= code.astype(np.int64) << rank_bits
        packed |= rank
        packed.sort()
        rank_mask = (1 << rank_bits) - 1
        code_mask = (1 << code_bits) - 1
        return (
            packed >> (code_bits + rank_bits),
            packed & rank_mask,
            (packed >> rank_bits) & code_mask,
        )
    order = np.lexsort((code, user))
    return user[order], rank[order], code[order]


def _raise_duplicates(
    user: np.ndarray,
    code: np.ndarray,
    rank: np.ndarray,
    repeated: np.ndarray,
    starts: np.ndarray,
    order: np.ndarray | None,
    index: pd.Index,
) -> None:
    first = repeated[0]
    same = np.flatnonzero((user == user[first]) & (code == code[first]))
    positions = starts[user[same]] + rank[same]
    rows = positions if order is None else order[positions]
    labels = index[np.sort(rows)]
    pairs = len(np.unique(user[repeated] * (code.max() + 1) + code[repeated]))
    raise DataError(
        f"the same item is ranked more than once for one user (rows "
        f"{', '.join(map(str, labels[:EXAMPLES_SHOWN]))}); {pairs} (user, item) pairs are "
        "repeated in all. Keep one row per user and item (trec_eval refuses such files, and "
        "other tools silently count the item twice).",
    )


def _user_of_rows(
    users: pd.Series, truth_users: pd.Index
) -> tuple[np.ndarray, int, tuple[str, ...]]:
    """Each row's position in the ground truth's users (-1 if unknown), looked up per block
    of consecutive rows of one user rather than per row."""
    values = users.array
    n_rows = len(values)
    if n_rows == 0:
        return np.zeros(0, dtype=np.int64), 0, ()
    changes = np.asarray(values[1:] != values[:-1], dtype=bool)
    starts = np.concatenate([[0], np.flatnonzero(changes) + 1])
    block_users = values[starts]
    block_index = truth_users.get_indexer(block_users)
    sizes = np.diff(np.concatenate([starts, [n_rows]]))
    row_user = np.repeat(block_index.astype(np.int64), sizes)
    unknown_values = pd.unique(pd.Series(block_users[block_index < 0]))
    examples = tuple(str(v) for v in unknown_values[:EXAMPLES_SHOWN])
    return row_user, len(unknown_values), examples


def _rank_order(
    row_user: np.ndarray,
    scores: np.ndarray,
    items: pd.Series,
    rows: np.ndarray | None,
    ties: str,
) -> np.ndarray | None:
    """Positions (into the given arrays) ordering rows by user, score descending, tie rule;
    None when the rows are in that order already.

    Rows already grouped by user in descending score order are left in place; otherwise a
    stable sort keeps the input order among equal scores. Ties are then broken by item id
    where asked, sorting only the tied rows. ``rows`` maps positions to rows of ``items``
    (None: the same).
    """
    n_rows = len(row_user)
    if n_rows == 0:
        return None
    same_user = row_user[1:] == row_user[:-1]
    block_count = int(n_rows - np.count_nonzero(same_user))
    grouped = block_count == np.count_nonzero(np.bincount(row_user))
    order = None
    if not grouped or np.any(same_user & (scores[1:] > scores[:-1])):
        order = np.lexsort((-scores, row_user))
    if ties == "input":
        return order
    user_sorted = row_user if order is None else row_user[order]
    score_sorted = scores if order is None else scores[order]
    tied_with_next = (user_sorted[1:] == user_sorted[:-1]) & (score_sorted[1:] == score_sorted[:-1])
    if not tied_with_next.any():
        return order
    in_tie = np.zeros(n_rows, dtype=bool)
    in_tie[:-1] |= tied_with_next
    in_tie[1:] |= tied_with_next
    positions = np.flatnonzero(in_tie)
    group = np.cumsum(np.concatenate([[True], ~tied_with_next]))[positions]
    if order is None:
        order = np.arange(n_rows, dtype=np.int64)
    tied_rows = order[positions] if rows is None else rows[order[positions]]
    tied_items = items.iloc[tied_rows].to_numpy()
    by_item = pd.DataFrame({"group": group, "item": tied_items}).sort_values(
        ["group", "item"], ascending=[True, ties == "item_asc"], kind="stable"
    )
    order[positions] = order[positions][by_item.index.to_numpy()]
    return order
