"""One reader per format: each finds the columns and returns their raw values with row numbers.

Every reader returns a :class:`RawTable` whose ``frame`` has one column per role (``user``,
``item`` and ``score`` / ``rank`` / ``rating``), values still as found in the file, and whose
``rows`` give each row's number for messages. Parsing the text is :mod:`rankmetrics.io._parsers`'
job, checking and converting the values :mod:`rankmetrics.io._validate`'s, both shared by
all formats.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import overload

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from rankmetrics.errors import DataError
from rankmetrics.io._columns import (
    ORDER,
    ROLE_NAMES,
    Choice,
    check_overrides,
    choose_columns,
    normalise,
)
from rankmetrics.io._formats import HEAD_BYTES, sample_lines, sniff_delimiter
from rankmetrics.io._header import counts_up, field_name, ranked_by_rank, read_first_line
from rankmetrics.io._parsers import JsonRecords, read_csv_columns, text_lines
from rankmetrics.io._source import DECOMPRESSION_ERRORS, Source, check_text, find_bad_line

JSON_SAMPLE = 100
NUMBER_ROLES = ("score", "rank", "rating")
LIST_SAMPLE = 1000


class RowNumbers:
    """The row numbers ``start``, ``start + 1``, ... of ``count`` rows, indexed like the array
    ``np.arange(start, start + count)`` without building it (only a few are ever shown)."""

    def __init__(self, start: int, count: int) -> None:
        self.start, self.count = start, count

    def __len__(self) -> int:
        return self.count

    @overload
    def __getitem__(self, key: int | np.integer) -> np.int64: ...

    @overload
    def __getitem__(self, key: np.ndarray | list[int]) -> np.ndarray: ...

    def __getitem__(self, key: object) -> np.int64 | np.ndarray:
        if isinstance(key, (int, np.integer)):
            if not -self.count <= key < self.count:
                raise IndexError(f"row {key} of {self.count}")
            return np.int64(self.start + key % self.count)
        key = np.asarray(key)
        if key.dtype == bool:
            if key.shape != (self.count,):
                raise IndexError(f"mask of {key.shape} for {self.count} rows")
            return np.flatnonzero(key) + self.start
        positions = key.astype(np.int64)
        if positions.size and not (-self.count <= positions.min()
                                   and positions.max() < self.count):
            raise IndexError(f"rows out of range for {self.count} rows")
        return positions % max(self.count, 1) + self.start


#: Each row's number for messages: an array, or the plain count of a table read in order.
Rows = np.ndarray | RowNumbers


@dataclass
class RawTable:
    """Columns found in a file, with their raw values and the row number of each value."""

    frame: pd.DataFrame
    rows: Rows
    format: str
    columns: dict[str, str]
    ranking: str | None
    positions: np.ndarray | None = None
    implied_rating: bool = False
    decimal_comma: bool = False
    warnings: list[str] = field(default_factory=list)
    #: The roles by position of a file without a header line (None: it has one).
    order: tuple[str, ...] | None = None


def read_source(
    src: Source, fmt: str, kind: str, overrides: dict[str, str], force_list: bool, head: bytes
) -> RawTable:
    """Read ``src`` with the parser for ``fmt``."""
    if fmt in ("trec_run", "trec_qrels"):
        return _read_trec(src, fmt, kind, overrides, head)
    if ORDER in overrides and fmt in ("parquet", "jsonl"):
        raise _named_columns(src.file,
                             "Parquet file" if fmt == "parquet" else "JSON Lines file")
    if fmt == "parquet":
        return _read_parquet(src, kind, overrides, force_list)
    if fmt == "jsonl":
        return _read_jsonl(src, kind, overrides, force_list)
    return _read_delimited(src, fmt, kind, overrides, force_list, head)


def _named_columns(file: str, what: str) -> DataError:
    return DataError(
        "the order of the columns was given, which is for a text file without a header line; "
        f"a {what} names its columns: choose them by name instead, such as "
        "columns={'user': 'customer'}.",
        file=file,
    )


def read_dataframe(df: pd.DataFrame, kind: str, name: str, columns: dict | None) -> RawTable:
    """The columns of a DataFrame handed over by a library user."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"Expected a pandas DataFrame. Got {type(df).__name__}.")
    overrides = check_overrides(columns, kind)
    if ORDER in overrides:
        raise _named_columns(name, "DataFrame")
    if any(level is not None for level in df.index.names):
        df = df.reset_index()
    labels = {str(label): label for label in df.columns}
    choice = choose_columns(
        list(labels), kind, overrides, name,
        is_list_column=lambda column: _holds_lists(df[labels[column]]),
    )
    if len(df) == 0:
        raise DataError("the table has no rows.", file=name)
    rows = RowNumbers(1, len(df))
    values = {role: df[labels[column]].reset_index(drop=True)
              for role, column in choice.columns.items()}
    return _assemble(choice, values, rows, "dataframe", src_file=name)


