"""Reading attributes of users or items: one row per id, then any columns.

A user's country, plan or age splits the users into segments; an item's genres describe what
a model recommends. Such a table comes as CSV, TSV, Parquet, JSON Lines or a DataFrame and is
read with the machinery that reads runs and ground truths (format detection, decompression
limits, UTF-8 checks, the key column found by its usual names, rows numbered as a spreadsheet
shows them), so its ids are written exactly as the ground truth's and the runs' and match
them.

Each other column becomes one attribute of one of three kinds:

- ``"number"``: every filled cell is a number (float64; empty cells are NaN);
- ``"categories"``: several categories per row, as a list column (Parquet, JSON Lines,
  DataFrame) or text cells separated by ``|`` or ``;`` (``Action|Comedy``); each cell becomes a
  tuple of text, an empty cell None;
- ``"category"``: anything else, as text (pandas ``str``; empty cells are missing).

RecBole's atomic files (``.user``, ``.item``) declare each column's type in their header, and
the declaration decides: ``token`` is a category (``age:token`` too), ``token_seq`` several
categories separated by spaces, ``float`` a number (a cell that is none is a DataError);
``float_seq`` columns (several numbers) are not read, with a warning.

A key given twice, or a row with attributes but no key, is a DataError naming the rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

from rankmetrics.errors import DataError
from rankmetrics.io._attribute_readers import (
    RawColumns,
    check_names,
    delimited_columns,
    jsonl_columns,
    parquet_columns,
)
from rankmetrics.io._canonical import canonical_coded_ids
from rankmetrics.io._columns import find_column, missing_columns, resolve_override
from rankmetrics.io._formats import check_format, detect
from rankmetrics.io._header import NUMBER, without_type
from rankmetrics.io._ids import Ids, distinct
from rankmetrics.io._readers import RowNumbers, Rows, arrow_ids_as_text, check_flat_ids
from rankmetrics.io._source import (
    decompressed_limit,
    resolve,
)
from rankmetrics.io._unicode import composed_ids, decomposed_note
from rankmetrics.io._validate import (
    DECIMAL_COMMA,
    checked_ids,
    id_text,
    text_ids_as_codes,
)
from rankmetrics.io._wording import (
    EXAMPLES,
    named_rows,
    number_examples,
    plural_s,
    quoted_value,
    row_examples,
)

KEYS = ("user", "item")
KINDS = ("category", "categories", "number")
ATTRIBUTE_FORMATS = ("csv", "tsv", "recbole", "parquet", "jsonl")
#: Separators of several categories written in one text cell, in order of preference.
CATEGORY_SEPARATORS = ("|", ";")


@dataclass
class Attributes:
    """Attributes of users or items, one row per id.

    Attributes
    ----------
    key : {"user", "item"}
        Whose attributes these are.
    name : str
        Display name: the file stem unless one was given.
    source : str
        The file name, as used in messages.
    format : {"csv", "tsv", "recbole", "parquet", "jsonl", "dataframe"}
    key_column : str
        The column the ids were read from.
    table : pandas.DataFrame
        Column ``key`` (the ids as pandas ``str``, written as the ground truth and runs write
        them), then one column per attribute, in the file's order, typed by ``kinds``.
    kinds : dict of str to str
        Each attribute column's kind: ``"category"``, ``"categories"`` or ``"number"``.
    warnings : list of str
        Things worth telling the user that did not stop the reading.
    """

    key: str
    name: str
    source: str
    format: str
    key_column: str
    table: pd.DataFrame
    kinds: dict[str, str]
    warnings: list[str] = field(default_factory=list)

    @property
    def ids(self) -> pd.Series:
        """The ids, one per row."""
        return self.table[self.key]

    @property
    def attribute_names(self) -> list[str]:
        """The attribute columns, in the file's order."""
        return list(self.kinds)

    def column(self, name: str) -> pd.Series:
        """One attribute's values indexed by id (a ValueError names the columns there are)."""
        if name not in self.kinds:
            raise ValueError(f"No attribute column {name!r} in {self.source}; its attribute "
                             f"columns are {', '.join(map(repr, self.kinds)) or 'none'}.")
        return pd.Series(self.table[name].to_numpy(), index=pd.Index(self.ids), name=name)


