"""The public readers: a file or a DataFrame in, a validated :class:`LoadedTable` out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import pyarrow as pa

from rankmetrics.io._columns import check_overrides
from rankmetrics.io._formats import check_format, detect
from rankmetrics.io._ids import HashedIds, Ids
from rankmetrics.io._readers import read_dataframe, read_source
from rankmetrics.io._source import decompressed_limit, resolve
from rankmetrics.io._table import LoadedTable, id_index, index_ids, kept_codes
from rankmetrics.io._validate import finish


def read_run(
    source: object,
    *,
    name: str | None = None,
    columns: Mapping[str, str | Sequence[str]] | None = None,
    format: str | None = None,
    ids_as_strings: bool = True,
    max_decompressed_size: int | str | None = None,
) -> LoadedTable:
    """Read and check one model's output (a run): who was recommended which item, in what order.

    Parameters
    ----------
    source : path, uploaded file or bytes
        A path (str or Path); an object with ``.name`` and ``.getvalue()`` or ``.read()``
        (a Streamlit ``UploadedFile``, a ``BytesIO`` given a ``name``); or raw ``bytes``,
        then with ``name`` set to the file name.
    name : str, optional
        Display name (default: the file stem). For raw bytes, the file name itself.
    columns : dict, optional
        Role -> column, overriding the detection: roles ``user``, ``item``, ``score``,
        ``rank`` and ``items`` (the list layout's column). Or, for a CSV / TSV file without a
        header line, ``{"order": "user,item,score"}``: the roles of its columns by position
        (a list of words too; other words, such as ``timestamp``, name columns left unread).
        Without it, the order of such a file is inferred from the number and types of its
        columns (user, item, then score, or rank when the third column counts 1, 2, 3...
        within each user), with a warning saying so; its columns are named ``field 1``,
        ``field 2``...
    format : str, optional
        ``csv``, ``tsv``, ``recbole`` (RecBole's atomic files, whose header names each column
        with its type: ``user_id:token``), ``parquet``, ``jsonl``, ``trec_run``,
        ``list_csv``, ``list_parquet`` or ``list_jsonl``; default: detected from the name and
        the content.
    ids_as_strings : bool, default True
        Keep ids exactly as written (``"007"`` stays ``"007"``). With False, whole-number ids
        are written one way (``"007"``, ``"7.0"`` -> ``"7"``), for files that disagree on how
        numeric ids are written. Ids are ``str`` either way.
    max_decompressed_size : int or str, optional
        The most bytes a gzip or zip file may hold once decompressed, as bytes or text such
        as ``"8G"``; default: the environment variable ``RANKMETRICS_MAX_DECOMPRESSED_SIZE``,
        else 4 GiB. A file growing more than 100 times is refused too (a decompression bomb).

    Returns
    -------
    LoadedTable
        ``table`` has columns ``user``, ``item`` and ``score`` (higher is better).

    Raises
    ------
    rankmetrics.errors.DataError
        For anything wrong with the file, naming the file, the row and the column.

    Examples
    --------
    >>> run = read_run(b"user,item,score\\nu1,i1,0.9\\nu1,i2,0.5\\n", name="model_a.csv")
    >>> run.name, run.format, run.n_rows
    ('model_a', 'csv', 2)
    """
    return _read(source, "run", name, columns, format, ids_as_strings, max_decompressed_size)


def read_truth(
    source: object,
    *,
    name: str | None = None,
    columns: Mapping[str, str | Sequence[str]] | None = None,
    format: str | None = None,
    ids_as_strings: bool = True,
    max_decompressed_size: int | str | None = None,
) -> LoadedTable:
    """Read and check a ground truth: which items each user rated or found relevant.

    Parameters are those of :func:`read_run`; roles are ``user``, ``item``, ``rating`` and
    ``items``, formats include ``trec_qrels``. A file with only user and item columns, or
    lists of items, gives every listed pair rating 1 (with a warning). A file without a
    header line is read as user, item[, rating[, timestamp]] by its number of columns
    (MovieLens' ``u.data``), unless ``columns={"order": ...}`` says otherwise.

    Examples
    --------
    >>> truth = read_truth(b"user,item,rating\\nu1,i1,5\\nu1,i3,2\\n", name="ratings.csv")
    >>> truth.table["rating"].tolist()
    [5.0, 2.0]
    >>> u_data = read_truth(b"196\\t242\\t3\\t881250949\\n186\\t302\\t3\\t891717742\\n",
    ...                     name="u.data")
    >>> u_data.name, u_data.column_order, u_data.columns["rating"]
    ('u', ('user', 'item', 'rating', 'timestamp'), 'field 3')
    >>> read_truth(b"196\\t3\\t242\\n", name="u.data",
    ...            columns={"order": "user,rating,item"}).table["item"].tolist()
    ['242']
    """
    return _read(source, "truth", name, columns, format, ids_as_strings,
                 max_decompressed_size)


def read_interactions(
    source: object,
    *,
    name: str | None = None,
    columns: Mapping[str, str | Sequence[str]] | None = None,
    format: str | None = None,
    ids_as_strings: bool = True,
    max_decompressed_size: int | str | None = None,
) -> LoadedTable:
    """Read and check training interactions: which user interacted with which item.

    They are where item popularity and each user's history come from. Parameters are those
    of :func:`read_run`; roles are ``user``, ``item``, ``rating`` and ``items`` (one row per
    user, the items they interacted with); every format :func:`read_truth` reads is read
    (``trec_qrels`` included). A rating column is read when there is one (1 otherwise);
    other columns, such as a timestamp, are not read. Unlike a ground truth, a (user, item)
    pair may occur several times: each row is one interaction.

    Examples
    --------
    >>> seen = read_interactions(b"user,item,timestamp\\nu1,i1,5\\nu1,i1,7\\nu2,i1,9\\n",
    ...                          name="train.csv")
    >>> seen.kind, seen.n_rows, seen.columns
    ('interactions', 3, {'user': 'user', 'item': 'item'})
    """
    return _read(source, "interactions", name, columns, format, ids_as_strings,
                 max_decompressed_size)


def run_from_dataframe(
    df: pd.DataFrame,
    *,
    name: str,
    columns: dict[str, str] | None = None,
    ids_as_strings: bool = True,
) -> LoadedTable:
    """Check a run held in a DataFrame, as :func:`read_run` does for a file.

    Rows in messages are 1-based positions in ``df``. Columns holding lists give the list
    layout. A named index is treated as a column.

    Examples
    --------
    >>> df = pd.DataFrame({"userId": [1, 1], "movieId": [10, 20], "prediction": [4.5, 3.0]})
    >>> run_from_dataframe(df, name="als").columns
    {'user': 'userId', 'item': 'movieId', 'score': 'prediction'}
    """
    return _from_dataframe(df, "run", name, columns, ids_as_strings)


def truth_from_dataframe(
    df: pd.DataFrame,
    *,
    name: str,
    columns: dict[str, str] | None = None,
    ids_as_strings: bool = True,
) -> LoadedTable:
    """Check a ground truth held in a DataFrame, as :func:`read_truth` does for a file."""
    return _from_dataframe(df, "truth", name, columns, ids_as_strings)


def interactions_from_dataframe(
    df: pd.DataFrame,
    *,
    name: str,
    columns: dict[str, str] | None = None,
    ids_as_strings: bool = True,
) -> LoadedTable:
    """Check training interactions held in a DataFrame, as :func:`read_interactions` does
    for a file."""
    return _from_dataframe(df, "interactions", name, columns, ids_as_strings)


def interaction_counts(interactions: LoadedTable) -> pd.Series:
    """How many training interactions each user has (a user's activity), by user id.

    >>> seen = read_interactions(b"user,item\\nu1,i1\\nu1,i2\\nu2,i1\\nu1,i1\\n", name="t.csv")
    >>> interaction_counts(seen).to_dict()
    {'u1': 3, 'u2': 1}
    """
    if interactions.kind != "interactions":
        raise ValueError(f"interaction_counts needs training interactions; "
                         f"{interactions.name!r} is a {interactions.kind}.")
    index = id_index(interactions, "user")
    present = index.present
    return pd.Series(index.counts[present], index=pd.Index(index.values[present], name="user"),
                     name="interactions")


def _read(source: object, kind: str, name: str | None,
          columns: Mapping[str, str | Sequence[str]] | None,
          format: str | None, ids_as_strings: bool,
          max_decompressed_size: int | str | None) -> LoadedTable:
    overrides = check_overrides(columns, kind)
    requested, force_list = check_format(format)
    limit = decompressed_limit(max_decompressed_size)
    src, display = resolve(source, name)
    src.limit = limit
    head = src.read_head()
    fmt = detect(src, head, requested)
    raw = read_source(src, fmt, kind, overrides, force_list, head)
    raw_format, raw_columns, raw_ranking = raw.format, raw.columns, raw.ranking
    order = raw.order
    parts, warnings, ids, dropped = finish(raw, kind, src.file, ids_as_strings)
    del raw
    pa.default_memory_pool().release_unused()  # hand the parser's scratch memory back
    loaded = LoadedTable(parts, kind, display, src.file, raw_format, raw_columns, raw_ranking,
                         warnings, dropped, column_order=order)
    index_ids(loaded, ids)
    return loaded


def _from_dataframe(df: pd.DataFrame, kind: str, name: str, columns: dict[str, str] | None,
                    ids_as_strings: bool) -> LoadedTable:
    raw = read_dataframe(df, kind, name, columns)
    parts, warnings, ids, dropped = finish(raw, kind, name, ids_as_strings)
    loaded = LoadedTable(parts, kind, name, name, "dataframe", raw.columns, raw.ranking,
                         warnings, dropped)
    index_ids(loaded, ids)
    return loaded


def truth_codes(truth: LoadedTable) -> tuple[Ids, Ids, LoadedTable]:
    """A read ground truth's user and item columns as integer codes (distinct ids in order of
    first appearance), with the table they number.

    They are the codes made while reading. A table whose columns were replaced since is
    checked again, as a DataFrame, and the checked table comes back with its codes.
    """
    users, items = kept_codes(truth, "user"), kept_codes(truth, "item")
    if isinstance(users, Ids) and isinstance(items, Ids):
        return users, items, truth
    return truth_codes(_checked_again(truth))


def run_codes(run: LoadedTable) -> tuple[Ids, HashedIds, LoadedTable]:
    """A read run's user column as integer codes and its item column as hashes (see
    :mod:`rankmetrics.io._hashing`), with the table they describe; checked again as
    :func:`truth_codes` says."""
    users, items = kept_codes(run, "user"), kept_codes(run, "item")
    if isinstance(users, Ids) and isinstance(items, HashedIds):
        return users, items, run
    return run_codes(_checked_again(run))


def _checked_again(table: LoadedTable) -> LoadedTable:
    return _from_dataframe(table.table, table.kind, table.source, None, True)
