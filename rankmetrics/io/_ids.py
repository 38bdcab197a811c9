"""Ids as integer codes: one small int per row pointing into the column's distinct ids.

Large files repeat each user and item id many times (10 million rows, 100,000 users). Checking
them as text (is one missing, is a pair repeated, which users are in both files) hashes every
string; with codes, text work happens once per distinct id and the rest is integer arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rankmetrics.io._hashing import pieces, take_text


@dataclass
class Runs:
    """Rows in runs sharing one code: rows ``starts[r]:starts[r + 1]`` have code ``codes[r]``
    (a run's user column, user after user, in a few hundred thousand runs instead of
    millions of rows)."""

    starts: np.ndarray
    codes: np.ndarray

    def expand(self, dtype: type | None = None) -> np.ndarray:
        """Each row's code (of ``dtype``, else the runs' own)."""
        codes = self.codes if dtype is None else self.codes.astype(dtype)
        return np.repeat(codes, np.diff(self.starts))


@dataclass
class Ids:
    """A column of ids: ``values[codes[i]]`` is row i's id; code -1 is a missing (null) id.

    ``stored`` holds each row's code, or :class:`Runs` of rows sharing one when the ids came
    in runs; then ``codes`` writes them out row by row on first use, and the steps that need
    only where each user's rows begin (checking and ordering a run's lists) read the runs.
    ``source``, when set, is the column itself as Arrow text (what ``to_series`` would build),
    kept to hand it over without rebuilding it. ``nulls`` is False when no code is -1;
    ``ordered`` is True when the codes are known to number the values in order of first
    appearance, every value used (see :func:`distinct`); ``unique`` when the values are known
    to hold each id once.
    """

    stored: np.ndarray | Runs
    values: pa.Array
    source: pa.ChunkedArray | None = None
    nulls: bool = True
    ordered: bool = False
    unique: bool = False
    _written: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def codes(self) -> np.ndarray:
        """Each row's code."""
        if isinstance(self.stored, np.ndarray):
            return self.stored
        if self._written is None:
            self._written = self.stored.expand()
        return self._written

    def codes_as(self, dtype: type) -> np.ndarray:
        """Each row's code as ``dtype``: the codes themselves when they are of that type,
        else a new array (from the runs when the rows came in runs, without writing them
        out in their own type first)."""
        if isinstance(self.stored, Runs) and self._written is None:
            return self.stored.expand(dtype)
        return self.codes.astype(dtype, copy=False)

    def run_starts(self) -> np.ndarray:
        """Where each run of rows with equal codes starts, then the number of rows."""
        if isinstance(self.stored, Runs):
            starts, codes = self.stored.starts, self.stored.codes
            if len(codes) < 2:
                return starts
            return np.concatenate((starts[:1], starts[1:-1][codes[1:] != codes[:-1]],
                                   starts[-1:]))
        codes = self.stored
        if len(codes) == 0:
            return np.zeros(1, dtype=np.int64)
        changes = np.flatnonzero(codes[1:] != codes[:-1]) + 1
        return np.concatenate(([0], changes, [len(codes)])).astype(np.int64)

    def codes_at(self, rows: np.ndarray) -> np.ndarray:
        """The codes of the given rows (found in the runs when the rows came in runs)."""
        if isinstance(self.stored, Runs):
            run = np.searchsorted(self.stored.starts, rows, side="right") - 1
            return self.stored.codes[run]
        return self.stored[rows]

    def lookup(self, table: np.ndarray) -> np.ndarray:
        """``table[code]`` for each row's code (without writing the codes out when the rows
        came in runs)."""
        if isinstance(self.stored, Runs):
            return np.repeat(table[self.stored.codes], np.diff(self.stored.starts))
        return table[self.stored]

    def __len__(self) -> int:
        if isinstance(self.stored, Runs):
            return int(self.stored.starts[-1])
        return len(self.stored)

    def at(self, row: int) -> str:
        """Row ``row``'s id."""
        return self.values[int(self.codes_at(np.array([row]))[0])].as_py()

    def filter(self, keep: np.ndarray) -> Ids:
        """The rows where ``keep`` is True."""
        return Ids(self.codes[keep], self.values, nulls=self.nulls, unique=self.unique)

    def as_text(self) -> pa.Array:
        """Each row's id as Arrow text, in one chunk (codes must be >= 0)."""
        if self.source is not None:
            return self.source.combine_chunks()
        return self.values.take(pa.array(self.codes))

    def with_values(self, values: pa.Array) -> Ids:
        """The same rows with each distinct id replaced (``values`` aligned with ``values``)."""
        same = (self.source is not None or self.unique) and values.equals(self.values)
        return Ids(self.stored, values, self.source if same else None, self.nulls, self.ordered,
                   same and self.unique)

    def missing(self) -> np.ndarray | None:
        """Where a row's id is null, empty or only spaces; None when no row's is."""
        blank = pc.equal(pc.binary_length(pc.utf8_trim_whitespace(self.values)), 0)
        per_value = pc.fill_null(blank, True).to_numpy(zero_copy_only=False)
        if not (self.nulls or per_value.any()):
            return None
        return np.append(per_value, True)[self.codes]  # code -1 (null) takes the last entry

    def to_series(self, first: int | None = None) -> pd.Series:
        """The ids (only the first ``first`` rows' when given) as a pandas ``str`` Series
        (0-based index)."""
        if self.source is not None:
            return (self.source if first is None else self.source.slice(0, first)).to_pandas()
        text = self.values.take(pa.array(self.codes if first is None else self.codes[:first]))
        if text.null_count == 0 and text.buffers()[0] is not None:  # drop an all-valid bitmap
            text = pa.Array.from_buffers(text.type, len(text), [None, *text.buffers()[1:]],
                                         null_count=0, offset=text.offset)
        return text.to_pandas()