# Delimited text ----------------------------------------------------------------------------

def _read_delimited(
    src: Source, fmt: str, kind: str, overrides: dict[str, str], force_list: bool, head: bytes
) -> RawTable:
    complete = len(head) < HEAD_BYTES
    text = check_text(head, src, complete=complete)
    lines = sample_lines(text, complete=complete)
    delimiter = "\t" if fmt == "tsv" else sniff_delimiter(lines, src)
    first_line = text.splitlines()[0] if text else ""
    if not first_line.strip():
        raise DataError(
            "the first line is empty; it must hold the column names (e.g. user,item,score).",
            file=src.file, row=1,
        )
    fields = [name.strip() for name in next(csv.reader([first_line], delimiter=delimiter))]
    if len(fields) == 1 and not overrides:
        raise DataError(
            f"the file has a single column ('{fields[0]}'): no comma, tab, semicolon or | "
            "separates its columns. Separate them with one of these (space-separated files are "
            "read only in the TREC shapes 'user Q0 item rank score tag' and 'user 0 item "
            "rating').",
            file=src.file,
        )
    sample = list(csv.reader(lines[:LIST_SAMPLE + 1], delimiter=delimiter))
    first = read_first_line(fields, sample[1:], kind, overrides, src.file,
                            recbole=fmt == "recbole", decimal_comma=delimiter != ",")
    names = first.names
    data = sample[1:] if first.has_header else sample

    def is_list_column(name: str) -> bool:
        position = names.index(name)
        cells = [row[position].strip() for row in data if len(row) > position]
        single_item = normalise(name) in map(normalise, ROLE_NAMES["item"])
        return _cells_hold_lists(cells, allow_spaces=not single_item)

    choice = choose_columns(
        names, kind, first.overrides, src.file, is_list_column=is_list_column,
        force_list=force_list, may_be_data=first.may_be_data,
    )
    positions = {role: names.index(column) for role, column in choice.columns.items()}
    usecols = sorted(set(positions.values()))
    numbers = [position for role, position in positions.items() if role in NUMBER_ROLES]
    frame = _parse_csv(src, delimiter, len(names), usecols, numbers, header=first.has_header)
    values = {role: frame[f"c{position}"] for role, position in positions.items()}
    if first.rank_possible and counts_up(values["user"], values["score"]):
        first = ranked_by_rank(first)
        choice = choose_columns(names, kind, first.overrides, src.file,
                                is_list_column=is_list_column)
        values["rank"] = values.pop("score")
    if len(frame) == 0:
        raise DataError(
            "the file has column names but no data rows.", file=src.file,
        )
    rows = RowNumbers(2 if first.has_header else 1, len(frame))
    label = "recbole" if first.types is not None else fmt
    raw = _assemble(choice, values, rows, ("list_csv" if choice.layout == "list" else label),
                    src_file=src.file)
    raw.decimal_comma = delimiter != ","
    raw.order = first.order
    if first.assumed:
        raw.warnings.insert(0, first.warning())
    return raw


