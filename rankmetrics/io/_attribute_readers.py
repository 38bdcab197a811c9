"""Reading an attribute table's columns as they are in the file (CSV, TSV, RecBole's atomic
files, Parquet, JSON Lines), before :mod:`rankmetrics.io._attributes` checks and types them."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from rankmetrics.errors import DataError
from rankmetrics.io._formats import HEAD_BYTES, sample_lines, sniff_delimiter
from rankmetrics.io._header import recbole_types
from rankmetrics.io._parsers import JsonRecords, read_csv_columns
from rankmetrics.io._readers import RowNumbers, Rows
from rankmetrics.io._source import DECOMPRESSION_ERRORS, Source, check_text, find_bad_line
from rankmetrics.io._wording import plural_s


@dataclass
class RawColumns:
    """An attribute table's columns as read, before any is checked: names in the file's
    order, values as found, the row numbers a spreadsheet shows."""

    names: list[str]
    values: dict[str, pd.Series]
    rows: Rows
    format: str
    decimal_comma: bool = False
    #: RecBole's declared type of each column, when the header declares them.
    types: dict[str, str] | None = None


def check_names(names: list[str], file: str) -> None:
    """A DataError for a column without a name or a name given twice."""
    blank = [i + 1 for i, name in enumerate(names) if not name.strip()]
    if blank:
        raise DataError(
            f"column {blank[0]} has no name in the header. Give every column a name, such as "
            "'country' or 'age'.",
            file=file,
        )
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise DataError(
            f"the header names more than one column '{repeated[0]}'. Give each column its own "
            "name.",
            file=file,
        )


def delimited_columns(src: Source, fmt: str, head: bytes) -> RawColumns:
    complete = len(head) < HEAD_BYTES
    text = check_text(head, src, complete=complete)
    lines = sample_lines(text, complete=complete)
    delimiter = "\t" if fmt == "tsv" else sniff_delimiter(lines, src)
    first_line = text.splitlines()[0] if text else ""
    if not first_line.strip():
        raise DataError(
            "the first line is empty; it must hold the column names (e.g. user,country,age).",
            file=src.file, row=1,
        )
    names = [name.strip() for name in next(csv.reader([first_line], delimiter=delimiter))]
    types = recbole_types(names)
    if fmt == "recbole" and types is None:
        raise DataError(
            "the first line is not a RecBole header: RecBole's atomic files name each column "
            "with its type, such as 'item_id:token' or 'genre:token_seq'. Add the types, or "
            "read the file as CSV or TSV.",
            file=src.file, row=1,
        )
    if types is not None:
        names = list(types)
    check_names(names, src.file)
    frame = _parse(src, delimiter, names)
    if len(frame) == 0:
        raise DataError("the file has column names but no data rows.", file=src.file)
    values = {name: frame[f"c{i}"] for i, name in enumerate(names)}
    return RawColumns(names, values, RowNumbers(2, len(frame)),
                       "recbole" if types is not None else fmt,
                       decimal_comma=delimiter != ",", types=types)


def _parse(src: Source, delimiter: str, names: list[str]) -> pd.DataFrame:
    frame, invalid = read_csv_columns(src, delimiter, len(names), list(range(len(names))),
                                      header=True, numbers=[])
    if invalid:
        number, expected, actual, _ = invalid[0]
        rest = len(invalid) - 1
        more = (f" {rest} more line{'s have' if rest > 1 else ' has'} the same problem."
                if rest else "")
        raise DataError(
            f"this line has {actual} field{plural_s(actual)} where the header has {expected}. "
            'A value probably contains the separator: put such values in double quotes ("..."); '
            f"or a value is missing or one too many.{more}",
            file=src.file, row=number,
        )
    return frame


def parquet_columns(src: Source) -> RawColumns:
    target: object = (str(src.path) if src.path is not None and src.compression is None
                      else pa.BufferReader(src.read_all() if src.compression else
                                           (src.data or b"")))
    try:
        table = pq.read_table(target)
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(
            f"the file is not a valid Parquet file ({exc}). It may be damaged or only partly "
            "copied: export it again.",
            file=src.file,
        ) from None
    names = [name for name in table.column_names if not name.startswith("__index_level_")]
    check_names(names, src.file)
    if table.num_rows == 0:
        raise DataError("the file has no rows.", file=src.file)
    values = {}
    for name in names:
        data = table.column(name)
        if pa.types.is_dictionary(data.type):
            data = data.cast(data.type.value_type)
        values[name] = data.to_pandas()
    return RawColumns(names, values, RowNumbers(1, table.num_rows), "parquet")


def jsonl_columns(src: Source) -> RawColumns:
    records: list[dict] = []
    lines: list[int] = []
    try:
        with src.open() as stream:
            for line, record in JsonRecords(src, io.TextIOWrapper(stream, encoding="utf-8-sig")):
                lines.append(line)
                records.append(record)
    except UnicodeDecodeError:
        raise find_bad_line(src) from None
    except DECOMPRESSION_ERRORS as exc:
        raise src.damaged(exc) from exc
    if not records:
        raise DataError("the file is empty: it has no rows.", file=src.file)
    names = list(dict.fromkeys(name for record in records for name in record))
    values = {name: pd.Series([record.get(name) for record in records], dtype=object)
              for name in names}
    return RawColumns(names, values, np.asarray(lines, dtype=np.int64), "jsonl")
