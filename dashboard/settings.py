"""What the sidebar's controls mean: the settings every page reads, their starting values and
the relevance mapping the controls describe."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rankmetrics.conventions import Conventions
from rankmetrics.relevance import RelevanceMapping

CUTOFF_LIMIT = 200
DEFAULT_CUTOFF = 10
DEFAULT_MAX_CUTOFF = 50
EDITABLE_RATINGS = 20
CONFIDENCE_LEVELS = (0.8, 0.9, 0.95, 0.99)
DEFAULT_CONFIDENCE = 0.95
N_BOOTSTRAP = 1_000
PRESET_CUSTOM = "custom"
#: The Significance page's choices of random sign flips and bootstrap resamples.
PERMUTATIONS = (1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000)
BOOTSTRAP_SAMPLES = (200, 500, 1_000, 2_000, 5_000, 10_000)
USER_LIST_LIMIT = 5_000  # users offered in one selector; beyond, a search box narrows them


@dataclass(frozen=True)
class Settings:
    """The shared sidebar settings."""

    relevance: RelevanceMapping
    conventions: Conventions
    cutoff: int
    max_cutoff: int


@dataclass(frozen=True)
class RelevanceDefaults:
    """The sidebar's starting relevance controls for one ground truth."""

    kind: str
    threshold: float
    table: tuple[tuple[float, float], ...]
    grade_threshold: float
    ratings: tuple[float, ...]
    reason: str


def build_mapping(
    kind: str, threshold: float, table: Sequence[tuple[float, float]], grade_threshold: float
) -> RelevanceMapping:
    """The relevance mapping the sidebar controls describe (ValueError if they are invalid)."""
    if kind == "binary":
        return RelevanceMapping.binary(float(threshold))
    bands = sorted((float(rating), float(grade)) for rating, grade in table)
    if len({rating for rating, _ in bands}) != len(bands):
        raise ValueError("The grade table lists a rating twice: keep one row per rating.")
    while bands and bands[0][1] == 0:  # bottom bands of grade 0 say what "lower -> 0" says
        bands.pop(0)
    if not bands:
        raise ValueError("Every rating has grade 0 in the grade table: nothing is relevant.")
    return RelevanceMapping.graded(dict(bands), threshold=float(grade_threshold))


def default_mapping(defaults: RelevanceDefaults) -> RelevanceMapping:
    return build_mapping(defaults.kind, defaults.threshold, defaults.table,
                         defaults.grade_threshold)


def default_max_cutoff(longest_list: int) -> int:
    """The starting largest K for curves: the longest list, at most 50 (raise it in the
    sidebar; the metrics' cost grows with it)."""
    return max(1, min(longest_list or DEFAULT_MAX_CUTOFF, DEFAULT_MAX_CUTOFF))


def mapping_caption(mapping: RelevanceMapping, defaults: RelevanceDefaults) -> str:
    """The sentence above the relevance controls: the suggestion's reason while the mapping
    in force is the suggested one, else what the mapping in force does."""
    if mapping == default_mapping(defaults):
        return defaults.reason
    if mapping.kind == "binary":
        return (f"In force: {mapping.describe()} (grade 1; every other rating grade 0, for NDCG "
                "too).")
    return f"In force: {mapping.describe()}."


def beyond_lists_note(longest_list: int) -> str:
    """Why curves go flat beyond the longest list."""
    return (f"The longest list has {longest_list} items: beyond K = {longest_list} the curves "
            "stay flat, except Precision, which falls as 1/K (the charts mark where the lists "
            "end).")
