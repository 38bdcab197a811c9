"""What every evaluation answers, whether computed here or read back from a saved one.

An :class:`~rankmetrics.evaluation.Evaluation` computes its values from the ground truth and
the runs; a :class:`~rankmetrics.evaluation.SavedEvaluation` reads the same values back from a
bundle. Both satisfy :class:`EvaluationResults`, and every analysis (significance, choosing K,
segments, the users one by one, the decision in words, the report, beyond accuracy) is written
once against it. What a saved evaluation cannot know is said by its values, not by its type:

- per-user values exist at :attr:`~EvaluationResults.per_user_cutoffs` only (every K for an
  evaluation computed here, the saved cutoffs for a saved one), so a test or a mean over some
  users is at those cutoffs;
- :meth:`~EvaluationResults.ground_truth_sizes` is None when each user's ground truth is not
  at hand (a saved evaluation keeps the number of relevant items only);
- :meth:`~EvaluationResults.lists_at_hand` gives the users whose ranked lists are at hand
  (every user, or a saved evaluation's sampled users) for what needs the lists themselves;
- :attr:`~EvaluationResults.saved_from` tells what a saved evaluation recorded of the data it
  was computed from (None for one computed here).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from rankmetrics.beyond import BeyondOptions
from rankmetrics.conventions import Conventions
from rankmetrics.relevance import RelevanceMapping

if TYPE_CHECKING:
    from rankmetrics.evaluation import Evaluation

#: metric -> model -> per-user values of a block of users (users x cutoffs).
PairedBlock = dict[str, dict[str, np.ndarray]]


@dataclass(frozen=True)
class Fingerprint:
    """What tells two inputs apart: rows and users evaluated (None for an input whose rows
    are items), and where cheap a hash of the content with the way it was computed
    (``hash_kind``)."""

    rows: int
    users: int | None
    content_hash: str | None = None
    hash_kind: str | None = None


@dataclass(frozen=True)
class SavedFrom:
    """What a saved evaluation recorded of how it was computed: the rankmetrics version, the
    engine (``"single machine"`` or ``"spark"``) and a fingerprint of every input, by role
    (``ground_truth``, each model, then the beyond-accuracy inputs), as (role, fingerprint)
    pairs."""

    version: str
    engine: str
    inputs: tuple[tuple[str, Fingerprint], ...]


@dataclass(frozen=True)
class ListsAtHand:
    """The users whose ranked lists are at hand, evaluated: every user of an evaluation
    computed here, or a saved evaluation's sampled users (``scope`` says which, as the start
    of a sentence: None for every user), with the runs' rows (``runs``: each model's
    ``user, item, score`` table, None when not kept) for what reads the scores (ties)."""

    evaluation: Evaluation
    runs: Mapping[str, Any] | None
    scope: str | None


class BeyondResults(Protocol):
    """The beyond-accuracy results of an evaluation (computed here or saved)."""

    @property
    def metrics(self) -> tuple[str, ...]:
        """The beyond-accuracy metrics the inputs allowed, in registry order."""
        ...

    @property
    def per_user_metrics(self) -> tuple[str, ...]:
        """The offered metrics with one value per counted user."""
        ...

    @property
    def options(self) -> BeyondOptions: ...

    @property
    def activity(self) -> pd.Series | None:
        """Each ground-truth user's number of training interactions (None without them)."""
        ...

    @property
    def inputs_read(self) -> Mapping[str, Fingerprint]:
        """Rows and users of each beyond-accuracy input, by name."""
        ...

    def check(self, metric: str) -> str: ...

    def choices(self) -> dict[str, object]: ...

    def curve(self, model: str, metric: str) -> np.ndarray: ...

    def users(self, model: str, metric: str) -> int: ...

    def summary(self, metrics: Iterable[str] | None = None,
                cutoffs: Iterable[int] | None = None) -> pd.DataFrame: ...

    def popularity_deciles(self, cutoff: int) -> pd.DataFrame: ...

    @property
    def exposure_groups(self) -> tuple[str, ...]:
        """How items can be grouped for :meth:`exposure` (popularity, categories)."""
        ...

    def exposure(self, cutoff: int, groups: str = "popularity") -> pd.DataFrame: ...

    def bands(self, metric: str, cutoff: int, *, n_bootstrap: int = 1_000,
              confidence: float = 0.95, seed: int | None = 0) -> pd.DataFrame: ...


class EvaluationResults(Protocol):
    """Metric values of several models at every cutoff 1..max_cutoff, and per-user values at
    :attr:`per_user_cutoffs` (see the module docstring)."""

    models: list[str]
    max_cutoff: int
    relevance: RelevanceMapping
    conventions: Conventions

    @property
    def users(self) -> pd.Index:
        """The users, in the order of every mask over users (:meth:`included`)."""
        ...

    @property
    def n_relevant(self) -> np.ndarray:
        """Each user's relevant items (in the order of :attr:`users`)."""
        ...

    @property
    def width(self) -> int:
        """The last cutoff at which a mean changes other than by 1/K."""
        ...

    @property
    def per_user_cutoffs(self) -> Sequence[int]:
        """The cutoffs at which per-user values exist."""
        ...

    @property
    def beyond(self) -> BeyondResults | None: ...

    @property
    def saved_from(self) -> SavedFrom | None: ...

    def included(self, model: str) -> np.ndarray: ...

    def user_counts(self) -> pd.DataFrame: ...

    def ground_truth_sizes(self) -> np.ndarray | None: ...

    def lists_at_hand(self) -> ListsAtHand: ...

    def summary(self, metrics: Iterable[str] | None = None,
                cutoffs: Iterable[int] | None = None) -> pd.DataFrame: ...

    def means(self, metrics: Iterable[str], models: Iterable[str] | None = None,
              within: np.ndarray | None = None) -> dict[str, dict[str, np.ndarray]]: ...

    def curve(self, model: str, metric: str) -> np.ndarray: ...

    def per_user_at(self, model: str, metric: str, cutoff: int | None) -> pd.Series: ...

    def paired(self, metric: str, cutoff: int | None) -> pd.DataFrame: ...

    def paired_tables(self, metrics: Iterable[str], cutoff: int) -> dict[str, pd.DataFrame]: ...

    def paired_mask(self) -> np.ndarray:
        """The users every model counts (a mask over :attr:`users`)."""
        ...

    def cutoffs_with_values(self, cutoffs: Iterable[int]) -> list[int]: ...

    def check_cutoff(self, cutoff: object) -> int: ...

    def cutoff_list(self, cutoffs: Iterable[int] | None) -> list[int]: ...

    def paired_blocks(self, metrics: Sequence[str], cutoffs: Sequence[int],
                      models: Sequence[str] | None = None) -> Iterator[PairedBlock]: ...

    def per_user_table(self, metrics: Iterable[str] | None = None,
                       cutoffs: Iterable[int] | None = None) -> pd.DataFrame: ...

    def confidence_bands(self, metrics: Iterable[str], *, cutoffs: Iterable[int] | None = None,
                         n_bootstrap: int = 1_000, confidence: float = 0.95,
                         seed: int | None = 0) -> pd.DataFrame: ...