def _parse_csv(src: Source, delimiter: str, n_columns: int, usecols: list[int],
               numbers: list[int], *, header: bool) -> pd.DataFrame:
    frame, invalid = read_csv_columns(src, delimiter, n_columns, usecols, header=header,
                                      numbers=numbers)
    if invalid:
        number, expected, actual, text = invalid[0]
        rest = len(invalid) - 1
        problem = (
            f"this line has {actual} field{'s' if actual != 1 else ''} where the "
            f"{'header' if header else 'first line'} has {expected}."
        )
        if text.count('"') % 2:
            problem += (' A quote (") opened on this line is never closed: close it, or remove '
                        "the stray quote.")
        else:
            problem += (
                f" A value probably contains the separator ({_delimiter_word(delimiter)}): put "
                'such values in double quotes ("..."); or a value is missing or one too many.'
            )
        if rest:
            problem += f" {rest} more line{'s have' if rest > 1 else ' has'} the same problem."
        raise DataError(problem, file=src.file, row=number)
    return frame


def _delimiter_word(delimiter: str) -> str:
    return {",": "a comma", "\t": "a tab", ";": "a semicolon", "|": "a '|'"}[delimiter]


# TREC --------------------------------------------------------------------------------------

TREC_LAYOUT = {
    "trec_run": ("user Q0 item rank score tag", {"user": 1, "item": 3, "score": 5}),
    "trec_qrels": ("user 0 item rating", {"user": 1, "item": 3, "rating": 4}),
}


def _read_trec(src: Source, fmt: str, kind: str, overrides: dict[str, str],
               head: bytes) -> RawTable:
    shape, fields = TREC_LAYOUT[fmt]
    if (fmt == "trec_run") != (kind == "run"):
        other = "a model's output (a TREC run)" if fmt == "trec_run" else (
            "ground truth (TREC qrels)")
        use = "a model run" if fmt == "trec_run" else "the ground truth"
        raise DataError(
            f"this file has the shape of {other}: '{shape}'. Load it as {use} instead.",
            file=src.file,
        )
    width = len(shape.split())
    usecols = [position - 1 for position in fields.values()]
    frame = None
    rows: np.ndarray | RowNumbers = RowNumbers(1, 0)
    delimiter = _single_delimiter(head, width)
    if delimiter is not None:
        numbers = [position - 1 for role, position in fields.items() if role in NUMBER_ROLES]
        frame, invalid = read_csv_columns(src, delimiter, width, usecols, header=False,
                                          numbers=numbers, quoted=False)
        if invalid or frame.iloc[:, 0].str.startswith("#").any():
            frame = None  # irregular spacing, comments or a bad line: the exact parser tells
        else:
            rows = RowNumbers(1, len(frame))
    warnings: list[str] = []
    if frame is None:
        frame, rows = _parse_whitespace(src, width, shape, usecols,
                                        extra_fields=fmt == "trec_run", warnings=warnings)
    columns = {role: field_name(position) for role, position in fields.items()}
    if overrides:
        warnings.append("columns= was ignored: the fields of a TREC file are fixed by position "
                        f"({shape}).")
    ranking = "score" if kind == "run" else None
    choice = Choice(columns, "long", ranking, warnings=warnings)
    values = {role: frame.iloc[:, index].reset_index(drop=True)
              for index, role in enumerate(columns)}
    return _assemble(choice, values, rows, fmt, src_file=src.file)


def _single_delimiter(head: bytes, width: int) -> str | None:
    """A single space or tab splitting every sampled line into ``width`` fields, if any."""
    lines = [line for line in head.decode("utf-8", errors="replace").splitlines()[:-1]
             if line.strip()]
    for delimiter in (" ", "\t"):
        if lines and all(len(line.split(delimiter)) == width for line in lines):
            return delimiter
    return None


