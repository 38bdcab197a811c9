"""Ids in one Unicode form: "café" typed as é (one character, NFC) or as e and a combining
accent (two, NFD) is one id.

Files written on different systems spell accented ids differently (macOS file names and some
exports decompose them), and two spellings that look the same on screen would otherwise never
match: a model's list would miss every such item of the ground truth. Every id is read in
Unicode's composed form (NFC), the form most text is written in. Only non-ASCII ids can change,
so files of ASCII ids cost one pass over their bytes; the others are normalized once per
distinct id.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankmetrics.io._ids import Ids, Text, distinct

FORM = "NFC"


def composed_ids(ids: Ids) -> tuple[Ids, int]:
    """The column with each distinct id in NFC (equal ones merged), and how many distinct
    ids changed."""
    values = ids.values
    if not _has_non_ascii(values):
        return ids, 0
    composed = pc.utf8_normalize(values, form=FORM)
    changed = _changed(values, composed)
    if not changed:
        return ids, 0
    return distinct(ids.with_values(composed)), changed


def composed_text(text: Text) -> tuple[Text, int]:
    """A model's item text with every id in NFC, and how many rows changed."""
    column = text.text
    if not _has_non_ascii(column):
        return text, 0
    mask = pc.invert(pc.string_is_ascii(column))
    if isinstance(mask, pa.ChunkedArray):
        mask = mask.combine_chunks()
    picked = pc.filter(column, mask)
    if isinstance(picked, pa.ChunkedArray):
        picked = picked.combine_chunks()
    encoded = pc.dictionary_encode(picked)
    composed = pc.utf8_normalize(encoded.dictionary, form=FORM)
    if composed.equals(encoded.dictionary):
        return text, 0
    replaced = composed.take(encoded.indices)
    changed = int(pc.sum(pc.not_equal(replaced, picked)).as_py() or 0)
    whole = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    return Text(pc.replace_with_mask(whole, mask, replaced)), changed


def decomposed_note(count: int, role: str) -> str:
    """The warning saying how many ids were read in the composed form."""
    many = "s were" if count != 1 else " was"
    return (f"{count:,} {role} id{many} written with decomposed accents (such as e and a "
            "combining accent for é) and read in the composed form (NFC), so that they match "
            "the same ids written the usual way.")


def _has_non_ascii(text: pa.Array | pa.ChunkedArray) -> bool:
    """Whether any byte of the text's data is outside ASCII (a byte outside the rows, in a
    slice's buffer, may say True: then the rows are checked one by one)."""
    chunks = text.chunks if isinstance(text, pa.ChunkedArray) else [text]
    for chunk in chunks:
        if len(chunk) == 0:
            continue
        data = chunk.buffers()[2]
        if data is not None and np.frombuffer(data, dtype=np.uint8).max(initial=0) >= 128:
            return not pc.all(pc.string_is_ascii(text)).as_py()
    return False


def _changed(before: pa.Array, after: pa.Array) -> int:
    return int(pc.sum(pc.not_equal(before, after)).as_py() or 0)
