"""What a comparison lets a reader conclude: which model leads, and by how much.

A higher mean is not yet a better model: with another sample of users the order may flip.
These functions read a :class:`rankmetrics.stats.ModelComparison` (every pair's paired test,
corrected for testing many pairs) and say no more than it shows:

- :func:`leader_verdict` names one best model only when it is significantly better than every
  other; otherwise the leaders form a group the data cannot tell apart;
- :func:`differences_from` gives each model's difference from a baseline model, absolute and
  relative (% lift), with the confidence interval of the difference;
- :func:`leader_marks` marks a table's leaders (★ best, ≈ not distinguishable), and
  :func:`quick_test` and :func:`quick_resamples` bound the work of a table that tests every
  metric (the dashboard's Compare table, the command line's ``--format table``).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankmetrics.stats import TEST_NAMES, ModelComparison, correction_text

#: The mark of the significantly best model in a table, and of leaders the data cannot tell
#: apart.
BEST_MARK, TIED_MARK = "★", "≈"
#: Work bounds of a table that tests every metric at once (users x flips, users x resamples):
#: about a second for the six main metrics on 100,000 users and 3 models.
QUICK_FLIPS = 100_000_000
QUICK_RESAMPLES = 20_000_000

DIFFERENCE_COLUMNS = (
    "model", "mean", "difference", "ci_low", "ci_high", "lift", "lift_low", "lift_high",
    "p_corrected", "verdict",
)


@dataclass(frozen=True)
class LeaderVerdict:
    """The models leading one metric, and whether one of them is significantly best.

    ``leaders`` holds the highest-mean model first. ``significant`` is True when it alone
    leads: significantly better than every other model. Otherwise every model in
    ``leaders`` is not significantly different from the highest mean ("not
    distinguishable").
    """

    leaders: tuple[Hashable, ...]
    significant: bool

    @property
    def best(self) -> Hashable | None:
        """The significantly best model, or None when the leaders are tied."""
        return self.leaders[0] if self.significant else None


def leader_verdict(comparison: ModelComparison) -> LeaderVerdict:
    """The leader (or tied leaders) of a comparison; see :meth:`ModelComparison.leaders`.

    >>> from rankmetrics.stats import compare_models
    >>> values = pd.DataFrame({"A": np.linspace(0, 0.5, 40), "B": np.linspace(0.3, 0.8, 40)})
    >>> leader_verdict(compare_models(values, test="t", n_bootstrap=100))
    LeaderVerdict(leaders=('B',), significant=True)
    """
    leaders, significant = comparison.leaders()
    return LeaderVerdict(tuple(leaders), bool(significant))


def leader_marks(verdict: LeaderVerdict) -> dict[Hashable, str]:
    """The mark of each leading model in a table: ``BEST_MARK`` for the significantly best
    model, ``TIED_MARK`` for each leader the data cannot tell apart (when two or more are);
    the other models have none.

    >>> leader_marks(LeaderVerdict(("B",), True)), leader_marks(LeaderVerdict(("B", "A"), False))
    ({'B': '★'}, {'B': '≈', 'A': '≈'})
    >>> leader_marks(LeaderVerdict(("B",), False))  # nothing to compare it with
    {}
    """
    if verdict.significant:
        return {verdict.leaders[0]: BEST_MARK}
    if len(verdict.leaders) < 2:
        return {}
    return dict.fromkeys(verdict.leaders, TIED_MARK)


def quick_test(test: str, n_users: int, n_permutations: int) -> str:
    """The test a table of every metric runs: ``test``, or the paired t-test in place of the
    randomization test (or the randomized Tukey test) past ``QUICK_FLIPS`` user-flips (with
    that many users the paired tests agree).

    >>> quick_test("randomization", 1_940, 10_000), quick_test("randomization", 100_000, 10_000)
    ('randomization', 't')
    """
    if test in ("randomization", "tukey") and n_users * n_permutations > QUICK_FLIPS:
        return "t"
    return test


def quick_resamples(n_bootstrap: int, n_users: int) -> int:
    """The bootstrap resamples of a table of every metric: at most ``QUICK_RESAMPLES``
    user-resamples, and at least 200 resamples.

    >>> quick_resamples(1_000, 1_940), quick_resamples(1_000, 100_000)
    (1000, 200)
    """
    return min(n_bootstrap, max(200, QUICK_RESAMPLES // n_users))


def how_tested(comparison: ModelComparison) -> str:
    """The test behind a verdict in words, e.g. "randomization test, Holm correction, 5%
    significance level"."""
    return (f"{TEST_NAMES[comparison.test]}, "
            f"{correction_text(comparison.test, comparison.correction)}, "
            f"{1 - comparison.confidence:.0%} significance level")


def differences_from(comparison: ModelComparison, baseline: Hashable) -> pd.DataFrame:
    """Each model's mean minus the baseline's, with its interval, % lift and verdict.

    One row per model of the comparison, in its order (highest mean first):

    - ``difference`` = mean(model) - mean(baseline) on the users every model counts, and
      ``ci_low``, ``ci_high`` its paired bootstrap confidence interval (the comparison's);
    - ``lift`` = difference / mean(baseline), the relative difference (0.05 is +5%), and
      ``lift_low``, ``lift_high`` the interval divided by the baseline's mean; NaN when the
      baseline's mean is 0 (no relative change is defined);
    - ``p_corrected`` the pair's corrected p-value;
    - ``verdict``: "baseline", "better", "worse" (significantly) or "no significant
      difference". Equal means are never "better" or "worse": the comparison's means equal
      to a relative precision of 1e-12 of the largest have a ``difference`` of exactly 0
      (:func:`rankmetrics.stats.compare_models`), and a significant test of a pair with
      equal means (the Wilcoxon test can find one) reads "no significant difference" in the
      means.

    The baseline's own row has difference and lift 0 and no interval.

    Raises
    ------
    ValueError
        When ``baseline`` is not one of the comparison's models.

    Examples
    --------
    >>> from rankmetrics.stats import compare_models
    >>> values = pd.DataFrame({"A": [0.2, 0.4] * 20, "B": [0.3, 0.5] * 20})
    >>> table = differences_from(compare_models(values, test="t", n_bootstrap=50), "A")
    >>> table[["model", "difference", "lift", "verdict"]].round(4).values.tolist()
    [['B', 0.1, 0.3333, 'better'], ['A', 0.0, 0.0, 'baseline']]
    """
    models = comparison.models["model"].tolist()
    if baseline not in models:
        raise ValueError(
            f"The baseline {baseline!r} is not one of the compared models: "
            f"{', '.join(map(repr, models))}."
        )
    base_mean = float(comparison.models.loc[comparison.models["model"] == baseline, "mean"].iloc[0])
    rows = []
    for model, mean in zip(models, comparison.models["mean"], strict=True):
        if model == baseline:
            rows.append((model, float(mean), 0.0, np.nan, np.nan, np.nan, "baseline"))
            continue
        pair = comparison.pair(baseline, model)
        difference = float(pair["difference"])
        verdict = ("no significant difference" if not bool(pair["significant"])
                   or difference == 0 else "better" if difference > 0 else "worse")
        rows.append((model, float(mean), difference, float(pair["ci_low"]),
                     float(pair["ci_high"]), float(pair["p_corrected"]), verdict))
    table = pd.DataFrame(rows, columns=["model", "mean", "difference", "ci_low", "ci_high",
                                        "p_corrected", "verdict"])
    scale = np.nan if base_mean == 0 else base_mean
    return table.assign(
        lift=table["difference"] / scale, lift_low=table["ci_low"] / scale,
        lift_high=table["ci_high"] / scale,
    )[list(DIFFERENCE_COLUMNS)]