def _parse_whitespace(src: Source, width: int, shape: str, usecols: list[int], *,
                      extra_fields: bool, warnings: list[str],
                      ) -> tuple[pd.DataFrame, np.ndarray | RowNumbers]:
    """Fields split on any run of whitespace, as trec_eval does, and their line numbers.

    Lines whose first non-space character is ``#`` are comments (trec_eval 10) and skipped;
    blank lines are kept as empty rows. A run's fields after the tag are ignored, as
    trec_eval ignores them, with a warning (an id holding a space also gives more fields).
    """
    stripped = pc.utf8_trim_whitespace(text_lines(src))
    comment = pc.starts_with(stripped, "#").to_numpy(zero_copy_only=False)
    lists = pc.utf8_split_whitespace(stripped, max_splits=width if extra_fields else None)
    lists = lists.combine_chunks()
    blank = pc.equal(stripped, "").to_numpy(zero_copy_only=False)  # split gives [""]
    counts = np.where(blank, 0, pc.list_value_length(lists).to_numpy(zero_copy_only=False))
    wrong = ~comment & (counts > 0) & ((counts < width) | (~extra_fields & (counts > width)))
    bad = np.flatnonzero(wrong)
    if bad.size:
        raise _trec_width_error(src, int(bad[0]) + 1, int(counts[bad[0]]), width, shape,
                                more=bad.size - 1)
    longer = np.flatnonzero(~comment & (counts > width))
    if longer.size:
        warnings.append(
            f"{longer.size} line{'s have' if longer.size > 1 else ' has'} more than the {width} "
            f"fields of a TREC run ('{shape}'), first line {longer[0] + 1}: what follows the "
            "tag was ignored, as trec_eval does. If an item id holds a space, the fields are "
            "shifted: fix those lines."
        )
    starts = lists.offsets.to_numpy()[:-1]
    table = pa.table({
        field_name(i + 1): pc.take(lists.values, pa.array(starts + i, mask=counts <= i))
        .fill_null("")
        for i in usecols
    })
    if not comment.any():
        return table.to_pandas(self_destruct=True), RowNumbers(1, len(counts))
    kept = np.flatnonzero(~comment)
    return table.take(kept).to_pandas(self_destruct=True), kept + 1


def _trec_width_error(src: Source, line: int, seen: int, width: int, shape: str,
                      more: int = 0) -> DataError:
    rest = (f" {more} other line{'s have' if more > 1 else ' has'} a wrong number of fields "
            "too." if more else "")
    return DataError(
        f"this line has {seen} whitespace-separated fields, but a TREC "
        f"{'run' if width == 6 else 'qrels'} line has {width}: '{shape}'. Item ids and tags "
        f"cannot contain spaces; fix or delete the line.{rest}",
        file=src.file, row=line,
    )


# JSON Lines --------------------------------------------------------------------------------

def _read_jsonl(src: Source, kind: str, overrides: dict[str, str], force_list: bool) -> RawTable:
    try:
        with src.open() as stream:
            records = JsonRecords(src, io.TextIOWrapper(stream, encoding="utf-8-sig"))
            sample = list(islice(records, JSON_SAMPLE))
            if not sample:
                raise DataError("the file is empty: it has no rows.", file=src.file)
            names = list(dict.fromkeys(key for _, record in sample for key in record))
            choice = choose_columns(
                names, kind, overrides, src.file, force_list=force_list,
                is_list_column=lambda column: any(
                    isinstance(record.get(column), list) for _, record in sample),
            )
            wanted = list(choice.columns.items())
            values: dict[str, list] = {role: [] for role, _ in wanted}
            lines: list[int] = []
            for line, record in chain(sample, records):
                lines.append(line)
                for role, column in wanted:
                    values[role].append(record.get(column))
    except UnicodeDecodeError:
        raise find_bad_line(src) from None
    except DECOMPRESSION_ERRORS as exc:
        raise src.damaged(exc) from exc
    series = {role: pd.Series(column, dtype=object) for role, column in values.items()}
    fmt = "list_jsonl" if choice.layout == "list" else "jsonl"
    return _assemble(choice, series, np.asarray(lines, dtype=np.int64), fmt, src_file=src.file)


# Parquet -----------------------------------------------------------------------------------

