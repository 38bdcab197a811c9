"""The raw rows of some users, from the inputs an evaluation was given (what a saved
evaluation keeps of a sample of users)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from rankmetrics.io import (
    HashedIds,
    LoadedTable,
    run_codes,
    run_from_dataframe,
    truth_codes,
    truth_from_dataframe,
)
from rankmetrics.prepared.ground_truth import GroundTruth, named_columns
from rankmetrics.prepared.ranked_run import RankedRun


@dataclass(frozen=True)
class RawSources:
    """What :func:`evaluate` was given, kept (not copied) so a saved evaluation can hold the
    raw rows of a sample of users."""

    truth: pd.DataFrame | LoadedTable | GroundTruth
    runs: dict[str, pd.DataFrame | LoadedTable | RankedRun]


def loaded_rows(source: LoadedTable, users: pd.Index) -> pd.DataFrame:
    """The rows of ``users`` in a read table, from its id codes (the whole table is not
    built: a model's output of 100 million rows would take gigabytes as pandas)."""
    user_ids, item_ids, source = (truth_codes(source) if source.kind == "truth"
                                  else run_codes(source))
    wanted = np.flatnonzero(pd.Index(user_ids.values.to_pandas()).isin(users))
    rows = np.flatnonzero(np.isin(user_ids.codes, wanted))
    items = (item_ids.rows(rows) if isinstance(item_ids, HashedIds)
             else item_ids.values.take(pa.array(item_ids.codes[rows])))
    return pd.DataFrame({
        "user": user_ids.values.take(pa.array(user_ids.codes[rows])).to_pandas(),
        "item": items.to_pandas(),
        "rating" if source.kind == "truth" else "score": source.numbers()[rows],
    })


def rows_of(source: pd.DataFrame | LoadedTable | GroundTruth | RankedRun, users: pd.Index,
             name: str) -> pd.DataFrame:
    """The rows of ``users`` in one input, as the canonical columns io reads (user, item and
    rating or score)."""
    if isinstance(source, GroundTruth):
        table = pd.DataFrame({"user": source.users[source.user_index],
                              "item": source.items[source.item_index],
                              "rating": source.ratings})
    elif isinstance(source, RankedRun):
        raise ValueError(f"The raw rows of {name!r} are not kept in a prepared RankedRun: "
                         "evaluate the DataFrame or the read file to save a sample of it.")
    elif isinstance(source, LoadedTable):
        return loaded_rows(source, users)
    elif name == "truth":
        table = truth_from_dataframe(source, name="ground truth",
                                     columns=named_columns(source, "rating")).table
    else:
        table = run_from_dataframe(source, name=name, columns=named_columns(source, "score")
                                   ).table
    return table.loc[table["user"].isin(users)].reset_index(drop=True)
