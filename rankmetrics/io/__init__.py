"""Reading and checking runs (models' outputs) and ground truths.

Formats, recognised from the file name and content (``format=`` overrides):

- CSV / TSV, delimiter sniffed (comma, tab, semicolon, pipe), optionally ``.gz`` or ``.zip``
  (a zip holding one file), with a header line or without one (then the order of the columns
  is told by their number and types, or given as ``columns={"order": "user,item,rating"}``;
  see :mod:`rankmetrics.io._header`); RecBole's atomic files (``.inter``, ``.user``,
  ``.item``), recognised by the types in their header (``user_id:token``); Parquet; JSON
  Lines (``.jsonl``, ``.ndjson``, ``.json`` with one object per line);
- TREC runs ``user Q0 item rank score tag`` and qrels ``user 0 item rating``, whitespace
  separated, without header, recognised by their shape whatever the extension; as trec_eval
  does, fields after a run's tag are ignored and lines starting with ``#`` are comments;
- the list layout: one row per user with the items in order, as a list column (Parquet,
  JSON Lines, DataFrame) or a text cell (``u1,"i3 i9 i12"``; ``|``, ``;``, ``,`` or spaces).

Columns are found by their usual names, in any case, ignoring ``_``, ``-`` and spaces:

- user: user, user_id, query, query_id, qid, topic, topic_id
- item: item, item_id, movieId, product_id, doc, doc_id, docno
- score: score, prediction, pred, predicted, similarity; rank: rank, position, pos
- rating: rating, relevance, rel, label, grade, judgment
- list of items: items, item_ids, recommendations, recommended, recs, ranking, docs

Decisions:

- Ids are text (pandas ``str``), kept exactly as written in text files (``"007"`` stays
  ``"007"``, surrounding spaces are dropped); ids stored as numbers (Parquet, JSON,
  DataFrame) are written plainly, ``12`` not ``12.0``. ``ids_as_strings=False`` writes
  whole-number ids one way everywhere (``"007"``, ``"7.0"`` -> ``"7"``); ids stay ``str``.
- A ``.gz`` or ``.zip`` file may hold at most 4 GiB once decompressed (``max_decompressed_size=``
  or the environment variable ``RANKMETRICS_MAX_DECOMPRESSED_SIZE`` change it), counted while
  decompressing, and may not grow more than 100 times: a few megabytes could otherwise fill
  the memory of a shared server.
- Files that are not regular files (pipes, devices, sockets) are refused: reading them could
  wait forever.
- Text must be UTF-8 (with or without BOM). Anything else is a DataError naming the first
  line that is not, and how to re-save the file; there is no silent Latin-1 fallback, because
  ids decoded with a guessed encoding would silently fail to match the other file.
- Rows are numbered as a spreadsheet shows them: in CSV / TSV the header is row 1, so the
  first data row is row 2; in TREC and JSON Lines files the row is the line number; in
  Parquet and DataFrames the 1-based position.
- Empty rows are skipped with a warning. A ground truth without a rating column (only user and
  item columns, or lists) counts every pair as relevant with rating 1, with a warning.
- In semicolon, tab or pipe separated files, numbers written with a decimal comma (``0,5``)
  are read as decimals, with a warning.
- A DataFrame is one more source: it gets the same checks and the same messages as a file.
  Object columns of Python strings are converted to Arrow text here, once.
- Training interactions (:func:`read_interactions`) are read like a ground truth whose
  (user, item) pairs may repeat: each row is one interaction; the rating is 1 without a
  rating column and other columns (a timestamp) are not read.
- Attributes of users or items (:func:`read_attributes`): one row per id, any other columns,
  each typed as a category, several categories (a list, or text split by ``|`` or ``;``) or
  a number; see :mod:`rankmetrics.io._attributes`.
- This package is the one place where ids are read, checked and numbered: user ids and a
  ground truth's items become integer codes, a model's items 64-bit hashes that no two items
  of one list share (:func:`truth_codes`, :func:`run_codes`; :func:`hash_text`,
  :func:`same_text` and :func:`argsort_lists` are the tools
  :mod:`rankmetrics.prepared.matching` uses).
"""

from rankmetrics.io._attributes import Attributes, attributes_from_dataframe, read_attributes
from rankmetrics.io._columns import find_column, resolve_override
from rankmetrics.io._crosscheck import check_against_truth
from rankmetrics.io._formats import FORMATS, subject_word
from rankmetrics.io._hashing import argsort_lists, hash_text, same_text
from rankmetrics.io._ids import HashedIds
from rankmetrics.io._load import (
    interaction_counts,
    interactions_from_dataframe,
    read_interactions,
    read_run,
    read_truth,
    run_codes,
    run_from_dataframe,
    truth_codes,
    truth_from_dataframe,
)
from rankmetrics.io._source import (
    MAX_DECOMPRESSED_SIZE,
    Source,
    decompressed_limit,
    file_sha256,
    parse_size,
)
from rankmetrics.io._table import LoadedTable, rating_values


def file_stem(file_name: str) -> str:
    """The name a table read from ``file_name`` gets (``model_a.csv.gz`` -> ``model_a``,
    ``results.test`` -> ``results``)."""
    return Source(file=file_name, inner=file_name, compression=None).stem


__all__ = [
    "Attributes",
    "FORMATS",
    "MAX_DECOMPRESSED_SIZE",
    "HashedIds",
    "LoadedTable",
    "argsort_lists",
    "file_sha256",
    "attributes_from_dataframe",
    "check_against_truth",
    "file_stem",
    "find_column",
    "hash_text",
    "interaction_counts",
    "interactions_from_dataframe",
    "parse_size",
    "rating_values",
    "read_interactions",
    "read_attributes",
    "read_run",
    "read_truth",
    "resolve_override",
    "run_codes",
    "run_from_dataframe",
    "same_text",
    "subject_word",
    "truth_codes",
    "truth_from_dataframe",
    "decompressed_limit",
]
