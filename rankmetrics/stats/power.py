"""How big a difference is, how sure we can be of it, and how many users it takes to see one:
the paired effect size with its interval, the power of the paired t-test, the smallest
difference a set of users can detect and the users needed to detect a given one.

Everything is about one pair of models at one metric and cutoff, through the per-user
differences :math:`d_u = x_{B,u} - x_{A,u}`. The effect size is Cohen's :math:`d_z = \\bar d /
s_d` (:func:`effect_size`); the power is that of the two-sided paired t-test at level
:math:`\\alpha` (:func:`paired_power`: the noncentral t distribution, as statsmodels'
``TTestPower`` computes it); :func:`plan_pair` turns both into the questions a reader asks
("the smallest difference these users can detect", "the users needed for a 1% lift").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rankmetrics.checks import check_probability

#: Cohen's (1988) conventional sizes of a standardized difference, smallest first, with the
#: words the product uses for each band: below 0.2 is "negligible".
EFFECT_SIZE_WORDS = ((0.2, "negligible"), (0.5, "small"), (0.8, "medium"),
                     (math.inf, "large"))
#: The most users :func:`users_needed` answers with; past it the answer is "more than".
MOST_USERS = 10**12


def effect_size_words(value: float) -> str:
    """The conventional word for the size of a standardized difference (Cohen, 1988):
    "negligible" below 0.2 in absolute value, "small" below 0.5, "medium" below 0.8, else
    "large".

    >>> effect_size_words(0.05), effect_size_words(-0.3), effect_size_words(1.2)
    ('negligible', 'small', 'large')
    """
    size = abs(float(value))
    return next(word for bound, word in EFFECT_SIZE_WORDS if size < bound)


@dataclass(frozen=True)
class EffectSize:
    """The paired standardized difference of one pair with its confidence interval.

    Attributes
    ----------
    value : float
        :math:`d_z = \\bar d / s_d` (0 when every difference is the same).
    ci_low, ci_high : float
        Its interval at ``confidence``: :math:`d_z \\pm z_{1-\\alpha/2}\\,SE` with the delta
        method's standard error for any distribution of the differences,
        :math:`SE^2 = (1 - d_z\\,\\gamma_1 + d_z^2 (\\kappa - 1) / 4) / n` (:math:`\\gamma_1`
        their skewness, :math:`\\kappa` their kurtosis; for normal differences it is the
        familiar :math:`(1 + d_z^2 / 2) / n`).
    users : int
    confidence : float
    """

    value: float
    ci_low: float
    ci_high: float
    users: int
    confidence: float

    @property
    def words(self) -> str:
        """:func:`effect_size_words` of the value."""
        return effect_size_words(self.value)


def effect_size(differences: np.ndarray, confidence: float = 0.95) -> EffectSize:
    """Cohen's :math:`d_z` of paired per-user differences, with its confidence interval
    (see :class:`EffectSize`).

    Parameters
    ----------
    differences : array of float
        One per user (at least 2), finite.
    confidence : float
        Level of the interval.

    Examples
    --------
    >>> found = effect_size(np.array([0.1, 0.2, 0.0, 0.3, 0.1, 0.2]))
    >>> round(found.value, 3), found.words
    (1.43, 'large')
    """
    from scipy import stats as _sps  # loaded when needed

    confidence = check_probability("confidence", confidence)
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 1 or len(d) < 2 or not np.isfinite(d).all():
        raise ValueError("An effect size needs at least 2 finite per-user differences; got "
                         f"{d.size}.")
    n = len(d)
    sd = float(d.std(ddof=1))
    scale = max(float(np.abs(d).max()), np.finfo(float).tiny)
    if sd <= 16 * np.finfo(np.float64).eps * scale:
        return EffectSize(0.0, 0.0, 0.0, n, confidence)
    value = float(d.mean()) / sd
    centred = d - d.mean()
    m2 = float(np.mean(centred**2))
    skewness = float(np.mean(centred**3)) / m2**1.5
    kurtosis = float(np.mean(centred**4)) / m2**2
    variance = max(1.0 - value * skewness + value**2 * (kurtosis - 1.0) / 4.0, 0.0) / n
    half = float(_sps.norm.ppf(0.5 + confidence / 2)) * math.sqrt(variance)
    return EffectSize(value, value - half, value + half, n, confidence)


def paired_power(effect: float, users: int, alpha: float = 0.05) -> float:
    """The power of the two-sided paired t-test at level ``alpha`` to detect a standardized
    difference ``effect`` (:math:`d_z`) with ``users`` users: the chance that the test
    rejects, :math:`P(|T| > t_{1-\\alpha/2,\\,n-1})` with :math:`T` noncentral t with n - 1
    degrees of freedom and noncentrality :math:`d_z \\sqrt n` (statsmodels' ``TTestPower``).

    >>> round(paired_power(0.2, 100), 4)
    0.5083
    """
    from scipy import stats as _sps

    alpha = check_probability("alpha", alpha)
    if users < 2:
        raise ValueError(f"The power of a paired test needs at least 2 users; got {users}.")
    df = users - 1
    critical = float(_sps.t.isf(alpha / 2, df))
    shift = abs(float(effect)) * math.sqrt(users)
    above = float(_sps.nct.sf(critical, df, shift))
    below = float(_sps.nct.cdf(-critical, df, shift))
    if not (math.isfinite(above) and math.isfinite(below)):
        # scipy's noncentral t gives NaN for some large df and noncentrality; there the
        # normal approximation of Johnson and Kotz (1970) is exact to about 1e-9.
        def z(x: float) -> float:
            return (x * (1 - 1 / (4 * df)) - shift) / math.sqrt(1 + x * x / (2 * df))
        if not math.isfinite(above):
            above = float(_sps.norm.sf(z(critical)))
        if not math.isfinite(below):
            below = float(_sps.norm.cdf(z(-critical)))
    return above + below


def users_needed(effect: float, power: float = 0.8, alpha: float = 0.05) -> int:
    """The fewest users for which the paired t-test at level ``alpha`` has at least ``power``
    to detect the standardized difference ``effect`` (:func:`paired_power`); ``MOST_USERS``
    + 1 when even that many would not do (an effect of 0 is never detected).

    >>> users_needed(0.2)
    199
    """
    power = check_probability("power", power)
    alpha = check_probability("alpha", alpha)
    effect = abs(float(effect))
    if effect == 0 or paired_power(effect, MOST_USERS, alpha) < power:
        return MOST_USERS + 1
    low, high = 2, 2
    while paired_power(effect, high, alpha) < power:
        low, high = high, high * 2
    while low < high:  # the power grows with the users
        middle = (low + high) // 2
        if paired_power(effect, middle, alpha) >= power:
            high = middle
        else:
            low = middle + 1
    return high


def detectable_effect(users: int, power: float = 0.8, alpha: float = 0.05) -> float:
    """The smallest standardized difference :math:`d_z` that ``users`` users detect with
    ``power`` in a paired t-test at level ``alpha``.

    >>> round(detectable_effect(199), 4)
    0.1996
    """
    from scipy.optimize import brentq

    power = check_probability("power", power)
    alpha = check_probability("alpha", alpha)
    if power <= alpha:
        return 0.0
    high = 1.0
    while paired_power(high, users, alpha) < power:
        high *= 2
    return float(brentq(lambda d: paired_power(d, users, alpha) - power, 0.0, high,
                        xtol=1e-12, rtol=1e-12))


@dataclass(frozen=True)
class PairPlan:
    """What the per-user differences of one pair say about power and sample size.

    Attributes
    ----------
    users : int
        The users the differences come from.
    mean_a : float
        Model A's mean (the base of a % lift).
    difference : float
        The observed mean difference :math:`\\bar d`.
    sd : float
        The standard deviation of the per-user differences, :math:`s_d` (ddof = 1).
    power, alpha : float
        The power asked for, and the level of each test: the significance level divided by
        the number of pairs under a Holm or Bonferroni correction (the strictest level the
        correction can apply) and under Benjamini-Hochberg (its worst case).
    pairs : int
        The pairs the correction is over.
    detectable : float
        The smallest mean difference these users detect with ``power`` (in the metric's
        units): :func:`detectable_effect` times :math:`s_d`.
    observed_power : float
        The power to detect a difference as large as the observed one.
    """

    users: int
    mean_a: float
    difference: float
    sd: float
    power: float
    alpha: float
    pairs: int
    detectable: float
    observed_power: float

    @property
    def detectable_lift(self) -> float:
        """:attr:`detectable` as a share of model A's mean (NaN when that mean is 0)."""
        return self.detectable / self.mean_a if self.mean_a else math.nan

    def users_for_difference(self, difference: float) -> int:
        """The users needed to detect a mean difference (in the metric's units) with this
        plan's power and level, for differences spread as these users' are."""
        if self.sd == 0:
            return 2 if difference else MOST_USERS + 1
        return users_needed(difference / self.sd, self.power, self.alpha)

    def users_for_lift(self, lift: float) -> int:
        """The users needed to detect a relative lift of model A's mean (0.01 for 1%)."""
        return self.users_for_difference(lift * self.mean_a)


def plan_pair(a: np.ndarray, b: np.ndarray, *, power: float = 0.8, confidence: float = 0.95,
              pairs: int = 1) -> PairPlan:
    """Power and sample size of a pair of models from their per-user values (paired by
    position): the smallest difference these users detect and the power at the observed
    difference, at level ``(1 - confidence) / pairs`` (see :class:`PairPlan`).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = rng.uniform(size=400)
    >>> plan = plan_pair(a, a + rng.normal(0.02, 0.1, size=400))
    >>> round(plan.detectable, 3), plan.users_for_difference(0.01) > 400
    (0.014, True)
    """
    power = check_probability("power", power)
    confidence = check_probability("confidence", confidence)
    if pairs < 1:
        raise ValueError(f"pairs must be at least 1; got {pairs}.")
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or len(x) < 2:
        raise ValueError("A plan needs the per-user values of both models for the same "
                         f"users, at least 2; got {x.shape} and {y.shape}.")
    d = y - x
    alpha = (1.0 - confidence) / pairs
    sd = float(d.std(ddof=1))
    scale = max(float(np.abs(d).max()), np.finfo(float).tiny)
    if sd <= 16 * np.finfo(np.float64).eps * scale:
        sd = 0.0
    n = len(d)
    difference = float(d.mean())
    detectable = detectable_effect(n, power, alpha) * sd
    observed = (paired_power(difference / sd, n, alpha) if sd else float(difference != 0))
    return PairPlan(n, float(x.mean()), difference, sd, power, alpha, pairs, detectable,
                    observed)
