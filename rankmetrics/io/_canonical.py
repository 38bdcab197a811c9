"""Whole-number ids written one way: ``"007"``, ``"7.0"`` and ``"7"`` are all ``"7"``.

A run and a ground truth written by different programs may spell the same numeric id in
different ways. :func:`canonical_ids` writes every whole number one way, and
:func:`rewritable_ids` finds, from Arrow's buffers, the few ids it may change, so that the
checks comparing a run's ids with the ground truth's look only at those.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rankmetrics.io._hashing import ROWS_PER_CHUNK, pieces
from rankmetrics.io._ids import Ids

WHOLE_NUMBER = r"^\s*([+-]?)0*(\d+)(?:\.0*)?\s*$"


def canonical_coded_ids(ids: Ids) -> Ids:
    """:func:`canonical_ids` applied to each distinct id."""
    canonical = pa.array(canonical_ids(ids.values.to_pandas()))
    if isinstance(canonical, pa.ChunkedArray):
        canonical = canonical.combine_chunks()
    return ids.with_values(pc.cast(canonical, pa.large_string()))


def canonical_ids(ids: pd.Series) -> pd.Series:
    """Whole-number ids written one way: ``"007"``, ``"7.0"`` and ``"7"`` all become ``"7"``.

    Other ids are unchanged.

    >>> canonical_ids(pd.Series(["007", "7.0", "-0", "u7", "7.5"], dtype="str")).tolist()
    ['7', '7', '0', 'u7', '7.5']
    """
    ids = ids.astype("str")
    if getattr(ids.dtype, "storage", None) == "pyarrow" and len(ids):
        text = pa.array(ids)
        # Ids holding a letter, and whole numbers already written plainly, stay as they are;
        # only the others (digits, signs, points, spaces) need the regular expression.
        same = pc.or_(pc.match_substring_regex(text, "[A-Za-z]"),
                      pc.match_substring_regex(text, "^(?:0|[1-9][0-9]*)$"))
        check = ~pc.fill_null(same, True).to_numpy(zero_copy_only=False)
        if not check.any():
            return ids
        if not check.all():
            where = np.flatnonzero(check)
            fixed = _canonical_text(ids.iloc[where])
            out = ids.to_numpy(dtype=object)  # a copy
            out[where] = fixed.to_numpy(dtype=object)
            return pd.Series(out, index=ids.index, dtype="str")
    return _canonical_text(ids)


def _canonical_text(ids: pd.Series) -> pd.Series:
    parts = ids.str.extract(WHOLE_NUMBER)
    sign, digits = parts[0].fillna(""), parts[1]
    negative = (sign == "-") & (digits != "0")
    canonical = digits.where(~negative, "-" + digits)
    return canonical.where(digits.notna(), ids).astype("str")


# What each byte can be in a whole number as WHOLE_NUMBER reads it: an ASCII digit (both
# bits), another byte of a number (the first bit: signs, the point, the ASCII spaces Python's
# \s takes, and every byte of a non-ASCII character, which may be a digit or a space of another
# script), or nothing (0).
_NUMBER_BYTE, _DIGIT = np.uint8(1), np.uint8(2)
_BYTE_KINDS = np.zeros(256, dtype=np.uint8)
_BYTE_KINDS[[*b"+-. \t\n\v\f\r\x1c\x1d\x1e\x1f"]] = _NUMBER_BYTE
_BYTE_KINDS[128:] = _NUMBER_BYTE
_BYTE_KINDS[[*b"0123456789"]] = _NUMBER_BYTE | _DIGIT
# Eight bytes at a time, in a 64-bit word: the low 7 bits of each byte, its top bit, and what
# added to the low bits sets a byte's top bit from ':' (0x3A) on.
_LOW_BITS = np.uint64(0x7F7F7F7F7F7F7F7F)
_TOP_BITS = np.uint64(0x8080808080808080)
_FROM_COLON = np.uint64(0x4646464646464646)


def rewritable_ids(text: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Where :func:`canonical_ids` may write an id otherwise, as a bool array: False for every
    id it leaves as it is (True for some of those too, which canonical_ids then tells apart).

    An id of ASCII digits is rewritable when it has a leading zero; another id only when every
    byte of it can be part of a whole number (``_BYTE_KINDS``). Read from Arrow's buffers, a
    slice of rows at a time: an ASCII byte from ':' to DEL (a letter, say) in the first eight
    bytes of an id (or its last eight), or as the first or last byte of a shorter one, shows it
    is no number; only the other ids are read whole, so the work grows with the ids that look
    like numbers.
    """
    found = np.zeros(len(text), dtype=bool)
    for start, part in pieces(text, ROWS_PER_CHUNK):
        found[start:start + len(part)] = _rewritable_part(part)
    return found


