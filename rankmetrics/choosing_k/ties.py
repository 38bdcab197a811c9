"""How much the tie rule can move a metric: bounds over every order of tied scores.

Items with equal scores have no order of their own; the tie rule (``Conventions.ties``) picks
one. When a group of tied items straddles the cutoff K, the items that make the top K depend
on that rule, and so may the metric. This module ranks each model's lists twice more:

- *pessimistic*: within every group of tied scores, the items worth least first and the
  relevant, higher-gain items last (by gain, then relevance, ascending);
- *optimistic*: the reverse, relevant and higher-gain tied items first.

Relevance and gain agree on which item is worth more (an item is relevant when its grade
reaches the threshold, and gains rise with the grade), so one order is worst (or best) for
every metric and cutoff at once. For Precision, Recall, HitRate, MRR, MAP with AP divided by
|R| or min(K, |R|), DCG and NDCG with the ideal from the ground truth these two orders give
the lowest and highest value any order of the ties can give (a test checks every order of
small lists). AP divided by the hits in the top K, and NDCG with the ideal re-sorted from
the model's own top K, can move either way when an item enters the top K, so for them the two
values are those of the two orders, not guaranteed extremes.

The groups come from the model's scores (rows of the read table); a user's group of tied items
occupies the same ranks whatever the tie rule, so the evaluation's ranked items are moved
within their group only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from rankmetrics.evaluation import Evaluation
from rankmetrics.io import LoadedTable, run_codes, run_from_dataframe
from rankmetrics.metrics import METRICS, check_metrics
from rankmetrics.prepared.ranked_run import RankedRun, own_item_rows, rank_order

#: Models whose tie orders :func:`tie_bounds` makes at once (threads).
MODELS_AT_ONCE = 2

BOUND_COLUMNS = ["model", "metric", "cutoff", "pessimistic", "active", "optimistic",
                 "tied_share"]


@dataclass(frozen=True)
class TieGroups:
    """The groups of tied scores in one model's lists.

    The model's rows are ordered by user, then score; ``starts[u]`` is where ground-truth user
    u's list begins among them. Each group of two or more tied rows runs from ordered row
    ``first[g]`` to just before ``stop[g]`` and belongs to user ``user[g]`` (groups in row
    order). Rows outside these groups have a score of their own.
    """

    starts: np.ndarray
    first: np.ndarray
    stop: np.ndarray
    user: np.ndarray

    @property
    def has_ties(self) -> bool:
        return len(self.first) > 0

    def of(self, user: np.ndarray, rank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The first rank and the rank just past the group holding each (user, rank)
        (0-based; (rank, rank + 1) for a score of its own)."""
        if not self.has_ties:
            return rank, rank + 1
        position = self.starts[user] + rank
        group = np.maximum(np.searchsorted(self.first, position, side="right") - 1, 0)
        inside = (self.first[group] <= position) & (position < self.stop[group])
        offset = self.starts[user]
        return (np.where(inside, self.first[group] - offset, rank),
                np.where(inside, self.stop[group] - offset, rank + 1))

    def ranks(self) -> tuple[np.ndarray, np.ndarray]:
        """The first rank and the rank just past each group, within its user's list."""
        return self.first - self.starts[self.user], self.stop - self.starts[self.user]


