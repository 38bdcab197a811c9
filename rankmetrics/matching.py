"""Which ranked items have a ground-truth row: matching items within each user, by hash.

By the time lists are matched, :mod:`rankmetrics.io` has refused repeated items and given each
ranked item a 64-bit hash of its id that no other item of the same list shares. Each list's
hashes are sorted (all lists of one length at once, as the rows of a matrix), each of the
user's ground-truth items is found among them by a binary search run for every ground-truth
row at once, and every match is confirmed by comparing the ids' text. The metrics then read
only these (user, rank, ground-truth row) triples.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from rankmetrics.ground_truth import GroundTruth
from rankmetrics.io import HashedIds, argsort_lists, same_text

#: Lists matched at a time: bounds the memory the temporaries take.
LISTS_PER_CHUNK = 1 << 14


def judged_items(
    block_starts: np.ndarray, block_user: np.ndarray, order: np.ndarray | None,
    items: HashedIds, truth: GroundTruth,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(user, rank, ground-truth row) of every ranked item the ground truth judged for that
    user, sorted by user, then rank.

    ``order`` lists the run's rows best first, users' lists one after another (None: the rows
    are in that order); list b, of user ``block_user[b]``, is the rows
    ``order[block_starts[b]:block_starts[b + 1]]``.
    """
    hashes = items.hashes if order is None else items.hashes[order]
    truth_hashes = truth.item_hashes(items.seed)
    parts = [
        _judged_in_lists(block_starts[first:first + LISTS_PER_CHUNK + 1],
                         block_user[first:first + LISTS_PER_CHUNK], hashes, truth_hashes,
                         order, items, truth)
        for first in range(0, len(block_user), LISTS_PER_CHUNK)
    ]
    if not parts:
        nothing = np.zeros(0, dtype=np.int64)
        return nothing, nothing, nothing
    return _by_user_and_rank(*(np.concatenate(arrays) for arrays in zip(*parts, strict=True)))


def _judged_in_lists(
    starts: np.ndarray, users: np.ndarray, hashes: np.ndarray, truth_hashes: np.ndarray,
    order: np.ndarray | None, items: HashedIds, truth: GroundTruth,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`judged_items` of the consecutive lists starting at ``starts[:-1]`` (positions
    in ranked order)."""
    first = int(starts[0])
    lengths = np.diff(starts)
    positions = argsort_lists(hashes[first:int(starts[-1])], lengths) + first
    ordered = hashes[positions]

    counts = truth.user_starts[users + 1] - truth.user_starts[users]
    truth_row = truth.rows_by_user[_concatenated_ranges(truth.user_starts[users], counts)]
    entry_list = np.repeat(np.arange(len(users)), counts)
    wanted = truth_hashes[truth_row]
    lo, hi = starts[:-1][entry_list] - first, starts[1:][entry_list] - first
    found = _search_segments(ordered, lo, hi, wanted)
    hit = np.flatnonzero(found < hi)
    hit = hit[ordered[found[hit]] == wanted[hit]]
    ranked = positions[found[hit]]
    rank = ranked - starts[:-1][entry_list[hit]]
    run_row = ranked if order is None else order[ranked]
    same = same_text(items.rows(run_row),
                     truth.item_ids.take(pa.array(truth.item_index[truth_row[hit]])))
    return users[entry_list[hit[same]]], rank[same], truth_row[hit[same]]


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


def _bits(largest: int) -> int:
    """Bits needed for the numbers 0 .. largest - 1 (at least 1)."""
    return max(int(largest - 1).bit_length(), 1)


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
