"""Evaluate several models against one ground truth, at every cutoff at once: the library's
front door, from tables, read files or prepared inputs to an :class:`Evaluation`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from rankmetrics.beyond import BeyondInputs, BeyondOptions, prepare_beyond
from rankmetrics.checks import check_instance, check_int
from rankmetrics.conventions import Conventions
from rankmetrics.evaluation._evaluation import Evaluation
from rankmetrics.evaluation._raw_rows import RawSources
from rankmetrics.io import (
    Attributes,
    LoadedTable,
    interactions_from_dataframe,
    run_from_dataframe,
)
from rankmetrics.prepared.ground_truth import GroundTruth, named_columns
from rankmetrics.prepared.ranked_run import RankedRun
from rankmetrics.relevance import RelevanceMapping

#: The largest cutoff. Values are computed only as far as the data can change them (see
#: :attr:`Evaluation.width`), so a large K costs no more than the longest list; the bound
#: keeps K an exact count in every integer and float type the kernels use.
MAX_CUTOFF = 10**9

# what a caller who passed suggest_mapping's result (or a dict of grades) wants to read
_MAPPING_HINT = ("Build one with RelevanceMapping.binary(4) or RelevanceMapping.graded({5: 3, "
                 "4: 2, 3: 1}); from suggest_mapping(...), pass its .recommended mapping.")

#: The most ranks of each list the beyond-accuracy metrics read (their values at larger
#: cutoffs are those at this one, personalization's overlap divided by the larger K).
BEYOND_WIDTH = 1_000


def evaluate(
    truth: pd.DataFrame | LoadedTable | GroundTruth,
    runs: Mapping[str, pd.DataFrame | LoadedTable | RankedRun],
    *,
    relevance: RelevanceMapping | None = None,
    conventions: Conventions | None = None,
    max_cutoff: int = 100,
    interactions: pd.DataFrame | LoadedTable | None = None,
    item_attributes: Attributes | pd.DataFrame | None = None,
    catalogue: str | Iterable[str] | None = None,
    beyond_options: BeyondOptions | None = None,
) -> Evaluation:
    """Evaluate each model's ranked output against the ground truth.

    Parameters
    ----------
    truth : DataFrame (user, item, rating), a ground truth read by rankmetrics.io, or GroundTruth
    runs : mapping of model name -> DataFrame (user, item, score), a run read by
        rankmetrics.io, or RankedRun
        DataFrames are checked as :func:`rankmetrics.io.truth_from_dataframe` and
        :func:`rankmetrics.io.run_from_dataframe` check them. A RankedRun must have been made
        against the same GroundTruth with the same tie rule.
    relevance : RelevanceMapping, default identity with threshold 1
    conventions : Conventions, default ``Conventions()``
    max_cutoff : int
        The largest K, at most :data:`MAX_CUTOFF`; every cutoff 1..max_cutoff has a value.
    interactions, item_attributes, catalogue, beyond_options : optional
        The inputs of the beyond-accuracy metrics (see
        :func:`rankmetrics.beyond.prepare_beyond`): when any is given, the runs' whole
        lists are read and :attr:`Evaluation.beyond` holds them (runs must then be tables,
        not RankedRun). ``catalogue="all"`` alone gives coverage, Gini, entropy and
        personalization.
    """
    relevance = RelevanceMapping.identity(1) if relevance is None else relevance
    conventions = Conventions() if conventions is None else conventions
    check_instance("relevance", relevance, RelevanceMapping, hint=_MAPPING_HINT)
    check_instance("conventions", conventions, Conventions,
                   hint="Use Conventions(...) or a preset: Conventions.preset('trec_eval').")
    check_int("max_cutoff", max_cutoff, high=MAX_CUTOFF)
    if not runs:
        raise ValueError("Give at least one model output to evaluate.")
    prepared_truth = truth if isinstance(truth, GroundTruth) else GroundTruth.from_frame(truth)
    prepared_runs = {}
    for name, run in runs.items():
        if isinstance(run, RankedRun):
            if (run.ties != conventions.ties or run.identical_ids != conventions.identical_ids
                    or len(run.lengths) != prepared_truth.n_users):
                raise ValueError(
                    f"The prepared output of {name!r} was made with ties={run.ties!r}, "
                    f"identical_ids={run.identical_ids!r} or another ground truth; prepare it "
                    "again."
                )
            prepared_runs[name] = run
        else:
            prepared_runs[name] = RankedRun.from_frame(run, prepared_truth, ties=conventions.ties,
                                                       identical_ids=conventions.identical_ids)
    beyond = None
    if any(value is not None for value in (interactions, item_attributes, catalogue,
                                           beyond_options)):
        beyond = _beyond_inputs(prepared_truth, runs, interactions, item_attributes,
                                catalogue, beyond_options, conventions.ties, int(max_cutoff))
    evaluation = Evaluation(prepared_truth, prepared_runs, relevance, conventions,
                            int(max_cutoff), beyond=beyond)
    evaluation.sources = RawSources(truth, dict(runs))
    return evaluation


def _beyond_inputs(
    truth: GroundTruth, runs: Mapping[str, pd.DataFrame | LoadedTable | RankedRun],
    interactions: pd.DataFrame | LoadedTable | None,
    item_attributes: Attributes | pd.DataFrame | None,
    catalogue: str | Iterable[str] | None, options: BeyondOptions | None, ties: str,
    max_cutoff: int,
) -> BeyondInputs:
    """Read the runs' whole lists and the optional inputs (see :func:`prepare_beyond`)."""
    tables = {}
    for name, run in runs.items():
        if isinstance(run, RankedRun):
            raise ValueError(f"The beyond-accuracy metrics read whole lists: give the output "
                             f"of {name!r} as a table, not as a RankedRun.")
        tables[name] = run if isinstance(run, LoadedTable) else run_from_dataframe(
            run, name=name, columns=named_columns(run, "score"))
    if isinstance(interactions, pd.DataFrame):
        interactions = interactions_from_dataframe(interactions, name="interactions")
    return prepare_beyond(truth, tables, interactions=interactions,
                          item_attributes=item_attributes, catalogue=catalogue or "auto",
                          options=options, ties=ties, max_cutoff=min(max_cutoff, BEYOND_WIDTH))