def tie_groups(run: pd.DataFrame | LoadedTable, ev: Evaluation) -> TieGroups:
    """The groups of tied scores of a model's output (a read run or a DataFrame ``user,
    item, score``), for the users of ``ev``'s ground truth."""
    loaded = run if isinstance(run, LoadedTable) else run_from_dataframe(run,
                                                                          name="model output")
    users, items, loaded = run_codes(loaded)
    found = pc.index_in(users.values, value_set=ev.truth.user_ids)
    truth_user = pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    row_user = truth_user[users.codes]
    if ev.conventions.identical_ids == "drop":  # as the lists were ranked: without them
        row_user[own_item_rows(users, items)] = -1
    scores = loaded.numbers()
    if (row_user < 0).any():
        kept = np.flatnonzero(row_user >= 0)
        row_user, scores = row_user[kept], scores[kept]
    order = rank_order(row_user, scores, np.empty(0), None, "input")
    if order is not None:
        row_user, scores = row_user[order], scores[order]
    same_user = row_user[1:] == row_user[:-1]
    user_first = np.concatenate([[0], np.flatnonzero(~same_user) + 1]) if len(row_user) \
        else np.zeros(0, dtype=np.int64)
    starts = np.zeros(ev.truth.n_users, dtype=np.int64)
    starts[row_user[user_first]] = user_first
    same_user &= scores[1:] == scores[:-1]  # row i ties with row i + 1
    if 2 * np.count_nonzero(same_user) <= len(same_user):  # few ties: from the tied rows
        tied = np.flatnonzero(same_user)
        run_start = np.ones(len(tied), dtype=bool)
        run_start[1:] = tied[1:] != tied[:-1] + 1
        run_end = np.ones(len(tied), dtype=bool)
        run_end[:-1] = run_start[1:]
        first = tied[run_start]
        return TieGroups(starts, first, tied[run_end] + 2, row_user[first])
    # most rows tie: from the fewer rows where a run of equal scores ends, the runs of two
    # rows or more being the groups
    begin = np.flatnonzero(~same_user) + 1
    run_first = np.concatenate([[0], begin])
    run_stop = np.concatenate([begin, [len(row_user)]])
    group = run_stop - run_first >= 2
    first = run_first[group]
    return TieGroups(starts, first, run_stop[group], row_user[first])


def _reordered(ranked: RankedRun, spans: tuple[np.ndarray, np.ndarray], ev: Evaluation,
               optimistic: bool) -> RankedRun:
    """The model's ranked run with every group of tied items in the pessimistic (or
    optimistic) order; ``spans`` is where each judged item's group starts and stops
    (:meth:`TieGroups.of`). Only items in a group of ties move; judged items worth nothing
    there (no gain, not relevant) are left out: they change no metric, like the unjudged items
    they are placed among."""
    user, rank, row = ranked.judged_user, ranked.judged_rank, ranked.judged_row
    start, end = spans
    in_tie = end - start >= 2
    worth = (ev.truth_gains[row] > 0) | ev.truth_relevant[row]
    moving = np.flatnonzero(in_tie & worth)
    if not len(moving):  # nothing worth anything among equal scores: no order changes a value
        return ranked
    staying = np.flatnonzero(~in_tie)
    user_m, row_m, start_m, end_m = user[moving], row[moving], start[moving], end[moving]
    # The judged items come by user, then rank, so by group already: sort within each group
    # by (gain, relevant), ascending (worst first) or descending, with one integer key.
    new_group = np.ones(len(user_m), dtype=bool)
    new_group[1:] = (user_m[1:] != user_m[:-1]) | (start_m[1:] != start_m[:-1])
    _, level = np.unique(ev.truth_gains[row_m], return_inverse=True)
    worth_m = level.astype(np.int64) * 2 + ev.truth_relevant[row_m]
    if optimistic:  # best first
        worth_m = int(worth_m.max(initial=0)) - worth_m
    span = int(worth_m.max(initial=0)) + 1
    order = np.argsort((np.cumsum(new_group) - 1) * span + worth_m, kind="stable")
    user_m, row_m, start_m, end_m = (a[order] for a in (user_m, row_m, start_m, end_m))
    index = np.arange(len(user_m))
    within = index - np.maximum.accumulate(np.where(new_group, index, 0))
    if optimistic:
        rank_m = start_m + within
    else:
        group = np.cumsum(new_group) - 1
        rank_m = end_m - np.bincount(group)[group] + within
    all_user = np.concatenate([user[staying], user_m])
    all_rank = np.concatenate([rank[staying], rank_m])
    all_row = np.concatenate([row[staying], row_m])
    # by user, then rank: one integer key (the staying and the moved items are each in that
    # order already, so the stable sort merges two runs)
    width = int(all_rank.max(initial=0)) + 1
    final = np.argsort(all_user.astype(np.int64) * width + all_rank, kind="stable")
    return replace(ranked, judged_user=all_user[final], judged_rank=all_rank[final],
                   judged_row=all_row[final])


def tied_share(groups: TieGroups, mask: np.ndarray, max_cutoff: int) -> np.ndarray:
    """For K = 1..max_cutoff, the share of the users in ``mask`` whose top-K set depends on
    the order of tied scores: a group of ties straddles K (it starts before rank K and ends
    after it). A user's groups do not overlap, so each K is straddled by one at most."""
    start, end = groups.ranks()
    counted = mask[groups.user] & (start < max_cutoff)
    change = np.zeros(max_cutoff + 2, dtype=np.int64)
    np.add.at(change, start[counted] + 1, 1)
    np.add.at(change, np.minimum(end[counted], max_cutoff + 1), -1)
    return np.cumsum(change)[1:max_cutoff + 1] / max(int(mask.sum()), 1)


