"""The table of per-user values every comparison reads (one row per user, one column per
model, paired by user), and the precision at which its values, their differences and their
means are equal (:func:`restore_ties`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

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


#: Relative precision at which per-user values, their differences and their means are
#: compared: two of them are equal when they differ by at most this times the scale of the
#: comparison (see :func:`restore_ties`).
EQUALITY_PRECISION = 1e-12


def equality_tolerance(scale: ArrayLike) -> np.ndarray:
    """The largest gap between two equal numbers that come from values of at most ``scale``
    in absolute value: :data:`EQUALITY_PRECISION` times ``scale``."""
    return EQUALITY_PRECISION * np.abs(np.asarray(scale, dtype=np.float64))


def restore_ties(numbers: ArrayLike, scale: ArrayLike | None = None) -> np.ndarray:
    """The numbers with those equal up to rounding made the same float, and those equal to 0
    made 0: the numbers on which every rank, sign and tie of a comparison is decided.

    Per-user values are ratios computed in floating point (hits / K, DCG / ideal DCG, a sum
    of popularities / K), so numbers equal in exact arithmetic can come out as different
    floats: with K = 3, ``1 - 2/3`` is 0.33333333333333337 and ``1/3 - 0`` is
    0.3333333333333333, and ``0.1 + 0.2 - 0.3`` is 5.6e-17 instead of 0. Ranked as they are,
    they would make two ranks instead of one tie in a Wilcoxon test, and a win instead of a
    tie in a head-to-head count.

    The rule: numbers are compared at the relative precision :data:`EQUALITY_PRECISION`
    (1e-12) of ``scale``, the largest absolute value of what they come from (the two models'
    per-user values for their differences, the means for means; by default the numbers
    themselves). A number within that tolerance of 0 is 0. Numbers of the same sign whose
    sizes differ by at most the tolerance are tied: sorted by size, each run of gaps no
    larger than the tolerance is one group, and every number of the group takes the group's
    smallest size. The precision is relative, so popularities or counts in the thousands are
    treated as metrics in [0, 1] are. It is wide enough for rounding (sums of thousands of
    terms stay within about 1e-13 of their scale) and narrow enough for distinct values (two
    fractions with denominators below 10,000, such as hits / K or hits / relevant items,
    differ by at least 1e-8 when they differ at all). Columns without near-ties (numbers all
    0 or more than the tolerance apart, as for hits / K with K a power of 2) come back
    unchanged, and NaN and infinities always do.

    Parameters
    ----------
    numbers : array-like
        One column of numbers, or a 2-D array whose columns (axis 0 runs over the users or
        the models) are each compared on their own.
    scale : float or array-like, optional
        The scale of each column; by default the largest finite absolute number in it.

    Examples
    --------
    >>> restore_ties([1 - 2/3, 1/3 - 0, 0.1 + 0.2 - 0.3, 0 - 1/3]).tolist()
    [0.3333333333333333, 0.3333333333333333, 0.0, -0.3333333333333333]
    """
    array = np.asarray(numbers, dtype=np.float64)
    if not array.size:
        return array.copy()
    columns = array.reshape(len(array), -1) if array.ndim else array.reshape(1, 1)
    if scale is None:
        scale = np.where(np.isfinite(columns), np.abs(columns), 0.0).max(axis=0)
    tolerance = np.broadcast_to(equality_tolerance(scale), (columns.shape[1],))
    restored = columns.T.copy()  # one row per column: each compared on its own, contiguous
    for row, limit in zip(restored, tolerance, strict=True):
        magnitude = np.abs(row)
        moved, target = _moved_sizes(np.unique(magnitude), float(limit))
        if len(moved):
            position = np.minimum(np.searchsorted(moved, magnitude), len(moved) - 1)
            hit = moved[position] == magnitude
            row[hit] = np.copysign(target[position[hit]], row[hit])
    restored[restored == 0] = 0.0  # no -0.0
    return restored.T.reshape(array.shape)


def _moved_sizes(sizes: np.ndarray, tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """Of the distinct sizes (sorted, NaN last), those :func:`restore_ties` changes, and what
    they become: 0 within ``tolerance`` of 0, else the smallest size of their run of gaps no
    larger than ``tolerance``."""
    zero = sizes <= tolerance
    starts = np.ones(len(sizes), dtype=bool)
    starts[1:] = ((sizes[1:] - sizes[:-1] > tolerance) | (zero[1:] != zero[:-1])
                  | ~np.isfinite(sizes[1:]))
    first = np.maximum.accumulate(np.where(starts, np.arange(len(sizes)), 0))
    target = np.where(zero, 0.0, sizes[first])
    moved = (target != sizes) & ~np.isnan(sizes)
    return sizes[moved], target[moved]


def paired_differences(values_b: ArrayLike, values_a: ArrayLike) -> np.ndarray:
    """The per-user differences ``values_b - values_a`` with their ties restored
    (:func:`restore_ties`) on the scale of the largest absolute value of either model's
    values: per column for 2-D arrays (users x pairs, or users x cutoffs).

    >>> paired_differences([1.0, 1/3, 0.3], [2/3, 0.0, 0.1 + 0.2]).tolist()
    [0.3333333333333333, 0.3333333333333333, 0.0]
    """
    b = np.asarray(values_b, dtype=np.float64)
    a = np.asarray(values_a, dtype=np.float64)
    if not b.size:
        return b - a
    return restore_ties(b - a, np.maximum(np.abs(b).max(axis=0), np.abs(a).max(axis=0)))