def read_attributes(
    source: object,
    *,
    key: str = "user",
    name: str | None = None,
    columns: dict[str, str] | None = None,
    format: str | None = None,
    ids_as_strings: bool = True,
    max_decompressed_size: int | str | None = None,
) -> Attributes:
    """Read a table of user or item attributes: one row per id, any other columns.

    Parameters
    ----------
    source : path, uploaded file or bytes
        As for :func:`rankmetrics.io.read_run`.
    key : {"user", "item"}, default "user"
        Whose attributes: the key column is found by the usual names of a user (user,
        user_id, query, qid, ...) or an item (item, item_id, movieId, doc_id, ...).
    name : str, optional
        Display name (default: the file stem). For raw bytes, the file name itself.
    columns : dict, optional
        ``{key: column}`` chooses the key column, overriding the detection.
    format : {"csv", "tsv", "recbole", "parquet", "jsonl"}, optional
        Default: detected from the name and the content (``recbole``: RecBole's atomic
        ``.user`` or ``.item`` files, whose header declares each column's type).
    ids_as_strings : bool, default True
        As for :func:`rankmetrics.io.read_run`: read the ids the way the ground truth and the
        runs were read, so that they match.
    max_decompressed_size : int or str, optional
        As for :func:`rankmetrics.io.read_run`.

    Returns
    -------
    Attributes
        The ids and the typed attribute columns (see the module docstring).

    Raises
    ------
    rankmetrics.errors.DataError
        For anything wrong with the file, naming the file, the row and the column.

    Examples
    --------
    >>> users = read_attributes(b"user,country,age\\nu1,FR,31\\nu2,DE,\\n", name="users.csv")
    >>> users.kinds
    {'country': 'category', 'age': 'number'}
    >>> items = read_attributes(b"item,genres\\ni1,Action|Comedy\\n", name="items.csv",
    ...                         key="item")
    >>> items.table["genres"].tolist()
    [('Action', 'Comedy')]
    """
    key = _check_key(key)
    chosen = _check_columns(columns, key)
    requested = _check_attribute_format(format)
    limit = decompressed_limit(max_decompressed_size)
    src, display = resolve(source, name)
    src.limit = limit
    head = src.read_head()
    fmt = detect(src, head, requested)
    if fmt.startswith("trec"):
        raise DataError(
            f"this file has the shape of a TREC {'run' if fmt == 'trec_run' else 'qrels'} file, "
            f"not of a table of {key} attributes. Attributes need a header line and one row per "
            f"{key}, such as '{key},country,plan'.",
            file=src.file,
        )
    if fmt == "parquet":
        raw = parquet_columns(src)
    elif fmt == "jsonl":
        raw = jsonl_columns(src)
    else:
        raw = delimited_columns(src, fmt, head)
    return _finish(raw, key, chosen, display, src.file, ids_as_strings)


