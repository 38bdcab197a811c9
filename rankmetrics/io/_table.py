"""The result of reading a run or a ground truth."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd


@dataclass
class LoadedTable:
    """A validated run (one model's output) or ground truth, with what was learnt reading it.

    Attributes
    ----------
    table : pandas.DataFrame
        A run has columns ``user``, ``item`` (pandas ``str``) and ``score`` (float64, higher is
        better); a ground truth ``user``, ``item`` and ``rating`` (float64). Rows keep the input
        order; a run holds each (user, item) pair once, a ground truth too.
    kind : {"run", "truth"}
    name : str
        Display name: the file stem (``model_a`` for ``model_a.csv.gz``) unless one was given.
    source : str
        The file name, as used in messages (``model_a.csv.gz``).
    format : str
        ``csv``, ``tsv``, ``parquet``, ``jsonl``, ``trec_run``, ``trec_qrels``, ``list_csv``,
        ``list_parquet``, ``list_jsonl`` or ``dataframe``.
    columns : dict of str to str
        The column found for each role, e.g. ``{"user": "userId", "item": "movieId",
        "score": "prediction"}``; ``{"rank": "position"}`` when ranked by a rank column,
        ``{"items": "recs"}`` for the list layout, ``"field 5"`` style names for TREC files.
        A ground truth without a rating column has no ``rating`` entry.
    ranking : {"score", "rank", "list_position"} or None
        How a run's order was given: a score (higher is better), a rank (1 is best; then
        ``table.score = -rank``), or the position in a list (``score = -position``). None for
        a ground truth.
    warnings : list of str
        Things worth telling the user that did not stop the loading (skipped empty rows,
        dropped repeated ground-truth rows, a column choice that was not the only candidate).
    """

    table: pd.DataFrame
    kind: str
    name: str
    source: str
    format: str
    columns: dict[str, str]
    ranking: str | None
    warnings: list[str] = field(default_factory=list)

    @property
    def n_rows(self) -> int:
        """Number of rows of ``table``."""
        return len(self.table)

    @cached_property
    def n_users(self) -> int:
        """Number of distinct users."""
        return int(self.table["user"].nunique())

    @cached_property
    def n_items(self) -> int:
        """Number of distinct items."""
        return int(self.table["item"].nunique())


def rating_values(truth: LoadedTable) -> np.ndarray:
    """The ground truth's ratings as a float64 array (for ``suggest_mapping``)."""
    if truth.kind != "truth":
        raise ValueError(f"rating_values needs a ground truth; {truth.name!r} is a {truth.kind}.")
    return truth.table["rating"].to_numpy(dtype=np.float64)
