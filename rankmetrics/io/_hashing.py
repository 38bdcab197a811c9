"""A 64-bit hash of each id, computed with NumPy straight from Arrow's string buffers.

A model's output repeats each item id in many users' lists (10 million rows, 100,000 users).
Checking that no list holds an item twice, and finding each list's judged items, only needs
to tell ids apart within one user's list: hashing every row and sorting each list's hashes does
that without building a dictionary of every distinct id. Equal ids always have equal hashes;
the seed is chosen so that different ids of one list have different hashes (see
:func:`rankmetrics.io._validate.hashed_items`), and every match found through a hash is
confirmed by comparing the text.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

# Odd 64-bit constants of splitmix64 / the golden ratio, for multiplicative mixing.
_LENGTH_FACTOR = np.uint64(0x9E3779B97F4A7C15)
_WORD_FACTOR = np.uint64(0xBF58476D1CE4E5B9)
_FINAL_FACTOR = np.uint64(0x94D049BB133111EB)


#: Rows hashed at a time: bounds the memory the temporaries take.
ROWS_PER_CHUNK = 1 << 20


def hash_text(array: pa.Array | pa.ChunkedArray, seed: int = 0) -> np.ndarray:
    """A 64-bit hash of each string of an Arrow string array, in one chunk or several (see
    :func:`_hash_chunk`)."""
    hashes = np.empty(len(array), dtype=np.uint64)
    for start, part in pieces(array, ROWS_PER_CHUNK):
        hashes[start:start + len(part)] = _hash_chunk(part, seed)
    return hashes


def pieces(array: pa.Array | pa.ChunkedArray, size: int) -> Iterator[tuple[int, pa.Array]]:
    """The array as slices of at most ``size`` rows, each within one chunk (without copying),
    with the row each starts at."""
    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    start = 0
    for chunk in chunks:
        for offset in range(0, len(chunk), size):
            part = chunk.slice(offset, size)
            yield start + offset, part
        start += len(chunk)


def _hash_chunk(array: pa.Array, seed: int) -> np.ndarray:
    """A 64-bit hash of each string of an Arrow string array, from its UTF-8 bytes.

    A string of L >= 8 bytes is read as the little-endian 64-bit words starting at bytes
    0, 8, 16, ... and a last word ending at its last byte (so each word depends on the string
    only, and together they cover it); a shorter string is one word, zero-padded. The length
    and the words are mixed by multiply / xor-shift steps, starting from ``seed`` (another
    seed gives other hashes). When every string has the same
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
    hashes += np.uint64(seed)
    hashes *= _LENGTH_FACTOR
    scratch = np.empty(n, dtype=np.uint64)
    length = int(lengths[0])
    if np.all(lengths == length) and length >= 8:
        for start in _word_starts(length):
            word = np.ndarray((n,), dtype="<u8", buffer=data, offset=first + start,
                              strides=(length,))
            _mix(hashes, word, scratch)
    elif np.all(lengths == length):
        rows = np.zeros((n, 8), dtype=np.uint8)
        rows[:, :length] = data[first:last].reshape(n, length)
        _mix(hashes, rows.view("<u8")[:, 0], scratch)
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


def take_text(text: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """The strings at ``rows``, as one array. From text in several chunks, each chunk's rows
    are taken from that chunk (Arrow's take of a chunked array joins the chunks first)."""
    if isinstance(text, pa.ChunkedArray) and text.num_chunks == 1:
        text = text.chunk(0)
    if isinstance(text, pa.Array):
        return text.take(pa.array(rows))
    ends = np.cumsum([len(chunk) for chunk in text.chunks])
    which = np.searchsorted(ends, rows, side="right")
    order = np.argsort(which, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(which, minlength=len(ends)))))
    parts: list[pa.Array] = []
    for chunk in np.flatnonzero(np.diff(bounds)):
        picked = order[bounds[chunk]:bounds[chunk + 1]]
        first = int(ends[chunk]) - len(text.chunk(chunk))
        parts.append(text.chunk(chunk).take(pa.array(rows[picked] - first)))
    taken = pa.concat_arrays(parts) if parts else pa.array([], text.type)
    back = np.empty_like(order)
    back[order] = np.arange(len(order))
    return taken.take(pa.array(back))