def attributes_from_dataframe(
    df: pd.DataFrame,
    *,
    key: str,
    name: str,
    columns: dict[str, str] | None = None,
    ids_as_strings: bool = True,
) -> Attributes:
    """Check a table of attributes held in a DataFrame, as :func:`read_attributes` does for a
    file. Rows in messages are 1-based positions; a named index is treated as a column.

    Examples
    --------
    >>> df = pd.DataFrame({"userId": [1, 2], "plan": ["free", "paid"]})
    >>> attributes_from_dataframe(df, key="user", name="plans").table["user"].tolist()
    ['1', '2']
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"Expected a pandas DataFrame. Got {type(df).__name__}.")
    key = _check_key(key)
    chosen = _check_columns(columns, key)
    if any(level is not None for level in df.index.names):
        df = df.reset_index()
    names = [str(label) for label in df.columns]
    check_names(names, name)
    values = {str(label): df[label].reset_index(drop=True) for label in df.columns}
    raw = RawColumns(names, values, RowNumbers(1, len(df)), "dataframe")
    return _finish(raw, key, chosen, name, name, ids_as_strings)


# Arguments ---------------------------------------------------------------------------------

def _check_key(key: object) -> str:
    if key not in KEYS:
        raise ValueError(f"key= must be 'user' or 'item'. Got {key!r}.")
    return str(key)


def _check_columns(columns: object, key: str) -> str | None:
    if columns is None:
        return None
    if not isinstance(columns, dict) or set(columns) != {key}:
        raise ValueError(
            f"columns= must be a dict naming the {key} column, e.g. {{'{key}': 'customer_id'}}. "
            f"Got {columns!r}."
        )
    return str(columns[key])


def _check_attribute_format(format: str | None) -> str | None:
    if format is not None and format != "auto" and format not in ATTRIBUTE_FORMATS:
        raise ValueError(
            f"format= must be one of {', '.join(map(repr, ATTRIBUTE_FORMATS))} or None "
            f"(detect). Got {format!r}."
        )
    return check_format(format)[0]


# Checking ----------------------------------------------------------------------------------

def _finish(raw: RawColumns, key: str, chosen: str | None, display: str, file: str,
            ids_as_strings: bool) -> Attributes:
    warnings: list[str] = []
    key_column = _key_column(raw, key, chosen, file, warnings)
    others = [name for name in raw.names if name != key_column]
    rows = raw.rows
    blank = _blank(raw.values[key_column]) & np.logical_and.reduce(
        [_blank(raw.values[name]) for name in others], initial=True)
    values = raw.values
    if blank.any():
        keep = ~blank
        values = {name: column[keep].reset_index(drop=True) for name, column in values.items()}
        rows = rows[keep]
        count = int(blank.sum())
        warnings.append(f"Skipped {count} empty row{plural_s(count)}.")
        if not keep.any():
            raise DataError("the file has column names but no data rows.", file=file)
    ids, changed = composed_ids(_key_ids(values[key_column], rows, file, key_column, key,
                                         raw.format))
    if changed:
        warnings.append(decomposed_note(changed, key))
    if not ids_as_strings:
        ids = distinct(canonical_coded_ids(ids))
    _check_unique(ids, rows, file, key_column, key)
    if key in others:
        raise DataError(
            f"the column '{key}' is not the {key} id column ('{key_column}' is), but its name "
            "is kept for the ids: rename it.",
            file=file, column=key,
        )
    table = {key: ids.to_series()}
    kinds = {}
    declared = raw.types or {}
    for name in others:
        if declared.get(name) == "float_seq":
            warnings.append(f"Column '{name}' (float_seq: several numbers in each row) is not "
                            "read: an attribute is a category, several categories or a number.")
            continue
        if name in declared:
            kinds[name], table[name] = _declared(values[name], declared[name], rows, file, name)
            continue
        kinds[name], table[name], note = _attribute(values[name], rows, file, name,
                                                    raw.decimal_comma)
        if note:
            warnings.append(note)
    return Attributes(key, display, file, raw.format, key_column, pd.DataFrame(table), kinds,
                      warnings)


def _key_column(raw: RawColumns, key: str, chosen: str | None, file: str,
                warnings: list[str]) -> str:
    if chosen is not None:
        return resolve_override(raw.names, key, without_type(chosen) if raw.types else chosen,
                                file)
    column, warning = find_column(raw.names, key, set())
    if warning:
        warnings.append(warning)
    if column is not None:
        return column
    hint = ""
    if any(NUMBER.fullmatch(name) for name in raw.names):
        hint = (f"The first line looks like data rather than column names: add a header line "
                f"such as '{key},country,age'.")
    raise missing_columns(raw.names, [(key,)], key, {}, file, hint=hint)


def _blank(series: pd.Series) -> np.ndarray:
    """Where a cell is missing: null, NaN, empty or only spaces, or an empty list."""
    missing = series.isna().to_numpy(dtype=bool, na_value=True).copy()
    if series.dtype == object:
        filled = series[~missing]
        missing[~missing] = filled.map(
            lambda cell: (isinstance(cell, str) and not cell.strip())
            or (isinstance(cell, (list, tuple, np.ndarray)) and len(cell) == 0)
        ).to_numpy(dtype=bool)
    elif pd.api.types.is_string_dtype(series.dtype):  # text only: no cell is a list
        cells = series[~missing].tolist()
        missing[~missing] = np.fromiter((not cell.strip() for cell in cells), dtype=bool,
                                        count=len(cells))
    return missing


def _key_ids(series: pd.Series, rows: Rows, file: str, column: str, key: str,
             fmt: str) -> Ids:
    if fmt == "parquet" and not (series.dtype == object
                                 or pd.api.types.is_string_dtype(series.dtype)):
        data = pa.chunked_array([pa.array(series)])
        check_flat_ids(data.type, key, file, column)
        series = arrow_ids_as_text(data, file, column).to_pandas()
    if series.dtype == object:
        nested = np.flatnonzero(series.map(lambda cell: isinstance(cell, (list, dict, tuple))))
        if nested.size:
            raise DataError(
                f"the {key} id is a list or an object, not a single id, in "
                f"{named_rows(rows[nested])}. Give one {key} id per row.",
                file=file, row=int(rows[nested[0]]), column=column,
            )
    return distinct(checked_ids(series, text_ids_as_codes(series), rows, file, column, key))


def _check_unique(ids: Ids, rows: Rows, file: str, column: str, key: str) -> None:
    """A DataError naming the ids given on more than one row."""
    repeated = pd.Series(ids.codes).duplicated(keep=False).to_numpy()
    if not repeated.any():
        return
    where = np.flatnonzero(repeated)
    groups = [group.to_numpy() for _, group in
              pd.Series(where).groupby(ids.codes[where], sort=False)]
    shown = [f"{key} '{ids.at(group[0])}' is on rows {number_examples(rows[group])}"
             for group in groups[:EXAMPLES]]
    rest = len(groups) - len(shown)
    more = f" ... and {rest} more repeated {key}{plural_s(rest)}" if rest else ""
    raise DataError(
        f"{'; '.join(shown)}{more}. Attributes give one row per {key}: keep one of those rows "
        f"(or put several categories in one cell, separated by '|').",
        file=file, row=int(rows[groups[0][1]]), column=column,
    )


# Attribute columns -------------------------------------------------------------------------

def _attribute(series: pd.Series, rows: Rows, file: str, column: str,
               decimal_comma: bool) -> tuple[str, pd.Series, str]:
    """The column's kind, its typed values and a note for the user ("" if none)."""
    if pd.api.types.is_bool_dtype(series.dtype):
        return "category", series.astype(str).astype("str"), ""
    if pd.api.types.is_numeric_dtype(series.dtype):
        return "number", _finite(series.to_numpy(dtype=np.float64, na_value=np.nan), rows,
                                 file, column), ""
    if series.dtype == object:
        cells = series.to_numpy()
        nested = np.flatnonzero([isinstance(cell, dict) for cell in cells])
        if nested.size:
            raise DataError(
                f"the attribute is an object (a set of named values) in "
                f"{named_rows(rows[nested])}. Give a single value, or a list of categories.",
                file=file, row=int(rows[nested[0]]), column=column,
            )
        if any(isinstance(cell, (list, tuple, np.ndarray)) for cell in cells):
            return "categories", _listed(cells), ""
        numbers = [cell for cell in cells if not _missing_cell(cell)]
        if numbers and all(isinstance(cell, (int, float, np.integer, np.floating))
                           and not isinstance(cell, bool) for cell in numbers):
            values = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64)
            return "number", _finite(values, rows, file, column), ""
        series = pd.Series([None if _missing_cell(cell) else id_text(cell) for cell in cells],
                           dtype="str")
    return _text_attribute(series.astype("str").str.strip(), rows, column, decimal_comma)


