"""Checking a table's values and turning them into clean columns, the same for every format.

Problems are raised as :class:`~rankmetrics.errors.DataError` naming the file, the first bad
row and the column, with up to three examples and the count of the rest.
"""

from __future__ import annotations

import re
from functools import partial
from typing import cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rankmetrics.errors import DataError
from rankmetrics.io._canonical import canonical_coded_ids
from rankmetrics.io._hashing import equal_in_lists, hash_text, same_text
from rankmetrics.io._ids import (
    HashedIds,
    Ids,
    Text,
    distinct,
    from_arrow,
    from_objects,
    objects_as_chunks,
    repeated_pairs,
)
from rankmetrics.io._readers import RawTable, Rows
from rankmetrics.io._table import TableParts
from rankmetrics.io._unicode import composed_ids, composed_text, decomposed_note
from rankmetrics.io._wording import (
    EXAMPLES,
    counted,
    has_or_have,
    it_or_them,
    joined_with_and,
    named_rows,
    number_examples,
    plain_number,
    plural_s,
    quoted_value,
    row_examples,
    those_rows,
    with_article,
)
from rankmetrics.overlap import Outcome

WORDS = {"user": "user id", "item": "item id", "score": "score", "rank": "rank",
         "rating": "rating"}
DECIMAL_COMMA = re.compile(r"\s*[+-]?\d*,\d+\s*")


def finish(raw: RawTable, kind: str, file: str, ids_as_strings: bool) -> tuple[
        TableParts, list[str], dict[str, Ids | HashedIds], int]:
    """Check the raw values and make the clean table's parts: user, item (str) and score or
    rating.

    Also returns the user and item columns as codes (:class:`Ids`, distinct values in order of
    first appearance; a run's items as :class:`HashedIds`), which later checks and the
    metrics reuse instead of reading the text again, and the number of repeated ground-truth
    rows dropped.
    """
    warnings = list(raw.warnings)
    frame, rows, positions = raw.frame, raw.rows, raw.positions
    value_role = {"score": "score", "rank": "rank"}.get(raw.ranking or "")
    if kind == "truth" and not raw.implied_rating:
        value_role = "rating"
    if kind == "interactions" and "rating" in raw.columns:
        value_role = "rating"
    roles = ["user", "item"] + ([value_role] if value_role else [])
    read_text = _arrow_text(frame["item"]) if kind == "run" and ids_as_strings else None
    # A run's item text is hashed beside the checks of the user column (NumPy lets the other
    # thread run); the hashes are used when the text stays as read (no spaces, no empty rows).
    early = (Outcome(partial(hash_text, read_text.text), beside=True)
             if read_text is not None else None)
    coded: dict[str, Ids | Text | None] = {
        "user": text_ids_as_codes(frame["user"]),
        "item": read_text if read_text is not None else text_ids_as_codes(frame["item"]),
    }

    def missing(role: str) -> np.ndarray | None:
        ids = coded.get(role)
        if isinstance(ids, Text):
            ids, found = ids.trimmed()
            coded[role] = ids
        else:
            found = ids.missing() if ids is not None else _is_missing(frame[role])
        return found if found is not None and found.any() else None

    blank = missing("user")
    for role in roles[1:]:
        if blank is None:
            break
        more = missing(role)
        blank = None if more is None else blank & more
    if blank is not None and blank.any():
        keep = ~blank
        frame, rows = frame[keep], rows[keep]
        coded = {role: ids.filter(keep) if ids is not None else None
                 for role, ids in coded.items()}
        positions = positions[keep] if positions is not None else None
        count = int(blank.sum())
        warnings.append(f"Skipped {count} empty row{plural_s(count)}.")
        if frame.empty:
            raise DataError("the file has column names but no data rows.", file=file)

    column_of = _column_names(raw)
    user_codes, item_codes = coded["user"], coded["item"]
    users = distinct(checked_ids(frame["user"],
                                 user_codes if isinstance(user_codes, Ids) else None,
                                 rows, file, column_of["user"], "user"))
    items: Ids | Text
    if isinstance(item_codes, Text):
        items = _text_ids(item_codes, rows, file, column_of["item"])
    else:
        items = distinct(checked_ids(frame["item"], item_codes, rows, file, column_of["item"],
                                     "item"))
    users, changed = composed_ids(users)
    if changed:
        warnings.append(decomposed_note(changed, "user"))
    if isinstance(items, Text):
        items, changed = composed_text(items)
    else:
        items, changed = composed_ids(items)
    if changed:
        warnings.append(decomposed_note(changed, "item"))
    if not ids_as_strings:
        users = distinct(canonical_coded_ids(users))
        if isinstance(items, Ids):  # (a run's items are text only when kept as written)
            items = distinct(canonical_coded_ids(items))

    if kind != "run" and value_role is None:
        values = np.ones(len(frame), dtype=np.float64)
    elif value_role is None:
        values = _list_scores(positions)
    else:
        values, note = _numbers(frame[value_role], rows, file, column_of[value_role], value_role,
                                raw)
        if note:
            warnings.append(note)
    if value_role == "rank":
        _check_ranks(values, rows, file, column_of["rank"])
        warnings.extend(_rank_ties(users, values, rows))
        values = -values

    if raw.implied_rating:
        warnings.append(
            "The ground truth has no rating column: every (user, item) pair in it counts as "
            "relevant, with rating 1."
        )
    dropped = 0
    checked: Ids | HashedIds
    if kind == "run":
        hashes = early.get() if early is not None else None
        same = read_text is not None and isinstance(items, Text) and items.text is read_text.text
        checked = hashed_items(users, items, rows, positions, file, column_of["item"],
                               hashes if same else None)
    else:
        checked = cast(Ids, items)  # a ground truth's items are always numbered
        if kind == "truth" and repeated_pairs(users.codes, len(users.values), checked.codes):
            keep, note = _truth_duplicates(_pair_keys(users, checked), users, checked, values,
                                           rows, file, column_of.get("rating") or column_of["item"])
            warnings.append(note)
            dropped = int(np.count_nonzero(~keep))
            users, checked, values = (distinct(users.filter(keep)), distinct(checked.filter(keep)),
                                      values[keep])
    value_name = "score" if kind == "run" else "rating"
    parts = TableParts({"user": users, "item": checked}, value_name, values)
    return parts, warnings, {"user": users, "item": checked}, dropped