def _read_parquet(src: Source, kind: str, overrides: dict[str, str],
                  force_list: bool) -> RawTable:
    if src.path is not None and src.compression is None:
        target: object = str(src.path)
    else:
        target = pa.BufferReader(src.read_all() if src.compression else (src.data or b""))
    try:
        parquet = pq.ParquetFile(target)
        schema = parquet.schema_arrow
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(
            f"the file is not a valid Parquet file ({exc}). It may be damaged or only partly "
            "copied: export it again.",
            file=src.file,
        ) from None
    names = [name for name in schema.names if not name.startswith("__index_level_")]

    def is_list_column(name: str) -> bool:
        kind_ = schema.field(name).type
        return pa.types.is_list(kind_) or pa.types.is_large_list(kind_) or (
            pa.types.is_fixed_size_list(kind_))

    choice = choose_columns(names, kind, overrides, src.file, is_list_column=is_list_column,
                            force_list=force_list)
    for role, column in choice.columns.items():
        if role in ("user", "item", "items"):
            check_flat_ids(schema.field(column).type, role, src.file, column)
    wanted = list(dict.fromkeys(choice.columns.values()))
    # Text ids come dictionary-encoded (as most Parquet writers store them): far faster to read
    # than one string per row, and their codes are what the checks need.
    coded = [column for role, column in choice.columns.items()  # ids read as codes
             if choice.layout == "long" and role in ("user", "item")
             and not is_list_column(column)]
    as_codes = [column for column in coded if _is_text(schema.field(column).type)]
    try:
        if as_codes:
            parquet = pq.ParquetFile(target, read_dictionary=as_codes)
        table = parquet.read(columns=wanted)
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(f"the Parquet file cannot be read ({exc}): it may be damaged; export "
                        "it again.", file=src.file) from None
    if table.num_rows == 0:
        raise DataError("the file has no rows.", file=src.file)
    values = {}
    for role, column in choice.columns.items():
        data = table.column(column)
        if role in ("user", "item") and pa.types.is_floating(data.type):
            data = pc.if_else(pc.is_nan(data), None, data)  # NaN is a missing id, not "nan"
        if role in ("user", "item") and column in coded:
            data = _coded_ids(data, src.file, column)
            values[role] = pd.Series(pd.arrays.ArrowExtensionArray(data), copy=False)
        elif role in ("user", "item") and not is_list_column(column):
            values[role] = arrow_ids_as_text(data, src.file, column).to_pandas()
        else:
            values[role] = data.to_pandas()
    fmt = "list_parquet" if choice.layout == "list" else "parquet"
    return _assemble(choice, values, RowNumbers(1, table.num_rows), fmt, src_file=src.file)


def check_flat_ids(kind: pa.DataType, role: str, file: str, column: str) -> None:
    """Ids must be single values: a list column (the list layout) holds plain ids, an id
    column no lists or records."""
    ids = kind.value_type if role == "items" and _is_list_type(kind) else kind
    if pa.types.is_nested(ids):
        what = "lists of lists or of records" if ids is not kind else "lists or records"
        raise DataError(
            f"the column holds {what} ({kind}) in every row, which cannot serve as ids. Ids "
            "must be text or whole numbers; a column of lists (one row per user) must hold "
            "plain ids, such as ['i3', 'i9'].",
            file=file, column=column,
        )


def _is_list_type(kind: pa.DataType) -> bool:
    return (pa.types.is_list(kind) or pa.types.is_large_list(kind)
            or pa.types.is_fixed_size_list(kind))


def _is_text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def arrow_ids_as_text(data: pa.ChunkedArray, file: str, column: str) -> pa.ChunkedArray:
    """Ids as text: numbers are written plainly (12, not 12.0), text is kept as it is."""
    if _is_text(data.type):
        return data
    try:
        return pc.cast(data, pa.string())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise DataError(
            f"the column holds {data.type} values, which cannot serve as ids; ids must be text "
            "or whole numbers.",
            file=file, column=column,
        ) from None


