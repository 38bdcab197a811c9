"""What the first line of a delimited text file is: column names, RecBole's typed column
names, or the first row of data of a file without a header line.

RecBole's atomic files (``.inter``, ``.user``, ``.item``, tab separated) name each column with
its type: ``user_id:token``, ``rating:float``, ``genre:token_seq``. The type is dropped to name
the column (``user_id``), so the usual names find the user, the item and the rating; for
attributes it says the kind (:mod:`rankmetrics.io._attributes`). A file is RecBole's when
every name of its first line carries one of the four types, whatever its extension.

A first line holding a number and no recognised column name is data: column names are never
numbers. Such a file (MovieLens' ``u.data``, many TSV exports) has its columns named
``field 1``, ``field 2``..., as TREC files do, and their roles follow from their number and
types:

- a ground truth or training interactions: 2 columns are user, item (every pair rating 1);
  3 columns user, item, rating; 4 columns user, item, rating, timestamp (not read); the
  rating column must hold numbers;
- a run: 3 columns are user, item, score, or user, item, rank when the third column holds
  whole numbers counting 1, 2, 3... within each user (a score would never count up so).

Any other shape cannot be told apart, and a first line without a number or a recognised name
may be either a header or data: both end in a DataError saying what was seen and how to give
the order (``columns={'order': 'user,item,rating'}``), which any delimited file without a
header line may be given. TREC files are recognised before by their own shape and are not
read here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rankmetrics.errors import DataError
from rankmetrics.io._columns import ORDER, ROLE_NAMES, normalise, order_roles

#: RecBole's field types: one token (a category, or an id), several tokens separated by
#: spaces, one number, several numbers.
RECBOLE_TYPES = ("token", "token_seq", "float", "float_seq")
_TYPED = re.compile(r"(.*\S)\s*:\s*(token_seq|float_seq|token|float)", re.IGNORECASE)
#: One number as text: ``3``, ``-0.5``, ``.5``, ``1e-3``.
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+")
#: The share of a column's cells that must be numbers for it to hold numbers.
NUMBERS_SHARE = 0.9
_RECOGNISED = {normalise(name) for names in ROLE_NAMES.values() for name in names}


def field_name(position: int) -> str:
    """The name of a column of a file without a header line: ``field 1`` for the first."""
    return f"field {position}"


def recbole_types(names: Sequence[str]) -> dict[str, str] | None:
    """Each column's name without its type, and its type, when every name has one
    (``user_id:token`` -> ``{"user_id": "token"}``); None otherwise."""
    typed = [_TYPED.fullmatch(name.strip()) for name in names]
    if not names or not all(typed):
        return None
    return {match.group(1): match.group(2).lower() for match in typed if match is not None}


def without_type(name: str) -> str:
    """A column name as RecBole's header writes it, without its type (``user_id:token`` ->
    ``user_id``); other names as they are."""
    match = _TYPED.fullmatch(name.strip())
    return match.group(1) if match else name


def is_number(cell: str, *, decimal_comma: bool) -> bool:
    """Whether a cell of text holds one number (``0,5`` too where a comma is no separator)."""
    cell = cell.strip()
    return bool(NUMBER.fullmatch(cell) or (decimal_comma and _DECIMAL_COMMA.fullmatch(cell)))


@dataclass
class FirstLine:
    """What the first line of a delimited file says, for the reader.

    ``names`` are the columns' names (``field N`` without a header line), ``overrides`` the
    columns chosen by role (the roles of ``order`` as ``field N`` names when the file has no
    header), ``order`` the roles by position of a file without a header (other words name
    columns left unread), ``assumed`` whether that order was inferred (then said in a
    warning), ``types`` RecBole's types by column, ``may_be_data`` whether a header line of
    unrecognised names could as well be data (no column holds numbers).
    """

    names: list[str]
    overrides: dict[str, str]
    has_header: bool = True
    order: tuple[str, ...] | None = None
    assumed: bool = False
    types: dict[str, str] | None = None
    may_be_data: bool = False
    #: A run's third column, assumed a score, may turn out a rank (see :func:`counts_up`).
    rank_possible: bool = False
    rank_counted: bool = False

    def warning(self) -> str:
        """The warning saying which order was assumed ("" when none was)."""
        if not self.assumed or self.order is None:
            return ""
        why = "the first line holds numbers, which column names never are"
        if self.rank_counted:
            why += "; the third column counts 1, 2, 3... within each user, as a rank does"
        roles = set(ROLE_NAMES)
        unread = [word for word in self.order if word not in roles]
        if unread:
            verb = "is" if len(unread) == 1 else "are"
            why += f"; the {' and the '.join(unread)} {verb} not read"
        return (f"No header line: read the columns as {', '.join(self.order)} ({why}). If that "
                f"is not their order, name them with "
                f"columns={{'{ORDER}': '{','.join(self.order)}'}}.")


def read_first_line(fields: list[str], rows: list[list[str]], kind: str,
                    overrides: dict[str, str], file: str, *, recbole: bool,
                    decimal_comma: bool) -> FirstLine:
    """What the first line ``fields`` is, given the next ``rows`` (a sample) and the columns
    the caller chose; ``recbole`` says the format was asked for as RecBole's."""
    types = recbole_types(fields)
    if recbole and types is None:
        raise DataError(
            "the first line is not a RecBole header: RecBole's atomic files name each column "
            "with its type, such as 'user_id:token', 'rating:float' or 'genre:token_seq' (the "
            "types are token, token_seq, float and float_seq). Add the types, or read the "
            "file as CSV or TSV.",
            file=file, row=1,
        )
    if types is not None:
        chosen = {role: without_type(name) for role, name in overrides.items()}
        return FirstLine(list(types), chosen, types=types)
    named = [cell for cell in fields if normalise(cell) in _RECOGNISED]
    if ORDER in overrides:
        if named:
            raise DataError(
                f"the order of the columns was given, which is for a file without a header "
                f"line, but the first line holds column names ({', '.join(map(repr, named))}). "
                "Choose the columns by name instead, or remove the header line.",
                file=file, row=1,
            )
        return _headerless(fields, order_roles(overrides[ORDER], kind), file, assumed=False)
    numbers = [cell for cell in fields if is_number(cell, decimal_comma=decimal_comma)]
    if numbers and not named:
        positions = [field_name(position) for position in range(1, len(fields) + 1)]
        if any(name not in positions for name in overrides.values()):
            # a column chosen by a name the file does not have: the choice says so
            return FirstLine(positions, dict(overrides), has_header=False)
        numeric = _numeric_columns([fields, *rows], len(fields), decimal_comma=decimal_comma)
        order = _inferred(kind, numeric)
        if overrides:
            order = _with_chosen(order or (), overrides, kind, positions)
        if order is None:
            raise _untold(kind, fields, numeric, numbers[0], file)
        headerless = _headerless(fields, order, file, assumed=True)
        headerless.rank_possible = kind == "run" and not {"score", "rank"} & set(overrides)
        return headerless
    data_numeric = [] if named else _numeric_columns(rows, len(fields),
                                                     decimal_comma=decimal_comma)
    return FirstLine(list(fields), dict(overrides),
                     may_be_data=not named and not any(data_numeric))