def same_text(left: pa.Array, right: pa.Array) -> np.ndarray:
    """Whether each pair of strings is equal, as a bool array."""
    return pc.equal(left, right).to_numpy(zero_copy_only=False)


def argsort_lists(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Positions that sort each list of ``lengths`` consecutive values (positions into
    ``values``, each list's within its own range; equal values in any order): all lists of
    one length at once, as the rows of a matrix."""
    starts = np.cumsum(lengths) - lengths
    if len(lengths) and np.all(lengths == lengths[0]):
        order = np.argsort(values.reshape(-1, lengths[0]), axis=1)
        order += starts[:, None]
        return order.ravel()
    positions = np.arange(len(values))
    for length in np.unique(lengths[lengths > 1]):
        where = starts[lengths == length][:, None] + np.arange(length)
        order = np.argsort(values[where], axis=1)
        positions[where] = np.take_along_axis(where, order, axis=1)
    return positions


def equal_in_lists(starts: np.ndarray, hashes: np.ndarray, users: np.ndarray | None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of rows (a, b) of one user with equal hashes.

    ``starts`` says where each run of rows of one user begins (then the number of rows).
    When each user's rows are together (a model's list per user), ``users`` is None and each
    list is sorted where it is; otherwise ``users`` gives each row's user and the rows are
    grouped by user first.
    """
    n = len(hashes)
    if n < 2:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    inner = starts[1:-1]
    order = None
    if users is not None:  # some user's rows are apart
        order = np.argsort(users, kind="stable")
        grouped = users[order]
        inner = np.flatnonzero(grouped[1:] != grouped[:-1]) + 1
        hashes = hashes[order]
    lengths = np.diff(inner, prepend=0, append=n)
    if not _any_equal_in_lists(hashes, lengths):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    positions = argsort_lists(hashes, lengths)
    first = np.flatnonzero(_equal_neighbours(hashes[positions], inner))
    a, b = positions[first], positions[first + 1]
    return (a, b) if order is None else (order[a], order[b])


def _any_equal_in_lists(hashes: np.ndarray, lengths: np.ndarray) -> bool:
    """Whether some list of ``lengths`` consecutive hashes holds one twice: each list sorted
    in a copy, about a chunk of rows at a time (small temporaries are reused, not mapped
    afresh)."""
    ends = np.cumsum(lengths)
    first_list = 0
    while first_list < len(lengths):
        start = int(ends[first_list] - lengths[first_list])
        last_list = max(int(np.searchsorted(ends, start + ROWS_PER_CHUNK, side="right")),
                        first_list + 1)
        part = lengths[first_list:last_list]
        ordered = sort_lists(hashes[start:int(ends[last_list - 1])].copy(), part)
        if _equal_neighbours(ordered, np.cumsum(part)[:-1]).any():
            return True
        first_list = last_list
    return False


def _equal_neighbours(ordered: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Whether each value equals the next one of its list (lists start at ``starts``)."""
    same = ordered[1:] == ordered[:-1]
    same[starts - 1] = False  # the last of one list and the first of the next
    return same


def sort_lists(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``values`` with each list of ``lengths`` consecutive values sorted, in place (and
    returned): all lists of one length at once, as the rows of a matrix."""
    if len(lengths) and np.all(lengths == lengths[0]):
        values.reshape(-1, lengths[0]).sort(axis=1)
        return values
    starts = np.cumsum(lengths) - lengths
    for length in np.unique(lengths[lengths > 1]):
        where = starts[lengths == length][:, None] + np.arange(length)
        values[where] = np.sort(values[where], axis=1)
    return values
