"""Turn long tables into integer arrays once, so every metric, cutoff and mapping is cheap.

:class:`GroundTruth` indexes a ground-truth table (user, item, rating) by user and item.
:class:`RankedRun` orders one model's output (user, item, score) per user under a tie rule
and records, for every recommended item that has a ground-truth row, where it stands: the
user, the rank and the ground-truth row. Relevance mappings and metric conventions are applied
later to these arrays, so changing a threshold does not re-read or re-sort anything.

Item ids are matched per user by a 64-bit hash of their text, computed with NumPy straight from
Arrow's string buffers, instead of factorizing every id of the model's output. An object column
whose rows share their string objects (as pandas' CSV reader and NumPy indexing make them) is
converted once per distinct object, found by the objects' addresses; another object column is
converted to Arrow a slice at a time. Then each user's recommended items are sorted by hash,
which also finds repeated items, and each of the user's ground-truth items is looked up among
them by binary search. Equal strings always have equal hashes and every match found is confirmed
by comparing the strings themselves, so a collision cannot create a match; the cases where one
could hide a match or a repeat (two items of one user with the same hash), repeated rows that
must be reported, and ids that are not text (Python ints in an object column, say) take the
exact path, which factorizes the ids.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rankmetrics.conventions import TIES
from rankmetrics.errors import DataError

EXAMPLES_SHOWN = 3
# Model-output rows hashed, sorted and matched at a time (whole users): bounds the memory the
# temporaries take and keeps them in cache.
ROWS_PER_CHUNK = 1 << 18


class _Fallback(Exception):
    """The hashed matching cannot decide exactly; the exact path must."""


def _require_columns(table: pd.DataFrame, needed: tuple[str, ...], what: str) -> None:
    missing = [column for column in needed if column not in table.columns]
    if missing:
        raise DataError(
            f"the {what} table needs the columns {', '.join(needed)}; "
            f"{', '.join(missing)} missing (found: {', '.join(map(str, table.columns))})"
        )


def _ids(values: pd.Series, what: str, column: str, *, defer: bool = False) -> pd.Series:
    """Ids as strings; missing ids are an error naming the rows.

    With ``defer`` an object column is returned unchecked, and the caller checks it with
    :func:`_check_ids` before it reads the ids other than through :class:`_TextColumn` (whose
    conversion to Arrow fails on a missing id) or :func:`_checked_representatives`: checking
    up front would read every id once more, a cache miss per row when the ids are string
    objects scattered in memory.
    """
    if defer and values.dtype == object:
        return values
    _check_ids(values, what, column)
    if values.dtype == object or isinstance(values.dtype, pd.StringDtype):
        return values
    return values.astype("str")


def _check_ids(values: pd.Series, what: str, column: str) -> None:
    """Missing ids are an error naming the rows.

    An object column that holds only Python strings has none missing, which ``infer_dtype``
    tells faster than ``isna`` does.
    """
    if values.dtype == object and pd.api.types.infer_dtype(values, skipna=False) == "string":
        return
    missing = values.isna().to_numpy()
    if missing.any():
        raise DataError(
            f"{_count_rows(missing)} {what} rows have no {column} id "
            f"(rows {_example_rows(values.index, missing)})",
            column=column,
        )


def _numbers(values: pd.Series, what: str, column: str, *, copy: bool = True) -> np.ndarray:
    """The column as finite float64 numbers; anything else is an error naming the rows.

    With ``copy=False`` a float64 column's own array is returned (the caller only reads it).
    """
    if not copy and values.dtype == np.float64:
        numbers = values.to_numpy()
    else:
        numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64,
                                                                   na_value=np.nan)
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
        Every judged item (computed on first use).
    user_index, item_index : int arrays (n_rows,)
        Each ground-truth row's position in ``users`` and ``items`` (``item_index`` computed on
        first use).
    ratings : float array (n_rows,)
        Each row's rating.
    duplicates_dropped : int
        Identical repeated rows that were dropped.
    """

    users: pd.Index
    user_index: np.ndarray
    ratings: np.ndarray
    duplicates_dropped: int
    _item_ids: pd.api.extensions.ExtensionArray  # each row's item id
    _text: _TruthText | None  # None when the item ids are not all text

    @classmethod
    def from_frame(cls, table: pd.DataFrame) -> GroundTruth:
        """Index a table with columns ``user``, ``item``, ``rating``.

        Repeated (user, item) rows with the same rating are dropped (and counted); with
        different ratings they are an error naming the rows.
        """
        _require_columns(table, ("user", "item", "rating"), "ground-truth")
        if len(table) == 0:
            raise DataError("the ground-truth table has no rows")
        users_column = _ids(table["user"], "ground-truth", "user", defer=True)
        user_index, users = _factorize_by_runs(users_column, "ground-truth")
        items_column = _ids(table["item"], "ground-truth", "item", defer=True)
        try:
            ratings = _numbers(table["rating"], "ground-truth", "rating")
        except DataError:
            _check_ids(items_column, "ground-truth", "item")  # a missing id is reported first
            raise
        item_ids = items_column.array
        text = _truth_text(item_ids, user_index, len(users))
        repeated = None
        if text is None:
            _check_ids(items_column, "ground-truth", "item")
        else:
            with suppress(_Fallback):
                repeated = text.repeated_rows(ratings)
        if repeated is None:
            repeated = _repeated_rows_exact(table.index, users, user_index, item_ids, ratings)
        if len(repeated):
            keep = np.ones(len(table), dtype=bool)
            keep[repeated] = False
            user_index, ratings, item_ids = user_index[keep], ratings[keep], item_ids[keep]
            if text is not None:
                text = _TruthText.build(text.text.filter(pa.array(keep)),
                                        text.unsorted_hashes()[keep], user_index, len(users))
        return cls(
            users=users,
            user_index=user_index,
            ratings=ratings,
            duplicates_dropped=len(repeated),
            _item_ids=item_ids,
            _text=text,
        )

    @property
    def n_users(self) -> int:
        return len(self.users)

    @cached_property
    def _factorized_items(self) -> tuple[np.ndarray, pd.Index]:
        codes, items = pd.factorize(self._item_ids)
        return codes.astype(np.int64), pd.Index(items)

    @property
    def items(self) -> pd.Index:
        return self._factorized_items[1]

    @property
    def item_index(self) -> np.ndarray:
        return self._factorized_items[0]

    @cached_property
    def _sorted_keys_and_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """The keys ``user * len(items) + item`` of the rows, sorted, and the rows in that order
        (for the exact path)."""
        keys = self.user_index * len(self.items) + self.item_index
        order = np.argsort(keys, kind="stable")
        return keys[order], order

    def rows_of_sorted(self, keys: np.ndarray) -> np.ndarray:
        """The ground-truth row of each key ``user * len(items) + item`` (-1 where there is
        none); fastest when ``keys`` is sorted."""
        sorted_keys, sorted_rows = self._sorted_keys_and_rows
        position = np.searchsorted(sorted_keys, keys)
        position[position == len(sorted_keys)] = 0
        found = sorted_keys[position] == keys
        return np.where(found, sorted_rows[position], -1)


