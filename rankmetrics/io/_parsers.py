"""The parsers under the readers: delimited text and a text file's lines by pyarrow, JSON Lines
one line at a time.

They know nothing of users, items or scores: :mod:`rankmetrics.io._readers` (runs, ground
truths, interactions) and :mod:`rankmetrics.io._attributes` (attributes of users or items)
choose the columns and check the values.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Iterable
from typing import IO, Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from rankmetrics.errors import DataError
from rankmetrics.io._source import DECOMPRESSION_ERRORS, Source, find_bad_line

#: Bytes of a delimited file parsed at a time (Arrow's default is 1 MiB). Each block becomes one
#: chunk of every column, and the checks and hashes after reading loop over the chunks: fewer,
#: larger chunks cost less Python per row and still keep both cores parsing.
CSV_BLOCK_BYTES = 4 << 20
#: The longest a read waits for pyarrow to let go of its content (see :func:`read_csv`): a
#: bound, not a wait one sees (pyarrow lets go within milliseconds).
LET_GO_SECONDS = 10


def read_csv_columns(src: Source, delimiter: str, n_columns: int, usecols: list[int], *,
                     header: bool, numbers: list[int], quoted: bool = True) -> tuple[
                         pd.DataFrame, list[tuple[int | None, int, int, str]]]:
    """Read the columns ``usecols`` with pyarrow (fast, compact, in parallel).

    Returns the columns (pandas ``str``, one row per line after the header, empty lines
    included as empty values, so a row's line number is its position plus 1 or 2) and the
    lines that had another number of fields: (line number, expected, found, text). The
    columns ``numbers`` are parsed as float64 by the reader when every value is a finite
    number; otherwise (a typo, a decimal comma, an empty cell) the file is read again with
    them as text, so the checks can show the values as written. ``quoted``: whether a value
    may be put in double quotes (TREC files have no quotes).
    """
    names = [f"c{i}" for i in range(n_columns)]
    keep = [names[i] for i in usecols]
    numeric = {names[i] for i in numbers}

    def read(threads: bool, parse_numbers: bool) -> tuple[
            pa.Table, list[tuple[int | None, int, int, str]]]:
        invalid: list[tuple[int | None, int, int, str]] = []

        def handler(row: pcsv.InvalidRow) -> str:
            invalid.append((row.number, row.expected_columns, row.actual_columns, row.text))
            return "skip"

        table = read_csv(
            src,
            read_options=pcsv.ReadOptions(use_threads=threads, column_names=names,
                                          skip_rows=1 if header else 0,
                                          block_size=CSV_BLOCK_BYTES),
            parse_options=pcsv.ParseOptions(
                delimiter=delimiter, quote_char='"' if quoted else False,
                ignore_empty_lines=False, invalid_row_handler=handler,
            ),
            convert_options=pcsv.ConvertOptions(
                include_columns=keep,
                column_types={name: pa.float64() if parse_numbers and name in numeric
                              else pa.large_string() for name in keep},
                null_values=[""], strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
        return table, invalid

    def all_finite(table: pa.Table) -> bool:
        return all(table[name].null_count == 0 and pc.all(pc.is_finite(table[name])).as_py()
                   is not False for name in numeric)

    try:
        try:
            table, invalid = read(threads=True, parse_numbers=bool(numeric))
            parsed = bool(numeric) and all_finite(table)
        except pa.ArrowInvalid as exc:
            if "conversion error" not in str(exc):
                raise
            parsed = False
        if numeric and not parsed:
            table, invalid = read(threads=True, parse_numbers=False)
        if invalid and any(number is None for number, *_ in invalid):
            # line numbers are known only without threads
            table, invalid = read(threads=False, parse_numbers=parsed)
    except DECOMPRESSION_ERRORS as exc:
        raise src.damaged(exc) from exc
    except (pa.ArrowInvalid, OSError) as exc:
        if "UTF8" in str(exc) or "UTF-8" in str(exc):
            raise find_bad_line(src) from None
        if src.compression:
            raise src.damaged(exc) from exc
        raise DataError(f"the file cannot be read as a table: {exc}", file=src.file) from None
    frame = table.to_pandas(self_destruct=True)  # pandas str columns sharing Arrow's buffers
    invalid.sort(key=lambda bad: bad[0] or 0)
    return frame, invalid


def read_csv(src: Source, **options: Any) -> pa.Table:
    """``pyarrow.csv.read_csv`` on the source's content: a plain file read by pyarrow itself,
    bytes without copy, else the decompressed stream (closed here, which raises its refusal
    past a limit), returned once pyarrow has let go of the content.

    Bytes and a stream are Python objects, and pyarrow's threads let go of them under the GIL,
    in their own time: the table can come back while one of those threads still holds them.
    Were the program to end just then (an error printed, and exit), that thread would find
    the interpreter shutting down and abort the whole process ("terminate called without an
    active exception"). So the content is handed over in an object that only pyarrow keeps,
    and the read waits until pyarrow has freed it.
    """
    if src.compression is None and src.path is not None:
        with pa.OSFile(str(src.path)) as native:
            return pcsv.read_csv(native, **options)
    lent: memoryview | IO[bytes] = (memoryview(src.data or b"") if src.compression is None
                                    else src.open())
    freed = threading.Event()
    weakref.finalize(lent, freed.set)
    source = pa.BufferReader(lent) if isinstance(lent, memoryview) else lent
    try:
        return pcsv.read_csv(source, **options)
    finally:
        try:
            source.close()
        finally:
            del source, lent
            freed.wait(LET_GO_SECONDS)


def text_lines(src: Source) -> pa.ChunkedArray:
    """Every line of a text file as one string (blank lines included), read by pyarrow."""
    try:
        table = read_csv(
            src,
            read_options=pcsv.ReadOptions(column_names=["line"]),
            parse_options=pcsv.ParseOptions(delimiter="\x1f", quote_char=False,
                                            ignore_empty_lines=False),
            convert_options=pcsv.ConvertOptions(column_types={"line": pa.large_string()},
                                                strings_can_be_null=False),
        )
    except DECOMPRESSION_ERRORS as exc:
        raise src.damaged(exc) from exc
    except (pa.ArrowInvalid, OSError) as exc:
        if "UTF8" in str(exc) or "UTF-8" in str(exc):
            raise find_bad_line(src) from None
        raise DataError(f"the file cannot be read as TREC: {exc}", file=src.file) from None
    return table.column("line")


class JsonRecords:
    """Iterate (line number, object) over a JSON Lines stream, skipping blank lines."""

    def __init__(self, src: Source, text: Iterable[str]) -> None:
        self.src = src
        self.lines = enumerate(text, start=1)

    def __iter__(self) -> JsonRecords:
        return self

    def __next__(self) -> tuple[int, dict]:
        for number, line in self.lines:
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(
                    f"this line is not valid JSON ({exc.msg} at character {exc.colno}). Each "
                    'line must be one JSON object, such as {"user": "u1", "item": "i3", '
                    '"score": 0.9}.',
                    file=self.src.file, row=number,
                ) from None
            except RecursionError:
                raise DataError(
                    "this line holds JSON nested too deeply (lists or objects inside each "
                    "other thousands of levels deep) to be read. Each line must be one flat JSON "
                    'object, such as {"user": "u1", "item": "i3", "score": 0.9}.',
                    file=self.src.file, row=number,
                ) from None
            if not isinstance(record, dict):
                raise DataError(
                    f"this line holds a JSON {type(record).__name__}, not an object. Each line "
                    'must be one JSON object, such as {"user": "u1", "item": "i3", '
                    '"score": 0.9}.',
                    file=self.src.file, row=number,
                )
            return number, record
        raise StopIteration
