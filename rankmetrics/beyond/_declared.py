"""What each beyond-accuracy metric declares, and the named choices they depend on.

These metrics live in a registry of their own, next to :data:`rankmetrics.metrics.METRICS`,
because they need inputs the accuracy metrics do not (training interactions for popularity,
item attributes for diversity, the whole recommended lists rather than their judged items):
a metric of the main registry can be computed from a ground truth and runs alone, and every
picker that lists the main registry may offer all of it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from rankmetrics.checks import check_choice, check_probability
from rankmetrics.metrics import METRICS, Metric

POPULARITY = ("interactions", "users")
LONG_TAIL = ("short_head", "bottom_items")
DISTRIBUTION = ("catalogue", "recommended")


@dataclass(frozen=True)
class BeyondMetric:
    """One beyond-accuracy metric: its words, its formula and what it needs.

    Attributes
    ----------
    name, label, description, formula, position
        As for :class:`rankmetrics.metrics.Metric`.
    per_user : bool
        True: one value per user, averaged over the counted users (usable wherever per-user
        values are: the users' table, significance tests). False: one value for the system
        (from how often each item is recommended), its confidence interval by bootstrap over
        users.
    needs : {"interactions", "attributes", "nothing"}
        The input without which the metric is not offered.
    highest : float or None
        The largest value, when there is one.
    higher : str or None
        What a higher value says of a model's top K for a user, as a predicate ("recommends
        more popular items"), for the per-user metrics: a higher value is not better in
        itself, so comparisons are worded with it rather than with "better".
    decimals : int
        Decimals a value is shown with (popularity and self-information need fewer than a
        share between 0 and 1).
    whole : bool
        One user's value is a whole number (a count); a mean that is whole is shown
        without decimals.
    """

    name: str
    label: str
    description: str
    formula: str
    position: int
    per_user: bool
    needs: str
    highest: float | None = 1.0
    higher: str | None = None
    decimals: int = 4
    whole: bool = False
    # Read by Evaluation as for the accuracy metrics: none of these has a summed form, and
    # each keeps its value past the longest list.
    has_cutoff: bool = True
    divided_by_cutoff: bool = False
    summed: None = None
    main: bool = False

    def help(self) -> str:
        """The label, what the metric measures and its formula, as Markdown with LaTeX."""
        return f"**{self.label}** (`{self.name}`): {self.description}\n\n$${self.formula}$$"


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
        recommended count, with 0) or only the items recommended at least once (Evidently's
        choice).
    """

    popularity: str = "interactions"
    long_tail: str = "short_head"
    long_tail_share: float = 0.8
    distribution: str = "catalogue"

    def __post_init__(self) -> None:
        check_choice("popularity", self.popularity, POPULARITY)
        check_choice("long_tail", self.long_tail, LONG_TAIL)
        check_choice("distribution", self.distribution, DISTRIBUTION)
        share = check_probability("long_tail_share", self.long_tail_share)
        if not 0.0 < share < 1.0:
            raise ValueError("The 'long_tail_share' argument must be a number in the range "
                             f"(0, 1). Got {self.long_tail_share!r} instead.")

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


_P = r"\varphi(i)"
BEYOND_METRICS: dict[str, BeyondMetric] = {metric.name: metric for metric in (
    BeyondMetric(
        "coverage", "Coverage",
        "Share of the catalogue recommended to at least one user in their top K.",
        r"\mathrm{Coverage@K} = \frac{|\bigcup_u L_u^K \cap C|}{|C|}", 110, False, "nothing"),
    BeyondMetric(
        "gini", "Gini",
        "How unequally recommendations are spread over the items: 0 when every item is "
        "recommended equally often, near 1 when a few items take them all.",
        r"G@K = \frac{\sum_{j=1}^{n} (2j - n - 1)\, c_{(j)}}{n \sum_j c_j},\ "
        r"c_{(1)} \le \dots \le c_{(n)}", 120, False, "nothing"),
    BeyondMetric(
        "entropy", "Entropy",
        "Normalized Shannon entropy of how often each item is recommended: 1 when evenly "
        "spread, 0 when one item takes every recommendation.",
        r"H@K = -\frac{1}{\log n} \sum_i p_i \log p_i,\ p_i = \frac{c_i}{\sum_j c_j}",
        130, False, "nothing"),
    BeyondMetric(
        "personalization", "Personalization",
        "1 minus the mean share of the top K two different users have in common: 0 when "
        "everyone gets the same list.",
        r"\mathrm{Pers@K} = 1 - \frac{1}{K} \cdot \frac{\sum_i c_i (c_i - 1)}{U (U - 1)}",
        140, False, "nothing"),
    BeyondMetric(
        "arp", "ARP",
        "Average popularity of the items in each user's top K (training interactions).",
        rf"\mathrm{{ARP@K}} = \frac{{1}}{{|L_u^K|}} \sum_{{i \in L_u^K}} {_P}", 150, True,
        "interactions", highest=None, higher="recommends more popular items",
        decimals=2),
    BeyondMetric(
        "aplt", "APLT",
        "Share of the items in each user's top K that are in the long tail.",
        r"\mathrm{APLT@K} = \frac{|L_u^K \cap \Gamma|}{|L_u^K|}", 160, True, "interactions",
        higher="recommends a larger share of long-tail items"),
    BeyondMetric(
        "aclt", "ACLT",
        "Number of long-tail items in each user's top K.",
        r"\mathrm{ACLT@K} = |L_u^K \cap \Gamma|", 170, True, "interactions", highest=None,
        higher="recommends more long-tail items", decimals=2, whole=True),
    BeyondMetric(
        "novelty", "Novelty",
        "Mean self-information of the items in each user's top K: rarely seen items are "
        "novel.",
        r"\mathrm{Nov@K} = \frac{1}{|L_u^K|} \sum_{i \in L_u^K} -\log_2 p(i)", 180, True,
        "interactions", highest=None, higher="recommends more novel (less often seen) items",
        decimals=3),
    BeyondMetric(
        "ild", "ILD",
        "Intra-list diversity: mean distance between two items of the top K (Jaccard on "
        "category sets, cosine on numeric features), over the pairs.",
        r"\mathrm{ILD@K} = \frac{2}{|L|(|L| - 1)} \sum_{i < j \in L_u^K} d(i, j)", 190, True,
        "attributes", higher="recommends more varied lists"),
    BeyondMetric(
        "categories", "Categories",
        "Number of distinct categories among the items of each user's top K.",
        r"\mathrm{Cat@K} = |\bigcup_{i \in L_u^K} \mathrm{cat}(i)|", 200, True, "attributes",
        highest=None, higher="recommends items of more categories", decimals=2, whole=True),
    BeyondMetric(
        "recall_long_tail", "Recall (long tail)",
        "Recall with the ground truth restricted to long-tail items: accuracy where "
        "popularity cannot help.",
        r"\mathrm{R_\Gamma@K} = \frac{|\{\text{relevant in } \Gamma \text{ in top } K\}|}"
        r"{|R \cap \Gamma|}", 210, True, "interactions"),
    BeyondMetric(
        "ndcg_long_tail", "NDCG (long tail)",
        "NDCG with the ground truth restricted to long-tail items.",
        r"\mathrm{NDCG_\Gamma@K} = \mathrm{NDCG@K} \text{ on } R \cap \Gamma", 220, True,
        "interactions"),
)}

#: Per-user metrics the Evaluation computes for its counted users (the long-tail accuracy
#: metrics are per user too, over the users with a relevant long-tail item: see
#: :attr:`rankmetrics.beyond.BeyondAccuracy.long_tail`).
LIST_METRICS = ("arp", "aplt", "aclt", "novelty", "ild", "categories")
SYSTEM_METRICS = ("coverage", "gini", "entropy", "personalization")
LONG_TAIL_METRICS = {"recall_long_tail": "recall", "ndcg_long_tail": "ndcg"}


def higher_says(name: str) -> str | None:
    """What a higher value of a metric says of a model's top K for a user, as a predicate;
    None for an accuracy metric, where higher is better.

    >>> higher_says("arp"), higher_says("ndcg")
    ('recommends more popular items', None)
    """
    spec = declared(name)
    return spec.higher if isinstance(spec, BeyondMetric) else None


def value_text(name: str, value: float) -> str:
    """A metric's value as shown in a table: four decimals, fewer where the metric declares
    fewer, none for a whole count; "–" for no value.

    >>> value_text("ndcg", 0.5), value_text("categories", 12.0), value_text("arp", 1234.567)
    ('0.5000', '12', '1,234.57')
    """
    if value is None or math.isnan(value):
        return "–"
    spec = declared(name)
    if isinstance(spec, BeyondMetric) and spec.whole and float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:,.{spec.decimals if isinstance(spec, BeyondMetric) else 4}f}"


def number_format(name: str, *, signed: bool = False) -> str:
    """The printf-style format of one user's value of a metric (a count: a whole number),
    for a table column; ``signed`` for a difference.

    >>> number_format("ndcg"), number_format("aclt", signed=True), number_format("arp")
    ('%.4f', '%+d', '%.2f')
    """
    spec = declared(name)
    sign = "+" if signed else ""
    if isinstance(spec, BeyondMetric):
        return f"%{sign}d" if spec.whole else f"%{sign}.{spec.decimals}f"
    return f"%{sign}.4f"


def declared(name: str) -> Metric | BeyondMetric:
    """The declaration of any metric, accuracy or beyond accuracy (a ValueError names the
    metrics for an unknown name).

    >>> declared("ndcg").label, declared("aplt").label
    ('NDCG', 'APLT')
    """
    if name in METRICS:
        return METRICS[name]
    check_choice("metric", name, (*METRICS, *BEYOND_METRICS))
    return BEYOND_METRICS[name]