def _list_scores(positions: np.ndarray | None) -> np.ndarray:
    """Scores of a run given as lists: minus each item's place in its list (the first best).
    Only the list layout has neither a score nor a rank column; its reader sets the places."""
    if positions is None:
        raise ValueError("a run without a score or rank column needs its items' list places")
    return -positions.astype(np.float64)


def _column_names(raw: RawTable) -> dict[str, str]:
    names = dict(raw.columns)
    if "items" in names:
        names["item"] = names["items"]
    return names


# Ids ---------------------------------------------------------------------------------------

def _is_missing(series: pd.Series) -> np.ndarray:
    """Where a value is missing: null, NaN, or text that is empty or only spaces."""
    if _is_arrow_text(series):
        length = pc.binary_length(pc.utf8_trim_whitespace(pa.array(series)))
        return pc.fill_null(pc.equal(length, 0), True).to_numpy(zero_copy_only=False)
    missing = series.isna().to_numpy().copy()
    if series.dtype == object or pd.api.types.is_string_dtype(series.dtype):
        text = series[~missing].astype(str).str.strip()
        missing[~missing] = (text == "").to_numpy()
    return missing


def _is_arrow_text(series: pd.Series) -> bool:
    return getattr(series.dtype, "storage", None) == "pyarrow"


def text_ids_as_codes(series: pd.Series) -> Ids | None:
    """Ids held as text (Arrow, dictionary-encoded or Python strings) as codes; None for
    other columns.

    An object column of Python strings (missing ones may be None, NaN or pd.NA) is converted
    to Arrow text here, once, so every later step reads Arrow's buffers; one holding numbers
    or other objects is left to :func:`_id_series`.
    """
    if series.dtype == object:
        return from_objects(series.to_numpy())
    if not _is_arrow_text(series):
        return None
    data = series.array.__arrow_array__()
    kind = data.type.value_type if pa.types.is_dictionary(data.type) else data.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        return None
    return from_arrow(data)


def checked_ids(series: pd.Series, coded: Ids | None, rows: Rows, file: str, column: str,
                role: str) -> Ids:
    """Ids without surrounding spaces, as codes; a DataError names the rows without one."""
    if coded is not None:
        ids = coded.with_values(pc.utf8_trim_whitespace(coded.values))
        missing = ids.missing()
        if missing is None:
            return ids
    else:
        text = _id_series(series, rows, file, column, role)
        missing = (text.isna() | (text == "")).to_numpy()
        ids = None
    if missing.any():
        _raise_missing(missing, rows, file, column, role)
    return ids if ids is not None else from_arrow(pa.array(text))


