"""Effect sizes, power, sample size and rank intervals, against statsmodels, scipy and
simulations whose true answers are known."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.power import TTestPower

from rankmetrics.stats import (
    compare_models,
    detectable_effect,
    effect_size,
    effect_size_words,
    paired_comparison,
    paired_power,
    plan_pair,
    users_needed,
)
from rankmetrics.stats.comparison import rank_intervals, ranks

STATSMODELS = TTestPower()


# ----- power against statsmodels ------------------------------------------------------------


GRID = [(effect, users, alpha) for effect in (0.01, 0.05, 0.2, 0.5, 1.3)
        for users in (2, 5, 30, 200, 3000) for alpha in (0.05, 0.01, 0.05 / 6)]


def statsmodels_power(effect, users, alpha):
    return STATSMODELS.power(effect_size=effect, nobs=users, alpha=alpha,
                             alternative="two-sided")


@pytest.mark.parametrize(("effect", "users", "alpha"), [
    cell for cell in GRID if math.isfinite(statsmodels_power(*cell))])
def test_power_is_statsmodels_ttestpower(effect, users, alpha):
    expected = statsmodels_power(effect, users, alpha)
    assert paired_power(effect, users, alpha) == pytest.approx(expected, rel=0, abs=1e-9)
    assert paired_power(-effect, users, alpha) == pytest.approx(expected, rel=0, abs=1e-9)


@pytest.mark.parametrize(("effect", "users", "alpha"), [
    cell for cell in GRID if not math.isfinite(statsmodels_power(*cell))])
def test_power_where_statsmodels_gives_nan(effect, users, alpha):
    """Where one of scipy's noncentral t tails is NaN (statsmodels then answers NaN), the
    other tail is scipy's and the NaN one the normal approximation, so the sum is at least
    the finite tail and at most it plus the normal tail."""
    df, shift = users - 1, effect * math.sqrt(users)
    critical = stats.t.isf(alpha / 2, df)
    upper = stats.nct.sf(critical, df, shift)
    found = paired_power(effect, users, alpha)
    assert math.isfinite(found)
    if math.isfinite(upper):
        assert upper <= found <= upper + stats.norm.cdf(-critical - shift) + 1e-12
    assert found >= 0.999  # these cells all have power close to 1


@pytest.mark.parametrize("effect", [0.02, 0.2, 0.6])
@pytest.mark.parametrize("power", [0.5, 0.8, 0.9])
def test_users_needed_is_statsmodels_solve_power_rounded_up(effect, power):
    fractional = STATSMODELS.solve_power(effect_size=effect, power=power, alpha=0.05)
    needed = users_needed(effect, power, 0.05)
    assert needed == math.ceil(fractional)
    assert paired_power(effect, needed, 0.05) >= power > paired_power(effect, needed - 1, 0.05)


@pytest.mark.parametrize("users", [10, 120, 5000])
@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_detectable_effect_is_statsmodels_solve_power(users, alpha):
    """statsmodels' own power at our answer is 0.8 to 1e-9; its solver stops earlier (its
    answer's power is 0.80000x), so the two answers agree to its tolerance."""
    found = detectable_effect(users, 0.8, alpha)
    assert statsmodels_power(found, users, alpha) == pytest.approx(0.8, abs=1e-9)
    expected = STATSMODELS.solve_power(nobs=users, power=0.8, alpha=alpha)
    assert found == pytest.approx(expected, rel=1e-4)


def test_power_stays_finite_where_the_noncentral_t_gives_nan():
    """scipy (and so statsmodels) gives NaN for some large numbers of users; the normal
    approximation takes over there and agrees with the noncentral t where both exist."""
    assert math.isnan(STATSMODELS.power(effect_size=0.05, nobs=100_000, alpha=0.05))
    assert paired_power(0.05, 100_000) == pytest.approx(1.0, abs=1e-12)
    n = 100_000
    critical = stats.t.isf(0.025, n - 1)
    exact = stats.nct.sf(critical, n - 1, 0.01 * math.sqrt(n))
    assert math.isfinite(exact)
    assert paired_power(0.01, n) == pytest.approx(exact, abs=1e-6)
    assert users_needed(0.001) == pytest.approx(7_848_863, rel=1e-5)  # (z.975 + z.8)^2 / d^2
    assert (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) ** 2 / 0.001**2 == pytest.approx(
        7_848_863, rel=1e-5)


