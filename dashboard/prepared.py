"""A data set ready to evaluate: what the sidebar hands every page."""

from __future__ import annotations

from dataclasses import dataclass, field

from dashboard.files import FileSpec
from dashboard.settings import RelevanceDefaults
from rankmetrics import GroundTruth, RankedRun
from rankmetrics.io import LoadedTable


@dataclass(frozen=True)
class Prepared:
    """The ground truth and every usable model, ranked; ``key`` identifies it in caches.

    ``source`` is the data set's id (a demo's, or ``uploads``); ``problems`` says why a model
    file is left out; ``colors`` gives every model its colour on every page; ``extras`` are
    the optional files the beyond-accuracy metrics read (their tokens are part of ``key``).
    """

    key: str
    source: str
    truth_spec: FileSpec
    truth: LoadedTable
    ground_truth: GroundTruth
    specs: dict[str, FileSpec]
    runs: dict[str, RankedRun]
    problems: dict[str, str]
    colors: dict[str, str]
    relevance_defaults: RelevanceDefaults
    longest_list: int
    #: The optional files (training interactions, item attributes) by kind.
    extras: dict[str, FileSpec] = field(default_factory=dict)
    #: The formats the ground truth and the models were read in (which decide whether the
    #: pages say users or queries: :func:`rankmetrics.io.subject_word`).
    formats: tuple[str, ...] = ()

    @property
    def models(self) -> list[str]:
        return list(self.runs)
