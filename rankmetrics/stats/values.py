"""The table of per-user values every comparison reads: one row per user, one column per
model, paired by user."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankmetrics.checks import plain
from rankmetrics.errors import DataError


def per_user_array(values: object) -> np.ndarray:
    """The per-user values as a float (n_users, n_models) array, or a DataError saying why not."""
    if not isinstance(values, pd.DataFrame):
        raise DataError(
            "The per-user values must be a table (pandas DataFrame) with one row per user and "
            f"one column per model. Got {type(values).__name__} instead."
        )
    if values.shape[1] < 2:
        raise DataError(
            f"Comparing models needs at least 2 model columns; the values table has "
            f"{values.shape[1]} ({', '.join(map(str, values.columns)) or 'none'})."
        )
    duplicated = values.columns[values.columns.duplicated()]
    if len(duplicated):
        raise DataError(
            f"Model column {plain(duplicated[0])!r} appears more than once in the values table; "
            "give every model a distinct name."
        )
    if values.shape[0] < 2:
        raise DataError(
            f"Comparing models needs the values of at least 2 users; the values table has "
            f"{values.shape[0]}."
        )
    for column in values.columns:
        if not pd.api.types.is_numeric_dtype(values[column]):
            raise DataError(
                f"the per-user values must be numbers, but the column has type "
                f"{values[column].dtype}.",
                column=str(column),
            )
    array = values.to_numpy(dtype=np.float64)
    bad = ~np.isfinite(array)
    if bad.any():
        col = int(np.flatnonzero(bad.any(axis=0))[0])
        rows = np.flatnonzero(bad[:, col])
        kind = "missing (NaN)" if np.isnan(array[rows[0], col]) else "infinite"
        raise DataError(
            f"{len(rows)} user(s) have a {kind} value, the first being user "
            f"{plain(values.index[rows[0]])!r}. Every model needs a value for every user: "
            "drop those users or fill in their values (e.g. 0 for a model that returned "
            "nothing).",
            column=str(values.columns[col]),
        )
    return array