def _text_ids(text: Text, rows: Rows, file: str, column: str) -> Text:
    """A run's item ids as text, without surrounding spaces; a DataError names the rows
    without one."""
    text, missing = text.trimmed()
    if missing is not None:
        _raise_missing(missing, rows, file, column, "item")
    return text


def _raise_missing(missing: np.ndarray, rows: Rows, file: str, column: str,
                   role: str) -> None:
    bad = np.flatnonzero(missing)
    raise DataError(
        f"{counted(bad.size, 'row')} {has_or_have(bad.size)} no {WORDS[role]}: "
        f"{named_rows(rows[bad])}. Every row needs {with_article(WORDS[role])}: "
        f"fill {it_or_them(bad.size)} in or delete {those_rows(bad.size)}.",
        file=file, row=int(rows[bad[0]]), column=column,
    )


def _arrow_text(series: pd.Series) -> Text | None:
    """Ids held as text (Arrow or Python strings) as Arrow text; None for other columns
    (numbers, dictionary-encoded text)."""
    if series.dtype == object:
        data = objects_as_chunks(series.to_numpy())
        return None if data is None else Text(data)
    if not _is_arrow_text(series):
        return None
    data = series.array.__arrow_array__()
    if not (pa.types.is_string(data.type) or pa.types.is_large_string(data.type)):
        return None
    return Text(data)


def hashed_items(users: Ids, items: Text | Ids, rows: Rows,
                 positions: np.ndarray | None, file: str, column: str,
                 first_hashes: np.ndarray | None = None) -> HashedIds:
    """A run's items hashed so that the items of each user's list have different hashes; a
    repeated item in a list is a DataError naming the rows. ``first_hashes``: the items' text
    hashed with seed 0 already.

    Items already numbered (dictionary-encoded in a Parquet file, say) are hashed once per
    distinct id. Equal hashes within a list are either a repeated item or (very rarely) two
    ids with the same hash; the text tells which, and for the latter another seed is tried.
    """
    starts = users.run_starts()
    together = len(starts) - 1 == len(users.values)  # each user's rows in one run
    seed = 0
    while True:
        hashed = (HashedIds(first_hashes if seed == 0 and first_hashes is not None
                            else hash_text(items.text, seed), seed, items.text)
                  if isinstance(items, Text)
                  else HashedIds(hash_text(items.values, seed)[items.codes], seed, None, items))
        first, second = equal_in_lists(starts, hashed.hashes,
                                       None if together else users.codes)
        if len(first) == 0:
            return hashed
        if same_text(hashed.rows(first), hashed.rows(second)).any():
            coded = items if isinstance(items, Ids) else distinct(from_arrow(items.text))
            _check_run_duplicates(_pair_keys(users, coded), users, coded, rows, positions, file,
                                  column)
        seed += 1


def _id_series(series: pd.Series, rows: Rows, file: str, column: str,
               role: str) -> pd.Series:
    """Ids that are not Arrow text, as a str Series (0-based index)."""
    if pd.api.types.is_string_dtype(series.dtype) and series.dtype != object:
        text = series.str.strip()
    elif pd.api.types.is_bool_dtype(series.dtype):
        text = series.astype(str)
    elif pd.api.types.is_integer_dtype(series.dtype):
        text = series.astype("str")
    else:
        nested = np.flatnonzero(series.map(lambda value: isinstance(value, (list, dict, tuple))))
        if nested.size:
            raise DataError(
                f"the {WORDS[role]} is a list or an object, not a single id, in "
                f"{named_rows(rows[nested])}. Give one id per row, or one row per user with a "
                "list column of items.",
                file=file, row=int(rows[nested[0]]), column=column,
            )
        text = pd.Series([id_text(value) for value in series], dtype="str")
    return text.reset_index(drop=True)


def id_text(value: object) -> str | None:
    """One id stored as a number or text: whole numbers lose any ``.0``."""
    if value is None:
        return None
    if isinstance(value, (float, np.floating)):
        if np.isnan(value):
            return None
        return str(int(value)) if float(value).is_integer() else str(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value))
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    return str(value).strip()