@dataclass(frozen=True)
class _TruthText:
    """The ground truth's item ids as text, grouped by user, for the hashed matching.

    Entries ``starts[u]:starts[u + 1]`` are user u's ground-truth rows, in row order:
    ``row(entries)`` gives the rows and ``hashes`` the hashes of their items (see
    :func:`_hash_strings`); ``text`` holds every row's item id.
    """

    starts: np.ndarray
    rows: np.ndarray | None  # None when the rows are grouped by user already (entry = row)
    hashes: np.ndarray
    text: pa.Array

    @classmethod
    def build(
        cls, text: pa.Array, hashes: np.ndarray, user_index: np.ndarray, n_users: int
    ) -> _TruthText:
        counts = np.bincount(user_index, minlength=n_users)
        starts = np.concatenate([[0], np.cumsum(counts)])
        rows = None
        if np.any(user_index[1:] < user_index[:-1]):
            rows = np.argsort(user_index, kind="stable")
            hashes = hashes[rows]
        return cls(starts, rows, hashes, text)

    def row(self, entries: np.ndarray) -> np.ndarray:
        return entries if self.rows is None else self.rows[entries]

    def unsorted_hashes(self) -> np.ndarray:
        """The hash of each row, in row order."""
        if self.rows is None:
            return self.hashes
        hashes = np.empty_like(self.hashes)
        hashes[self.rows] = self.hashes
        return hashes

    def repeated_rows(self, ratings: np.ndarray) -> np.ndarray:
        """The rows repeating an earlier row's user and item with the same rating (sorted).

        Each user's hashes are sorted (with the row's place in the user's group in the low bits,
        so equal hashes keep row order); equal neighbours are repeats once their strings are
        confirmed equal. A collision, or a repeat with a different rating (which the exact
        path reports), raises _Fallback.
        """
        counts = np.diff(self.starts)
        counts = counts[counts > 0]
        bits = _bits(int(counts.max()))
        packed = _with_positions(self.hashes.copy(), counts, bits)
        _sort_segments(packed, counts)
        pairs = _equal_neighbours(packed >> np.uint64(bits), counts)
        if len(pairs) == 0:
            return np.zeros(0, dtype=np.int64)
        # Back from sorted positions to rows: each value's group start plus its place in it.
        group_start = np.repeat(np.cumsum(counts) - counts, counts)
        low = np.uint64((1 << bits) - 1)
        earlier, later = (
            self.row(group_start[i] + (packed[i] & low).astype(np.int64))
            for i in (pairs, pairs + 1)
        )
        if not _same_strings(self.text.take(earlier), self.text.take(later)).all():
            raise _Fallback
        if np.any(ratings[earlier] != ratings[later]):
            raise _Fallback
        return np.unique(later)


def _truth_text(
    item_ids: pd.api.extensions.ExtensionArray, user_index: np.ndarray, n_users: int
) -> _TruthText | None:
    """The hashed index of the ground truth's items, or None when the ids are not all text."""
    try:
        column = _TextColumn(item_ids)
        every_row = slice(0, len(item_ids))
        text, hashes = column.rows(every_row), column.hashes(every_row)
    except _Fallback:
        return None
    return _TruthText.build(text, hashes, user_index, n_users)


