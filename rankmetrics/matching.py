"""Which ranked items have a ground-truth row: matching items within each user, as integers.

By the time lists are matched, :mod:`rankmetrics.io` has numbered every id and refused repeated
items, and each ranked item carries the number the ground truth gives it (or -1 when no user
of the ground truth has it). Each list's items are sorted by that number (all lists of one
length at once, as the rows of a matrix) into one sorted array of (list, item) keys, and every
ground-truth row of the lists' users is looked up in it with one binary search. The metrics
then read only these (user, rank, ground-truth row) triples.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.ground_truth import GroundTruth

#: Lists matched at a time: bounds the temporaries (and keeps (list, item, rank) in 63 bits).
LISTS_PER_CHUNK = 1 << 16


def judged_items(
    block_starts: np.ndarray, block_user: np.ndarray, ranked_items: np.ndarray,
    truth: GroundTruth,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(user, rank, ground-truth row) of every ranked item the ground truth judged for that
    user, sorted by user, then rank.

    ``ranked_items`` holds each ranked row's item number in ``truth.items`` (-1 when absent),
    users' lists one after another, best first; list b (of user ``block_user[b]``) is
    ``ranked_items[block_starts[b]:block_starts[b + 1]]``.
    """
    lengths = np.diff(block_starts)
    rank_bits = _bits(int(lengths.max(initial=1)))
    item_bits = _bits(len(truth.items) + 1)
    step = max(1, min(LISTS_PER_CHUNK, 1 << max(62 - rank_bits - item_bits, 0)))
    parts = [
        _judged_in_lists(block_starts[first:first + step + 1], block_user[first:first + step],
                         ranked_items, truth, rank_bits, item_bits)
        for first in range(0, len(block_user), step)
    ]
    if not parts:
        return tuple(np.zeros(0, dtype=np.int64) for _ in range(3))
    return _by_user_and_rank(*(np.concatenate(arrays) for arrays in zip(*parts, strict=True)))


def _judged_in_lists(
    starts: np.ndarray, users: np.ndarray, ranked_items: np.ndarray, truth: GroundTruth,
    rank_bits: int, item_bits: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`judged_items` of the consecutive lists starting at ``starts[:-1]``.

    Each row becomes the key ``list << (item_bits + rank_bits) | item << rank_bits | rank``
    (absent items take the number after the last item); sorting each list's keys sorts them
    all, so ``keys >> rank_bits`` is one sorted array of (list, item) that each ground-truth
    row (list, item) is searched in.
    """
    first = int(starts[0])
    lengths = np.diff(starts)
    items = ranked_items[first:int(starts[-1])]
    packed = np.where(items >= 0, items, len(truth.items)).astype(np.int64)
    packed <<= rank_bits
    list_base = np.arange(len(users), dtype=np.int64) << (item_bits + rank_bits)
    packed += np.repeat(list_base - (starts[:-1] - first), lengths)
    packed += np.arange(len(packed), dtype=np.int64)
    _sort_segments(packed, lengths)
    keys = packed >> rank_bits

    counts = truth.user_starts[users + 1] - truth.user_starts[users]
    truth_row = truth.rows_by_user[_concatenated_ranges(truth.user_starts[users], counts)]
    wanted = np.repeat(np.arange(len(users), dtype=np.int64) << item_bits, counts)
    wanted += truth.item_index[truth_row]
    position = np.searchsorted(keys, wanted)
    position[position == len(keys)] = 0
    hit = np.flatnonzero(keys[position] == wanted)
    rank = packed[position[hit]] & ((1 << rank_bits) - 1)
    return np.repeat(users, counts)[hit], rank, truth_row[hit]


def _bits(largest: int) -> int:
    """Bits needed for the numbers 0 .. largest - 1 (at least 1)."""
    return max(int(largest - 1).bit_length(), 1)


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


def _concatenated_ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """starts[0], starts[0] + 1, ... (counts[0] values), then the same for each range."""
    ends = np.cumsum(counts)
    return np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - counts - starts, counts)


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
