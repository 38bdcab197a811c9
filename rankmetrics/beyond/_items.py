"""What is known about each item: whether it is in the catalogue, its popularity, whether it
is in the long tail, and its categories or features.

Every item any input names (training interactions, ground truth, item attributes, an explicit
catalogue, the recommended lists) gets one code here, in that order of first appearance, so
the kernels work on integer arrays indexed by item code.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rankmetrics.beyond._history import History, user_history
from rankmetrics.beyond._lists import TopItems
from rankmetrics.beyond._options import BeyondOptions
from rankmetrics.checks import needed
from rankmetrics.io import Attributes, LoadedTable, attributes_from_dataframe, truth_codes
from rankmetrics.prepared.ground_truth import GroundTruth

CATALOGUE = ("auto", "interactions", "all")
#: Most distinct category sets Jaccard distances are tabulated for (a square float64 table).
MOST_CATEGORY_SETS = 4096


@dataclass(frozen=True)
class Popularity:
    """Each item's popularity, self-information and long-tail membership (by item code)."""

    counts: np.ndarray
    self_information: np.ndarray
    long_tail: np.ndarray
    total: int


@dataclass(frozen=True)
class ItemTraits:
    """Items' categories (as bit sets, for Jaccard and counting), numeric features (unit
    vectors, for cosine) or binary features (for Hamming), by item code."""

    distance: str  # "jaccard", "cosine" or "hamming"
    columns: tuple[str, ...]
    category_bits: np.ndarray | None = None  # items x words, uint64
    set_of_item: np.ndarray | None = None  # each item's category set number
    set_distances: np.ndarray | None = None  # (sets + 1) x (sets + 1); the last: no item
    unit_features: np.ndarray | None = None  # items x features, unit length (or 0)
    binary_features: np.ndarray | None = None  # items x features, 0 or 1
    category_names: tuple[str, ...] = ()  # category c is bit c of category_bits


@dataclass(frozen=True)
class ItemFacts:
    """Item codes and what each input says about the items (see the module docstring)."""

    ids: pa.Array
    in_catalogue: np.ndarray
    catalogue_source: str
    truth_item_code: np.ndarray
    popularity: Popularity | None
    attributes: ItemTraits | None
    #: Each ground-truth user's training items (None without training interactions).
    history: History | None = None
    #: What makes an item unexpected and miscalibration's smoothing (the options').
    unexpectedness: str = "cooccurrence"
    calibration_alpha: float = 0.01
    #: What ARP and novelty do with an item no training interaction holds (the options').
    unseen_items: str = "counted"

    @property
    def catalogue_size(self) -> int:
        return int(self.in_catalogue.sum())

    def codes(self, top: TopItems) -> np.ndarray:
        """The code of each of ``top``'s items (every id was given when the facts were
        made)."""
        found = pc.index_in(pc.cast(top.distinct, pa.large_string()), value_set=self.ids)
        return found.to_numpy(zero_copy_only=False).astype(np.int32)[top.item]