def from_arrow(data: pa.Array | pa.ChunkedArray) -> Ids:
    """Codes of an Arrow column of text, or of a dictionary-encoded column of text.

    The values come out distinct (large_string); when the column was text, it is kept as
    ``source``, and the codes are in order of first appearance (Arrow numbers them so).
    """
    if isinstance(data, pa.Array):
        data = pa.chunked_array([data])
    source = None
    if not pa.types.is_dictionary(data.type):
        source = data
        if (coded := _runs(source)) is not None:  # reads the reader's chunks as they are
            return coded
        # One chunk: one dictionary, whatever the reader's chunks.
        if data.num_chunks > 1:
            source = data = pa.chunked_array([data.combine_chunks()])
        data = pc.dictionary_encode(data)
    chunks = [chunk for chunk in data.chunks if len(chunk)]
    if not chunks:
        return Ids(np.zeros(0, dtype=np.int32), pa.array([], pa.large_string()), source, False,
                   unique=True)
    dictionaries = [chunk.dictionary for chunk in chunks]
    shared = all(_same(dictionary, dictionaries[0]) for dictionary in dictionaries[1:])
    values = dictionaries[0] if shared else pa.concat_arrays(dictionaries)
    values = pc.cast(values, pa.large_string())
    # Each chunk's indices point into its own dictionary, one of ``values`` after another;
    # ``lookup`` sends each entry of ``values`` to its distinct value when values repeat.
    dtype = np.int32 if len(values) < 2**31 - 1 else np.int64
    lookup = None
    nulls = any(chunk.indices.null_count for chunk in chunks)
    # The one dictionary Arrow made from the text holds each value once; others may repeat.
    encoded = pc.dictionary_encode(values) if source is None or not shared else None
    if encoded is not None and len(encoded.dictionary) < len(values):
        lookup = pc.fill_null(encoded.indices, -1).to_numpy().astype(dtype)
        values = encoded.dictionary
        nulls = nulls or bool((lookup < 0).any())
    ordered = source is not None and lookup is None
    if lookup is None and len(chunks) == 1 and not nulls:
        codes = chunks[0].indices.to_numpy().astype(dtype, copy=False)
        return Ids(codes, values, source, False, ordered, True)
    codes = np.empty(sum(map(len, chunks)), dtype=dtype)
    at = offset = 0
    for chunk, dictionary in zip(chunks, dictionaries, strict=True):
        size = len(dictionary)
        indices = chunk.indices
        part = codes[at:at + len(chunk)]
        if lookup is None and offset == 0 and not indices.null_count:
            np.copyto(part, indices.to_numpy(), casting="unsafe")
        else:
            table = (lookup[offset:offset + size] if lookup is not None
                     else np.arange(offset, offset + size, dtype=dtype))
            if indices.null_count:  # to the entry after the dictionary's: -1
                indices = pc.fill_null(indices.cast(pa.int64()), size)
            np.take(np.append(table, dtype(-1)), indices.to_numpy(), out=part, mode="clip")
        at += len(chunk)
        if not shared:
            offset += size
    return Ids(codes, values, source, nulls, ordered, True)