def _rewritable_part(text: pa.Array) -> np.ndarray:
    """:func:`rewritable_ids` of one slice of one chunk."""
    n = len(text)
    offset_type = np.int64 if pa.types.is_large_string(text.type) else np.int32
    _, offsets_buffer, data_buffer = text.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=offset_type)[text.offset:text.offset + n + 1]
    data = (np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None
            else np.zeros(0, dtype=np.uint8))
    starts, lengths = offsets[:-1], np.diff(offsets)
    if n == 0 or len(data) == 0:
        return np.zeros(n, dtype=bool)
    long = lengths >= 8
    if long.all():
        maybe = _only_low_bytes(_words(data, starts))
    else:
        maybe = data[np.minimum(starts, len(data) - 1)] - np.uint8(58) >= 70  # not ':' to DEL
        maybe &= data[offsets[1:] - 1] - np.uint8(58) >= 70
        maybe &= lengths > 0
        if long.any():
            rows = np.flatnonzero(long)
            maybe[rows] = _only_low_bytes(_words(data, starts[rows]))
    if text.null_count:
        maybe &= text.is_valid().to_numpy(zero_copy_only=False)
    longer = np.flatnonzero(maybe & (lengths > 8))  # and by their last eight bytes
    if len(longer):
        maybe[longer] = _only_low_bytes(_words(data, starts[longer] + lengths[longer] - 8))
    if np.count_nonzero(maybe) > n // 16:  # many look like numbers: Arrow finds the digits
        digits = pc.fill_null(pc.ascii_is_decimal(text), False).to_numpy(zero_copy_only=False)
        found = maybe & digits
        found &= data[np.minimum(starts, len(data) - 1)] == ord("0")
        found &= lengths > 1
        rows = np.flatnonzero(maybe & ~digits)
        found[rows[_byte_kinds(data, starts[rows], lengths[rows]) > 0]] = True
        return found
    rows = np.flatnonzero(maybe)
    kinds = _byte_kinds(data, starts[rows], lengths[rows])
    leading_zero = (data[starts[rows]] == ord("0")) & (lengths[rows] > 1)
    found = np.zeros(n, dtype=bool)
    found[rows[np.where(kinds & _DIGIT, leading_zero, kinds > 0)]] = True
    return found


def _words(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The 8 bytes of ``data`` from each position of ``at`` (at most ``len(data) - 8``, and
    ``data`` of 8 bytes or more) as a little-endian 64-bit word."""
    return np.ndarray((len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))[at]


def _only_low_bytes(words: np.ndarray) -> np.ndarray:
    """Whether no byte of each word is an ASCII byte from ':' to DEL: each is at most '9', or
    not ASCII (the bytes a whole number can have, and a few others)."""
    return ((words & _LOW_BITS) + _FROM_COLON) & ~words & _TOP_BITS == 0


def _byte_kinds(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The ``_BYTE_KINDS`` bits every byte of each string ``data[starts[i]:][:lengths[i]]``
    has (the strings not empty)."""
    if len(starts) == 0:
        return np.zeros(0, dtype=np.uint8)
    lengths = lengths.astype(np.int64)
    firsts = np.cumsum(lengths) - lengths
    at = np.arange(int(firsts[-1] + lengths[-1])) - np.repeat(firsts - starts, lengths)
    return np.bitwise_and.reduceat(_BYTE_KINDS[data[at]], firsts)