def test_an_effect_of_zero_is_never_detected():
    assert users_needed(0.0) > 10**12
    assert paired_power(0.0, 1000, 0.05) == pytest.approx(0.05, abs=1e-12)


def test_the_stated_power_is_the_detection_rate_of_simulated_experiments():
    """Draw many experiments of the users needed for 80% power; the paired t-test should
    reject in about 80% of them."""
    rng = np.random.default_rng(7)
    effect, sd, experiments = 0.15, 0.2, 4000
    needed = users_needed(effect, 0.8, 0.05)
    differences = rng.normal(effect * sd, sd, size=(experiments, needed))
    t = differences.mean(axis=1) / (differences.std(axis=1, ddof=1) / math.sqrt(needed))
    detected = np.mean(2 * stats.t.sf(np.abs(t), needed - 1) < 0.05)
    expected = paired_power(effect, needed, 0.05)
    assert abs(detected - expected) < 3 * math.sqrt(expected * (1 - expected) / experiments)


# ----- effect sizes -------------------------------------------------------------------------


def test_effect_size_is_the_mean_over_the_sample_standard_deviation():
    rng = np.random.default_rng(1)
    d = rng.normal(0.03, 0.2, size=500)
    found = effect_size(d)
    assert found.value == pytest.approx(np.mean(d) / stats.tstd(d), rel=1e-12)
    assert found.ci_low < found.value < found.ci_high
    assert found.users == 500


def test_effect_size_interval_for_normal_differences_is_the_textbook_one():
    rng = np.random.default_rng(2)
    d = rng.normal(0.1, 1.0, size=200_000)  # skewness 0, kurtosis 3 in the limit
    found = effect_size(d)
    half = stats.norm.ppf(0.975) * math.sqrt((1 + found.value**2 / 2) / len(d))
    assert found.ci_high - found.value == pytest.approx(half, rel=0.01)


@pytest.mark.parametrize("shape", ["normal", "skewed"])
def test_effect_size_interval_covers_the_true_effect(shape):
    """Coverage in a simulation: 95% intervals should hold the true d_z about 95% of the
    time, for normal and for skewed, bounded differences like a metric's."""
    rng = np.random.default_rng(3)
    users, experiments = 400, 1500
    if shape == "normal":
        true = 0.25
        draws = rng.normal(true, 1.0, size=(experiments, users))
    else:  # a share of users gains 1, a few lose 1, the rest 0
        p_gain, p_loss = 0.2, 0.1
        mean = p_gain - p_loss
        sd = math.sqrt(p_gain + p_loss - mean**2)
        true = mean / sd
        u = rng.uniform(size=(experiments, users))
        draws = np.where(u < p_gain, 1.0, np.where(u < p_gain + p_loss, -1.0, 0.0))
    covered = np.mean([effect_size(row).ci_low <= true <= effect_size(row).ci_high
                       for row in draws])
    assert abs(covered - 0.95) < 3 * math.sqrt(0.95 * 0.05 / experiments)


def test_effect_size_of_constant_differences_is_zero():
    found = effect_size(np.full(10, 0.1))
    assert (found.value, found.ci_low, found.ci_high) == (0.0, 0.0, 0.0)


def test_effect_size_words_follow_cohen():
    assert [effect_size_words(x) for x in (0.0, 0.19, 0.2, 0.49, 0.5, 0.79, 0.8, -2)] == [
        "negligible", "negligible", "small", "small", "medium", "medium", "large", "large"]


def test_the_pairs_table_carries_the_effect_size_interval():
    rng = np.random.default_rng(4)
    a = rng.uniform(size=300)
    values = pd.DataFrame({"A": a, "B": a + rng.normal(0.05, 0.2, size=300)})
    row = paired_comparison(values, n_bootstrap=50).iloc[0]
    found = effect_size(values["B"].to_numpy() - values["A"].to_numpy())
    assert (row.effect_size, row.effect_low, row.effect_high) == pytest.approx(
        (found.value, found.ci_low, found.ci_high), rel=1e-12)
    flipped = compare_models(values, n_bootstrap=50, n_permutations=100).pair("B", "A")
    assert (flipped.effect_low, flipped.effect_high) == pytest.approx(
        (-found.ci_high, -found.ci_low), rel=1e-12)


# ----- planning a pair ----------------------------------------------------------------------


