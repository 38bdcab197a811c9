"""Which ranked items have a ground-truth row: matching items within each user, by hash.

By the time lists are matched, :mod:`rankmetrics.io` has refused repeated items and given each
ranked item a 64-bit hash of its id that no other item of the same list shares. Each list's
hashes and its user's ground-truth items' hashes are put in one row of a matrix and each row
is sorted: a ranked item and a ground-truth item with equal hashes end up side by side. The
low bits of each hash are replaced by the entry's place in its row, which tells the two sides
apart and gives the rank. Where that is not exact (three entries of a row equal in their
remaining bits) or the lists' lengths differ too much for a matrix, each list's hashes are
sorted and each ground-truth item found among them by a binary search run for every
ground-truth row at once. Every match is confirmed by comparing the ids' text. The metrics
then read only these (user, rank, ground-truth row) triples.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from rankmetrics.io import HashedIds, argsort_lists, hash_text, same_text
from rankmetrics.prepared.ground_truth import GroundTruth
from rankmetrics.prepared.row_order import Reordered

#: Lists matched at a time: bounds the memory the temporaries take.
LISTS_PER_CHUNK = 1 << 12
#: A chunk's lists and ground-truth items are matched in one matrix when its cells are at
#: most this many times its entries (lists of similar lengths), else by binary search.
CELLS_PER_ENTRY = 2


def judged_items(
    block_starts: np.ndarray, block_user: np.ndarray, order: np.ndarray | Reordered | None,
    items: HashedIds, truth: GroundTruth,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(user, rank, ground-truth row) of every ranked item the ground truth judged for that
    user, sorted by user, then rank (int32 arrays below 2**31 run or ground-truth rows, else
    int64).

    ``order`` lists the run's rows best first, users' lists one after another (None: the rows
    are in that order); list b, of user ``block_user[b]``, is the rows
    ``order[block_starts[b]:block_starts[b + 1]]``. Each chunk of lists reads its own rows'
    hashes, so no reordered copy of every row's hash is made.
    """
    truth_hashes = hash_text(truth.item_ids, items.seed)  # one per distinct judged item
    # The triples are int32 while they fit (users, ranks and rows are below these counts):
    # half the memory of int64, for the matching and for every sum over the judged items.
    dtype = np.int32 if max(len(items), len(truth.item_index)) < 2**31 else np.int64
    parts = [
        _judged_in_lists(block_starts[first:first + LISTS_PER_CHUNK + 1],
                         block_user[first:first + LISTS_PER_CHUNK], truth_hashes,
                         order, items, truth, dtype)
        for first in range(0, len(block_user), LISTS_PER_CHUNK)
    ]
    if not parts:
        nothing = np.zeros(0, dtype=dtype)
        return nothing, nothing, nothing
    user, rank, row = (np.concatenate(arrays) for arrays in zip(*parts, strict=True))
    del parts
    return _by_user_and_rank(user, rank, row)