def item_facts(
    truth: GroundTruth,
    tops: Mapping[str, TopItems],
    *,
    interactions: LoadedTable | None,
    attributes: Attributes | pd.DataFrame | None,
    catalogue: str | Iterable[str],
    options: BeyondOptions,
) -> ItemFacts:
    """Number every item and gather what the inputs say about it."""
    seen_users = seen_items = None
    if interactions is not None:
        if interactions.kind != "interactions":
            raise ValueError("interactions must be training interactions read by "
                             "rankmetrics.io.read_interactions; got a "
                             f"{interactions.kind}.")
        seen_users, seen_items, _ = truth_codes(interactions)
    attributes = item_attributes(attributes)
    chosen = _check_catalogue(catalogue)
    listed = None if isinstance(chosen, str) else pa.array(chosen, type=pa.large_string())
    attribute_ids = None if attributes is None else _attribute_ids(attributes)
    parts = [part for part in (
        None if seen_items is None else seen_items.values, truth.item_ids, attribute_ids,
        listed, *(top.distinct for top in tops.values())) if part is not None]
    ids = pc.unique(pa.chunked_array([pc.cast(part, pa.large_string()) for part in parts],
                                     type=pa.large_string()))
    facts_codes = _Coder(ids)
    in_catalogue, source = _catalogue(chosen, listed, seen_items, facts_codes)
    popularity = history = None
    if seen_items is not None and seen_users is not None:
        seen_codes = facts_codes(seen_items.values)[seen_items.codes]
        popularity = _popularity(seen_users.codes, seen_codes, len(seen_users.values),
                                 in_catalogue, options)
        history = user_history(truth.user_ids, seen_users.values, seen_users.codes,
                               seen_codes, len(ids))
    return ItemFacts(
        ids=ids,
        in_catalogue=in_catalogue,
        catalogue_source=source,
        truth_item_code=facts_codes(truth.item_ids),
        popularity=popularity,
        attributes=None if attributes is None else read_attributes_table(
            attributes, facts_codes, options.distance),
        history=history,
        unexpectedness=options.unexpectedness,
        calibration_alpha=options.calibration_alpha,
        unseen_items=options.unseen_items,
    )


class _Coder:
    """Ids to item codes (-1 for an id not numbered)."""

    def __init__(self, ids: pa.Array) -> None:
        self.ids = ids

    def __call__(self, values: pa.Array) -> np.ndarray:
        found = pc.index_in(pc.cast(values, pa.large_string()), value_set=self.ids)
        return pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)


def _check_catalogue(catalogue: str | Iterable[str]) -> str | list[str]:
    if isinstance(catalogue, str):
        if catalogue not in CATALOGUE:
            raise ValueError(f"The 'catalogue' argument must be one of {', '.join(CATALOGUE)} "
                             f"or a collection of item ids. Got {catalogue!r} instead.")
        return catalogue
    items = [str(item).strip() for item in catalogue]
    if not items:
        raise ValueError("The 'catalogue' argument is an empty collection of item ids; give "
                         "at least one item, or 'auto'.")
    return items


def _catalogue(chosen: str | list[str], listed: pa.Array | None, seen_items: object,
               coder: _Coder) -> tuple[np.ndarray, str]:
    """Which items are in the catalogue, and a sentence saying where it came from."""
    in_catalogue = np.zeros(len(coder.ids), dtype=bool)
    if listed is not None:
        in_catalogue[coder(listed)] = True
        return in_catalogue, "the items listed in the catalogue"
    if chosen == "interactions" and seen_items is None:
        raise ValueError("catalogue='interactions' needs training interactions; give them, "
                         "or choose catalogue='all'.")
    if chosen != "all" and seen_items is not None:
        in_catalogue[coder(seen_items.values)] = True  # type: ignore[attr-defined]
        return in_catalogue, "the items in the training interactions"
    in_catalogue[:] = True
    return in_catalogue, "every item in any file (ground truth, model outputs, attributes)"