def test_plan_uses_the_strictest_level_of_the_correction():
    rng = np.random.default_rng(5)
    a = rng.uniform(size=1000)
    b = a + rng.normal(0.01, 0.15, size=1000)
    plan = plan_pair(a, b, power=0.8, confidence=0.95, pairs=6)
    d = b - a
    assert plan.alpha == pytest.approx(0.05 / 6)
    assert plan.sd == pytest.approx(stats.tstd(d), rel=1e-12)
    assert statsmodels_power(plan.detectable / plan.sd, 1000, 0.05 / 6) == pytest.approx(
        0.8, abs=1e-9)
    assert plan.observed_power == pytest.approx(
        STATSMODELS.power(effect_size=np.mean(d) / stats.tstd(d), nobs=1000, alpha=0.05 / 6),
        abs=1e-9)
    lift = 0.01
    assert plan.users_for_lift(lift) == math.ceil(STATSMODELS.solve_power(
        effect_size=lift * np.mean(a) / plan.sd, power=0.8, alpha=0.05 / 6))
    assert plan.detectable_lift == pytest.approx(plan.detectable / np.mean(a))
    # with these users, the detectable difference needs exactly these users (or one fewer)
    assert plan.users_for_difference(plan.detectable) in (999, 1000)


def test_plan_refuses_unpaired_values():
    with pytest.raises(ValueError, match="same users"):
        plan_pair(np.zeros(3), np.zeros(4))


# ----- rank intervals -----------------------------------------------------------------------


def test_equal_means_share_the_better_rank():
    assert ranks(np.array([0.5, 0.7, 0.5, 0.1])).tolist() == [2, 1, 2, 4]
    assert ranks(np.array([[1.0, 2.0], [2.0, 2.0]])).tolist() == [[2, 1], [1, 1]]
    assert ranks(np.array([1 - 2 / 3, 1 / 3])).tolist() == [1, 1]


def test_rank_interval_holds_the_observed_rank():
    boot = np.array([[0.2, 0.1]] * 100)  # every resample puts the first model first
    rank, low, high = rank_intervals(np.array([0.1, 0.2]), boot, 0.95)
    assert rank.tolist() == [2, 1]
    assert low.tolist() == [1, 1] and high.tolist() == [2, 2]


def test_rank_intervals_cover_known_ranks():
    """Four models with known means; over many simulated user samples each model's 95% rank
    interval holds its true rank at least about 95% of the time."""
    rng = np.random.default_rng(6)
    true_means = np.array([0.30, 0.31, 0.34, 0.40])
    true_ranks = ranks(true_means)
    users, experiments = 300, 150
    covered = np.zeros(len(true_means))
    for i in range(experiments):
        base = rng.normal(0, 0.15, size=(users, 1))  # users differ, models move together
        values = pd.DataFrame(true_means + base + rng.normal(0, 0.1, size=(users, 4)),
                              columns=list("ABCD"))
        models = compare_models(values, test="t", n_bootstrap=300, seed=i).models
        by_model = models.set_index("model").loc[list("ABCD")]
        covered += ((by_model["rank_low"] <= true_ranks)
                    & (true_ranks <= by_model["rank_high"])).to_numpy()
    rate = covered / experiments
    assert (rate >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / experiments)).all(), rate


def test_rank_text_and_tied_for_first():
    rng = np.random.default_rng(8)
    base = rng.uniform(size=200)
    values = pd.DataFrame({"A": base, "B": base + 0.3, "C": base + 0.3 + rng.normal(0, 0.05, 200)})
    found = compare_models(values, n_bootstrap=200, n_permutations=200)
    assert found.rank_text("A") == "ranked 3 of 3"
    assert set(found.tied_for_first()) == {"B", "C"}
    assert found.rank_text("B") == found.rank_text("C") == "ranked 1-2 of 3"
    leaders, single = found.leaders()
    assert set(leaders) == {"B", "C"} and not single
    with pytest.raises(ValueError, match="No model 'Z'"):
        found.rank_text("Z")


def test_leaders_include_every_model_whose_rank_interval_reaches_first():
    """A pair's test can be significant while the bootstrap still puts the runner-up first
    in some resamples; the leader is then not said to be best."""
    rng = np.random.default_rng(9)
    for seed in range(30):
        base = rng.uniform(size=60)
        values = pd.DataFrame({"A": base, "B": base + rng.normal(0.02, 0.07, 60)})
        found = compare_models(values, n_bootstrap=200, n_permutations=200, seed=seed)
        leaders, single = found.leaders()
        assert set(found.tied_for_first()) <= set(leaders)
        if single:
            assert found.tied_for_first() == leaders
