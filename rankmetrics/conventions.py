"""Named conventions: every choice that makes two libraries' "NDCG@10" differ.

Each option is a field of :class:`Conventions` with the default of the project's conventions
document; a *preset* bundles the options that reproduce one reference library exactly.
:meth:`Conventions.summary` says them in a few words (the preset they equal, or what differs
from the closest one), :meth:`Conventions.in_words` each choice, for readers who do not know
the option names.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from rankmetrics.checks import check_bool, check_choice
from rankmetrics.relevance import MAX_GRADE

GAINS = ("exponential", "linear")
IDEALS = ("ground_truth", "retrieved")
AP_DENOMINATORS = ("relevant", "min_k_relevant", "hits", "min_shown_relevant")
RECALL_DENOMINATORS = ("relevant", "min_k_relevant")
DISCOUNTS = ("shifted", "clipped")
EMPTY_USERS = ("skip", "zero")
MISSING_USERS = ("zero", "skip")
TIES = ("item_desc", "item_asc", "input")
RBP_GAINS = ("binary", "graded")
IDENTICAL_IDS = ("keep", "drop")
RELEVANT_ITEMS = ("ground_truth", "in_list")
PRECISION_DENOMINATORS = ("cutoff", "list_length")

OPTION_CHOICES: dict[str, tuple[str, ...]] = {
    "gain": GAINS,
    "ideal": IDEALS,
    "ap_denominator": AP_DENOMINATORS,
    "empty_users": EMPTY_USERS,
    "missing_users": MISSING_USERS,
    "ties": TIES,
    "rbp_gain": RBP_GAINS,
    "identical_ids": IDENTICAL_IDS,
    "relevant_items": RELEVANT_ITEMS,
    "precision_denominator": PRECISION_DENOMINATORS,
    "recall_denominator": RECALL_DENOMINATORS,
    "discount": DISCOUNTS,
}

OPTION_HELP: dict[str, str] = {
    "gain": "NDCG gain of a grade g: exponential 2^g - 1, or linear g (equal for 0/1 grades).",
    "ideal": "IDCG from all ground-truth items (ground_truth) or from the model's own top-K "
    "list re-sorted (retrieved).",
    "ap_denominator": "AP@K divides by |R| (relevant), min(K, |R|) (min_k_relevant), the "
    "hits in the top K (hits), or the smaller of |R| and the items in the top K "
    "(min_shown_relevant, as LensKit does).",
    "threshold_gains": "Whether grades below the relevance threshold give no NDCG gain.",
    "empty_users": "Users whose ground truth has no relevant item: left out of the means "
    "(skip) or counted with their values, 0 for the binary metrics (zero).",
    "missing_users": "Ground-truth users a model returned nothing for: an empty list scoring "
    "0 (zero) or left out of that model's means (skip).",
    "ties": "Order of items with equal scores: item id descending as trec_eval (item_desc), "
    "ascending (item_asc), or the order of the input rows (input).",
    "rbp_persistence": "RBP's persistence p, between 0 and 1: the chance that a reader goes on "
    "from one rank to the next (Moffat and Zobel: 0.5 impatient, 0.8 the default, 0.95 "
    "patient).",
    "max_grade": "The highest grade g_max, the same for every user: ERR stops the reader at "
    "a grade g with probability (2^g - 1) / 2^g_max, graded RBP gains g / g_max. Default: the "
    "highest grade of the relevance mapping (for ratings used as grades, the highest grade in "
    "the ground truth); gdeval, and so ir_measures' ERR, uses 4.",
    "rbp_gain": "What an item adds to RBP: 1 if relevant (binary, as ranx on 0/1 labels and "
    "ir_measures' RBP with rel=), or its grade over the highest grade (graded).",
    "identical_ids": "An item whose id is the user's (the query's) own id: kept in the list "
    "(keep), or dropped from it before the metrics, the items below moving up (drop, as "
    "BEIR's ignore_identical_ids does where the corpus holds the queries themselves).",
    "relevant_items": "Which relevant items Recall's and AP's |R| and NDCG's ideal list count: "
    "every relevant item of the user's ground truth (ground_truth), or only those the model's "
    "list holds, all of its rows (in_list, as TorchMetrics' retrieval metrics and Evidently "
    "do: they see only the rows they are given).",
    "precision_denominator": "Precision@K divides the hits by K (cutoff, trec_eval's P), or by "
    "the smaller of K and the list's length (list_length, as LensKit and Evidently do), so a "
    "short list is not counted down for the slots it did not fill.",
    "recall_denominator": "Recall@K divides the hits by |R| (relevant, trec_eval's recall), or "
    "by the smaller of K and |R| (min_k_relevant, as LensKit does), so a perfect top K scores "
    "1 even when the user has more relevant items than K.",
    "discount": "DCG's discount at rank i: 1/log2(i + 1) (shifted, as trec_eval and most "
    "libraries), or 1/log2(max(i, 2)), ranks 1 and 2 alike (clipped: Järvelin and "
    "Kekäläinen's original, LensKit's default).",
}

#: Each option as a control names it.
OPTION_LABELS: dict[str, str] = {
    **{option: option.replace("_", " ").capitalize() for option in OPTION_CHOICES},
    "ap_denominator": "AP denominator", "rbp_gain": "RBP gain",
    "identical_ids": "Items with the user's id",
    "relevant_items": "Relevant items counted",
    "precision_denominator": "Precision denominator",
    "recall_denominator": "Recall denominator",
}

#: The options that are numbers, not choices: the parameters of RBP and ERR.
NUMBER_OPTIONS = ("rbp_persistence", "max_grade")

#: Each choice of each option in words, as a summary names a difference from a preset.
CHOICE_WORDS: dict[str, dict[object, str]] = {
    "gain": {"exponential": "exponential gain (2^g − 1)", "linear": "linear gain (g)"},
    "ideal": {"ground_truth": "ideal list from every ground-truth item",
              "retrieved": "ideal list from the model's own top K"},
    "ap_denominator": {"relevant": "AP divided by the number of relevant items",
                       "min_k_relevant": "AP divided by the smaller of K and the relevant items",
                       "hits": "AP divided by the hits in the top K",
                       "min_shown_relevant": "AP divided by the smaller of the relevant items "
                       "and the items in the top K"},
    "threshold_gains": {False: "grades below the relevance threshold still give gain",
                        True: "no gain below the relevance threshold"},
    "empty_users": {"skip": "users without relevant items left out",
                    "zero": "users without relevant items counted"},
    "missing_users": {"zero": "users a model returned nothing for count as 0",
                      "skip": "users a model returned nothing for left out"},
    "ties": {"item_desc": "equal scores ordered by item id, descending",
             "item_asc": "equal scores ordered by item id, ascending",
             "input": "equal scores kept in the file's order"},
    "rbp_gain": {"binary": "RBP counts each relevant item as 1",
                 "graded": "RBP counts each item's grade over the highest grade"},
    "identical_ids": {"keep": "items whose id is the user's id kept",
                      "drop": "items whose id is the user's id dropped"},
    "relevant_items": {"ground_truth": "every relevant item of the ground truth counted",
                       "in_list": "only the relevant items in the model's list counted"},
    "precision_denominator": {"cutoff": "precision divided by K",
                              "list_length": "precision divided by the smaller of K and the "
                              "list's length"},
    "recall_denominator": {"relevant": "recall divided by the number of relevant items",
                           "min_k_relevant": "recall divided by the smaller of K and the "
                           "relevant items"},
    "discount": {"shifted": "discount 1/log2(i + 1)",
                 "clipped": "discount 1/log2(max(i, 2)), ranks 1 and 2 alike"},
}


@dataclass(frozen=True)
class Conventions:
    """The conventions a metric is computed under.

    Parameters
    ----------
    gain : {"exponential", "linear"}
        Gain of a grade ``g`` in DCG: ``2**g - 1`` or ``g``.
    ideal : {"ground_truth", "retrieved"}
        Which list IDCG@K is the DCG of: all ground-truth items sorted by grade, or the
        model's own top-K list re-sorted by grade.
    ap_denominator : {"relevant", "min_k_relevant", "hits", "min_shown_relevant"}
        What AP@K divides the sum of precisions at hit ranks by: |R|, min(K, |R|), the hits,
        or min(|R|, the items in the top K).
    threshold_gains : bool
        If true, grades below the relevance threshold give no gain in DCG and IDCG.
    empty_users : {"skip", "zero"}
        Users with no relevant item in the ground truth.
    missing_users : {"zero", "skip"}
        Ground-truth users that a model's output does not contain.
    ties : {"item_desc", "item_asc", "input"}
        Tie-break for equal scores.
    rbp_persistence : float, default 0.8
        RBP's p, strictly between 0 and 1.
    max_grade : float or None
        g_max of ERR and graded RBP; None: the highest grade of the relevance mapping.
    rbp_gain : {"binary", "graded"}
        What an item adds to RBP: 1 if relevant, or its grade / g_max.
    identical_ids : {"keep", "drop"}
        An item whose id equals the user's id: kept, or dropped from the list (the items
        below it move up one rank) when the lists are ranked.
    relevant_items : {"ground_truth", "in_list"}
        The relevant items |R| (Recall, AP, R-Precision) and the ideal list (NDCG) are made
        of: every relevant ground-truth item, or those in the model's list only (all of its
        rows, not only the top K).
    precision_denominator : {"cutoff", "list_length"}
        What Precision@K divides the hits by: K, or min(K, the list's length).
    recall_denominator : {"relevant", "min_k_relevant"}
        What Recall@K divides the hits by: |R|, or min(K, |R|).
    discount : {"shifted", "clipped"}
        DCG's discount at rank i: 1 / log2(i + 1), or 1 / log2(max(i, 2)).

    Examples
    --------
    >>> Conventions.preset("trec_eval").gain
    'linear'
    >>> Conventions.preset("trec_eval", gain="exponential").gain
    'exponential'
    """

    gain: str = "exponential"
    ideal: str = "ground_truth"
    ap_denominator: str = "relevant"
    threshold_gains: bool = False
    empty_users: str = "skip"
    missing_users: str = "zero"
    ties: str = "item_desc"
    rbp_persistence: float = 0.8
    max_grade: float | None = None
    rbp_gain: str = "binary"
    identical_ids: str = "keep"
    relevant_items: str = "ground_truth"
    precision_denominator: str = "cutoff"
    recall_denominator: str = "relevant"
    discount: str = "shifted"

    def __post_init__(self) -> None:
        for name, choices in OPTION_CHOICES.items():
            check_choice(name, getattr(self, name), choices)
        check_bool("threshold_gains", self.threshold_gains)
        p = self.rbp_persistence
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p < 1:
            raise ValueError(f"rbp_persistence must be a number strictly between 0 and 1 "
                             f"(0.8 is usual). Got {p!r}.")
        top = self.max_grade
        if top is not None and (isinstance(top, bool) or not isinstance(top, (int, float))
                                or not 0 < top <= MAX_GRADE):
            raise ValueError(f"max_grade must be a grade above 0 and at most {MAX_GRADE}, "
                             f"or None for the highest grade of the relevance mapping. "
                             f"Got {top!r}.")

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Conventions:
        """The conventions of a named preset, with explicit options overriding it."""
        check_choice("name", name, tuple(PRESETS))
        return replace(PRESETS[name], **overrides)

    def as_dict(self) -> dict[str, object]:
        """The options as a plain dict (for saving a configuration or a JSON report)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def preset_name(self) -> str | None:
        """The name of the preset these conventions equal, or None."""
        for name, preset in PRESETS.items():
            if preset == self:
                return name
        return None

    def describe(self) -> str:
        """One line naming every active option, for reports and the dashboard."""
        gain = "2^g-1" if self.gain == "exponential" else "g"
        name = self.preset_name()
        parts = [
            f"gain {self.gain} ({gain})",
            f"ideal from {self.ideal.replace('_', ' ')}",
            f"AP / {self.ap_denominator.replace('_', ' ')}",
            f"threshold on gains {'yes' if self.threshold_gains else 'no'}",
            f"users without relevant items: {self.empty_users}",
            f"users missing from a model: {self.missing_users}",
            f"ties: {self.ties.replace('_', ' ')}",
        ]
        # the parameters of RBP and ERR only where they are not the defaults
        if self.rbp_persistence != 0.8:
            parts.append(f"RBP p = {self.rbp_persistence:g}")
        if self.max_grade is not None:
            parts.append(f"g_max = {self.max_grade:g}")
        if self.rbp_gain != "binary":
            parts.append(f"RBP gain {self.rbp_gain}")
        if self.identical_ids != "keep":
            parts.append("items with the user's id dropped")
        if self.relevant_items != "ground_truth":
            parts.append("only the relevant items in the list counted")
        if self.precision_denominator != "cutoff":
            parts.append("precision over min(K, list length)")
        if self.recall_denominator != "relevant":
            parts.append("recall over min(K, |R|)")
        if self.discount != "shifted":
            parts.append("discount 1/log2(max(i, 2))")
        prefix = f"preset {name}: " if name else "custom: "
        return prefix + "; ".join(parts)

    def in_words(self) -> dict[str, str]:
        """Each option's choice in words (:data:`CHOICE_WORDS`), in the order of the fields.

        >>> Conventions().in_words()["ties"]
        'equal scores ordered by item id, descending'
        """
        return {option: number_words(option, value) if option in NUMBER_OPTIONS
                else CHOICE_WORDS[option][value] for option, value in self.as_dict().items()}

    def summary(self) -> str:
        """A few words for a page or a report: the preset these conventions equal, or the
        closest preset (the default among equally close ones) and what differs from it.

        >>> Conventions().summary(), Conventions.preset("trec_eval").summary()
        ('Default conventions', "trec_eval's conventions")
        >>> Conventions(ties="input").summary()
        "Default conventions, except: equal scores kept in the file's order"
        """
        mine = self.as_dict()

        def differences(preset: Conventions) -> list[str]:
            return [option for option, value in preset.as_dict().items() if mine[option] != value]

        closest = min(PRESETS, key=lambda name: len(differences(PRESETS[name])))
        different = differences(PRESETS[closest])
        if not different:
            return PRESET_NAMES[closest]
        words = self.in_words()
        return f"{PRESET_NAMES[closest]}, except: " + ", ".join(words[o] for o in different)


def number_words(option: str, value: object) -> str:
    """A number option's value in words.

    >>> number_words("rbp_persistence", 0.9), number_words("max_grade", None)
    ('RBP persistence p = 0.9', 'the highest grade from the relevance mapping')
    """
    if option == "rbp_persistence":
        return f"RBP persistence p = {value:g}"
    return ("the highest grade from the relevance mapping" if value is None
            else f"the highest grade g_max = {value:g}")


PRESETS: dict[str, Conventions] = {
    "default": Conventions(),
    "trec_eval": Conventions(
        gain="linear", ideal="ground_truth", ap_denominator="relevant",
        empty_users="zero", missing_users="zero",
    ),
    "ranx_burges": Conventions(
        gain="exponential", ideal="ground_truth", ap_denominator="relevant",
        empty_users="zero", missing_users="zero",
    ),
    "retrieved_ideal": Conventions(
        gain="exponential", ideal="retrieved", ap_denominator="relevant",
        empty_users="skip", missing_users="zero",
    ),
    "spark_mllib": Conventions(
        gain="linear", ideal="ground_truth", ap_denominator="min_k_relevant",
        empty_users="zero", missing_users="zero",
    ),
    "recommenders": Conventions(
        gain="exponential", ideal="ground_truth", ap_denominator="min_k_relevant",
        empty_users="skip", missing_users="skip",
    ),
    "sklearn": Conventions(
        gain="linear", ideal="retrieved", ap_denominator="relevant",
        empty_users="zero", missing_users="skip",
    ),
    "beir": Conventions(
        gain="linear", ideal="ground_truth", ap_denominator="relevant",
        empty_users="zero", missing_users="skip", identical_ids="drop",
    ),
    "torchmetrics": Conventions(
        gain="linear", ideal="ground_truth", ap_denominator="hits", empty_users="zero",
        missing_users="skip", relevant_items="in_list",
    ),
    "evidently": Conventions(
        gain="linear", ideal="ground_truth", ap_denominator="relevant", empty_users="skip",
        missing_users="skip", relevant_items="in_list", precision_denominator="list_length",
    ),
    "lenskit": Conventions(
        gain="linear", ideal="ground_truth", ap_denominator="min_shown_relevant",
        empty_users="zero", missing_users="skip", precision_denominator="list_length",
        recall_denominator="min_k_relevant", discount="clipped",
    ),
}

#: Each preset as a summary names it.
PRESET_NAMES: dict[str, str] = {
    "default": "Default conventions",
    "trec_eval": "trec_eval's conventions",
    "ranx_burges": "ranx's ndcg_burges conventions",
    "retrieved_ideal": "Textbook conventions",
    "spark_mllib": "Spark MLlib's RankingMetrics conventions",
    "recommenders": "Microsoft Recommenders' conventions",
    "sklearn": "scikit-learn's ndcg_score conventions",
    "beir": "BEIR's conventions",
    "torchmetrics": "TorchMetrics' retrieval conventions",
    "evidently": "Evidently's conventions",
    "lenskit": "LensKit's conventions",
}

#: How each library orders items with equal scores: the library, its order in words, and the
#: tie rule (``Conventions.ties``) that gives the same order, or None where none does.
LIBRARY_TIES: tuple[tuple[str, str, str | None], ...] = (
    ("trec_eval, pytrec_eval, ir_measures", "by item id, descending", "item_desc"),
    ("ranx", "an unstable sort: no fixed order", None),
    ("scikit-learn ndcg_score", "the average over every order of the tied items", None),
    ("RecBole", "torch.topk on the scores: no fixed order", None),
    ("Spark MLlib RankingMetrics", "the order of the lists it is given (it takes no scores)",
     "input"),
    ("Microsoft Recommenders", "the order of its rows (a stable sort by score)", "input"),
    ("TorchMetrics", "NDCG: the average over every order of the tied items; the others: "
     "torch.topk, no fixed order", None),
    ("LensKit", "the order of the ranked lists it is given (it takes ranks, not scores)",
     "input"),
    ("Evidently", "ranks from its rank column, or from scores by pandas' average rank: "
     "tied items share a rank", None),
)

PRESET_HELP: dict[str, str] = {
    "default": "The project's defaults: exponential gain, ideal from all ground truth, "
    "users without relevant items skipped.",
    "trec_eval": "Reproduces trec_eval -c (also pytrec_eval, ir_measures, ranx ndcg/map): "
    "linear gain, every ground-truth user counted.",
    "ranx_burges": "Reproduces ranx's ndcg_burges: exponential gain, ideal from all ground "
    "truth, every user counted.",
    "retrieved_ideal": "Reproduces the worked examples of NDCG tutorials: exponential gain, the "
    "ideal is the model's own top-K list re-sorted.",
    "spark_mllib": "Reproduces Spark MLlib's RankingMetrics (precisionAt, recallAt, ndcgAt, "
    "meanAveragePrecisionAt) given every ground-truth user's relevant items, and RecBole's "
    "top-K metrics (Precision, Recall, MAP, NDCG, MRR, Hit): AP@K divided by the smaller of K "
    "and the relevant items, every user counted. Their NDCG is binary: with a graded mapping, "
    "use a threshold to compare.",
    "recommenders": "Reproduces Microsoft Recommenders' python evaluation (precision_at_k, "
    "recall_at_k, ndcg_at_k, map_at_k) given the relevant rows as rating_true: AP@K divided "
    "by the smaller of K and the relevant items, only users with relevant items and a list "
    "counted. Its default NDCG is binary: with a graded mapping, use a threshold to compare. It "
    "keeps equal scores in the order of its rows: on tied scores, add the input tie rule.",
    "sklearn": "Reproduces scikit-learn's ndcg_score and dcg_score fed each user's top-K "
    "recommended rows (it needs two rows or more): linear gain, the ideal is the model's own "
    "top-K list re-sorted, users without relevant items counted as 0, users without a list "
    "left out. It averages over the orders of equal scores, which no tie rule does.",
    "beir": "Reproduces BEIR's EvaluateRetrieval.evaluate (NDCG@K, MAP@K, Recall@K, P@K through "
    "pytrec_eval): trec_eval's conventions, but only users with a list counted and, as its "
    "ignore_identical_ids does by default, an item whose id is the user's id dropped from "
    "the list.",
    "torchmetrics": "Reproduces TorchMetrics' retrieval metrics (RetrievalNormalizedDCG, "
    "RetrievalPrecision, RetrievalRecall, RetrievalMAP, RetrievalMRR, RetrievalHitRate with "
    "top_k, empty_target_action='neg') fed each user's rows of the model, the target being the "
    "item's grade (NDCG) or relevance: it sees only those rows, so |R| and the ideal list come "
    "from the model's list, AP divides by the hits in the top K, a user without a relevant item "
    "there counts as 0 and users without a list are left out. Its NDCG averages over the orders "
    "of equal scores, and its other metrics count no hit for an item scored 0 or less.",
    "evidently": "Reproduces Evidently's recommender metrics (NDCGKMetric, PrecisionTopKMetric, "
    "RecallTopKMetric, MAPKMetric, MRRKMetric, HitRateKMetric; no_feedback_users=False) fed the "
    "model's rows with their targets: |R| and the ideal list come from those rows, Precision "
    "divides by the smaller of K and the list's length, users without a relevant item in their "
    "list are left out (no_feedback_users=True counts them: add empty users zero).",
    "lenskit": "Reproduces LensKit 2025's ranking metrics (NDCG, Precision, Recall, "
    "AveragePrecision, RecipRank, Hit with n=K, through RunAnalysis and its list_summary) given "
    "each user's ranked list and the relevant items as test data (NDCG with gain= the "
    "grade): the discount 1/log2(max(i, 2)), Precision over the smaller of K and the list's "
    "length, Recall over min(K, |R|), AP over min(|R|, the items in the top K), users "
    "without a relevant item counted as 0 and users without a list left out.",
}