def counts_up(users: pd.Series, values: pd.Series) -> bool:
    """Whether ``values`` are 1, 2, 3... in each user's rows, in the file's order (a rank).

    Scores are told apart at once (not whole numbers, or not starting at 1); a user's rows
    usually come together, so runs of equal users are checked first, and only users whose
    rows are apart are counted by group.
    """
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
    if len(numbers) == 0 or numbers[0] != 1 or not np.isfinite(numbers).all():
        return False
    if not (numbers == np.floor(numbers)).all():
        return False
    ids = pa.array(users.to_numpy(dtype=object), type=pa.large_string()) if not isinstance(
        users.array, pd.arrays.ArrowStringArray) else users.array.__arrow_array__()
    ids = pa.chunked_array([ids]).combine_chunks() if isinstance(ids, pa.Array) else (
        ids.combine_chunks())
    changes = pc.not_equal(ids.slice(1), ids.slice(0, len(ids) - 1))
    starts = np.concatenate([[0], np.flatnonzero(changes.to_numpy(zero_copy_only=False)) + 1])
    position = np.arange(len(numbers)) - np.repeat(starts, np.diff(starts, append=len(numbers)))
    together = pc.count_distinct(ids.take(pa.array(starts))).as_py() == len(starts)
    if together:  # each user's rows come as one run
        return bool((numbers == position + 1).all())
    codes, _ = pd.factorize(users)
    position = pd.Series(codes).groupby(codes).cumcount().to_numpy()
    return bool((numbers == position + 1).all())