def _coded_ids(data: pa.ChunkedArray, file: str, column: str) -> pa.ChunkedArray:
    """Ids as dictionary-encoded text, as :func:`arrow_ids_as_text` writes them; each distinct
    value is converted once."""
    if pa.types.is_dictionary(data.type) and _is_text(data.type.value_type):
        return data
    try:
        encoded = pc.dictionary_encode(data)
        if _is_text(encoded.type.value_type):
            return encoded
        return pa.chunked_array(
            [pa.DictionaryArray.from_arrays(chunk.indices, pc.cast(chunk.dictionary, pa.string()))
             for chunk in encoded.chunks],
            type=pa.dictionary(encoded.type.index_type, pa.string()),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return pc.dictionary_encode(arrow_ids_as_text(data, file, column))


# Shared ------------------------------------------------------------------------------------

def _assemble(choice: Choice, values: dict[str, pd.Series], rows: np.ndarray | RowNumbers,
              fmt: str, *, src_file: str) -> RawTable:
    """Build the RawTable; in the list layout, one row per (user, listed item)."""
    if choice.layout == "long":
        frame = pd.DataFrame(values, copy=False)
        return RawTable(frame, rows, fmt, choice.columns, choice.ranking,
                        implied_rating=choice.implied_rating, warnings=list(choice.warnings))
    lists = [_as_list(cell) for cell in _split_cells(values["items"])]
    lengths = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    parents = np.repeat(np.arange(len(lists)), lengths)
    starts = np.cumsum(lengths) - lengths
    positions = np.arange(int(lengths.sum())) - np.repeat(starts, lengths) + 1
    users = values["user"].reset_index(drop=True)
    frame = pd.DataFrame({
        "user": users.take(parents).reset_index(drop=True),
        "item": pd.Series(list(chain.from_iterable(lists)), dtype=object),
    })
    warnings = list(choice.warnings)
    empty_lists = int(((lengths == 0) & ~_blank(users).to_numpy()).sum())
    if empty_lists:
        warnings.append(
            f"{empty_lists} user{'s have' if empty_lists > 1 else ' has'} an empty list of "
            "items; they are treated as users the model recommended nothing to."
        )
    if frame.empty:
        raise DataError("every list of items is empty: the file holds no items.", file=src_file)
    return RawTable(frame, rows[parents], fmt, choice.columns, choice.ranking,
                    positions=positions, implied_rating=choice.implied_rating,
                    warnings=warnings)


def _blank(series: pd.Series) -> pd.Series:
    return series.isna() | (series.astype(str).str.strip() == "")


def _holds_lists(series: pd.Series) -> bool:
    first = series.dropna()
    return len(first) > 0 and isinstance(first.iloc[0], (list, tuple, np.ndarray))


LIST_SEPARATORS = ("|", ";", ",")


def _cells_hold_lists(cells: list[str], *, allow_spaces: bool) -> bool:
    """Whether text cells hold several ids: bracketed, or split by | ; , (or spaces)."""
    for cell in cells:
        if cell.startswith("[") and cell.endswith("]"):
            return True
        if any(sep in cell for sep in LIST_SEPARATORS):
            return True
        if allow_spaces and len(cell.split()) > 1:
            return True
    return False


def _split_cells(cells: pd.Series) -> list[object]:
    """Text cells become lists of ids; cells that already are lists are kept.

    The separator is the first of ``|``, ``;``, ``,`` seen in any cell of the file, else
    whitespace; ``["i1", "i2"]`` (a Python or JSON list written as text) is also understood.
    """
    listed = list(cells)
    texts = [cell for cell in listed[:LIST_SAMPLE] if isinstance(cell, str)]
    separator = next((sep for sep in LIST_SEPARATORS
                      if any(sep in cell for cell in texts if not cell.lstrip().startswith("["))),
                     None)
    out: list[object] = []
    for cell in listed:
        if not isinstance(cell, str):
            out.append(cell)
            continue
        text = cell.strip()
        if text.startswith("[") and text.endswith("]"):
            parts: list[str] = text[1:-1].split(",")
        else:
            parts = text.split(separator) if separator else text.split()
        out.append([token for token in (part.strip().strip("'\"").strip() for part in parts)
                    if token])
    return out


def _as_list(cell: object) -> list:
    if cell is None or (isinstance(cell, float) and np.isnan(cell)):
        return []
    if isinstance(cell, (list, tuple, np.ndarray)):
        return list(cell)
    return [cell]
