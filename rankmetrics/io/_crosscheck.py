"""Checks across a run and its ground truth: do their ids meet, and what will the metrics see."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rankmetrics.checks import check_int
from rankmetrics.errors import DataError
from rankmetrics.io._canonical import canonical_ids, rewritable_ids
from rankmetrics.io._hashing import take_text
from rankmetrics.io._ids import HashedIds
from rankmetrics.io._table import IdIndex, LoadedTable, id_index, kept_codes
from rankmetrics.io._wording import EXAMPLES
from rankmetrics.relevance import RelevanceMapping

# Ids matching only once numbers are written one way: an error when that concerns at least
# this share of the run's ids (below it, a warning).
FORMAT_SHARE = 0.1
# A run's item ids are first looked for in the ground truth among this many first rows.
FIRST_ROWS = 1 << 16


def check_against_truth(
    run: LoadedTable,
    truth: LoadedTable,
    *,
    mapping: RelevanceMapping,
    max_cutoff: int | None,
) -> list[str]:
    """Check that a run and a ground truth belong together; return warnings worth showing.

    Raises a DataError when the run's users share nothing with the ground truth (almost always
    a wrong file or column), or when many user or item ids only match once whole numbers are
    written one way (``"12.0"`` vs ``"12"``, ``"007"`` vs ``"7"``).

    Returns warnings, with counts, for: run users absent from the ground truth; ground-truth
    users absent from the run; ground-truth users with no relevant item under ``mapping``;
    run lists shorter than ``max_cutoff``; no recommended item appearing in the ground truth.
    ``max_cutoff=None`` says no cutoff was chosen (a command line's default cutoffs): lists are
    then compared with the run's longest list, so lists all of one length give no warning.

    Examples
    --------
    >>> from rankmetrics.io import read_run, read_truth
    >>> run = read_run(b"user,item,score\\nu1,i1,1\\nu1,i2,0.5\\n", name="a.csv")
    >>> truth = read_truth(b"user,item,rating\\nu1,i1,1\\nu2,i1,1\\n", name="t.csv")
    >>> mapping = RelevanceMapping.identity()
    >>> for warning in check_against_truth(run, truth, mapping=mapping, max_cutoff=2):
    ...     print(warning)  # doctest: +NORMALIZE_WHITESPACE
    1 of 2 ground-truth users has no recommendations in a.csv ('u2'); the Missing users
    convention (missing_users) decides whether they count as 0 or are left out.
    """
    if run.kind != "run" or truth.kind != "truth":
        raise ValueError(
            "check_against_truth(run, truth) needs a run then a ground truth; got a "
            f"{run.kind} and a {truth.kind}."
        )
    if max_cutoff is not None:
        check_int("max_cutoff", max_cutoff)
    # Each column's distinct ids in order of first appearance, kept from the reading.
    run_by_user, truth_by_user = id_index(run, "user"), id_index(truth, "user")
    run_users, truth_users = run_by_user.values, truth_by_user.values
    truth_items = id_index(truth, "item").values
    run_items = _RunItems.of(run)
    in_truth = _isin(run_users, truth_users)

    warnings: list[str] = []
    users = _TruthIds(truth_users)
    note = _format_mismatch(run, truth, "user", users.unmatched(run_users, in_truth), users,
                            lambda: len(run_users))
    if note:
        warnings.append(note)
    items = _TruthIds(truth_items)
    note = _format_mismatch(run, truth, "item", run_items.unmatched(items), items,
                            lambda: run_items.n_distinct)
    if note:
        warnings.append(note)

    if not in_truth.any():
        raise _no_shared_users(run, truth, run_users, truth_users, run_items, truth_items)

    if not in_truth.all():
        outside = run_users[~in_truth]
        warnings.append(
            f"{len(outside)} of {len(run_users)} users in {run.source} {_be(len(outside))} not "
            f"in the ground truth ({_examples(outside)}); they are left out of the metrics."
        )
    in_run = _isin(truth_users, run_users)
    if not in_run.all():
        absent = truth_users[~in_run]
        warnings.append(
            f"{len(absent)} of {len(truth_users)} ground-truth users {_have(len(absent))} no "
            f"recommendations in "
            f"{run.source} ({_examples(absent)}); the Missing users convention (missing_users) "
            "decides whether they count as 0 or are left out."
        )
    if not run_items.any_in(truth_items):
        warnings.append(
            f"None of the {run_items.n_distinct} items recommended in {run.source} appears in the "
            f"ground truth ({truth.source}), so every metric will be 0. Check the item column "
            f"('{run.columns.get('item', run.columns.get('items'))}')."
        )
    warnings.extend(_without_relevant(truth, truth_by_user, mapping))
    warnings.extend(_short_lists(run, run_by_user, max_cutoff))
    return warnings


@dataclass
class _RunItems:
    """A run's item ids as the checks look at them: ``ids`` holds each row's id, or each
    distinct id when the reading numbered them (``numbered``), in order of first appearance.
    The distinct ids are found (with Arrow's hash table, one pass over the rows) only when a
    message counts them or no quicker look answers."""

    ids: pa.Array | pa.ChunkedArray
    numbered: bool

    @classmethod
    def of(cls, run: LoadedTable) -> _RunItems:
        hashed = kept_codes(run, "item")
        if isinstance(hashed, HashedIds) and hashed.distinct is not None:
            return cls(hashed.distinct, True)
        return cls(hashed.text if isinstance(hashed, HashedIds)
                   else pa.array(run.table["item"].astype("str")), False)

    @cached_property
    def distinct(self) -> pd.Series:
        """The distinct item ids, in order of first appearance."""
        return pd.Series((self.ids if self.numbered else pc.unique(self.ids)).to_pandas(),
                         dtype="str")

    @property
    def n_distinct(self) -> int:
        return len(self.distinct)

    def any_in(self, ids: pd.Series) -> bool:
        """Whether some item id of the run is among ``ids``: looked for among the ids of the
        first rows, then (when none is there) among all."""
        first = pd.Series(pc.unique(self.ids.slice(0, FIRST_ROWS)).to_pandas(), dtype="str")
        if _isin(ids, first).any():
            return True
        return len(self.ids) > FIRST_ROWS and bool(_isin(ids, self.distinct).any())

    def unmatched(self, truth_ids: _TruthIds) -> pd.Series:
        """The distinct item ids that may match ``truth_ids`` only once numbers are written
        one way (among a few others), in order of first appearance."""
        suspects = truth_ids.suspects(self.ids)
        if suspects is None or np.count_nonzero(suspects) > len(suspects) // 2:
            return self.distinct  # (rather than copying most rows' ids)
        picked = take_text(self.ids, np.flatnonzero(suspects))
        return pd.Series(pc.unique(picked).to_pandas(), dtype="str")


class _TruthIds:
    """A ground truth's distinct user or item ids, with what tells which ids of a run may
    match them only once numbers are written one way.

    canonical_ids leaves most ids as they are: ``rewritable`` holds the positions of those it
    may change (see :func:`rewritable_ids`; all of them when the ids are not Arrow text) and
    ``canonical`` how it writes them, ``rewritten`` the forms that differ from the id. A run's
    id then matches only once numbers are written one way when it is rewritable itself or is
    one of ``rewritten``.
    """

    def __init__(self, ids: pd.Series) -> None:
        self.ids = ids
        text = _arrow_text(ids)
        self.rewritable = (np.arange(len(ids)) if text is None
                           else np.flatnonzero(rewritable_ids(text)))
        written = ids.iloc[self.rewritable].reset_index(drop=True)
        self.canonical = canonical_ids(written)
        self.rewritten: pa.Array | None = None
        if text is not None:
            changed = self.canonical[(self.canonical != written).to_numpy(dtype=bool)]
            self.rewritten = pc.cast(pa.array(changed.unique()), text.type)

    def suspects(self, ids: pa.Array | pa.ChunkedArray) -> np.ndarray | None:
        """Which of ``ids`` may match one of these ids only once numbers are written one way
        (and some others), as a bool array; None when every one may."""
        if self.rewritten is None or not _is_arrow_text(ids):
            return None
        found = rewritable_ids(ids)
        if len(self.rewritten):
            value_set = pc.cast(self.rewritten, ids.type)
            found |= pc.fill_null(pc.is_in(ids, value_set=value_set), False).to_numpy(
                zero_copy_only=False)
        return found

    def unmatched(self, run_ids: pd.Series, matched: np.ndarray) -> pd.Series:
        """The distinct ids of a run not ``matched`` that may match one of these only once
        numbers are written one way (among a few others), in their order."""
        text = _arrow_text(run_ids)
        suspects = None if text is None else self.suspects(text)
        keep = ~matched if suspects is None else suspects & ~matched
        return run_ids[keep].reset_index(drop=True)

    def written_as(self, forms: pd.Series) -> dict[str, str]:
        """For each of the canonical ``forms``, the last of these ids (in their order) that
        canonical_ids writes so."""
        same = np.flatnonzero(_isin(self.ids, forms))
        same = same[~np.isin(same, self.rewritable)]  # left as they are by canonical_ids
        changed = np.flatnonzero(_isin(self.canonical, forms))
        positions = np.concatenate((same, self.rewritable[changed]))
        written = [*self.ids.iloc[same], *self.canonical.iloc[changed]]
        ids = [*self.ids.iloc[same], *self.ids.iloc[self.rewritable[changed]]]
        return {written[i]: ids[i] for i in np.argsort(positions, kind="stable")}


def _arrow_text(ids: pd.Series) -> pa.Array | pa.ChunkedArray | None:
    """The ids' Arrow text, when they are held as such."""
    return ids.array.__arrow_array__() if _is_text(ids) else None


def _is_arrow_text(ids: pa.Array | pa.ChunkedArray) -> bool:
    return pa.types.is_string(ids.type) or pa.types.is_large_string(ids.type)


def _isin(values: pd.Series, among: pd.Series) -> np.ndarray:
    """``values.isin(among)`` as a bool array; with Arrow's hash set when both are text."""
    if _is_text(values) and _is_text(among):
        value_set = pa.array(among)
        if isinstance(value_set, pa.ChunkedArray):
            value_set = value_set.combine_chunks()
        if values.hasnans or value_set.null_count:
            return values.isin(among).to_numpy()
        return pc.is_in(pa.array(values), value_set=value_set).to_numpy(zero_copy_only=False)
    return values.isin(among).to_numpy()


def _is_text(series: pd.Series) -> bool:
    return isinstance(series.dtype, pd.StringDtype) and series.dtype.storage == "pyarrow"


def _format_mismatch(run: LoadedTable, truth: LoadedTable, role: str, run_ids: pd.Series,
                     truth_ids: _TruthIds, n_run: Callable[[], int]) -> str:
    """Raise (or warn) when ids only match once whole numbers are written one way.

    ``run_ids`` are distinct ids of the run, in order of first appearance: at least those that
    may match ``truth_ids`` only so (see :meth:`_TruthIds.unmatched`), out of ``n_run()``
    distinct ids in all. Only their canonical forms are compared, with those of the ground
    truth's ids that canonical_ids may change and with the others as they are."""
    if len(run_ids) == 0:
        return ""
    raw_match = _isin(run_ids, truth_ids.ids)
    run_canon = canonical_ids(run_ids)
    canon_match = _isin(run_canon, truth_ids.ids) | _isin(run_canon, truth_ids.canonical)
    only_canon = canon_match & ~raw_match
    if not only_canon.any():
        return ""
    where = np.flatnonzero(only_canon)
    shown = run_canon.iloc[where[:EXAMPLES]]
    truth_by_canon = truth_ids.written_as(shown)
    pairs = [f"'{run_ids.iloc[i]}' vs '{truth_by_canon[run_canon.iloc[i]]}'"
             for i in where[:EXAMPLES]]
    share = where.size / n_run()
    column = run.columns.get(role) or run.columns.get("items", role)
    text = (
        f"{where.size} of {n_run()} {role} ids in {run.source} match the ground truth "
        f"({truth.source}) only when numbers are written the same way ({run.source} vs ground "
        f"truth: {', '.join(pairs)})."
    )
    if share < FORMAT_SHARE:
        return text + " They are treated as different ids."
    run_sample = [str(run_ids.iloc[i]) for i in where[:EXAMPLES]]
    truth_sample = [truth_by_canon[run_canon.iloc[i]] for i in where[:EXAMPLES]]
    raise DataError(
        f"{text} {_why(run_sample + truth_sample)} Write the ids the same way in both files "
        "(as text, exactly as in the ground truth), or load both with ids_as_strings=False, "
        "which reads whole-number ids as numbers ('007', '7.0' and '7' are all '7').",
        file=run.source, column=column,
    )


def _why(samples: list[str]) -> str:
    if any("." in value for value in samples):
        return ("One file writes them with a decimal point ('12.0'), which happens when a "
                "spreadsheet or pandas turned the ids into decimal numbers.")
    return ("One file writes them with leading zeros ('007'), which the other dropped "
            "(spreadsheets do that when they treat ids as numbers).")


def _no_shared_users(run: LoadedTable, truth: LoadedTable, run_users: pd.Series,
                     truth_users: pd.Series, run_items: _RunItems,
                     truth_items: pd.Series) -> DataError:
    problem = (
        f"none of the {len(run_users)} users in {run.source} is in the ground truth "
        f"({truth.source}): the model's users look like {_examples(run_users)}, the ground "
        f"truth's like {_examples(truth_users)}. This is almost always a wrong file or a wrong "
        f"column: the user column used is '{run.columns['user']}' in {run.source} and "
        f"'{truth.columns['user']}' in {truth.source}; choose another with columns="
        "{'user': ...} if needed."
    )
    if _isin(run_users, truth_items).mean() > 0.5 and run_items.any_in(truth_users):
        problem += (" The model's user ids match the ground truth's item ids: the user and item "
                    "columns look swapped in one of the files.")
    return DataError(problem, file=run.source, column=run.columns["user"])


def _without_relevant(truth: LoadedTable, by_user: IdIndex,
                      mapping: RelevanceMapping) -> list[str]:
    ratings = truth.numbers()
    relevant = mapping.is_relevant(mapping.grades(ratings))
    # Per user, in order of first appearance (missing user ids left out): any relevant item?
    any_relevant = np.bincount(by_user.codes, weights=relevant,
                               minlength=len(by_user.values)) > 0
    present = by_user.present
    none = by_user.values[present & ~any_relevant]
    n_users = int(present.sum())
    if len(none) == 0:
        return []
    if len(none) == n_users:
        return [
            f"No ground-truth user has a relevant item under the relevance mapping "
            f"({mapping.describe()}): every metric would be 0 or undefined. Lower the threshold "
            "or check the rating column."
        ]
    return [
        f"{len(none)} of {n_users} ground-truth users {_have(len(none))} no relevant item "
        "under the "
        f"relevance mapping ({mapping.describe()}) ({_examples(none)}); the "
        "Empty users convention (empty_users) decides whether they are skipped or count as 0."
    ]


def _short_lists(run: LoadedTable, by_user: IdIndex, max_cutoff: int | None) -> list[str]:
    lengths = by_user.counts[by_user.present]  # rows per user, missing user ids left out
    if max_cutoff is None:
        if lengths.size == 0:
            return []
        max_cutoff = int(lengths.max())
    short = lengths[lengths < max_cutoff]
    if short.size == 0:
        return []
    return [
        f"{len(short)} of {len(lengths)} users in {run.source} {_have(len(short))} fewer than "
        f"{max_cutoff} "
        f"recommended items (the shortest list has {int(short.min())}); at cutoffs beyond a "
        "list's end the missing places count as misses."
    ]


def _examples(ids: pd.Series) -> str:
    shown = ", ".join(f"'{value}'" for value in ids.iloc[:EXAMPLES])
    return f"e.g. {shown}" if len(ids) > EXAMPLES else shown


def _be(count: int) -> str:
    return "is" if count == 1 else "are"


def _have(count: int) -> str:
    return "has" if count == 1 else "have"
