"""What the beyond-accuracy metrics read: each model's top items as item codes and what the
optional inputs say about the items, prepared once for every metric and cutoff."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankmetrics.beyond._items import ItemFacts, item_facts
from rankmetrics.beyond._lists import top_items
from rankmetrics.beyond._options import BeyondOptions
from rankmetrics.checks import check_int
from rankmetrics.io import Attributes, LoadedTable, interaction_counts
from rankmetrics.prepared.ground_truth import GroundTruth


@dataclass(frozen=True)
class BeyondInputs:
    """Each model's top items as codes (users x width, -1 past a list's end) and the facts
    about the items (see :func:`prepare_beyond`)."""

    facts: ItemFacts
    lists: dict[str, np.ndarray]
    options: BeyondOptions
    #: The inputs read, by name ("interactions", "item_attributes", "catalogue"): their rows
    #: and users (None where rows are not users' rows), what a saved evaluation records.
    described: Mapping[str, tuple[int, int | None]] = dataclasses.field(default_factory=dict)
    #: Each ground-truth user's number of training interactions (their activity), when the
    #: training interactions were given: what a saved evaluation keeps to split users by.
    activity: pd.Series | None = None

    @property
    def width(self) -> int:
        """The longest list read (the ranks at which a value can still change)."""
        return max((lists.shape[1] for lists in self.lists.values()), default=1)


#: Models whose lists :func:`prepare_beyond` reads at once (threads).
LISTS_AT_ONCE = 2


def prepare_beyond(
    truth: GroundTruth,
    runs: Mapping[str, LoadedTable],
    *,
    interactions: LoadedTable | None = None,
    item_attributes: Attributes | pd.DataFrame | None = None,
    catalogue: str | Iterable[str] = "auto",
    options: BeyondOptions | None = None,
    ties: str = "item_desc",
    max_cutoff: int = 100,
) -> BeyondInputs:
    """Read the first ``max_cutoff`` items of each run for each ground-truth user, and
    number every item with what the inputs say about it.

    Parameters
    ----------
    truth : GroundTruth
    runs : mapping of model name -> run read by :mod:`rankmetrics.io`
    interactions : training interactions read by :func:`rankmetrics.io.read_interactions`
        The source of popularity (ARP, APLT, ACLT, novelty, the long tail).
    item_attributes : attributes read by ``rankmetrics.io.read_attributes(..., key="item")``
        or a DataFrame with an item column, optional
        Columns of categories (one or several per item) give Jaccard distances and category
        counts; without any, the numeric columns give cosine distances.
    catalogue : "auto", "interactions", "all" or a collection of item ids
        The items that could be recommended. ``auto``: the items of the training
        interactions when given, else every item in any input.
    options : BeyondOptions, default ``BeyondOptions()``
    """
    options = options or BeyondOptions()
    check_int("max_cutoff", max_cutoff)
    if not isinstance(catalogue, str):
        catalogue = list(catalogue)  # read twice: for the facts and for the record
    # the models two at a time: their sorts run without the interpreter lock
    with ThreadPoolExecutor(max_workers=LISTS_AT_ONCE) as pool:
        tops = dict(zip(runs, pool.map(
            lambda run: top_items(run, truth, ties=ties, width=max_cutoff), runs.values()),
            strict=True))
    facts = item_facts(truth, tops, interactions=interactions, attributes=item_attributes,
                       catalogue=catalogue, options=options)
    lists = {}
    for name, top in tops.items():
        lists[name] = top.matrix(facts.codes(top), truth.n_users)[:, :max(top.longest, 1)]
    activity = None
    if interactions is not None:
        users = pd.Index(truth.user_ids.to_pandas(), name="user")
        activity = interaction_counts(interactions).reindex(users, fill_value=0)
    return BeyondInputs(facts, lists, options,
                        _described(interactions, item_attributes, catalogue), activity)


def _described(interactions: LoadedTable | None,
               item_attributes: Attributes | pd.DataFrame | None,
               catalogue: str | list[str]) -> dict[str, tuple[int, int | None]]:
    """Rows and users of each beyond-accuracy input given (see :class:`BeyondInputs`)."""
    described: dict[str, tuple[int, int | None]] = {}
    if interactions is not None:
        described["interactions"] = (interactions.n_rows, interactions.n_users)
    if item_attributes is not None:
        table = (item_attributes if isinstance(item_attributes, pd.DataFrame)
                 else item_attributes.table)
        described["item_attributes"] = (len(table), None)
    if not isinstance(catalogue, str):
        described["catalogue"] = (len(catalogue), None)
    return described