def _judged_in_lists(
    starts: np.ndarray, users: np.ndarray, truth_hashes: np.ndarray,
    order: np.ndarray | Reordered | None, items: HashedIds, truth: GroundTruth, dtype: type,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`judged_items` of the consecutive lists starting at ``starts[:-1]`` (positions
    in ranked order); ``truth_hashes`` holds the hash of each distinct ground-truth item."""
    first, last = int(starts[0]), int(starts[-1])
    lengths = np.diff(starts)
    counts = truth.user_starts[users + 1] - truth.user_starts[users]
    truth_row = truth.rows_by_user[_concatenated_ranges(truth.user_starts[users], counts)]
    entry_list = np.repeat(np.arange(len(users)), counts)
    wanted = truth_hashes[truth.item_index[truth_row]]
    listed = items.hashes[first:last] if order is None else items.hashes[order[first:last]]
    pairs = _side_by_side(listed, lengths, wanted, counts)
    if pairs is None:
        ranked, hit = _searched(listed, lengths, wanted, entry_list)
    else:
        ranked, hit = pairs
    ranked += first
    rank = ranked - starts[:-1][entry_list[hit]]
    run_row = ranked if order is None else order[ranked]
    same = same_text(items.rows(run_row),
                     truth.item_ids.take(pa.array(truth.item_index[truth_row[hit]])))
    return (users[entry_list[hit[same]]].astype(dtype), rank[same].astype(dtype),
            truth_row[hit[same]].astype(dtype))


def _side_by_side(
    listed: np.ndarray, lengths: np.ndarray, wanted: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """Ranked items (positions into ``listed``) and ground-truth entries (positions into
    ``wanted``) with equal hashes: list b's hashes are the next ``lengths[b]`` of ``listed``,
    its user's ground-truth hashes the next ``counts[b]`` of ``wanted``.

    Row b of a matrix holds list b's hashes, then its ground-truth hashes, each with its low
    bits replaced by its column (so no entry is the largest value, which marks empty cells).
    Sorting the rows puts equal hashes side by side, empty cells last. None when the matrix
    would be mostly empty cells, or when three entries of a row agree in the bits kept (then
    equal hashes need not be neighbours).
    """
    n_lists = len(lengths)
    width = int((lengths + counts).max(initial=0))
    if n_lists == 0 or n_lists * width > CELLS_PER_ENTRY * (len(listed) + len(wanted)) + 1024:
        return None
    if width < 2:  # one entry per row: nothing side by side
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    place_bits = np.uint64(_bits(width + 1))
    places = (np.uint64(1) << place_bits) - np.uint64(1)
    empty = np.iinfo(np.uint64).max
    cells = np.full((n_lists, width), empty, dtype=np.uint64)
    _fill(cells, listed, lengths, np.zeros(n_lists, dtype=np.int64), places)
    _fill(cells, wanted, counts, lengths, places)
    cells.sort(axis=1)
    kept = cells >> place_bits
    same = kept[:, 1:] == kept[:, :-1]
    del kept
    same &= cells[:, 1:] != empty
    pairs = np.flatnonzero(same)
    del same
    row, left = np.divmod(pairs, width - 1)
    if np.any((pairs[1:] == pairs[:-1] + 1) & (row[1:] == row[:-1])):
        return None
    a = (cells[row, left] & places).astype(np.int64)
    b = (cells[row, left + 1] & places).astype(np.int64)
    in_list = np.minimum(a, b)
    in_truth = np.maximum(a, b) - lengths[row]
    across = (in_list < lengths[row]) & (in_truth >= 0)
    row, in_list, in_truth = row[across], in_list[across], in_truth[across]
    ranked = (np.cumsum(lengths) - lengths)[row] + in_list
    entry = (np.cumsum(counts) - counts)[row] + in_truth
    equal = listed[ranked] == wanted[entry]
    return ranked[equal], entry[equal]


def _fill(cells: np.ndarray, values: np.ndarray, lengths: np.ndarray, offsets: np.ndarray,
          places: np.uint64) -> None:
    """Write row b's ``lengths[b]`` values (the next ones of ``values``) from column
    ``offsets[b]`` on, each with its low bits (``places``) replaced by its column."""
    n_lists = len(lengths)
    if len(lengths) and np.all(lengths == lengths[0]) and np.all(offsets == offsets[0]):
        length, offset = int(lengths[0]), int(offsets[0])
        columns = np.arange(offset, offset + length, dtype=np.uint64)
        block = cells[:, offset:offset + length]
        np.bitwise_and(values.reshape(n_lists, length), ~places, out=block)
        block |= columns
        return
    row = np.repeat(np.arange(n_lists), lengths)
    column = np.arange(len(values)) - np.repeat(np.cumsum(lengths) - lengths - offsets, lengths)
    cells[row, column] = (values & ~places) | column.astype(np.uint64)


def _searched(
    listed: np.ndarray, lengths: np.ndarray, wanted: np.ndarray, entry_list: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_side_by_side` by binary search: each list's hashes sorted, each ground-truth
    hash (of list ``entry_list[e]``) looked for in its list's."""
    positions = argsort_lists(listed, lengths)
    ordered = listed[positions]
    ends = np.cumsum(lengths)
    lo, hi = (ends - lengths)[entry_list], ends[entry_list]
    found = _search_segments(ordered, lo, hi, wanted)
    hit = np.flatnonzero(found < hi)
    hit = hit[ordered[found[hit]] == wanted[hit]]
    return positions[found[hit]], hit


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
    """The (user, rank, row) triples sorted by user, then rank (each pair is unique), in the
    arrays' own integer type.

    When the three fit in 63 bits they are packed into one integer and sorted as such (much
    faster than an argsort); otherwise an argsort of the packed (user, rank) orders them.
    """
    if len(user) == 0:
        return user, rank, row
    rank_bits = _bits(int(rank.max()) + 1)
    row_bits = _bits(int(row.max()) + 1)
    user_bits = _bits(int(user.max()) + 1)
    key = user.astype(np.int64)
    key <<= rank_bits
    key |= rank
    if not np.any(key[1:] < key[:-1]):
        return user, rank, row
    if user_bits + rank_bits + row_bits <= 63:
        packed = key
        packed <<= row_bits
        packed |= row
        packed.sort()
        # Unpacked into the arrays given, which are free again (the packing holds them).
        np.bitwise_and(packed, (1 << row_bits) - 1, out=row, casting="unsafe")
        packed >>= row_bits
        np.bitwise_and(packed, (1 << rank_bits) - 1, out=rank, casting="unsafe")
        packed >>= rank_bits
        np.copyto(user, packed, casting="unsafe")
        return user, rank, row
    order = np.argsort(key)
    return user[order], rank[order], row[order]
