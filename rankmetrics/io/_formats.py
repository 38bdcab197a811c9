"""Recognising a file's format from its name and its first bytes."""

from __future__ import annotations

import csv
from collections.abc import Iterable

from rankmetrics.errors import DataError
from rankmetrics.io._header import recbole_types
from rankmetrics.io._source import HEAD_BYTES, Source, check_text

FORMATS = (
    "csv", "tsv", "recbole", "parquet", "jsonl", "trec_run", "trec_qrels",
    "list_csv", "list_parquet", "list_jsonl", "dataframe",
)
# What format= may ask for: each maps to the parser used and whether the list layout is forced.
REQUESTABLE = {
    "csv": ("csv", False),
    "tsv": ("tsv", False),
    "recbole": ("recbole", False),
    "parquet": ("parquet", False),
    "jsonl": ("jsonl", False),
    "trec_run": ("trec_run", False),
    "trec_qrels": ("trec_qrels", False),
    "list_csv": ("csv", True),
    "list_parquet": ("parquet", True),
    "list_jsonl": ("jsonl", True),
}
TREC_FORMATS = ("trec_run", "trec_qrels")
PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
JSON_SUFFIXES = (".jsonl", ".ndjson", ".json")
DELIMITERS = (",", "\t", ";", "|")
SAMPLE_LINES = 200


def subject_word(formats: Iterable[str], *, plural: bool = False) -> str:
    """What a data set calls whom it ranks for, given its inputs' formats: "query" when every
    input is a TREC file (qrels and runs, as in search evaluation), else "user".

    Only the words shown to people change; the tables' columns stay ``user``.

    >>> subject_word(["trec_qrels", "trec_run"]), subject_word(["csv", "trec_run"], plural=True)
    ('query', 'users')
    """
    formats = list(formats)
    if formats and all(fmt in TREC_FORMATS for fmt in formats):
        return "queries" if plural else "query"
    return "users" if plural else "user"


def check_format(format: str | None) -> tuple[str | None, bool]:
    """Validate ``format=``: the parser to use (None to detect) and whether lists are forced."""
    if format is None or format == "auto":
        return None, False
    if format not in REQUESTABLE:
        raise ValueError(
            f"format= must be one of {', '.join(map(repr, REQUESTABLE))} or None (detect). "
            f"Got {format!r}."
        )
    return REQUESTABLE[format]


def detect(src: Source, head: bytes, requested: str | None) -> str:
    """The parser for this file: csv, tsv, recbole, parquet, jsonl, trec_run or trec_qrels.

    Content wins over the name where it is unambiguous (Parquet's ``PAR1`` magic, a first
    line that is a JSON object, the shape of TREC lines, RecBole's typed column names such as
    ``user_id:token``); the extension decides the rest.
    """
    if not head.strip():
        raise DataError("the file is empty: it has no rows.", file=src.file)
    if requested is not None:
        if requested != "parquet":
            check_text(head, src, complete=len(head) < HEAD_BYTES)
        return requested
    if head.startswith(b"PAR1"):
        return "parquet"
    if src.suffix in PARQUET_SUFFIXES:
        raise DataError(
            "the file is not a valid Parquet file (it does not start with Parquet's 'PAR1' "
            "marker): it may be damaged, only partly copied, or another format renamed to "
            ".parquet. Export it again.",
            file=src.file,
        )
    text = check_text(head, src, complete=len(head) < HEAD_BYTES)
    first = text.lstrip()[:1]
    if first == "[" and src.suffix in JSON_SUFFIXES:
        raise DataError(
            "the file is one JSON array; rankmetrics reads JSON Lines: one JSON object per line, "
            'such as {"user": "u1", "item": "i3", "score": 0.9}. Save it that way (pandas: '
            "df.to_json(path, orient='records', lines=True)).",
            file=src.file,
        )
    if first == "{" or src.suffix in JSON_SUFFIXES:
        return "jsonl"
    lines = sample_lines(text, complete=len(head) < HEAD_BYTES)
    trec = trec_shape(lines)
    if trec is not None:
        return trec
    delimiter = sniff_delimiter(lines, src)
    if lines and recbole_types(next(csv.reader(lines[:1], delimiter=delimiter))) is not None:
        return "recbole"
    return "tsv" if delimiter == "\t" else "csv"


def sample_lines(text: str, *, complete: bool) -> list[str]:
    """Up to SAMPLE_LINES non-blank lines of the head, without a line cut short at the end."""
    lines = text.splitlines()
    if not complete and lines:
        lines = lines[:-1]
    return [line for line in lines if line.strip()][:SAMPLE_LINES]


def trec_shape(lines: list[str]) -> str | None:
    """"trec_run" or "trec_qrels" when the lines have TREC's whitespace-separated shape.

    A run line is ``user Q0 item rank score tag`` (6 fields, or more: trec_eval ignores what
    follows the tag), a qrels line ``user 0 item rating`` (4 fields), judged by the first
    line; the second field must be the same ``Q0`` / ``0`` on every sampled line, which tells
    TREC apart from a headerless table such as MovieLens' ``u.data``. Lines whose first
    non-space character is ``#`` are comments (trec_eval 10). Lines of another width are
    reported when the file is read.
    """
    fields = [line.split() for line in lines if not line.lstrip().startswith("#")]
    if not fields:
        return None
    first = fields[0]
    seconds = {f[1] for f in fields if len(f) > 1}
    if len(seconds) != 1 or next(iter(seconds)).upper() not in ("Q0", "0"):
        return None
    if len(first) >= 6:
        return "trec_run"
    if len(first) == 4:
        return "trec_qrels"
    return None


def sniff_delimiter(lines: list[str], src: Source) -> str:
    """The delimiter (comma, tab, semicolon or pipe) splitting every line into as many fields
    as the header; ties go to tab for ``.tsv`` files, then to the order above."""
    if not lines:
        return ","
    scores = []
    for order, delimiter in enumerate(DELIMITERS):
        counts = [len(row) for row in csv.reader(lines, delimiter=delimiter) if row]
        header = counts[0]
        consistent = sum(count == header for count in counts) / len(counts)
        preferred = delimiter == "\t" and src.suffix in (".tsv", ".tab")
        if header > 1:
            scores.append((consistent >= 0.9, header, preferred, -order, delimiter))
    if not scores:
        return ","
    return max(scores)[-1]

