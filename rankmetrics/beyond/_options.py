"""The named choices behind the beyond-accuracy metrics (their declarations are in
:mod:`rankmetrics.metrics`, with the accuracy metrics)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from rankmetrics.checks import check_choice, check_probability

POPULARITY = ("interactions", "users")
LONG_TAIL = ("short_head", "bottom_items")
DISTRIBUTION = ("catalogue", "recommended")
DISTANCE = ("auto", "hamming")


@dataclass(frozen=True)
class BeyondOptions:
    """The named choices behind the beyond-accuracy metrics.

    Attributes
    ----------
    popularity : {"interactions", "users"}, default "interactions"
        An item's popularity: its number of training interactions (every row counts), or
        the number of distinct users who interacted with it. ARP averages it; novelty's
        p(i) divides it by the number of interactions (or of training users).
    long_tail : {"short_head", "bottom_items"}, default "short_head"
        ``short_head``: the short head is the fewest most popular items that together hold
        ``long_tail_share`` of the popularity (80% of the interactions); every other
        item is in the long tail. ``bottom_items``: the short head is every catalogue item
        but the ``long_tail_share`` least popular share of them (at least one, rounded
        down). Equal popularity is ordered by first appearance (training interactions
        first).
    long_tail_share : float in (0, 1), default 0.8
    distribution : {"catalogue", "recommended"}, default "catalogue"
        The items Gini and entropy are taken over: the whole catalogue (items never
        recommended count, with 0) or only the catalogue's items recommended at least once.
        Evidently's Gini is n / (n - 1) times ``gini`` over the recommended items with a
        catalogue holding every recommended item, n the number of those items (it divides by
        n - 1 where ``gini`` divides by n); see docs/beyond-accuracy.md.
    distance : {"auto", "hamming"}, default "auto"
        The distance ILD averages. ``auto``: Jaccard's on the category sets when the item
        attributes have categories, else the cosine distance on the numeric features.
        ``hamming``: the share of binary features two items differ on (scipy's and
        scikit-learn's ``hamming``), each category a feature (has it or not) or each numeric
        column one that must hold only 0 and 1.
    """

    popularity: str = "interactions"
    long_tail: str = "short_head"
    long_tail_share: float = 0.8
    distribution: str = "catalogue"
    distance: str = "auto"

    def __post_init__(self) -> None:
        check_choice("popularity", self.popularity, POPULARITY)
        check_choice("long_tail", self.long_tail, LONG_TAIL)
        check_choice("distribution", self.distribution, DISTRIBUTION)
        check_choice("distance", self.distance, DISTANCE)
        share = check_probability("long_tail_share", self.long_tail_share)
        if not 0.0 < share < 1.0:
            raise ValueError("The 'long_tail_share' argument must be a number in the range "
                             f"(0, 1). Got {self.long_tail_share!r} instead.")

    def as_dict(self) -> dict[str, object]:
        return asdict(self)