def _repeated_rows_exact(
    index: pd.Index,
    users: pd.Index,
    user_index: np.ndarray,
    item_ids: pd.api.extensions.ExtensionArray,
    ratings: np.ndarray,
) -> np.ndarray:
    """The rows repeating an earlier row's user and item (sorted), found by factorizing the
    items; a repeat with a different rating is an error naming the first such pair."""
    item_index, items = pd.factorize(item_ids)
    keys = user_index * len(items) + item_index
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    repeat = sorted_keys[1:] == sorted_keys[:-1]
    conflict = repeat & (ratings[order][1:] != ratings[order][:-1])
    if conflict.any():
        key = sorted_keys[np.flatnonzero(conflict)[0]]
        rows = index[np.flatnonzero(keys == key)]
        n_conflicts = len(np.unique(sorted_keys[1:][conflict]))
        raise DataError(
            f"user {users[key // len(items)]!r} rates item {items[key % len(items)]!r} "
            f"more than once with different ratings (rows "
            f"{', '.join(map(str, rows[:EXAMPLES_SHOWN]))}); {n_conflicts} "
            "(user, item) pairs conflict in all. Keep one rating per user and item.",
            column="rating",
        )
    return np.sort(order[1:][repeat])


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
        slice, and each user's judged items come in ranked order).
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
        users = _ids(table["user"], "model output", "user", defer=True)
        row_user, unknown, unknown_examples = _user_of_rows(users, truth.users)
        items = _ids(table["item"], "model output", "item", defer=True)
        try:
            scores = _numbers(table["score"], "model output", "score", copy=False)
        except DataError:
            _check_ids(items, "model output", "item")  # a missing id is reported first
            raise

        if unknown:
            kept = np.flatnonzero(row_user >= 0)
            ranked = _rank_order(row_user[kept], scores[kept], items, kept, ties)
            order = kept if ranked is None else kept[ranked]
        else:
            order = _rank_order(row_user, scores, items, None, ties)
        del scores
        ordered_user = row_user if order is None else row_user[order]
        del row_user
        # Each user's rows are now one block; the blocks need not be in user order.
        block_starts = _run_starts(ordered_user)
        block_user = ordered_user[block_starts[:-1]].astype(np.int64)
        del ordered_user
        lengths = np.zeros(truth.n_users, dtype=np.int64)
        lengths[block_user] = np.diff(block_starts)
        judged = None
        if truth._text is not None:
            with suppress(_Fallback):
                judged = _match_hashed(block_starts, block_user, order, _TextColumn(items.array),
                                       truth._text, int(lengths.max(initial=0)))
        if judged is None:
            judged = _match_exact(block_starts, block_user, order, items, truth, table.index)
        judged_user, judged_rank, judged_row = _by_user_and_rank(*judged)
        return cls(
            lengths=lengths,
            present=lengths > 0,
            judged_user=judged_user,
            judged_rank=judged_rank,
            judged_row=judged_row,
            unknown_users=unknown,
            unknown_user_examples=unknown_examples,
            ties=ties,
        )


def _match_hashed(
    block_starts: np.ndarray,
    block_user: np.ndarray,
    order: np.ndarray | None,
    text: _TextColumn,
    truth: _TruthText,
    longest: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(user, rank, ground-truth row) of every ranked item the ground truth has, matched by
    hash a chunk of whole users at a time (raises _Fallback where that cannot decide).

    ``block_starts`` delimit each user's rows in ranked order (positions into ``order``, or
    rows when ``order`` is None) and ``block_user`` is each block's user.
    """
    n_rows = int(block_starts[-1])
    bounds = np.unique(np.concatenate([
        [0],
        np.searchsorted(block_starts[:-1], np.arange(ROWS_PER_CHUNK, n_rows, ROWS_PER_CHUNK)),
        [len(block_user)],
    ]))
    bits = _bits(longest)
    parts = [
        _match_chunk(block_starts[first:last + 1], block_user[first:last], order, text, truth,
                     bits)
        for first, last in zip(bounds[:-1], bounds[1:], strict=True)
    ]
    if not parts:
        return tuple(np.zeros(0, dtype=np.int64) for _ in range(3))
    return tuple(np.concatenate(arrays) for arrays in zip(*parts, strict=True))


def _match_chunk(
    block_starts: np.ndarray,
    block_user: np.ndarray,
    order: np.ndarray | None,
    text: _TextColumn,
    truth: _TruthText,
    bits: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One chunk of :func:`_match_hashed`.

    The rows' item hashes get each row's rank in their low ``bits`` bits and are sorted per
    user; equal neighbours (a repeated item, or a collision) raise _Fallback, so each user's
    remaining hash bits are distinct. Every ground-truth item of the chunk's users is then
    looked up among its user's sorted hashes, and each match found is kept if its strings are
    equal (if not, the ground-truth item is not in the list: the only run item that could be
    it has a different id).
    """
    first, last = int(block_starts[0]), int(block_starts[-1])
    lengths = np.diff(block_starts)
    local_starts = block_starts[:-1] - first
    rows = slice(first, last) if order is None else order[first:last]
    packed = _with_positions(text.hashes(rows), lengths, bits)
    _sort_segments(packed, lengths)
    shift, low = np.uint64(bits), np.uint64((1 << bits) - 1)
    hashes = packed >> shift
    if len(_equal_neighbours(hashes, lengths)):
        raise _Fallback
    truth_starts = truth.starts[block_user]
    truth_counts = truth.starts[block_user + 1] - truth_starts
    entries = _concatenated_ranges(truth_starts, truth_counts)
    entry_block = np.repeat(np.arange(len(block_user)), truth_counts)
    wanted = truth.hashes[entries] >> shift
    lo = local_starts[entry_block]
    hi = lo + lengths[entry_block]
    position = _search_segments(hashes, lo, hi, wanted)
    hit = np.flatnonzero(position < hi)
    hit = hit[hashes[position[hit]] == wanted[hit]]
    rank = (packed[position[hit]] & low).astype(np.int64)
    truth_row = truth.row(entries[hit])
    matched = lo[hit] + rank
    matched = first + matched if order is None else rows[matched]
    same = _same_strings(text.rows(matched), truth.text.take(truth_row))
    return block_user[entry_block[hit[same]]], rank[same], truth_row[same]


