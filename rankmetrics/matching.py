"""Which ranked items have a ground-truth row: matching items within each user, as integers.

By the time lists are matched, :mod:`rankmetrics.io` has numbered every id and refused repeated
items, and each ranked item carries the number the ground truth gives it (or -1 when no user
of the ground truth has it). Each user's ranked items are sorted by that number, all users of
one list length at once as the rows of a matrix, and each of the user's ground-truth items is
found among them by a binary search run for every ground-truth row at once. The metrics then
read only these (user, rank, ground-truth row) triples.
"""

from __future__ import annotations

import numpy as np

from rankmetrics.ground_truth import GroundTruth


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
    if len(ranked_items) == 0:
        return tuple(np.zeros(0, dtype=np.int64) for _ in range(3))
    rank_bits = _bits(int(lengths.max()))
    unknown = len(truth.items)  # absent items sort after every judged one
    packed = np.where(ranked_items >= 0, ranked_items, unknown).astype(np.int64)
    packed <<= rank_bits
    packed |= np.arange(len(packed), dtype=np.int64) - np.repeat(block_starts[:-1], lengths)
    _sort_segments(packed, lengths)
    sorted_items = packed >> rank_bits

    counts = truth.user_starts[block_user + 1] - truth.user_starts[block_user]
    entries = _concatenated_ranges(truth.user_starts[block_user], counts)
    truth_row = truth.rows_by_user[entries]
    entry_block = np.repeat(np.arange(len(block_user)), counts)
    wanted = truth.item_index[truth_row]
    lo, hi = block_starts[:-1][entry_block], block_starts[1:][entry_block]
    position = _search_segments(sorted_items, lo, hi, wanted)
    hit = np.flatnonzero(position < hi)
    hit = hit[sorted_items[position[hit]] == wanted[hit]]
    rank = packed[position[hit]] & ((1 << rank_bits) - 1)
    return _by_user_and_rank(block_user[entry_block[hit]], rank, truth_row[hit])


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