def _popularity(user_codes: np.ndarray, item_codes: np.ndarray, n_users: int,
                in_catalogue: np.ndarray, options: BeyondOptions) -> Popularity:
    n_items = len(in_catalogue)
    if options.popularity == "users":
        pairs = np.unique(item_codes.astype(np.int64) * max(n_users, 1) + user_codes)
        counts = np.bincount(pairs // max(n_users, 1), minlength=n_items)
        total = n_users
    else:
        counts = np.bincount(item_codes, minlength=n_items)
        total = len(item_codes)
    counts = counts.astype(np.float64)
    p = np.maximum(counts, 1.0) / total  # an item never seen counts as seen once
    return Popularity(counts, -np.log2(p), _long_tail(counts, in_catalogue, options), total)


def _long_tail(counts: np.ndarray, in_catalogue: np.ndarray, options: BeyondOptions
               ) -> np.ndarray:
    """Every item outside the short head (see :class:`BeyondOptions`); popularity ties are
    broken by item code (first appearance)."""
    catalogue = np.flatnonzero(in_catalogue)
    ranked = catalogue[np.argsort(-counts[catalogue], kind="stable")]
    if options.long_tail == "short_head":
        cumulative = np.cumsum(counts[ranked])
        # a hair below the share, so that reaching it up to rounding counts as reaching it
        wanted = options.long_tail_share * cumulative[-1] * (1 - 1e-12) if len(ranked) else 0
        head_size = int(np.searchsorted(cumulative, wanted)) + 1 if len(ranked) else 0
    else:
        head_size = len(ranked) - max(int(options.long_tail_share * len(ranked)), 1)
    tail = np.ones(len(counts), dtype=bool)
    tail[ranked[:head_size]] = False
    return tail


# Attributes --------------------------------------------------------------------------------

def item_attributes(attributes: Attributes | pd.DataFrame | None) -> Attributes | None:
    """Item attributes read by :func:`rankmetrics.io.read_attributes` (``key="item"``); a
    DataFrame is checked as :func:`rankmetrics.io.attributes_from_dataframe` checks it."""
    if attributes is None:
        return None
    if isinstance(attributes, pd.DataFrame):
        return attributes_from_dataframe(attributes, key="item", name="item attributes")
    if not isinstance(attributes, Attributes) or attributes.key != "item":
        raise TypeError("item_attributes must be item attributes read by "
                        "rankmetrics.io.read_attributes(..., key='item'), or a DataFrame. Got "
                        f"{type(attributes).__name__}.")
    return attributes


def _attribute_ids(attributes: Attributes) -> pa.Array:
    return pa.array(attributes.ids.to_numpy(dtype=object), type=pa.large_string())


def read_attributes_table(attributes: Attributes, coder: _Coder, distance: str = "auto"
                          ) -> ItemTraits:
    """Categories when any column holds categories (one or several per item), else the
    numeric columns as features; with ``distance="hamming"``, also as binary features
    (see :class:`~rankmetrics.beyond.BeyondOptions`)."""
    codes = coder(_attribute_ids(attributes))
    categorical = [name for name, kind in attributes.kinds.items() if kind != "number"]
    if categorical:
        traits = _categories(attributes.table, categorical, codes, len(coder.ids))
        if distance == "hamming":
            return _binary_categories(traits)
        return traits
    if not attributes.kinds:
        raise ValueError(f"The item attributes {attributes.source} have no column besides "
                         "the item.")
    if distance == "hamming":
        return _binary_columns(attributes, list(attributes.kinds), codes, len(coder.ids))
    return _features(attributes.table, list(attributes.kinds), codes, len(coder.ids))


def _binary_categories(traits: ItemTraits) -> ItemTraits:
    """The categories as binary features: one per category, 1 where an item has it."""
    bits = needed(traits.category_bits, "The item attributes have no categories.")
    # category c is bit c % 64 of word c // 64: in little-endian bytes, bit c of the row
    unpacked = np.unpackbits(bits.astype("<u8").view(np.uint8), axis=1, bitorder="little")
    held = np.flatnonzero(unpacked.any(axis=0))
    n_categories = int(held.max(initial=-1)) + 1
    return dataclasses.replace(traits, distance="hamming",
                               binary_features=unpacked[:, :n_categories].astype(np.float64))


def _binary_columns(attributes: Attributes, columns: list[str], codes: np.ndarray,
                    n_items: int) -> ItemTraits:
    """Numeric columns of 0 and 1 as binary features; any other value is refused with the
    row and column that hold it (an item without a value has 0)."""
    table = attributes.table
    values = table[columns].to_numpy(dtype=np.float64, na_value=0.0)
    bad = np.argwhere(~np.isin(values, (0.0, 1.0)))
    if len(bad):
        row, column = (int(i) for i in bad[0])
        raise ValueError(
            f"In {attributes.source}: Hamming distance needs binary "
            f"features, but column {columns[column]!r} holds {values[row, column]:g} in data "
            f"row {row + 1} (item {attributes.ids.iloc[row]!r}). Give only 0 and 1 in the numeric "
            "columns, give categories instead, or use the default distance (cosine on "
            "numeric features).")
    features = np.zeros((n_items, len(columns)))
    features[codes] = values
    return ItemTraits("hamming", tuple(columns), binary_features=features)


def _categories(attributes: pd.DataFrame, columns: list[str], codes: np.ndarray,
                n_items: int) -> ItemTraits:
    """Each item's categories as bits (one per category, 64 to a word); above 64
    categories, also the Jaccard distances between the distinct sets of categories."""
    pieces = []
    for column in columns:
        cells = pd.Series(attributes[column].to_numpy(dtype=object), index=codes).explode()
        cells = cells[cells.notna()].astype(str).str.strip()
        cells = cells[cells != ""]
        pieces.append(f"{column}=" + cells if len(columns) > 1 else cells)
    found = pd.concat(pieces) if pieces else pd.Series(dtype=str)
    category, names = pd.factorize(found, sort=False)
    named = tuple(str(name) for name in names)
    item = found.index.to_numpy(dtype=np.int64)
    # room for one bit more, which ILD gives the items without a category
    words = (int(category.max(initial=-1)) + 1 + 64) // 64
    bits = np.zeros((n_items, words), dtype=np.uint64)
    np.bitwise_or.at(bits, (item, category // 64),
                     np.left_shift(np.uint64(1), (category % 64).astype(np.uint64)))
    if words == 1:
        return ItemTraits("jaccard", tuple(columns), category_bits=bits, category_names=named)
    distinct, set_of_item = np.unique(bits, axis=0, return_inverse=True)
    if len(distinct) > MOST_CATEGORY_SETS:
        raise ValueError(
            f"The item attributes hold {len(distinct)} distinct sets of categories out of "
            f"more than 64 categories; ILD by Jaccard distance is then computed for at most "
            f"{MOST_CATEGORY_SETS} sets. Give fewer categories, or numeric features (cosine "
            "distance).")
    return ItemTraits("jaccard", tuple(columns), category_bits=bits, category_names=named,
                      set_of_item=set_of_item.reshape(-1).astype(np.int32),
                      set_distances=jaccard_table(distinct))


def _popcount(bits: np.ndarray) -> np.ndarray:
    return np.bitwise_count(bits).sum(axis=-1).astype(np.float64)


def jaccard_table(sets: np.ndarray) -> np.ndarray:
    """Jaccard distance between every two category sets (two empty sets: 0), with a last
    row and column of zeros standing for "no item"."""
    size = _popcount(sets)
    shared = np.zeros((len(sets), len(sets)))
    for word in range(sets.shape[1]):
        column = sets[:, word]
        shared += np.bitwise_count(column[:, None] & column[None, :]).astype(np.float64)
    union = size[:, None] + size[None, :] - shared
    table = np.zeros((len(sets) + 1, len(sets) + 1), dtype=np.float64)
    table[:-1, :-1] = 1.0 - np.divide(shared, union, out=np.ones_like(shared),
                                      where=union > 0)
    return table


def _features(attributes: pd.DataFrame, columns: list[str], codes: np.ndarray,
              n_items: int) -> ItemTraits:
    values = attributes[columns].to_numpy(dtype=np.float64, na_value=0.0)
    features = np.zeros((n_items, len(columns)))
    features[codes] = np.nan_to_num(values)
    norms = np.linalg.norm(features, axis=1, keepdims=True)
    unit = np.divide(features, norms, out=np.zeros_like(features), where=norms > 0)
    return ItemTraits("cosine", tuple(columns), unit_features=unit)