def _declared(series: pd.Series, declared: str, rows: Rows, file: str,
              column: str) -> tuple[str, pd.Series]:
    """A column of a RecBole file typed as its header declares: token, token_seq or float."""
    text = series.astype("str").str.strip()
    text = text.where(text != "")
    if declared == "token_seq":  # RecBole separates the tokens of a sequence by spaces
        return "categories", _split(text, " ")
    if declared == "token":
        return "category", text
    numbers = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(np.isnan(numbers) & text.notna().to_numpy())
    if bad.size:
        shown = [f"{quoted_value(text.iloc[i])} (row {rows[i]})" for i in bad[:EXAMPLES]]
        raise DataError(
            f"the header declares the column a number (float), but {row_examples(shown, bad.size)} "
            f"{'is' if bad.size == 1 else 'are'} not one. Correct or empty those cells, or "
            "declare the column as token (a category).",
            file=file, row=int(rows[bad[0]]), column=column,
        )
    return "number", _finite(numbers, rows, file, column)


def _text_attribute(text: pd.Series, rows: Rows, column: str,
                    decimal_comma: bool) -> tuple[str, pd.Series, str]:
    text = text.where(text != "")
    filled = text.dropna()
    if filled.empty:
        return "category", text, ""
    numbers = pd.to_numeric(filled, errors="coerce")
    note = ""
    if numbers.isna().any() and decimal_comma:
        comma = filled.str.fullmatch(DECIMAL_COMMA)
        if comma.any():
            fixed = pd.to_numeric(filled.str.replace(",", ".", regex=False), errors="coerce")
            if fixed.notna().all():
                numbers = fixed
                example = filled[comma].iloc[0]
                note = (f"Read column '{column}' as numbers written with a decimal comma "
                        f"(e.g. '{example}' as {example.replace(',', '.')}).")
    finite = np.isfinite(numbers.to_numpy(dtype=np.float64, na_value=np.nan))
    if finite.all():
        values = pd.Series(np.nan, index=text.index)
        values[filled.index] = numbers.to_numpy(dtype=np.float64)
        return "number", values.astype(np.float64), note
    separator = next((sep for sep in CATEGORY_SEPARATORS if filled.str.contains(sep, regex=False)
                      .any()), None)
    if separator is not None:
        return "categories", _split(text, separator), ""
    if finite.mean() >= 0.5:
        where = filled.index[~finite]
        shown = [f"{quoted_value(filled[i])} (row {rows[i]})" for i in where[:EXAMPLES]]
        note = (f"Column '{column}' is read as categories, not numbers: "
                f"{row_examples(shown, len(where))} {'is' if len(where) == 1 else 'are'} not a "
                "number. If it holds numbers, correct or empty those cells.")
    return "category", text, note