# Numbers -----------------------------------------------------------------------------------

def _numbers(series: pd.Series, rows: Rows, file: str, column: str, role: str,
             raw: RawTable) -> tuple[np.ndarray, str]:
    """Values as float64; a DataError shows the rows whose value is not a finite number."""
    series = series.reset_index(drop=True)
    note = ""
    if pd.api.types.is_bool_dtype(series.dtype) or pd.api.types.is_numeric_dtype(series.dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    elif (fast := _arrow_numbers(series)) is not None:
        values = fast
    else:
        values = pd.to_numeric(series.map(_number_text) if series.dtype == object else series,
                               errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(values)
    if bad.any() and raw.decimal_comma:
        text = series[bad].astype(str)
        comma = text.str.fullmatch(DECIMAL_COMMA).to_numpy()
        if comma.any() and comma.sum() == (text.str.strip() != "").sum():
            fixed = pd.to_numeric(text.str.replace(",", ".", regex=False), errors="coerce")
            values = values.copy()
            values[bad] = fixed.to_numpy(dtype=np.float64, na_value=np.nan)
            note = (f"Read {int(comma.sum())} {WORDS[role]}s written with a decimal comma "
                    f"(e.g. '{text[comma].iloc[0].strip()}' as "
                    f"{text[comma].iloc[0].strip().replace(',', '.')}).")
            bad = ~np.isfinite(values)
    if bad.any():
        where = np.flatnonzero(bad)
        shown = [f"{quoted_value(series.iloc[i])} (row {rows[i]})" for i in where[:EXAMPLES]]
        problem = (
            f"the {WORDS[role]} is not a number in {counted(where.size, 'row')}: "
            f"{row_examples(shown, where.size)}. Every row needs a numeric {WORDS[role]}: "
            f"correct or delete {those_rows(where.size)}."
        )
        if where.size == len(values) > 1 and not raw.format.startswith("trec"):
            problem += (f" No row of column '{column}' holds a number: if it is the wrong "
                        f"column, choose another with columns={{'{role}': '...'}}.")
        raise DataError(problem, file=file, row=int(rows[where[0]]), column=column)
    return values, note


def _arrow_numbers(series: pd.Series) -> np.ndarray | None:
    """Text parsed by pyarrow (fast); None when some value is not a number (the slow path
    then finds and shows them)."""
    if not _is_arrow_text(series):
        return None
    text = pa.array(series)
    for attempt in (text, pc.utf8_trim_whitespace(text)):
        try:
            numbers = pc.cast(attempt, pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
        chunks = numbers.chunks if isinstance(numbers, pa.ChunkedArray) else [numbers]
        # One copy, owned and writable, as the table keeps it.
        return np.concatenate([np.empty(0)] + [chunk.to_numpy(zero_copy_only=False)
                                               for chunk in chunks])
    return None


def _number_text(value: object) -> object:
    return value.strip() if isinstance(value, str) else value


def _check_ranks(ranks: np.ndarray, rows: Rows, file: str, column: str) -> None:
    bad = np.flatnonzero(ranks <= 0)
    if bad.size == 0:
        _check_whole_ranks(ranks, rows, file, column)
        return
    shown = [f"{plain_number(ranks[i])} (row {rows[i]})" for i in bad[:EXAMPLES]]
    problem = (
        f"ranks must be 1 or more (1 is the best item), but {counted(bad.size, 'row')} "
        f"{has_or_have(bad.size)} a rank of 0 or less: {row_examples(shown, bad.size)}."
    )
    if ranks.min() == 0 and not (ranks < 0).any():
        problem += (" The ranks seem to count from 0: add 1 to every rank so the best item "
                    "has rank 1.")
    raise DataError(problem, file=file, row=int(rows[bad[0]]), column=column)


def _check_whole_ranks(ranks: np.ndarray, rows: Rows, file: str, column: str) -> None:
    bad = np.flatnonzero(ranks != np.floor(ranks))
    if bad.size == 0:
        return
    shown = [f"{plain_number(ranks[i])} (row {rows[i]})" for i in bad[:EXAMPLES]]
    raise DataError(
        f"ranks must be whole numbers (1 is the best item, then 2, 3, ...), but "
        f"{counted(bad.size, 'row')} {has_or_have(bad.size)} a rank with a fraction: "
        f"{row_examples(shown, bad.size)}. Give each item its place in its user's list.",
        file=file, row=int(rows[bad[0]]), column=column,
    )


def _rank_ties(users: Ids, ranks: np.ndarray, rows: Rows) -> list[str]:
    rank_codes, rank_values = pd.factorize(ranks)
    if not repeated_pairs(users.codes, len(users.values), rank_codes):
        return []
    keys = users.codes.astype(np.int64) * max(len(rank_values), 1) + rank_codes
    tied = pd.Series(keys).duplicated(keep=False).to_numpy()
    first = np.flatnonzero(tied)
    same = first[keys[first] == keys[first[0]]]
    n_users = int(np.unique(users.codes[tied]).size)
    return [
        f"{n_users} user{plural_s(n_users)} {'have' if n_users > 1 else 'has'} several items "
        f"at the same rank (e.g. user '{users.at(same[0])}', rank "
        f"{plain_number(ranks[same[0]])}, rows {number_examples(rows[same])}); their order "
        "follows the tie rule."
    ]


# Duplicates --------------------------------------------------------------------------------

def _pair_keys(first: Ids, second: Ids) -> np.ndarray:
    """One int64 per (first, second) pair, equal exactly when both ids are equal."""
    return first.codes.astype(np.int64) * max(len(second.values), 1) + second.codes


def _groups(keys: np.ndarray, mask: np.ndarray) -> list[np.ndarray]:
    """Positions of each repeated key among ``mask``, in the order the keys first appear."""
    where = np.flatnonzero(mask)
    grouped = pd.Series(where).groupby(keys[where], sort=False)
    return [group.to_numpy() for _, group in grouped]


def _check_run_duplicates(keys: np.ndarray, users: Ids, items: Ids,
                          rows: Rows, positions: np.ndarray | None, file: str,
                          column: str) -> None:
    """Raise the DataError naming the repeated (user, item) pairs of a run."""
    repeated = pd.Series(keys).duplicated(keep=False).to_numpy()
    groups = _groups(keys, repeated)
    shown = []
    for group in groups[:EXAMPLES]:
        if positions is not None:
            where = f"row {rows[group[0]]}, positions {number_examples(positions[group])}"
        else:
            where = f"rows {number_examples(rows[group])}"
        shown.append(f"user '{users.at(group[0])}' has item '{items.at(group[0])}' more "
                     f"than once ({where})")
    rest = len(groups) - len(shown)
    more = f" ... and {rest} more repeated pair{plural_s(rest)}" if rest else ""
    raise DataError(
        f"{'; '.join(shown)}{more}. A model's list may hold each item once per user (trec_eval "
        "refuses such files, and counting an item twice would inflate the metrics): keep one "
        "row per user and item, the one with the best score.",
        file=file, row=int(rows[groups[0][1]]), column=column,
    )


def _truth_duplicates(keys: np.ndarray, users: Ids, items: Ids,
                      ratings: np.ndarray, rows: Rows, file: str,
                      column: str) -> tuple[np.ndarray, str]:
    """Drop repeated identical rows (with a note); conflicting ratings are an error."""
    repeated = pd.Series(keys).duplicated(keep=False).to_numpy()
    groups = _groups(keys, repeated)
    conflicts = [group for group in groups if np.unique(ratings[group]).size > 1]
    if conflicts:
        shown = []
        for group in conflicts[:EXAMPLES]:
            given = joined_with_and([f"{plain_number(ratings[i])} (row {rows[i]})"
                                     for i in group[:EXAMPLES]])
            shown.append(f"user '{users.at(group[0])}' and item '{items.at(group[0])}' are "
                         f"rated {given}")
        rest = len(conflicts) - len(shown)
        more = f" ... and {rest} more pair{plural_s(rest)}" if rest else ""
        raise DataError(
            f"the ground truth gives different ratings to the same user and item: "
            f"{'; '.join(shown)}{more}. Keep one rating per user and item.",
            file=file, row=int(rows[conflicts[0][1]]), column=column,
        )
    keep = ~pd.Series(keys).duplicated(keep="first").to_numpy()
    dropped = int((~keep).sum())
    example = groups[0]
    return keep, (
        f"Dropped {dropped} repeated row{plural_s(dropped)} of the ground truth (same user, "
        f"item and rating as an earlier row; e.g. row {rows[example[1]]} repeats row "
        f"{rows[example[0]]})."
    )