def _runs(text: pa.ChunkedArray, sample: int = 10_000) -> Ids | None:
    """Codes of text whose equal values mostly come in runs (a run's rows, user after user),
    found by hashing only the first value of each run; None for other text.
    """
    n = len(text)
    if n < 2 or text.null_count:
        return None
    head = text.slice(0, min(n, sample))
    if pc.sum(pc.not_equal(head.slice(1), head.slice(0, len(head) - 1))).as_py() > len(head) / 4:
        return None
    changes = pc.not_equal(text.slice(1), text.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    starts = np.flatnonzero(changes) + 1
    if len(starts) > n / 4:
        return None
    starts = np.concatenate(([0], starts, [n]))
    firsts = pc.dictionary_encode(take_text(text, starts[:-1]))
    values = pc.cast(firsts.dictionary, pa.large_string())
    return Ids(Runs(starts, firsts.indices.to_numpy()), values, text, False, True, True)


def from_objects(values: np.ndarray) -> Ids | None:
    """Codes of an object array of Python strings (missing ones as None, NaN or pd.NA),
    converted to Arrow text once; None when it holds anything else (numbers, bytes, lists).

    When equal values mostly come in runs (a run's user column), only the first value of
    each run is converted: comparing neighbours is several times cheaper than converting.
    """
    starts = _object_run_starts(values)
    if starts is None:
        text = objects_as_text(values)
        return None if text is None else from_arrow(text)
    firsts = objects_as_text(values[starts])
    if firsts is None:
        return None
    encoded = pc.dictionary_encode(firsts)
    nulls = encoded.null_count > 0
    first_codes = pc.fill_null(encoded.indices, -1).to_numpy().astype(np.int32)
    runs = Runs(np.append(starts, len(values)), first_codes)
    return Ids(runs, pc.cast(encoded.dictionary, pa.large_string()), None, nulls, not nulls,
               True)


def _object_run_starts(values: np.ndarray, sample: int = 10_000) -> np.ndarray | None:
    """Where each run of equal values starts, when runs are long (a quarter of the rows or
    fewer start one); None otherwise, or when values cannot be compared (pd.NA)."""
    n = len(values)
    if n < 2:
        return None
    head = values[:sample]
    try:
        if np.count_nonzero(head[1:] != head[:-1]) > len(head) / 4:
            return None
        starts = np.flatnonzero(values[1:] != values[:-1]) + 1
    except (TypeError, ValueError):
        return None
    return None if len(starts) > n / 4 else np.concatenate(([0], starts))


def objects_as_text(values: np.ndarray) -> pa.Array | None:
    """Python strings (missing ones as None, NaN or pd.NA) as one Arrow string array; None
    for anything else."""
    try:
        text = pa.array(values, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if isinstance(text, pa.ChunkedArray):  # more text than 32-bit offsets hold
        text = text.cast(pa.large_string()).combine_chunks()
    return text if pa.types.is_string(text.type) or pa.types.is_large_string(text.type) else None


#: Python strings converted to Arrow text at a time by :func:`objects_as_chunks`.
OBJECTS_PER_CHUNK = 1 << 20


def objects_as_chunks(values: np.ndarray) -> pa.ChunkedArray | None:
    """:func:`objects_as_text` a chunk of rows at a time, as Arrow string chunks: for text
    that is hashed, not numbered (a run's items), which reads chunks as they are. Each
    chunk's buffers grow only to its own size, where one array for every row would grow its
    buffers by doubling, copying and leaving the pool holding the outgrown ones."""
    chunks: list[pa.Array] = []
    for start in range(0, len(values), OBJECTS_PER_CHUNK):
        try:
            part = pa.array(values[start:start + OBJECTS_PER_CHUNK], from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return None
        chunks.extend(part.chunks if isinstance(part, pa.ChunkedArray) else [part])
    kinds = {chunk.type for chunk in chunks}
    if not kinds <= {pa.string(), pa.null()} or pa.string() not in kinds:
        return None  # not text (an empty or all-missing column is not text either)
    return pa.chunked_array([chunk if chunk.type == pa.string() else
                             pa.nulls(len(chunk), pa.string()) for chunk in chunks])


def _same(a: pa.Array, b: pa.Array) -> bool:
    """Whether two dictionaries hold the same values (the very same memory, or equal)."""
    if len(a) != len(b):
        return False
    addresses = [[None if buffer is None else buffer.address for buffer in array.buffers()]
                 for array in (a, b)]
    return (a.offset == b.offset and addresses[0] == addresses[1]) or a.equals(b)


BLOCK = 1 << 20


def distinct(ids: Ids) -> Ids:
    """The same column with distinct ``values``, in order of first appearance, all used.

    Afterwards the codes count 0, 1, 2... as new ids appear, as ``pandas.factorize`` numbers
    them, so ``values`` is what ``Series.unique()`` would give. Codes must be >= 0. Rows in
    runs stay in runs (each run's code is renumbered).
    """
    stored, values, ordered = ids.stored, ids.values, ids.ordered
    codes = stored.codes if isinstance(stored, Runs) else stored  # (one a run, in order)
    encoded = None if ids.unique else pc.dictionary_encode(values)
    if encoded is not None and len(encoded.dictionary) < len(values):
        # Some ids were equal (after trimming, say). Merging keeps the order: values are
        # numbered by their first entry in ``values``.
        remap = pc.fill_null(encoded.indices, -1).to_numpy().astype(codes.dtype)
        stored, values = _renumbered(stored, remap), encoded.dictionary
        codes = stored.codes if isinstance(stored, Runs) else stored
    if len(codes) == 0:
        return Ids(stored, values[:0], ids.source, False, True, True)
    if ordered or _in_order(codes, len(values)):
        return Ids(stored, values, ids.source, False, True, True)
    order = pd.unique(codes)
    remap = np.full(len(values), -1, dtype=codes.dtype)
    remap[order] = np.arange(len(order), dtype=codes.dtype)
    return Ids(_renumbered(stored, remap), values.take(pa.array(order)), ids.source, False,
               True, True)


def _renumbered(stored: np.ndarray | Runs, remap: np.ndarray) -> np.ndarray | Runs:
    """Codes (each row's, or each run's) with code c replaced by ``remap[c]``."""
    if isinstance(stored, Runs):
        return Runs(stored.starts, remap[stored.codes])
    return remap[stored]


def _in_order(codes: np.ndarray, n_values: int) -> bool:
    """Whether the codes are 0, 1, 2... in order of first appearance, all ``n_values`` used:
    each code is at most one more than every code before it (checked by blocks, to keep the
    scratch arrays small)."""
    highest = -1
    for start in range(0, len(codes), BLOCK):
        block = codes[start:start + BLOCK]
        running = np.maximum.accumulate(block)
        if block[0] > highest + 1 or (block[1:] > np.maximum(running[:-1], highest) + 1).any():
            return False
        highest = max(highest, int(running[-1]))
    return highest == n_values - 1


def repeated_pairs(first: np.ndarray, n_first: int, second: np.ndarray) -> bool:
    """Whether some (first, second) pair of codes occurs twice (codes >= 0).

    When the rows of each ``first`` value are together (a run's list per user), sorting
    within each group's row of a small matrix is much faster than sorting all the pairs.
    """
    n = len(first)
    if n < 2:
        return False
    starts = np.flatnonzero(first[1:] != first[:-1]) + 1
    if len(starts) + 1 == n_first:  # each value's rows are contiguous
        lengths = np.diff(starts, prepend=0, append=n)
        longest = int(lengths.max())
        if longest == 1:
            return False
        if int(lengths.min()) == longest:
            table = second.reshape(-1, longest).copy()
        elif len(lengths) * longest <= 2 * n + 1024:
            table = np.tile(-1 - np.arange(longest, dtype=np.int64), (len(lengths), 1))
            group = np.repeat(np.arange(len(lengths)), lengths)
            place = np.arange(n) - np.repeat(np.concatenate(([0], starts)), lengths)
            table[group, place] = second
        else:
            table = None
        if table is not None:
            table.sort(axis=1)
            return bool((table[:, 1:] == table[:, :-1]).any())
    keys = first.astype(np.int64) * (int(second.max()) + 1) + second
    keys.sort()
    return bool((keys[1:] == keys[:-1]).any())


@dataclass
class Text:
    """A column of ids as Arrow text, in the chunks the reader made (a model's items, which
    are hashed rather than numbered: see :mod:`rankmetrics.io._hashing`; joining the chunks
    would copy every id)."""

    text: pa.Array | pa.ChunkedArray

    def __len__(self) -> int:
        return len(self.text)

    def filter(self, keep: np.ndarray) -> Text:
        """The rows where ``keep`` is True."""
        return Text(self.text.filter(pa.array(keep)))

    def _edges(self) -> np.ndarray:
        """Rows whose id may be missing or have surrounding spaces: null, empty, or starting
        or ending with a byte that is a space, a control character or part of a non-ASCII
        character (which may be a space too); read from Arrow's buffers a chunk at a time."""
        found = [np.flatnonzero(_edges_of(part)) + start
                 for start, part in pieces(self.text, BLOCK)]
        return np.concatenate([np.zeros(0, dtype=np.int64), *found])

    def trimmed(self) -> tuple[Text, np.ndarray | None]:
        """The ids without surrounding spaces, and where an id is missing (null, empty or
        only spaces; None when none is)."""
        rows = self._edges()
        if len(rows) == 0:
            return self, None
        picked = self.text.take(pa.array(rows))
        stripped = pc.utf8_trim_whitespace(picked)
        blank = pc.fill_null(pc.equal(pc.binary_length(stripped), 0), True).to_numpy(
            zero_copy_only=False)
        missing = np.zeros(len(self.text), dtype=bool)
        missing[rows[blank]] = True
        changed = pc.fill_null(pc.not_equal(stripped, picked), False)
        text = self
        if pc.any(changed).as_py():
            text = Text(pc.utf8_trim_whitespace(self.text))
        return text, (missing if missing.any() else None)


def _edges_of(text: pa.Array) -> np.ndarray:
    """:meth:`Text._edges` of one slice, as a bool array."""
    offset_type = np.int64 if pa.types.is_large_string(text.type) else np.int32
    offsets = np.frombuffer(text.buffers()[1], dtype=offset_type)[
        text.offset:text.offset + len(text) + 1]
    data_buffer = text.buffers()[2]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else None
    lengths = np.diff(offsets)
    edge = lengths == 0
    if data is not None and len(data):
        for byte in _end_bytes(data, offsets, lengths):
            edge |= (byte <= 32) | (byte >= 128)
    if text.null_count:
        edge |= text.is_null().to_numpy(zero_copy_only=False)
    return edge


def _end_bytes(data: np.ndarray, offsets: np.ndarray, lengths: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """The first and the last byte of each string (any byte for an empty one): strided views
    of the data when every string has the same length (ids such as "item0001234")."""
    length = int(lengths[0])
    if length and np.all(lengths == length):
        rows = data[int(offsets[0]):int(offsets[-1])].reshape(-1, length)
        return rows[:, 0], rows[:, -1]
    return (data[np.minimum(offsets[:-1], len(data) - 1)],
            data[np.maximum(offsets[1:] - 1, 0)])


@dataclass
class HashedIds:
    """A model's item ids with a 64-bit hash per row, made with ``seed``: equal ids have equal
    hashes and, within each user's list, different ids different hashes.

    The ids are either ``written``, as the rows' text, or ``numbered`` (dictionary-encoded
    Parquet, say): codes into the distinct ids, whose text for every row is only written out
    when asked for (``text``); :meth:`rows` reads a few rows either way."""

    hashes: np.ndarray
    seed: int
    written: pa.Array | pa.ChunkedArray | None
    numbered: Ids | None = None

    def __len__(self) -> int:
        return len(self.hashes)

    @property
    def distinct(self) -> pa.Array | None:
        """The distinct ids when they came numbered; None otherwise."""
        return self.numbered.values if self.numbered is not None else None

    @cached_property
    def text(self) -> pa.Array | pa.ChunkedArray:
        """Each row's id as Arrow text."""
        if self.written is not None:
            return self.written
        if self.numbered is None:
            raise ValueError("HashedIds needs its ids written or numbered.")
        return self.numbered.as_text()

    def rows(self, rows: np.ndarray) -> pa.Array:
        """The ids of the given rows, as one Arrow string array."""
        if self.written is None and self.numbered is not None:
            return self.numbered.values.take(pa.array(self.numbered.codes[rows]))
        return take_text(self.text, rows)

    def to_series(self, first: int | None = None) -> pd.Series:
        """The ids (only the first ``first`` rows' when given) as a pandas ``str`` Series
        (0-based index)."""
        text = self.text if first is None else self.rows(np.arange(min(first, len(self))))
        return (text if isinstance(text, pa.ChunkedArray) else pa.chunked_array([text])).to_pandas()