def _finite(values: np.ndarray, rows: Rows, file: str, column: str) -> pd.Series:
    bad = np.flatnonzero(np.isinf(values))
    if bad.size:
        raise DataError(
            f"the attribute is infinite in {named_rows(rows[bad])}. Give a finite number, or "
            "leave the cell empty.",
            file=file, row=int(rows[bad[0]]), column=column,
        )
    return pd.Series(values, dtype=np.float64)


def _missing_cell(cell: object) -> bool:
    if cell is None or cell is pd.NA:
        return True
    if isinstance(cell, (float, np.floating)) and np.isnan(cell):
        return True
    return isinstance(cell, str) and not cell.strip()


def _listed(cells: np.ndarray) -> pd.Series:
    """List cells as tuples of text; a single value as a tuple of one; empty as None."""
    out: list[tuple[str, ...] | None] = []
    for cell in cells:
        if isinstance(cell, (list, tuple, np.ndarray)):
            parts = [id_text(part) for part in cell if not _missing_cell(part)]
            categories = tuple(part for part in parts if part)
        else:
            categories = () if _missing_cell(cell) else (str(id_text(cell)),)
        out.append(categories or None)
    return pd.Series(out, dtype=object)


def _split(text: pd.Series, separator: str) -> pd.Series:
    """Text cells ``"Action|Comedy"`` as tuples of categories (each with its runs of spaces
    made one space, and stripped); empty cells as None."""
    out: list[tuple[str, ...] | None] = []
    for cell in text:
        if not isinstance(cell, str):
            out.append(None)
            continue
        # str.split() splits at the whitespace regular expressions' \s matches
        parts = tuple(part for piece in cell.split(separator)
                      if (part := " ".join(piece.split())))
        out.append(parts or None)
    return pd.Series(out, dtype=object)


__all__ = ["Attributes", "KINDS", "attributes_from_dataframe", "read_attributes"]