def _match_exact(
    block_starts: np.ndarray,
    block_user: np.ndarray,
    order: np.ndarray | None,
    items: pd.Series,
    truth: GroundTruth,
    index: pd.Index,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(user, rank, ground-truth row) of every ranked item the ground truth has, found by
    factorizing the items; a repeated (user, item) pair is an error naming the rows."""
    _check_ids(items, "model output", "item")
    lengths = np.diff(block_starts)
    user = np.repeat(block_user, lengths)
    rank = np.arange(len(user), dtype=np.int64) - np.repeat(block_starts[:-1], lengths)
    item_codes, item_values = pd.factorize(items.array)
    if order is not None:
        item_codes = item_codes[order]
    # Items the ground truth knows keep its codes; the others get codes after them.
    known = truth.items.get_indexer(item_values)
    code_of = np.where(known >= 0, known, len(truth.items) + np.arange(len(item_values)))
    codes = code_of[item_codes]
    del item_codes
    judged_user, judged_rank, judged_code = _sorted_pairs(
        user, codes, rank, len(truth.items) + len(item_values), int(lengths.max(initial=0))
    )
    repeated = np.flatnonzero(
        (judged_user[1:] == judged_user[:-1]) & (judged_code[1:] == judged_code[:-1])
    )
    if len(repeated):
        user_start = np.zeros(truth.n_users, dtype=np.int64)
        user_start[block_user] = block_starts[:-1]
        _raise_duplicates(judged_user, judged_code, judged_rank, repeated, user_start, order,
                          index)
    in_truth = judged_code < len(truth.items)
    judged_user, judged_rank = judged_user[in_truth], judged_rank[in_truth]
    judged_row = truth.rows_of_sorted(judged_user * len(truth.items) + judged_code[in_truth])
    found = judged_row >= 0
    return judged_user[found], judged_rank[found], judged_row[found]


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


def _by_user_and_rank(
    user: np.ndarray, rank: np.ndarray, row: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (user, rank, row) triples sorted by user, then rank (each pair is unique).

    When the three fit in 63 bits they are packed into one integer and sorted as such (much
    faster than an argsort); otherwise an argsort of the packed (user, rank) orders them.
    """
    user, rank, row = (np.asarray(a, dtype=np.int64) for a in (user, rank, row))
    if len(user) == 0:
        return user, rank, row
    rank_bits = _bits(int(rank.max()) + 1)
    row_bits = _bits(int(row.max()) + 1)
    user_bits = _bits(int(user.max()) + 1)
    key = (user << rank_bits) | rank
    if not np.any(key[1:] < key[:-1]):
        return user, rank, row
    if user_bits + rank_bits + row_bits <= 63:
        packed = (key << row_bits) | row
        del key
        packed.sort()
        row = packed & ((1 << row_bits) - 1)
        packed >>= row_bits
        rank = packed & ((1 << rank_bits) - 1)
        packed >>= rank_bits
        return packed, rank, row
    order = np.argsort(key)
    return user[order], rank[order], row[order]


def _raise_duplicates(
    user: np.ndarray,
    code: np.ndarray,
    rank: np.ndarray,
    repeated: np.ndarray,
    user_start: np.ndarray,
    order: np.ndarray | None,
    index: pd.Index,
) -> None:
    first = repeated[0]
    same = np.flatnonzero((user == user[first]) & (code == code[first]))
    positions = user_start[user[same]] + rank[same]
    rows = positions if order is None else order[positions]
    labels = index[np.sort(rows)]
    pairs = len(np.unique(user[repeated] * (code.max() + 1) + code[repeated]))
    raise DataError(
        f"the same item is ranked more than once for one user (rows "
        f"{', '.join(map(str, labels[:EXAMPLES_SHOWN]))}); {pairs} (user, item) pairs are "
        "repeated in all. Keep one row per user and item (trec_eval refuses such files, and "
        "other tools silently count the item twice).",
    )


def _run_starts(values: pd.api.extensions.ExtensionArray | np.ndarray) -> np.ndarray:
    """Where each run of equal consecutive values starts, then ``len(values)``."""
    if len(values) == 0:
        return np.zeros(1, dtype=np.int64)
    if isinstance(values, pd.arrays.NumpyExtensionArray):
        values = values.to_numpy()  # NumPy compares objects faster than pandas does
    if isinstance(values, np.ndarray) and values.dtype == object and (
        len(values) >= SHARED_MIN_ROWS
    ):
        return _object_run_starts(values)
    changes = np.asarray(values[1:] != values[:-1], dtype=bool)
    return np.concatenate([[0], np.flatnonzero(changes) + 1, [len(values)]])


def _object_run_starts(objects: np.ndarray) -> np.ndarray:
    """:func:`_run_starts` of Python objects: where the object changes (the array's pointers
    differ), confirmed by comparing the values there (different objects can be equal)."""
    objects = np.ascontiguousarray(objects)
    pointers = _addresses(objects)
    last = len(objects) - 1  # rows 0..last-1 are compared with the next row
    changed = [
        np.flatnonzero(pointers[start + 1:stop + 1] != pointers[start:stop]) + start + 1
        for start, stop in (
            (start, min(start + ROWS_PER_CHUNK, last)) for start in range(0, last, ROWS_PER_CHUNK)
        )
    ]
    candidates = np.concatenate([np.zeros(0, dtype=np.int64), *changed])
    really = np.asarray(objects[candidates] != objects[candidates - 1], dtype=bool)
    return np.concatenate([[0], candidates[really], [len(objects)]])


def _addresses(objects: np.ndarray) -> np.ndarray:
    """A read-only view of a C-contiguous 1-D object array's pointers as uint64 numbers:
    the same number is the same object. The view keeps the array alive."""
    if objects.dtype != object or objects.ndim != 1 or not objects.flags.c_contiguous:
        raise ValueError("_addresses needs a C-contiguous 1-D object array")
    return np.asarray(_PointerBuffer(objects))


class _PointerBuffer:
    """An object array's buffer of pointers described as uint64 numbers, through NumPy's
    array interface; NumPy keeps this object (and so the array) as the view's base."""

    def __init__(self, objects: np.ndarray) -> None:
        self.objects = objects
        self.__array_interface__ = {
            "data": (objects.__array_interface__["data"][0], True),  # read-only
            "shape": (len(objects),),
            "typestr": "<u8",
            "version": 3,
        }


def _user_run_starts(values: pd.Series, what: str) -> np.ndarray:
    """:func:`_run_starts` of a user column; a missing id that cannot be compared (pd.NA)
    is reported as missing, naming the rows."""
    try:
        return _run_starts(values.array)
    except (TypeError, ValueError):
        _check_ids(values, what, "user")
        raise


def _checked_representatives(
    values: pd.Series, starts: np.ndarray, what: str
) -> pd.api.extensions.ExtensionArray:
    """The value of each run of equal ids (see :func:`_run_starts`), after checking that no
    id is missing: on the runs' values when they are all strings, else on every row."""
    representatives = values.array[starts[:-1]]
    if values.dtype == object and pd.api.types.infer_dtype(
        np.asarray(representatives), skipna=False
    ) != "string":
        _check_ids(values, what, "user")  # other dtypes were checked by _ids
    return representatives


def _factorize_by_runs(values: pd.Series, what: str) -> tuple[np.ndarray, pd.Index]:
    """``pd.factorize`` of the user ids (codes in order of first appearance), computed once
    per run of equal consecutive values rather than once per row; a missing id is an error
    naming the rows."""
    starts = _user_run_starts(values, what)
    codes, uniques = pd.factorize(_checked_representatives(values, starts, what))
    return np.repeat(codes.astype(np.int64), np.diff(starts)), pd.Index(uniques)


def _user_of_rows(
    users: pd.Series, truth_users: pd.Index
) -> tuple[np.ndarray, int, tuple[str, ...]]:
    """Each row's position in the ground truth's users (-1 if unknown), looked up per block
    of consecutive rows of one user rather than per row; a missing id is an error naming
    the rows."""
    if len(users) == 0:
        return np.zeros(0, dtype=np.int32), 0, ()
    starts = _user_run_starts(users, "model output")
    block_users = _checked_representatives(users, starts, "model output")
    block_index = truth_users.get_indexer(block_users)
    row_user = np.repeat(block_index.astype(np.int32), np.diff(starts))
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
    where asked, sorting only the tied rows (whose ids are checked first if ``items`` is a
    deferred column, see :func:`_ids`). ``rows`` maps positions to rows of ``items`` (None:
    the same).
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
    in_tie = np.zeros(n_rows, dtype=bool)
    in_tie[:-1] |= tied_with_next
    in_tie[1:] |= tied_with_next
    positions = np.flatnonzero(in_tie)
    group = np.cumsum(np.concatenate([[True], ~tied_with_next]))[positions]
    if order is None:
        order = np.arange(n_rows, dtype=np.int64)
    tied_rows = order[positions] if rows is None else rows[order[positions]]
    tied_items = items.iloc[tied_rows]
    if tied_items.isna().any():
        _check_ids(items, "model output", "item")
    tied_items = tied_items.to_numpy()
    by_item = pd.DataFrame({"group": group, "item": tied_items}).sort_values(
        ["group", "item"], ascending=[True, ties == "item_asc"], kind="stable"
    )
    order[positions] = order[positions][by_item.index.to_numpy()]
    return order


class _TextColumn:
    """A column of text ids read as Arrow strings, a slice or a selection of rows at a time.

    An object column whose rows mostly share their Python objects (as pandas' CSV reader and
    NumPy indexing make them) is read once per distinct object (see :func:`_shared_objects`);
    another object column is converted a slice at a time, so the whole column never is.
    """

    def __init__(self, values: pd.api.extensions.ExtensionArray) -> None:
        self._arrow = self._objects = self._codes = None
        if isinstance(values, pd.arrays.ArrowStringArray):
            arrow = pa.array(values)
            arrow = arrow if isinstance(arrow, pa.ChunkedArray) else pa.chunked_array([arrow])
            if not (pa.types.is_string(arrow.type) or pa.types.is_large_string(arrow.type)):
                arrow = arrow.cast(pa.large_string())  # the layout _hash_strings reads
            self._arrow = arrow
            return
        objects = np.asarray(values, dtype=object)
        shared = _shared_objects(objects)
        if shared is None:
            self._objects = objects
            return
        self._codes, distinct = shared
        # 64-bit offsets: the rows taken from it may hold more than 2 GiB of text
        self._dictionary = _objects_as_text(distinct).cast(pa.large_string())
        self._dictionary_hashes = _hash_strings(self._dictionary)

    def rows(self, rows: slice | np.ndarray) -> pa.Array:
        """The ids of ``rows`` (a slice, or an array of row numbers) as one Arrow array;
        raises _Fallback when they are not all strings."""
        if self._arrow is not None:
            if isinstance(rows, slice):
                picked = self._arrow.slice(rows.start, rows.stop - rows.start)
            else:
                picked = self._arrow.take(rows)
            return picked.chunk(0) if picked.num_chunks == 1 else picked.combine_chunks()
        if self._codes is not None:
            return self._dictionary.take(self._codes[rows])
        return _objects_as_text(self._objects[rows])

    def hashes(self, rows: slice | np.ndarray) -> np.ndarray:
        """The :func:`_hash_strings` hashes of the ids of ``rows``."""
        if self._codes is not None:
            return self._dictionary_hashes[self._codes[rows]]
        return _hash_strings(self.rows(rows))


def _objects_as_text(objects: np.ndarray) -> pa.Array:
    """Python strings as one Arrow string array; raises _Fallback for anything else."""
    try:
        array = pa.array(objects)
    except (pa.ArrowException, ValueError, TypeError) as error:
        raise _Fallback from error
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        raise _Fallback  # bytes, numbers, ... compare differently from their text
    if array.null_count:
        raise _Fallback  # missing ids (None): the exact path reports them
    if isinstance(array, pa.ChunkedArray):  # more text than 32-bit offsets can hold
        array = array.cast(pa.large_string()).combine_chunks()
    return array


#: Object columns shorter than this are converted directly (see _shared_objects).
SHARED_MIN_ROWS = 1 << 16
#: Rows whose objects are counted to decide whether to factorize their addresses.
SHARED_SAMPLE_ROWS = 1 << 20


def _shared_objects(objects: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(each row's code, one object per code) when the rows share few distinct Python
    objects, else None.

    Rows holding the same object hold equal values, so each distinct object needs to be
    read once: the objects' addresses (the array's own pointers) are factorized, which
    touches no object. Different objects with equal values just get different codes. Among
    the first :data:`SHARED_SAMPLE_ROWS` rows at least half must repeat an object, or it is
    not worth it (each row an object of its own, as after a conversion from Arrow).
    """
    if len(objects) < SHARED_MIN_ROWS:
        return None
    objects = np.ascontiguousarray(objects)
    pointers = _addresses(objects)
    sample = pointers[:SHARED_SAMPLE_ROWS]
    if 2 * len(pd.unique(sample)) > len(sample):
        return None
    codes, row_of_code = _address_codes(pointers)
    return codes, objects[row_of_code]


def _address_codes(addresses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each address's code, a row of each code): codes 0, 1, ... for the distinct nonzero
    64-bit addresses, found with an open-addressing hash table held in NumPy arrays (linear
    probing, at most a quarter full), a chunk of rows at a time.

    Each round looks every pending row's address up in its slot: found, it takes the slot's
    code; an empty slot is claimed (when several addresses claim one slot, the last write
    stays and the others probe on); a slot holding another address sends the row to the
    next slot.

    >>> addresses = np.array([48, 16, 48, 32, 16], dtype=np.uint64)
    >>> codes, rows = _address_codes(addresses)
    >>> len(rows), addresses[rows][codes].tolist()
    (3, [48, 16, 48, 32, 16])
    """
    table = _AddressTable()
    codes = np.empty(len(addresses), dtype=np.int32)
    for start in range(0, len(addresses), ROWS_PER_CHUNK):
        stop = min(start + ROWS_PER_CHUNK, len(addresses))
        codes[start:stop] = table.codes_of(addresses[start:stop], start)
    return codes, table.rows[:table.count]


class _AddressTable:
    """The hash table of :func:`_address_codes` (address 0 marks an empty slot)."""

    def __init__(self, bits: int = 16) -> None:
        self.bits = bits
        self.keys = np.zeros(1 << bits, dtype=np.uint64)
        self.values = np.zeros(1 << bits, dtype=np.int32)
        self.count = 0
        self.rows = np.zeros(1 << (bits - 2), dtype=np.int64)  # a row of each code

    def codes_of(self, addresses: np.ndarray, first_row: int) -> np.ndarray:
        slot = self._slots(addresses)
        codes = self.values[slot]  # right where the slot holds the address: most rows
        pending = np.flatnonzero(self.keys[slot] != addresses)
        slot = slot[pending]
        while len(pending):
            wanted = addresses[pending]
            held = self.keys[slot]
            found = held == wanted
            codes[pending[found]] = self.values[slot[found]]
            empty = held == 0
            if empty.any():
                if self.count + int(empty.sum()) > len(self.keys) // 4:
                    self._grow(self.count + int(empty.sum()))
                    slot = self._slots(wanted)
                    continue
                self._claim(slot[empty], wanted[empty], first_row + pending[empty])
            moved = ~found & ~empty  # another address is there: probe the next slot
            slot[moved] += 1
            slot[moved] &= len(self.keys) - 1
            keep = ~found
            pending, slot = pending[keep], slot[keep]
        return codes

    def _slots(self, addresses: np.ndarray) -> np.ndarray:
        # Objects are 16-byte aligned: the bits above those, folded with the next ones.
        # (User-space addresses are below 2**63, so the signed view holds them.)
        value = addresses.view(np.int64) >> 4
        slot = value >> self.bits
        slot ^= value
        slot &= (1 << self.bits) - 1
        return slot

    def _claim(self, slot: np.ndarray, address: np.ndarray, row: np.ndarray) -> None:
        self.keys[slot] = address  # the last write to a slot stays
        won = self.keys[slot] == address
        slot, row = slot[won], row[won]
        new_slots, first = np.unique(slot, return_index=True)
        self.values[new_slots] = np.arange(self.count, self.count + len(new_slots))
        if self.count + len(new_slots) > len(self.rows):
            rows = np.zeros(2 * (self.count + len(new_slots)), dtype=np.int64)
            rows[:self.count] = self.rows[:self.count]
            self.rows = rows
        self.rows[self.count:self.count + len(new_slots)] = row[first]
        self.count += len(new_slots)

    def _grow(self, needed: int) -> None:
        keys, values = self.keys[self.keys != 0], self.values[self.keys != 0]
        while needed > (1 << self.bits) // 4:
            self.bits += 1
        self.keys = np.zeros(1 << self.bits, dtype=np.uint64)
        self.values = np.zeros(1 << self.bits, dtype=np.int32)
        slot = self._slots(keys)
        pending = np.arange(len(keys))
        while len(pending):  # the keys are distinct: each takes the first empty slot
            empty = self.keys[slot] == 0
            self.keys[slot[empty]] = keys[pending[empty]]
            won = np.zeros(len(pending), dtype=bool)
            won[empty] = self.keys[slot[empty]] == keys[pending[empty]]
            self.values[slot[won]] = values[pending[won]]
            lost = ~won
            pending, slot = pending[lost], (slot[lost] + 1) & (len(self.keys) - 1)


# Odd 64-bit constants of splitmix64 / the golden ratio, for multiplicative mixing.
_LENGTH_FACTOR = np.uint64(0x9E3779B97F4A7C15)
_WORD_FACTOR = np.uint64(0xBF58476D1CE4E5B9)
_FINAL_FACTOR = np.uint64(0x94D049BB133111EB)


def _hash_strings(array: pa.Array) -> np.ndarray:
    """A 64-bit hash of each string of an Arrow string array, from its UTF-8 bytes.

    A string of L >= 8 bytes is read as the little-endian 64-bit words starting at bytes
    0, 8, 16, ... and a last word ending at its last byte (so each word depends on the string
    only, and together they cover it); a shorter string is one word, zero-padded. The length
    and the words are mixed by multiply / xor-shift steps. When every string has the same
    length (ids such as "item0001234"), the words are strided views of Arrow's data buffer
    (or, under 8 bytes, its rows padded); otherwise they are gathered at each string's offset.
    """
    n = len(array)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    offset_type = np.int64 if pa.types.is_large_string(array.type) else np.int32
    _, offsets_buffer, data_buffer = array.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=offset_type)[array.offset:array.offset + n + 1]
    offsets = offsets.astype(np.int64, copy=False)
    data = (np.zeros(0, dtype=np.uint8) if data_buffer is None
            else np.frombuffer(data_buffer, dtype=np.uint8))
    first, last = int(offsets[0]), int(offsets[-1])
    lengths = np.diff(offsets)
    hashes = lengths.astype(np.uint64)
    hashes *= _LENGTH_FACTOR
    scratch = np.empty(n, dtype=np.uint64)
    length = int(lengths[0])
    if np.all(lengths == length) and length >= 8:
        for start in _word_starts(length):
            word = np.ndarray((n,), dtype="<u8", buffer=data, offset=first + start,
                              strides=(length,))
            _mix(hashes, word, scratch)
    elif np.all(lengths == length):
        padded = np.zeros((n, 8), dtype=np.uint8)
        padded[:, :length] = data[first:last].reshape(n, length)
        _mix(hashes, padded.view("<u8")[:, 0], scratch)
    else:
        # words[i] is the 8 bytes from byte i (zero-padded past the end).
        padded = np.zeros(last - first + 8, dtype=np.uint8)
        padded[:last - first] = data[first:last]
        words = np.ndarray((last - first + 1,), dtype="<u8", buffer=padded, strides=(1,))
        starts = offsets[:-1] - first
        word = words[starts]
        short = np.flatnonzero(lengths < 8)
        word[short] &= (np.uint64(1) << (lengths[short].astype(np.uint64) * np.uint64(8))) - 1
        _mix(hashes, word, scratch)
        n_words = (lengths + 7) // 8
        for j in range(1, int(n_words.max(initial=1))):
            longer = np.flatnonzero(n_words > j)
            part = hashes[longer]
            word = words[starts[longer] + np.minimum(8 * j, lengths[longer] - 8)]
            _mix(part, word, scratch[:len(longer)])
            hashes[longer] = part
    np.right_shift(hashes, np.uint64(29), out=scratch)
    hashes ^= scratch
    hashes *= _FINAL_FACTOR
    np.right_shift(hashes, np.uint64(32), out=scratch)
    hashes ^= scratch
    return hashes


def _word_starts(length: int) -> list[int]:
    """Where the 64-bit words of a string of ``length`` >= 8 bytes start."""
    n_words = (length + 7) // 8
    return [min(8 * j, length - 8) for j in range(n_words)]


def _mix(hashes: np.ndarray, word: np.ndarray, scratch: np.ndarray) -> None:
    """Fold one word into each hash, in place."""
    hashes ^= word
    hashes *= _WORD_FACTOR
    np.right_shift(hashes, np.uint64(32), out=scratch)
    hashes ^= scratch


def _same_strings(left: pa.Array, right: pa.Array) -> np.ndarray:
    return pc.equal(left, right).to_numpy(zero_copy_only=False)


def _bits(largest: int) -> int:
    """Bits needed for the numbers 0 .. largest - 1 (at least 1)."""
    return max(int(largest - 1).bit_length(), 1)


def _with_positions(hashes: np.ndarray, lengths: np.ndarray, bits: int) -> np.ndarray:
    """``hashes`` (in place) with their low ``bits`` bits replaced by each value's position
    in its segment (segments of ``lengths`` consecutive values)."""
    hashes &= ~np.uint64((1 << bits) - 1)
    starts = (np.cumsum(lengths) - lengths).astype(np.uint64)
    position = np.arange(len(hashes), dtype=np.uint64)
    position -= np.repeat(starts, lengths)
    hashes |= position
    return hashes


def _sort_segments(values: np.ndarray, lengths: np.ndarray) -> None:
    """Sort each segment of ``lengths`` consecutive values, in place: all segments of one
    length at once, as the rows of a matrix."""
    if len(lengths) == 0:
        return
    if np.all(lengths == lengths[0]):
        values.reshape(-1, lengths[0]).sort(axis=1)
        return
    starts = np.cumsum(lengths) - lengths
    for length in np.unique(lengths[lengths > 1]):
        where = starts[lengths == length][:, None] + np.arange(length)
        values[where] = np.sort(values[where], axis=1)


def _equal_neighbours(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Positions i where ``values[i] == values[i + 1]`` within one segment of ``lengths``."""
    same = values[1:] == values[:-1]
    same[np.cumsum(lengths)[:-1] - 1] = False
    return np.flatnonzero(same)


def _search_segments(
    values: np.ndarray, lo: np.ndarray, hi: np.ndarray, wanted: np.ndarray
) -> np.ndarray:
    """For each wanted value, the first position in the sorted segment ``values[lo:hi]``
    whose value is not below it (``hi`` when there is none).

    A vectorized binary search in steps of decreasing powers of two: a position advances by a
    step while the value just before its new place is still below the wanted one.
    """
    position = lo.copy()
    step = 1 << max(int((hi - lo).max(initial=0)).bit_length() - 1, 0)
    while step:
        after = position + step
        advance = after <= hi
        advance &= values[np.minimum(after, hi) - 1] < wanted
        np.add(position, step, out=position, where=advance)
        step >>= 1
    return position


def _concatenated_ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """starts[0], starts[0] + 1, ... (counts[0] values), then the same for each range."""
    ends = np.cumsum(counts)
    return np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - counts - starts, counts)
