"""The named choices behind the beyond-accuracy metrics (their declarations are in
:mod:`rankmetrics.metrics`, with the accuracy metrics)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from rankmetrics.checks import check_choice, check_probability

POPULARITY = ("interactions", "users")
LONG_TAIL = ("short_head", "bottom_items")
DISTRIBUTION = ("catalogue", "recommended")
DISTANCE = ("auto", "hamming")
UNEXPECTEDNESS = ("cooccurrence", "attributes", "popularity")
EXPOSURE_WEIGHT = ("geometric", "log")
#: What ARP and novelty do with a recommended item no training interaction holds: count it
#: (popularity 0; seen once for novelty) or leave it out, as Evidently does.
UNSEEN_ITEMS = ("counted", "left_out")
#: How items are grouped for their share of exposure: popularity (the short head and the long
#: tail, from training interactions) or the categories of the item attributes.
EXPOSURE_GROUPS = ("popularity", "categories")


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
    unexpectedness : {"cooccurrence", "attributes", "popularity"}, default "cooccurrence"
        What makes a recommended item unexpected for serendipity. ``cooccurrence``
        (Microsoft Recommenders' ``item_cooccurrence_count``): one minus its mean similarity
        to the items of the user's training history, the similarity of two items being the
        training users holding both over the square root of the product of each item's users
        (cosine on co-occurrence; 0 for an item no training user holds). ``attributes``: the
        same mean with the similarity one minus ILD's distance (cosine on numeric features,
        as Recommenders' ``item_feature_vector``; Jaccard on categories; Hamming). A user
        without training history finds every item unexpected. ``popularity`` (Ge et al.,
        2010): an item is unexpected at cutoff K unless it is one of the K most popular
        catalogue items, which a primitive popularity model would recommend to everyone.
    calibration_alpha : float in (0, 1), default 0.01
        Steck's (2018) smoothing of miscalibration: the list's category shares q are
        replaced by (1 - alpha) q + alpha p, p the history's, so that the divergence is
        finite when the list misses a category of the history.
    exposure_weight : {"geometric", "log"}, default "geometric"
        How much attention rank k of a list gets, for exposure: ``geometric``, the chance
        that a reader who goes on to the next rank with probability ``exposure_patience``
        reaches it, p^(k - 1) (RBP's user model, LensKit's ``GeometricRankWeight``);
        ``log``, NDCG's discount 1 / log2(k + 1).
    exposure_patience : float in (0, 1), default 0.85
        The geometric weight's p (0.85: LensKit's default for ``ExposureGini``).
    unseen_items : {"counted", "left_out"}, default "counted"
        What ARP and novelty do with a recommended item that no training interaction holds
        (a new item). ``counted``: it is one of the top K's items, with popularity 0 for ARP
        and, for novelty, as if seen once (its self-information finite). ``left_out``
        (Evidently's ``PopularityBias`` and ``NoveltyMetric``): it is dropped, each user's
        value is the mean over the items of the top K that were seen in training, and a user
        with none at K has no value there and is left out of that K's mean (the ``users``
        column of the means says how many are left).
    """

    popularity: str = "interactions"
    long_tail: str = "short_head"
    long_tail_share: float = 0.8
    distribution: str = "catalogue"
    distance: str = "auto"
    unexpectedness: str = "cooccurrence"
    calibration_alpha: float = 0.01
    exposure_weight: str = "geometric"
    exposure_patience: float = 0.85
    unseen_items: str = "counted"

    def __post_init__(self) -> None:
        check_choice("popularity", self.popularity, POPULARITY)
        check_choice("long_tail", self.long_tail, LONG_TAIL)
        check_choice("distribution", self.distribution, DISTRIBUTION)
        check_choice("distance", self.distance, DISTANCE)
        check_choice("unexpectedness", self.unexpectedness, UNEXPECTEDNESS)
        check_probability("calibration_alpha", self.calibration_alpha)
        check_choice("exposure_weight", self.exposure_weight, EXPOSURE_WEIGHT)
        check_choice("unseen_items", self.unseen_items, UNSEEN_ITEMS)
        patience = check_probability("exposure_patience", self.exposure_patience)
        if not 0.0 < patience < 1.0:
            raise ValueError("The 'exposure_patience' argument must be a number in the range "
                             f"(0, 1). Got {self.exposure_patience!r} instead.")
        share = check_probability("long_tail_share", self.long_tail_share)
        if not 0.0 < share < 1.0:
            raise ValueError("The 'long_tail_share' argument must be a number in the range "
                             f"(0, 1). Got {self.long_tail_share!r} instead.")

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    def rank_weights(self, width: int) -> np.ndarray:
        """The exposure weight of ranks 1..width (see ``exposure_weight``).

        >>> BeyondOptions(exposure_patience=0.5).rank_weights(3).tolist()
        [1.0, 0.5, 0.25]
        >>> BeyondOptions(exposure_weight="log").rank_weights(3).round(4).tolist()
        [1.0, 0.6309, 0.5]
        """
        ranks = np.arange(1, width + 1, dtype=np.float64)
        if self.exposure_weight == "log":
            return 1.0 / np.log2(ranks + 1.0)
        return self.exposure_patience ** (ranks - 1.0)