def tie_bounds(
    ev: Evaluation,
    runs: Mapping[str, pd.DataFrame | LoadedTable],
    metrics: Iterable[str],
) -> pd.DataFrame:
    """Each model's mean under the pessimistic and optimistic orders of tied scores, next to
    the active tie rule's, at every cutoff, and the share of users whose top-K set depends on
    the order of ties.

    Parameters
    ----------
    ev : Evaluation
    runs : model name -> the model's output (read run or DataFrame ``user, item, score``),
        the same the evaluation ranked; every model of ``ev`` needs one.
    metrics : the metrics (with a cutoff) to bound.

    Returns
    -------
    pandas.DataFrame
        ``model, metric, cutoff, pessimistic, active, optimistic, tied_share``. With no tied
        scores the three values are equal and ``tied_share`` is 0.
    """
    metrics = check_metrics(list(metrics))
    for metric in metrics:
        if not METRICS[metric].has_cutoff:
            raise ValueError(f"The metric {metric!r} has no cutoff; tie bounds are per K.")
    missing = [model for model in ev.models if model not in runs]
    if missing:
        raise ValueError(f"The 'runs' argument lacks the output of {', '.join(missing)}.")
    cutoffs = np.arange(1, ev.max_cutoff + 1)
    active = ev.means(metrics)
    orders: dict[str, RankedRun] = {}
    shares = {}

    def both_orders(model: str) -> tuple[np.ndarray, list[tuple[bool, RankedRun]]]:
        groups = tie_groups(runs[model], ev)
        share = tied_share(groups, ev.included(model), ev.max_cutoff)
        if not groups.has_ties:  # every order is the active one
            return share, []
        ranked = ev.runs[model]
        spans = groups.of(ranked.judged_user, ranked.judged_rank)
        return share, [(optimistic, _reordered(ranked, spans, ev, optimistic))
                       for optimistic in (False, True)]

    # the models two at a time: their sorts and searches run without the interpreter lock
    with ThreadPoolExecutor(max_workers=MODELS_AT_ONCE) as pool:
        found = list(pool.map(both_orders, ev.models))
    for position, (model, (share, moved_runs)) in enumerate(zip(ev.models, found,
                                                                  strict=True)):
        shares[model] = share
        for optimistic, moved in moved_runs:
            if moved is not ev.runs[model]:  # (the same lists give the active values)
                orders[f"{position}{optimistic}"] = moved
    reordered = ev.with_lists(orders).means(metrics) if orders else {}
    parts = []
    for position, model in enumerate(ev.models):
        worst = reordered.get(f"{position}False", active[model])
        best = reordered.get(f"{position}True", active[model])
        for metric in metrics:
            parts.append(pd.DataFrame({
                "model": model, "metric": metric, "cutoff": cutoffs,
                "pessimistic": np.minimum(worst[metric], active[model][metric]),
                "active": active[model][metric],
                "optimistic": np.maximum(best[metric], active[model][metric]),
                "tied_share": shares[model],
            }))
    return pd.concat(parts, ignore_index=True)[BOUND_COLUMNS]


def tie_flags(bounds: pd.DataFrame, metric: str, cutoff: int) -> pd.DataFrame:
    """At one metric and cutoff: each model's range between the tie orders, the gap to the
    nearest other model (by the active rule's means), and whether the range is wider than the
    gap (the tie rule could change the order).

    Returns ``model, active, low, high, range, gap, flagged``, best first.
    """
    at = bounds.loc[(bounds["metric"] == metric) & (bounds["cutoff"] == cutoff)]
    at = at.sort_values("active", ascending=False, kind="stable").reset_index(drop=True)
    active = at["active"].to_numpy()
    gaps = np.full(len(at), np.inf)
    if len(at) > 1:
        steps = np.abs(np.diff(active))
        gaps[:-1] = steps
        gaps[1:] = np.minimum(gaps[1:], steps)
    spread = (at["optimistic"] - at["pessimistic"]).to_numpy()
    return pd.DataFrame({
        "model": at["model"], "active": active, "low": at["pessimistic"],
        "high": at["optimistic"], "range": spread, "gap": gaps,
        "flagged": (spread > gaps) & (spread > 0),
    })