def ranked_by_rank(first: FirstLine) -> FirstLine:
    """The order of a run without a header whose third column was found to be a rank."""
    order = tuple("rank" if word == "score" else word for word in first.order or ())
    overrides = {("rank" if role == "score" else role): name
                 for role, name in first.overrides.items()}
    return FirstLine(first.names, overrides, has_header=False, order=order,
                     assumed=first.assumed, rank_counted=True)


def _with_chosen(order: tuple[str, ...], overrides: dict[str, str], kind: str,
                 positions: list[str]) -> tuple[str, ...]:
    """The assumed order with the columns the caller chose by their ``field N`` names in
    their place (an assumed role chosen elsewhere becomes a column left unread)."""
    values = {"score", "rank"} if kind == "run" else {"rating"}
    words = list(order) + ["other"] * (len(positions) - len(order))
    for position, word in enumerate(words):
        if word in overrides or (word in values and values & set(overrides)):
            words[position] = "other"
    for role, name in overrides.items():
        words[positions.index(name)] = role
    while words and words[-1] == "other":
        words.pop()
    return tuple(words)


def _headerless(fields: list[str], order: tuple[str, ...], file: str, *,
                assumed: bool) -> FirstLine:
    if len(order) > len(fields):
        raise DataError(
            f"the order names {len(order)} columns ({', '.join(order)}), but the first line "
            f"has {len(fields)}. Name the columns in the order they come, one word each.",
            file=file, row=1,
        )
    roles = set(ROLE_NAMES) - {"items"}
    overrides = {word: field_name(position) for position, word in enumerate(order, start=1)
                 if word in roles}
    return FirstLine([field_name(position) for position in range(1, len(fields) + 1)],
                     overrides, has_header=False, order=order, assumed=assumed)


def _inferred(kind: str, numeric: list[bool]) -> tuple[str, ...] | None:
    """The order of a file without a header, from its number of columns and which hold
    numbers; None when it cannot be told."""
    count = len(numeric)
    if kind == "run":
        return ("user", "item", "score") if count == 3 and numeric[2] else None
    if count == 2:
        return ("user", "item")
    if count in (3, 4) and numeric[2]:
        return ("user", "item", "rating", "timestamp")[:count]
    return None


def _untold(kind: str, fields: list[str], numeric: list[bool], number: str,
            file: str) -> DataError:
    shapes = ", ".join("numbers" if holds else "text" for holds in numeric)
    rule = ("a model's output without a header is read when it has 3 columns, the third "
            "holding numbers: user, item and score (or rank)" if kind == "run" else
            "a ground truth without a header is read when it has 2 to 4 columns, the third "
            "holding numbers: user, item[, rating[, timestamp]]")
    example = ",".join(("user", "item", "score" if kind == "run" else "rating", "other",
                        "other", "other")[:max(len(fields), 3)])
    return DataError(
        f"the file has no header line (the first line holds '{number.strip()}', and column "
        f"names are never numbers) and its {len(fields)} columns hold {shapes}, so their "
        f"roles cannot be told: {rule}. Name the columns in their order with "
        f"columns={{'{ORDER}': '{example}'}}, or add a header line such as "
        f"'{example}'.",
        file=file, row=1,
    )


def _numeric_columns(rows: list[list[str]], count: int, *, decimal_comma: bool) -> list[bool]:
    """For each of ``count`` columns, whether its filled cells in ``rows`` are numbers: 9 in
    10 of them at least, so that a typo is reported on its row when the file is read, rather
    than making the column text."""
    numeric = []
    for position in range(count):
        cells = [row[position] for row in rows if len(row) > position and row[position].strip()]
        numbers = sum(is_number(cell, decimal_comma=decimal_comma) for cell in cells)
        numeric.append(bool(cells) and numbers >= NUMBERS_SHARE * len(cells))
    return numeric
