"""How ratings become relevance: grades for NDCG and a binary relevant / not relevant.

A :class:`RelevanceMapping` is plain data (it can be shown, edited, saved and restored):

- ``identity``: the rating is the grade (0-3 judgments, 0/1 clicks); relevant if
  grade >= threshold (trec_eval's ``-l``);
- ``binary``: rating >= threshold gives grade 1, anything lower grade 0;
- ``graded``: a table of (lowest rating, grade) bands, e.g. 5 -> 3, 4 -> 2, 3 -> 1, lower -> 0;
  relevant if grade >= threshold (1 unless said otherwise).

Every grade must have a gain a float64 can hold: grades go up to :data:`MAX_GRADE`, and a
grade table gives no negative grade (ratings used as grades may be negative, trec_eval's
"junk" judgments of -1, and give no gain).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rankmetrics.checks import check_choice, check_finite

KINDS = ("identity", "binary", "graded")
#: The highest grade. Its exponential gain 2**960 - 1, summed over as many items as an array
#: can hold (2**63), stays below 2**1023, a finite float64: DCG, IDCG and their sums over
#: users never overflow, whatever the list lengths. (2**1024 already overflows.)
MAX_GRADE = 960


@dataclass(frozen=True)
class RelevanceMapping:
    """A rule turning ratings into grades and grades into relevant / not relevant.

    Parameters
    ----------
    kind : {"identity", "binary", "graded"}
        What the mapping is, for display and editing.
    threshold : float
        A grade at or above it counts as relevant (for ``binary`` the grade is already 0/1 and
        the threshold is 1; the rating threshold lives in ``table``).
    table : tuple of (float, float)
        ``(lowest_rating, grade)`` bands: a rating gets the grade of the highest band whose
        lowest rating it reaches, or 0 when it reaches none. Empty for ``identity``.

    Examples
    --------
    >>> m = RelevanceMapping.graded({5: 3, 4: 2, 3: 1})
    >>> m.grades(np.array([5.0, 4.5, 3.0, 1.0])).tolist()
    [3.0, 2.0, 1.0, 0.0]
    >>> RelevanceMapping.binary(4).describe()
    'binary: rating >= 4 is relevant'
    """

    kind: str = "identity"
    threshold: float = 1.0
    table: tuple[tuple[float, float], ...] = ()

    def __post_init__(self) -> None:
        check_choice("kind", self.kind, KINDS)
        check_finite("threshold", self.threshold)
        if self.kind == "identity" and self.table:
            raise ValueError("An identity relevance mapping takes no grade table.")
        if self.kind != "identity" and not self.table:
            raise ValueError(f"A {self.kind} relevance mapping needs a grade table.")
        lows = [low for low, _ in self.table]
        for low, grade in self.table:
            if not (_is_finite_number(low) and _is_finite_number(grade)):
                raise ValueError(
                    f"Grade table entries must be finite numbers. Got {low!r} -> {grade!r}."
                )
        if len(set(lows)) != len(lows):
            raise ValueError(f"The grade table lists a rating twice: {sorted(lows)}.")
        for low, grade in self.table:
            if grade < 0:
                raise ValueError(
                    f"The grade table gives rating {_num(low)} the grade {_num(grade)}: a grade "
                    "cannot be negative (grade 0 means not relevant)."
                )
            if grade > MAX_GRADE:
                raise ValueError(
                    f"The grade table gives rating {_num(low)} the grade {_num(grade)}: the "
                    f"largest allowed grade is {MAX_GRADE} (the gain 2^g - 1 of a higher grade "
                    "cannot be held in a float64)."
                )

    @classmethod
    def identity(cls, threshold: float = 1.0) -> RelevanceMapping:
        """Ratings are the grades; relevant if grade >= ``threshold``."""
        return cls("identity", float(threshold), ())

    @classmethod
    def binary(cls, threshold: float) -> RelevanceMapping:
        """Rating >= ``threshold`` is relevant (grade 1), anything lower is not (grade 0)."""
        return cls("binary", 1.0, ((float(threshold), 1.0),))

    @classmethod
    def graded(
        cls, table: dict[float, float], threshold: float = 1.0
    ) -> RelevanceMapping:
        """Ratings at or above each key get its grade (the highest band wins), lower ones 0."""
        bands = tuple(sorted((float(k), float(v)) for k, v in table.items()))
        return cls("graded", float(threshold), bands)

    @classmethod
    def from_dict(cls, data: dict) -> RelevanceMapping:
        """Restore a mapping saved with :meth:`as_dict`."""
        try:
            table = tuple((float(low), float(grade)) for low, grade in data.get("table", ()))
            return cls(str(data["kind"]), float(data.get("threshold", 1.0)), table)
        except (KeyError, TypeError) as exc:
            raise ValueError(f"Not a saved relevance mapping: {data!r}") from exc

    def as_dict(self) -> dict:
        """The mapping as plain data."""
        return {
            "kind": self.kind,
            "threshold": self.threshold,
            "table": [list(band) for band in self.table],
        }

    @property
    def rating_threshold(self) -> float | None:
        """For a binary mapping, the lowest relevant rating; else None."""
        return self.table[0][0] if self.kind == "binary" else None

    def grades(self, ratings: np.ndarray) -> np.ndarray:
        """The grade of each rating (float64)."""
        ratings = np.asarray(ratings, dtype=np.float64)
        if self.kind == "identity":
            highest = np.nanmax(ratings, initial=-np.inf)
            if highest > MAX_GRADE:
                raise ValueError(
                    f"A rating of {_num(highest)} is used as a grade, but the largest allowed "
                    f"grade is {MAX_GRADE} (the gain 2^g - 1 of a higher grade cannot be held "
                    "in a float64): map the ratings to grades with a grade table."
                )
            return ratings.copy()
        lows = np.array([low for low, _ in self.table])
        values = np.concatenate([[0.0], [grade for _, grade in self.table]])
        band = np.searchsorted(lows, ratings, side="right")
        return values[band]

    def highest_grade(self, grades: np.ndarray) -> float:
        """The highest grade the mapping gives: its grade table's highest, or, where the
        ratings are the grades, the highest of ``grades`` (0 when there is none).

        >>> RelevanceMapping.graded({5: 3, 4: 2}).highest_grade(np.array([2.0]))
        3.0
        >>> RelevanceMapping.identity().highest_grade(np.array([0.0, 2.0, 1.0]))
        2.0
        """
        if self.table:
            return max(grade for _, grade in self.table)
        return float(np.nanmax(np.asarray(grades, dtype=np.float64), initial=0.0))

    def is_relevant(self, grades: np.ndarray) -> np.ndarray:
        """Whether each grade counts as relevant."""
        return np.asarray(grades) >= self.threshold

    def describe(self) -> str:
        """The mapping in one line of plain words."""
        if self.kind == "binary":
            return f"binary: rating >= {_num(self.rating_threshold)} is relevant"
        if self.kind == "identity":
            return f"ratings used as grades; grade >= {_num(self.threshold)} is relevant"
        bands = ", ".join(
            f"{_num(low)}+ -> {_num(grade)}" for low, grade in reversed(self.table)
        )
        return (
            f"graded: {bands}, lower -> 0; grade >= {_num(self.threshold)} is relevant"
        )


def parse_grade_table(text: str) -> dict[float, float]:
    """Parse ``"5=3,4=2,3=1"`` (rating=grade pairs) into a dict.

    >>> parse_grade_table("5=3, 4=2,3=1")
    {5.0: 3.0, 4.0: 2.0, 3.0: 1.0}
    """
    table: dict[float, float] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        rating, sep, grade = part.partition("=")
        try:
            if not sep:
                raise ValueError
            key, value = float(rating), float(grade)
        except ValueError:
            raise ValueError(
                f"Grade table entry {part!r} is not of the form RATING=GRADE "
                "(for example \"5=3,4=2,3=1\")."
            ) from None
        if key in table:
            raise ValueError(f"Grade table gives rating {_num(key)} twice.")
        table[key] = value
    if not table:
        raise ValueError(
            "The grade table is empty: write RATING=GRADE pairs such as \"5=3,4=2,3=1\"."
        )
    return table


@dataclass(frozen=True)
class MappingSuggestion:
    """What the ratings found suggest: a binary and a graded mapping, and which to use."""

    binary: RelevanceMapping
    graded: RelevanceMapping
    recommended: RelevanceMapping
    reason: str


def suggest_mapping(ratings: np.ndarray) -> MappingSuggestion:
    """Suggest a relevance mapping from the ratings in a ground truth.

    1-5 stars: the graded table 5 -> 3, 4 -> 2, 3 -> 1 with grade >= 2 (4 and 5 stars)
    relevant for the binary metrics, or the binary mapping rating >= 4;
    0/1 labels and small integer grades (0-3, 0-4, with -1 for "junk"): the ratings are the
    grades, grade >= 1 relevant; larger scales: the top fifth of the scale is relevant.

    >>> suggest_mapping(np.array([1, 2, 3, 4, 5])).recommended.describe()
    'graded: 5+ -> 3, 4+ -> 2, 3+ -> 1, lower -> 0; grade >= 2 is relevant'
    """
    values = np.asarray(ratings, dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size == 0:
        raise ValueError("There are no ratings to suggest a relevance mapping from.")
    low, high = float(values.min()), float(values.max())
    integers = bool(np.all(values == np.round(values)))
    if integers and low >= -1 and high <= 1:
        identity = RelevanceMapping.identity(1)
        return MappingSuggestion(
            RelevanceMapping.binary(1), identity, identity,
            "The ratings are 0/1 labels: 1 is relevant.",
        )
    if integers and low >= -1 and high <= 4 and not (low >= 1 and high >= 4):
        identity = RelevanceMapping.identity(1)
        return MappingSuggestion(
            RelevanceMapping.binary(1), identity, identity,
            f"The ratings are graded judgments from {_num(low)} to {_num(high)}: they are "
            "used as grades, grade 1 or more is relevant.",
        )
    if low >= 0 and high <= 5 and high > 3:
        graded = RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=2)
        return MappingSuggestion(
            RelevanceMapping.binary(4), graded, graded,
            "The ratings look like 1-5 stars: NDCG grades 5 -> 3, 4 -> 2, 3 -> 1, lower -> 0; "
            "the binary metrics count 4 and 5 stars (grade 2 or more) as relevant.",
        )
    span = high - low
    cut = low + 0.8 * span
    if integers:
        cut = float(math.ceil(cut))
    graded = RelevanceMapping.graded(
        {low + 0.9 * span: 3, cut: 2, low + 0.6 * span: 1} if span > 0 else {high: 1}
    )
    binary = RelevanceMapping.binary(cut if span > 0 else high)
    return MappingSuggestion(
        binary, graded, binary,
        f"The ratings range from {_num(low)} to {_num(high)}: the top fifth of the scale "
        f"(rating >= {_num(binary.rating_threshold)}) is relevant.",
    )


def _is_finite_number(value: object) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and math.isfinite(value)


def _num(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
