"""Values equal in exact arithmetic are equal: their ties are restored before anything is
ranked, counted or ordered.

Per-user values are ratios computed in floating point, so values equal in exact arithmetic can
come out as different floats: precision@3's ``1 - 2/3`` is 0.33333333333333337 and ``1/3 - 0``
0.3333333333333333. Each test builds such values from integers or fractions, whose ties are
known, and checks the outcome against scipy (or a hand count) on the exact values; each also
checks that the floats as computed would give another outcome, so that it tests something.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from rankmetrics import evaluate
from rankmetrics.choosing_k.order import (
    crossovers,
    leaderboard,
    order_agreement,
    same_order_span,
)
from rankmetrics.choosing_k.significance import leaders_over_k, significance_over_k
from rankmetrics.io import attributes_from_dataframe
from rankmetrics.report.decision import (
    describe_across_cutoffs,
    leaders_by_cutoff,
    verdict,
)
from rankmetrics.report.verdict import differences_from
from rankmetrics.segments import compare_segments, segment_users
from rankmetrics.stats import (
    EQUALITY_PRECISION,
    compare_models,
    comparison_warnings,
    describe_pair,
    paired_comparison,
    paired_differences,
    restore_ties,
    significance_groups,
)
from rankmetrics.users import biggest_differences, head_to_head, outcome_counts

FAST = {"n_bootstrap": 20, "n_permutations": 200}

# Two models' hits in their top 7 on 60 users, as (hits of A, hits of B, users): 21 users
# tie, and the per-user differences of precision@7 take 1, 2 or 3 different floats for the
# same difference in hits (for instance 2/7 - 1/7 and 6/7 - 5/7).
PRECISION_AT_7 = [
    (4, 0, 1), (5, 2, 1), (2, 0, 1), (3, 1, 1), (5, 3, 2),
    (1, 0, 5), (2, 1, 5), (3, 2, 5), (4, 3, 4), (5, 4, 1), (6, 5, 4), (7, 6, 1),
    (0, 0, 3), (1, 1, 3), (2, 2, 3), (3, 3, 3), (4, 4, 3), (5, 5, 2), (6, 6, 2), (7, 7, 2),
    (4, 5, 1), (3, 5, 7),
]

# Precision@3 on 20 users, (hits of A, hits of B, users): B's one more hit is 1/3 - 0 or
# 1 - 2/3, two different floats; two more, 2/3 - 0 or 1 - 1/3.
PRECISION_AT_3 = [(2, 3, 6), (0, 1, 2), (1, 0, 4), (0, 2, 3), (3, 1, 2), (1, 1, 3)]

# B finds one more hit than A for 55 users (A finding 0, 3 or 6 of 7) and A five more than B
# for 11 (6 against 1): the same hits in all, so the same mean, and yet, as floats, B's mean
# is higher by 1e-16; most users are better served by B, so the Wilcoxon test is significant.
SAME_MEAN = [(0, 1, 19), (3, 4, 18), (6, 7, 18), (6, 1, 11)]


def _hits(rows: list[tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """The hits of A and of B user by user, from (hits of A, hits of B, users) rows."""
    a = np.concatenate([np.full(count, hits_a) for hits_a, _, count in rows])
    b = np.concatenate([np.full(count, hits_b) for _, hits_b, count in rows])
    return a, b


def _values(rows: list[tuple[int, int, int]], k: int) -> pd.DataFrame:
    """The per-user precision@k of A and B: hits / k."""
    a, b = _hits(rows)
    return pd.DataFrame({"A": a / k, "B": b / k},
                        index=pd.Index([f"u{i:02d}" for i in range(len(a))], name="user"))


def _evaluation(rows: list[tuple[int, int, int]], k: int):
    """An evaluation of A and B whose precision@k per user is the rows' hits / k: every user
    has k relevant items, and each model lists its hits first, then items not relevant."""
    a, b = _hits(rows)
    users = [f"u{i:02d}" for i in range(len(a))]
    truth = pd.DataFrame([(user, f"r{j}", 1) for user in users for j in range(k)],
                         columns=["user", "item", "rating"])

    def run(hits: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame([(user, f"r{j}" if j < h else f"x{j}", float(k - j))
                             for user, h in zip(users, hits, strict=True) for j in range(k)],
                            columns=["user", "item", "score"])

    return evaluate(truth, {"A": run(a), "B": run(b)}, max_cutoff=k)


def _exact(rows: list[tuple[int, int, int]], k: int) -> list[float]:
    """The per-user differences B - A computed in exact arithmetic, then made floats."""
    a, b = _hits(rows)
    return [float(Fraction(int(y), k) - Fraction(int(x), k)) for x, y in zip(a, b, strict=True)]


# ----- the rule ----------------------------------------------------------------------------


def test_differences_equal_in_exact_arithmetic_become_one_float():
    for k in (3, 7, 10, 999):
        hits_a, hits_b = np.meshgrid(np.arange(k + 1), np.arange(k + 1))
        raw = hits_b.ravel() / k - hits_a.ravel() / k
        restored = paired_differences(hits_b.ravel() / k, hits_a.ravel() / k)
        steps = (hits_b - hits_a).ravel()
        assert len(set(raw.tolist())) > len(set(steps.tolist()))  # floats break ties
        for step in set(steps.tolist()):
            assert len(set(restored[steps == step].tolist())) == 1
        np.testing.assert_array_equal(np.sign(restored), np.sign(steps))


def test_a_number_within_the_precision_of_0_is_0_and_never_minus_0():
    restored = restore_ties([0.1 + 0.2 - 0.3, 0.3 - (0.1 + 0.2), 0.5], scale=1.0)
    assert restored.tolist() == [0.0, 0.0, 0.5]
    assert not np.signbit(restored).any()


def test_the_precision_is_relative_to_the_scale():
    # each model's mean popularity of three users' lists, the same values summed in another
    # order: the floats differ by more than 1e-12, far less than 1e-12 of their size
    values = np.array([31023, 35422, 29470]) / 3
    forward = (values[0] + values[1] + values[2]) / 3
    backward = (values[2] + values[1] + values[0]) / 3
    assert abs(forward - backward) > 1e-12
    assert restore_ties([forward, backward]).tolist() == [min(forward, backward)] * 2
    # and a gap of 1e-12 between values near 1 is a tie, one of 1e-11 is not
    assert len(set(restore_ties([0.5, 0.5 + 0.8e-12, 1.0]).tolist())) == 2
    assert len(set(restore_ties([0.5, 0.5 + 1e-11, 1.0]).tolist())) == 3


def test_distinct_fractions_stay_distinct():
    values = np.array([1 / 9999, 1 / 9998, 2 / 9999, 9997 / 9998, 9998 / 9999, 1.0])
    np.testing.assert_array_equal(restore_ties(values), values)
    assert EQUALITY_PRECISION == 1e-12


def test_numbers_without_near_ties_come_back_unchanged():
    rng = np.random.default_rng(4)
    values = rng.random((1000, 3))
    values[::7, 1] = values[::7, 0]  # exact ties stay as they are
    np.testing.assert_array_equal(restore_ties(values), values)
    differences = values[:, 1] - values[:, 0]
    np.testing.assert_array_equal(paired_differences(values[:, 1], values[:, 0]), differences)


def test_each_column_on_its_own_sign_by_sign_and_nan_kept():
    near = 1 / 3 + 2e-16
    restored = restore_ties(np.array([[1 / 3, 5.0], [near, 5.0 + 1e-9], [np.nan, -np.inf],
                                      [-near, 5.0]]))
    assert restored[:, 0][[0, 1, 3]].tolist() == [1 / 3, 1 / 3, -1 / 3]
    assert np.isnan(restored[2, 0])
    assert restored[:, 1].tolist() == [5.0, 5.0 + 1e-9, -np.inf, 5.0]  # 1e-9 > 5e-12
    again = restore_ties(restored)
    np.testing.assert_array_equal(again, restored)  # restoring twice changes nothing


@settings(max_examples=200, deadline=None)
@given(k=st.integers(1, 10_000), top=st.sampled_from([1, 5000]),
       hits=st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 10**9)),
                     min_size=1, max_size=80))
def test_values_over_a_common_k_rank_and_tie_as_their_integers(k, top, hits):
    """Values i / K (metrics in [0, 1], or popularities up to 5000): the restored differences
    order, tie and sign exactly as the integer differences; when every difference is exactly
    representable (K a power of 2) they are the floats as computed."""
    a = np.array([x % (top * k + 1) for x, _ in hits])
    b = np.array([y % (top * k + 1) for _, y in hits])
    restored = paired_differences(b / k, a / k)
    steps = b - a
    np.testing.assert_array_equal(np.sign(restored), np.sign(steps))
    np.testing.assert_array_equal(sps.rankdata(restored), sps.rankdata(steps))
    np.testing.assert_array_equal(sps.rankdata(np.abs(restored)), sps.rankdata(np.abs(steps)))
    if k & (k - 1) == 0:
        np.testing.assert_array_equal(restored, b / k - a / k)


@settings(max_examples=60, deadline=None)
@given(k=st.sampled_from([2, 3, 7, 10, 16, 20]),
       hits=st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)),
                     min_size=2, max_size=70))
@example(k=3, hits=[(2, 3), (0, 1), (1, 0)])  # 1 - 2/3, 1/3 - 0 and 0 - 1/3: one rank
@example(k=10, hits=[(6, 8), (10, 8)])  # 8/10 - 6/10 and 8/10 - 1: one rank
def test_wilcoxon_on_hits_over_k_is_scipy_on_the_hits(k, hits):
    a = np.array([min(x, k) for x, _ in hits])
    b = np.array([min(y, k) for _, y in hits])
    values = pd.DataFrame({"A": a / k, "B": b / k})
    row = paired_comparison(values, test="wilcoxon", n_bootstrap=5).iloc[0]
    steps = (b - a).astype(np.float64)
    assert (int(row.wins), int(row.ties), int(row.losses)) == (
        int((steps > 0).sum()), int((steps == 0).sum()), int((steps < 0).sum()))
    if not steps.any():
        assert (row.statistic, row.p_value) == (0.0, 1.0)
        return
    expected = sps.wilcoxon(steps)
    assert row.statistic == expected.statistic
    assert row.p_value == expected.pvalue


# ----- the Wilcoxon test -------------------------------------------------------------------


@pytest.mark.parametrize("users", [20, 12])  # the normal approximation; the permutation test
def test_wilcoxon_ranks_ties_of_exact_arithmetic_as_one(users):
    values = _values(PRECISION_AT_3, 3).iloc[:users]
    exact = _exact(PRECISION_AT_3, 3)[:users]
    expected = sps.wilcoxon(exact)
    as_computed = sps.wilcoxon(values["B"], values["A"])
    assert as_computed.statistic != expected.statistic  # the floats rank them apart
    row = paired_comparison(values, test="wilcoxon", n_bootstrap=20).iloc[0]
    assert row.statistic == expected.statistic
    assert row.p_value == expected.pvalue


def test_wilcoxon_at_every_k_ranks_ties_of_exact_arithmetic_as_one():
    ev = _evaluation(PRECISION_AT_3, 3)  # 20 users: scipy's own test at each K
    over_k = significance_over_k(ev, "precision", cutoffs=[3], test="wilcoxon")
    expected = sps.wilcoxon(_exact(PRECISION_AT_3, 3))
    assert over_k["statistic"].iloc[0] == expected.statistic
    assert over_k["p_value"].iloc[0] == expected.pvalue


def test_precision_at_7_on_60_users_is_significant_once_its_ties_are_restored():
    values = _values(PRECISION_AT_7, 7)
    hits_a, hits_b = _hits(PRECISION_AT_7)
    expected = sps.wilcoxon((hits_b - hits_a).astype(np.float64))  # integers: exact ties
    as_computed = sps.wilcoxon(values["B"], values["A"])
    assert (expected.statistic, round(expected.pvalue, 4)) == (237.5, 0.0268)
    assert (as_computed.statistic, round(as_computed.pvalue, 4)) == (256.0, 0.0575)

    row = paired_comparison(values, test="wilcoxon", **FAST).iloc[0]
    assert row.statistic == expected.statistic
    assert row.p_value == expected.pvalue
    assert row.p_corrected == expected.pvalue and bool(row.significant)  # one pair: Holm = p

    comparison = compare_models(values, test="wilcoxon", **FAST)
    assert comparison.models[["model", "group"]].values.tolist() == [["A", "a"], ["B", "b"]]
    assert comparison.leaders() == (["A"], True)

    ev = _evaluation(PRECISION_AT_7, 7)  # 60 users: the normal approximation at every K
    np.testing.assert_array_equal(ev.paired("precision", 7).to_numpy(), values.to_numpy())
    over_k = significance_over_k(ev, "precision", cutoffs=[7], test="wilcoxon")
    assert over_k["statistic"].iloc[0] == expected.statistic
    assert over_k["p_value"].iloc[0] == pytest.approx(expected.pvalue, rel=1e-12)
    leaders = leaders_over_k(over_k)
    assert leaders[["best", "significantly_best"]].values.tolist() == [["A", True]]


# ----- wins, ties and losses ---------------------------------------------------------------


def _same_items_in_another_order():
    """Two models that recommend each user the same three items in another order: the same
    novelty@3 (the mean self-information of the three items), summed in another order."""
    items = [f"i{j}" for j in range(6)]
    popularity = [7, 3, 5, 11, 2, 13]
    interactions = pd.DataFrame([(f"t{n}", item) for item, count in zip(items, popularity,
                                                                         strict=True)
                                 for n in range(count)], columns=["user", "item"])
    users = [f"u{n:02d}" for n in range(30)]
    truth = pd.DataFrame({"user": users, "item": "i0", "rating": 1})
    rng = np.random.default_rng(0)
    rows_a, rows_b = [], []
    for user in users:
        chosen = rng.choice(items, 3, replace=False)
        rows_a += [(user, item, 3.0 - rank) for rank, item in enumerate(chosen)]
        rows_b += [(user, item, 3.0 - rank) for rank, item in enumerate(rng.permutation(chosen))]
    runs = {name: pd.DataFrame(rows, columns=["user", "item", "score"])
            for name, rows in (("A", rows_a), ("B", rows_b))}
    return evaluate(truth, runs, max_cutoff=3, interactions=interactions)


def test_the_same_items_in_another_order_tie_for_every_user():
    ev = _same_items_in_another_order()
    values = ev.paired("novelty", 3)
    assert (values["B"] != values["A"]).sum() > 5  # the floats differ for many users
    pairs = head_to_head(ev, "A", "B", "novelty", 3)
    assert outcome_counts(pairs) == (0, 30, 0)
    assert (pairs["difference"] == 0).all()
    assert all(part.empty for part in biggest_differences(pairs))
    for test in ("t", "wilcoxon", "randomization"):
        row = paired_comparison(values, test=test, **FAST).iloc[0]
        assert (row.wins, row.ties, row.losses) == (0, 30, 0)
        assert (row.statistic, row.p_value, row.difference, row.effect_size) == (
            0.0, 1.0, 0.0, 0.0)
        assert describe_pair(row, "Novelty@3").startswith("B and A give the same Novelty@3")
    assert any("same value for every user" in message
               for message in comparison_warnings(values))


def test_equal_gaps_of_exact_arithmetic_are_ordered_by_user():
    ev = _evaluation([(0, 1, 1), (2, 3, 1)], 3)  # u00: 1/3 - 0; u01: 1 - 2/3
    pairs = head_to_head(ev, "A", "B", "precision", 3)
    assert pairs["value_b"].iloc[1] - pairs["value_a"].iloc[1] > 1 / 3  # as floats
    assert outcome_counts(pairs) == (2, 0, 0)
    b_ahead, _ = biggest_differences(pairs)
    assert b_ahead["user"].tolist() == ["u00", "u01"]  # equal gaps: by user id
    assert b_ahead["difference"].tolist() == [1 / 3, 1 / 3]


# ----- means, leaders, letters and words ---------------------------------------------------


def test_equal_means_keep_the_model_order_and_are_a_tie():
    values = _values(SAME_MEAN, 7)
    assert values["B"].mean() > values["A"].mean()  # as floats
    comparison = compare_models(values, test="wilcoxon", **FAST)
    row = comparison.pair("A", "B")
    assert bool(row.significant) and row.difference == 0.0
    assert comparison.models["model"].tolist() == ["A", "B"]  # equal means: column order
    assert comparison.leaders() == (["A", "B"], False)
    found = verdict(comparison, "precision", 7)
    assert (found.kind, found.best, found.difference) == ("tie", "A", 0.0)
    table = differences_from(comparison, "A").set_index("model")
    assert table.loc["B", "verdict"] == "no significant difference"
    assert "their means are equal" in describe_pair(row, "Precision@7")

    ev = _evaluation(SAME_MEAN, 7)
    leaders = leaders_over_k(significance_over_k(ev, "precision", cutoffs=[7],
                                                 test="wilcoxon"))
    assert leaders[["best", "leaders", "significantly_best"]].values.tolist() == [
        ["A", ["A", "B"], False]]


def test_a_segment_with_equal_means_has_the_first_model_as_its_winner():
    ev = _evaluation(SAME_MEAN, 7)
    attributes = attributes_from_dataframe(
        pd.DataFrame({"user": ev.users, "plan": "free"}), key="user", name="plans")
    result = compare_segments(ev, segment_users(ev, "plan", attributes=attributes),
                              "precision", 7, test="wilcoxon", **FAST)
    assert result.segments[["segment", "winner", "significant"]].values.tolist() == [
        ["free", "A", False]]
    assert result.overall_winner == "A"
    rows = result.models.set_index("model")
    assert bool(rows.loc["B", "significant"]) and rows.loc["B", "difference"] == 0.0
    assert rows.loc["B", "verdict"] == "no significant difference"
    assert result.warnings == ()


def test_letters_of_equal_means_follow_the_model_order():
    # A and B have the same mean, B's float is higher; A-B, A-D, B-C and C-D differ
    means = pd.Series({"A": 0.3, "B": 0.1 + 0.2, "C": 0.25, "D": 0.2})
    different = {frozenset(pair) for pair in ("AB", "AD", "BC", "CD")}
    letters = significance_groups(means, lambda a, b: frozenset((a, b)) in different)
    assert letters.index.tolist() == ["A", "B", "C", "D"]
    assert letters.tolist() == ["a", "b", "a", "b"]


# ----- curves over K -----------------------------------------------------------------------


def _tied_curves() -> pd.DataFrame:
    """A and B: the mean popularity of the same three users' lists at K = 1..4, summed in
    opposite orders (the floats alternate which is higher by 1.8e-12); C below both."""
    sums = [[31023, 35422, 29470], [31185, 28550, 36077], [36768, 28039, 32638],
            [31125, 32570, 32669]]
    values = np.array(sums) / 3
    return pd.DataFrame({"A": [(v[0] + v[1] + v[2]) / 3 for v in values],
                         "B": [(v[2] + v[1] + v[0]) / 3 for v in values],
                         "C": [5000.0] * 4},
                        index=pd.Index([1, 2, 3, 4], name="cutoff"))


def test_curves_equal_in_exact_arithmetic_cross_nowhere():
    table = _tied_curves()
    gaps = (table["A"] - table["B"]).to_numpy()
    assert (np.abs(gaps) > 1e-12).all() and (np.sign(gaps) == [1, -1, 1, -1]).all()
    assert crossovers(table).empty
    places = leaderboard(table)
    assert places.loc[places["model"] != "C", "place"].tolist() == [1] * 8
    assert order_agreement(table, 1)["kendall_tau"].tolist() == pytest.approx([1.0] * 4)
    assert same_order_span(table, 2) == (1, 4)


def test_curves_equal_in_exact_arithmetic_share_the_lead():
    table = _tied_curves()
    leaders = leaders_by_cutoff({model: table[model].to_numpy() for model in table})
    assert leaders == [(1, ("A", "B")), (3, ("A", "B")), (4, ("A", "B"))]
    assert describe_across_cutoffs("precision", leaders).startswith("A and B share")
