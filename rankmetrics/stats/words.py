"""Results and caveats in words: p-values, a pair's comparison in sentences, and the warnings
about comparing models on given per-user values."""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import combinations

import numpy as np
import pandas as pd

from rankmetrics.checks import check_choice, plain
from rankmetrics.printed import fixed
from rankmetrics.stats.corrections import CORRECTION_NAMES, CORRECTIONS
from rankmetrics.stats.paired import standard_deviation_is_zero
from rankmetrics.stats.values import paired_differences, per_user_array, restore_ties

#: A value in a row of the comparison table: a model name, a number or a yes/no flag.
TableValue = str | float | np.number | np.bool_

#: Fewer users than this and no significance test is meaningful.
MIN_USERS = 10
#: Fewer users than this and the t-test's normal approximation is rough.
MIN_USERS_T = 30


def p_text(p: float) -> str:
    """A p-value as every sentence of the product writes it: "p < 0.001" or "p = 0.042"."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def difference_decimals(*numbers: float) -> int:
    """The decimals that show the largest of ``numbers``: 3, more below 0.01 (at most 8)."""
    largest = max(abs(x) for x in numbers)
    if largest == 0 or largest >= 0.01:
        return 3
    return min(8, 1 - math.floor(math.log10(largest)))


def _users(count: int) -> str:
    return f"{count} user" if count == 1 else f"{count:,} users"


def describe_pair(
    row: Mapping[str, TableValue] | pd.Series,
    metric_label: str = "NDCG@10",
    correction: str = "holm",
    test: str | None = None,
) -> str:
    """Plain-language sentences summing up a row of :func:`paired_comparison`.

    The sentences say no more than the test shows. A model is called better only when the
    difference of the means is significant after the correction; otherwise they say there is
    no real difference. They name the model with the higher mean first, give the difference
    of the means (higher minus lower) with its confidence interval and the corrected p-value
    (``p_corrected``), and how many users each model serves better, saying so when the model
    with the higher mean serves fewer users better. Numbers have 3 decimals, more for
    differences below 0.01. The means, wins, ties and losses are the table's, where numbers
    equal to a relative precision of 1e-12 are equal (:func:`paired_comparison`): models
    with equal means (``difference`` 0) are never one better than the other.

    Parameters
    ----------
    row : pandas.Series or mapping
        A row of the comparison table (needs model_a, model_b, difference, ci_low, ci_high,
        p_corrected, significant, wins, ties, losses, users).
    metric_label : str
        The metric as shown to the reader, e.g. "NDCG@10".
    correction : {"holm", "bonferroni", "bh"}
        The correction the table was computed with.
    test : str, optional
        The test; a test of every pair at once (Tukey's) is named instead of the correction,
        which does not apply to it.

    Examples
    --------
    >>> row = {"model_a": "Model A", "model_b": "Model B", "difference": 0.021,
    ...        "ci_low": 0.012, "ci_high": 0.030, "p_corrected": 0.003, "significant": True,
    ...        "wins": 612, "ties": 87, "losses": 401, "users": 1100}
    >>> describe_pair(row)  # doctest: +NORMALIZE_WHITESPACE
    'Model B is better than Model A on NDCG@10: its mean is higher by 0.021 [0.012, 0.030],
    significant after Holm correction (p = 0.003). Model B serves 612 users better, Model A
    401 (87 users the same).'
    >>> describe_pair({**row, "significant": False, "p_corrected": 0.217, "wins": 401,
    ...                "losses": 612})  # doctest: +NORMALIZE_WHITESPACE
    'No real difference between Model B and Model A on NDCG@10: Model B has the higher mean,
    by 0.021 [0.012, 0.030], which is not significant after Holm correction (p = 0.217).
    Higher mean, fewer users served better: Model B serves 401 users better, Model A 612
    (87 users the same).'
    """
    correction = check_choice("correction", correction, CORRECTIONS)
    needed = ("model_a", "model_b", "difference", "ci_low", "ci_high", "p_corrected",
              "significant", "wins", "ties", "losses")
    missing = [k for k in needed if k not in row]
    if missing:
        raise ValueError(
            f"The 'row' argument lacks {', '.join(missing)}; pass a row of the table of "
            "paired_comparison."
        )
    diff, low, high = float(row["difference"]), float(row["ci_low"]), float(row["ci_high"])
    wins, ties, losses = int(row["wins"]), int(row["ties"]), int(row["losses"])
    p = f"{p_text(float(row['p_corrected']))}"
    from rankmetrics.stats.paired import FAMILY_TESTS

    if test in FAMILY_TESTS:
        after, by = "in Tukey's HSD test of every pair at once", "Tukey's HSD test"
    else:
        name = CORRECTION_NAMES[correction]
        after, by = f"after {name} correction", f"{name} correction"
    if wins == 0 and losses == 0:
        return (
            f"{row['model_b']} and {row['model_a']} give the same {metric_label} for all "
            f"{_users(ties)}; there is no difference to test ({p} {after})."
        )
    # The model with the higher mean first; the difference is higher minus lower.
    if diff >= 0:
        high_model, low_model, more, fewer = row["model_b"], row["model_a"], wins, losses
    else:
        high_model, low_model, more, fewer = row["model_a"], row["model_b"], losses, wins
        diff, low, high = -diff, -high, -low
    places = difference_decimals(diff, low, high)
    gap = f"{fixed(diff, places)} [{fixed(low, places)}, {fixed(high, places)}]"
    served = (f"{high_model} serves {_users(more)} better, {low_model} {fewer:,} "
              f"({_users(ties)} the same).")
    if diff == 0:
        return (f"No real difference between {high_model} and {low_model} on {metric_label}: "
                f"their means are equal ({p} {after}). {served}")
    if not bool(row["significant"]):
        fewer_served = "Higher mean, fewer users served better: " if more < fewer else ""
        return (f"No real difference between {high_model} and {low_model} on {metric_label}: "
                f"{high_model} has the higher mean, by {gap}, which is not significant "
                f"{after} ({p}). {fewer_served}{served}")
    if more < fewer:
        return (f"{high_model} has a significantly higher mean {metric_label} than "
                f"{low_model}, by {gap} ({by}, {p}), but serves fewer users "
                f"better: its lead comes from large gains for fewer users. {served}")
    return (f"{high_model} is better than {low_model} on {metric_label}: its mean is higher "
            f"by {gap}, significant {after} ({p}). {served}")


def comparison_warnings(values: pd.DataFrame) -> list[str]:
    """Caveats about comparing models on these per-user values, as sentences to show.

    Checks, in this order:

    - fewer than 10 users: no test is meaningful; fewer than 30: the t-test's normal
      approximation is rough (prefer the randomization test);
    - duplicate user ids in the index;
    - a model with the same value for every user (often a model that returned nothing);
    - a pair whose per-user values are all equal (p = 1, nothing to compare), or that differ
      for fewer than 10 users (the Wilcoxon test drops the others), or that differ by the
      same amount for every user (effect size reported as 0).

    Values are equal as in :func:`paired_comparison`, to a relative precision of 1e-12.

    Parameters
    ----------
    values : pandas.DataFrame
        As for :func:`paired_comparison`; invalid tables raise the same DataError.

    Returns
    -------
    list of str
        The warnings; empty when there is nothing to say.

    Examples
    --------
    >>> comparison_warnings(pd.DataFrame({"A": [0.1, 0.2, 0.3], "B": [0.1, 0.2, 0.3]}))[0]
    'Only 3 users: with fewer than 10 users significance tests are not meaningful.'
    """
    array = per_user_array(values)
    n_users = array.shape[0]
    models = list(values.columns)
    messages = []
    if n_users < MIN_USERS:
        messages.append(
            f"Only {n_users} users: with fewer than {MIN_USERS} users significance tests are "
            "not meaningful."
        )
    elif n_users < MIN_USERS_T:
        messages.append(
            f"Only {n_users} users: with fewer than {MIN_USERS_T} users the t-test's normal "
            "approximation is rough; the randomization test is safer."
        )
    if not values.index.is_unique:
        duplicated = values.index[values.index.duplicated()]
        messages.append(
            f"{len(duplicated)} user id(s) appear more than once (e.g. {plain(duplicated[0])!r}); "
            "each user should be one row."
        )
    same_for_all = restore_ties(array)
    for k, model in enumerate(models):
        if (same_for_all[:, k] == same_for_all[0, k]).all():
            messages.append(
                f"Model {model!r} has the same value ({array[0, k]:g}) for every user; check "
                "that its results were loaded correctly."
            )
    for a, b in combinations(range(len(models)), 2):
        diffs = array[:, b] - array[:, a]
        differing = int(np.count_nonzero(paired_differences(array[:, b], array[:, a])))
        pair = f"{models[a]!r} and {models[b]!r}"
        if differing == 0:
            messages.append(
                f"Models {pair} have the same value for every user: there is no difference "
                "to test (p = 1)."
            )
        elif differing < MIN_USERS:
            messages.append(
                f"Models {pair} differ for only {_users(differing)}; the tests have little "
                "to go on (the Wilcoxon test drops users without a difference)."
            )
        elif standard_deviation_is_zero(diffs, float(diffs.std(ddof=1))):
            messages.append(
                f"Models {pair} differ by the same amount ({diffs[0]:+g}) for every user; the "
                "effect size is reported as 0."
            )
    return messages


def describe_effect(row: Mapping[str, TableValue] | pd.Series) -> str:
    """How big a pair's difference is, in a unit that compares across metrics: the effect
    size of a row of :func:`paired_comparison` (``effect_size``, ``effect_low``,
    ``effect_high``, the models), in words.

    >>> print(describe_effect({"model_a": "A", "model_b": "B", "effect_size": 0.12,
    ...                        "effect_low": 0.08, "effect_high": 0.16}))
    ... # doctest: +NORMALIZE_WHITESPACE
    How big: B's gain over A is 0.12 of the spread of the users' differences (interval 0.08
    to 0.16), a negligible effect by the usual yardstick (0.2 is small, 0.5 medium, 0.8
    large).
    """
    from rankmetrics.stats.power import effect_size_words

    value = float(row["effect_size"])
    low, high = float(row["effect_low"]), float(row["effect_high"])
    if value == 0 and low == high == 0:
        return (f"How big: {row['model_b']} and {row['model_a']} differ by the same amount "
                "for every user, or not at all, so there is no spread to measure the "
                "difference against.")
    winner, loser = ((row["model_b"], row["model_a"]) if value >= 0
                     else (row["model_a"], row["model_b"]))
    if value < 0:
        value, low, high = -value, -high, -low
    return (f"How big: {winner}'s gain over {loser} is {value:.2f} of the spread of the "
            f"users' differences (interval {low:.2f} to {high:.2f}), a "
            f"{effect_size_words(value)} effect by the usual yardstick (0.2 is small, 0.5 "
            "medium, 0.8 large).")


def describe_plan(plan: object, metric_label: str, model_a: str, model_b: str,
                  lift: float) -> list[str]:
    """A :class:`~rankmetrics.stats.PairPlan` in sentences: the smallest difference these
    users detect, the power at the observed difference, and the users needed for a lift of
    ``lift`` (0.01 for 1%) of model A's mean.

    >>> import numpy as np
    >>> from rankmetrics.stats.power import plan_pair
    >>> rng = np.random.default_rng(0)
    >>> a = rng.uniform(size=400)
    >>> for line in describe_plan(plan_pair(a, a + rng.normal(0.02, 0.1, size=400)),
    ...                           "NDCG@10", "A", "B", 0.01):
    ...     print(line)  # doctest: +NORMALIZE_WHITESPACE
    With these 400 users, the smallest difference in NDCG@10 a paired t-test at level 5%
    detects 80% of the time is 0.014 (a 2.7% lift over A).
    The observed difference, 0.020, would be detected 97% of the time.
    To detect a 1% lift over A (0.0053) 80% of the time, you would need about 2,819 users.
    """
    from rankmetrics.stats.power import MOST_USERS, PairPlan

    if not isinstance(plan, PairPlan):
        raise TypeError(f"describe_plan needs a PairPlan; got {type(plan).__name__}.")
    level = _percent(plan.alpha)
    if plan.pairs > 1:
        level += f" ({_percent(plan.alpha * plan.pairs)} shared by {plan.pairs} pairs)"
    places = difference_decimals(plan.detectable, plan.difference)
    lines = []
    if plan.sd == 0:
        lines.append(f"{model_b} and {model_a} differ by the same amount for all "
                     f"{_users(plan.users)}: there is no spread, and any difference is "
                     "certain.")
        return lines
    detectable = f"{plan.detectable:.{places}f}"
    if plan.mean_a:
        detectable += f" (a {plan.detectable_lift:.1%} lift over {model_a})"
    lines.append(f"With these {_users(plan.users)}, the smallest difference in "
                 f"{metric_label} a paired t-test at level {level} detects "
                 f"{plan.power:.0%} of the time is {detectable}.")
    lines.append(f"The observed difference, {abs(plan.difference):.{places}f}, would be "
                 f"detected {_share_of_the_time(plan.observed_power)}.")
    if plan.mean_a:
        needed = plan.users_for_lift(lift)
        count = ("more than a trillion users" if needed > MOST_USERS
                 else f"about {needed:,} users")
        lines.append(f"To detect a {_percent(lift)} lift over {model_a} "
                     f"({lift * plan.mean_a:.{difference_decimals(lift * plan.mean_a)}f}) "
                     f"{plan.power:.0%} of the time, you "
                     f"would need {count}.")
    return lines


def _percent(share: float) -> str:
    """A share as a percentage with no more decimals than it needs: "5%", "0.83%"."""
    for places in range(4):
        text = f"{share:.{places}%}"
        if math.isclose(float(text[:-1]) / 100, share, rel_tol=1e-9) or places == 2:
            return text
    return f"{share:.2%}"


def _share_of_the_time(share: float) -> str:
    """How often, in words that do not round a near-certainty up to "100%"."""
    if share >= 0.9995:
        return "more than 99.9% of the time"
    if share < 0.0005:
        return "less than 0.1% of the time"
    return f"{share:.0%} of the time"


def correction_text(test: str, correction: str) -> str:
    """The correction in force, as captions name it: "Holm correction", or, for a test of
    every pair at once, that none applies.

    >>> correction_text("randomization", "holm"), correction_text("tukey", "holm")
    ('Holm correction', "no correction (Tukey's test covers every pair at once)")
    """
    from rankmetrics.stats.paired import FAMILY_TESTS

    if test in FAMILY_TESTS:
        return "no correction (Tukey's test covers every pair at once)"
    return f"{CORRECTION_NAMES[correction]} correction"
