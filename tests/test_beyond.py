"""Beyond-accuracy metrics: hand-computed values for each metric and option, invariants on
random data, the fast personalization against every pair of users, and the formulas of the
libraries whose definitions match under the stated options."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmetrics import evaluate
from rankmetrics.beyond import BeyondOptions
from rankmetrics.io import interactions_from_dataframe
from rankmetrics.metrics import BEYOND_METRICS, LIST_METRICS, declared

# Training: x saw a twice and b; y saw a and c; z saw a and d.
#   popularity by interactions: a=4, b=1, c=1, d=1 (7 interactions); by users: a=3, b=c=d=1.
# Catalogue (default): the training items a, b, c, d. e is recommended but never trained on.
# Lists:  u1: a, b, e    u2: a, c    u3: d, a, b
TRAIN = pd.DataFrame({"user": list("xxxyyzz"), "item": list("aabacad")})
TRUTH = pd.DataFrame({"user": ["u1", "u1", "u2", "u3"], "item": list("aecd"), "rating": 1})
RUN = pd.DataFrame({"user": ["u1"] * 3 + ["u2"] * 2 + ["u3"] * 3,
                    "item": list("abe") + list("ac") + list("dab"),
                    "score": [3, 2, 1, 3, 2, 3, 2, 1]})
# Genres: a {x, y}, b {y}, c {z}, d none; e is not in the file (no genres either).
GENRES = pd.DataFrame({"item": list("abcd"), "genres": [("x", "y"), ("y",), ("z",), None]})
LOG2_7, LOG2_7_4 = math.log2(7), math.log2(7 / 4)


def beyond(**options):
    seen = interactions_from_dataframe(TRAIN, name="train")
    attributes = options.pop("item_attributes", GENRES)
    return evaluate(TRUTH, {"m": RUN}, max_cutoff=3, interactions=seen,
                    item_attributes=attributes, **options)


def curve(metric: str, **options) -> list[float]:
    ev = beyond(**options)
    values = ev.beyond.curve("m", metric)
    return [round(float(v), 6) for v in values]


def per_user(metric: str, **options) -> dict[str, list[float]]:
    frame = beyond(**options).per_user("m", metric)
    return {user: [round(float(v), 6) for v in row] for user, row in frame.iterrows()}


def close(values: list[float]) -> list[float]:
    return [round(v, 6) for v in values]


# ----- system metrics -----------------------------------------------------------------------

def test_coverage():
    # K=1: a, a, d -> {a, d} of 4; K=2 adds b, c -> 4 of 4; K=3 adds e, outside the catalogue
    assert curve("coverage") == close([2 / 4, 4 / 4, 4 / 4])


def test_coverage_of_an_explicit_catalogue():
    # catalogue a, b, c, d, e, f: K=1 {a, d} = 2/6; K=2 {a, b, c, d} = 4/6; K=3 + e = 5/6
    assert curve("coverage", catalogue=list("abcdef")) == close([2 / 6, 4 / 6, 5 / 6])


def test_catalogue_all_without_interactions():
    # every item in any file: a..e (5): K=1 2/5, K=2 4/5, K=3 5/5
    ev = evaluate(TRUTH, {"m": RUN}, max_cutoff=3, catalogue="all")
    assert close(list(ev.beyond.curve("m", "coverage"))) == close([2 / 5, 4 / 5, 1.0])
    assert ev.beyond.choices()["catalogue"].startswith("every item in any file")
    assert ev.beyond.metrics == ("coverage", "gini", "exposure_gini", "entropy",
                                   "personalization")


def test_gini_over_the_catalogue():
    # counts sorted ascending; G = sum_j (2j - n - 1) c_j / (n sum c), n = 4
    # K=1: [0, 0, 1, 2]  -> (-3*0 - 1*0 + 1*1 + 3*2) / (4 * 3) = 7/12
    # K=2: [1, 1, 1, 3]  -> (-3 - 1 + 1 + 9) / (4 * 6) = 6/24
    # K=3: [1, 1, 2, 3]  -> (-3 - 1 + 2 + 9) / (4 * 7) = 7/28 (e is outside the catalogue)
    assert curve("gini") == close([7 / 12, 6 / 24, 7 / 28])


def test_gini_over_recommended_items_only():
    # K=1: [1, 2], n = 2 -> (-1*1 + 1*2) / (2 * 3) = 1/6; K=2, K=3: every item recommended
    assert curve("gini", beyond_options=BeyondOptions(distribution="recommended")) == close(
        [1 / 6, 6 / 24, 7 / 28])


def test_normalized_entropy():
    # K=1: shares 2/3, 1/3 over n = 4 items: -(2/3 ln 2/3 + 1/3 ln 1/3) / ln 4
    # K=2: 3/6, 1/6, 1/6, 1/6; K=3: 3/7, 2/7, 1/7, 1/7
    def h(counts, n):
        shares = np.array(counts) / sum(counts)
        return float(-(shares * np.log(shares)).sum() / math.log(n))
    assert curve("entropy") == close([h([2, 1], 4), h([3, 1, 1, 1], 4), h([3, 2, 1, 1], 4)])
    recommended = BeyondOptions(distribution="recommended")
    assert curve("entropy", beyond_options=recommended)[0] == round(h([2, 1], 2), 6)


def test_personalization():
    # pairs (u1,u2), (u1,u3), (u2,u3); overlap / K, then 1 - mean
    # K=1: a|a, a|d, a|d -> 1, 0, 0 -> 1 - (1/3)/1
    # K=2: {a,b}{a,c} 1, {a,b}{d,a} 1, {a,c}{d,a} 1 -> 1 - 1/2
    # K=3: {a,b,e}{a,c} 1, {a,b,e}{d,a,b} 2, {a,c}{d,a,b} 1 -> 1 - (4/3)/3
    assert curve("personalization") == close([1 - 1 / 3, 1 - 1 / 2, 1 - 4 / 9])


def test_personalization_past_the_longest_list_divides_by_the_larger_k():
    ev = evaluate(TRUTH, {"m": RUN}, max_cutoff=5, catalogue="all")
    # K=4, 5: the same overlaps, 4/3 on average, over K slots
    assert close(list(ev.beyond.curve("m", "personalization"))[3:]) == close(
        [1 - (4 / 3) / 4, 1 - (4 / 3) / 5])


def test_personalization_of_the_same_short_list_for_everyone_is_what_its_help_says():
    truth = pd.DataFrame({"user": ["u1", "u2", "u3"], "item": ["a"] * 3, "rating": [1] * 3})
    same = pd.DataFrame({"user": [u for u in ("u1", "u2", "u3") for _ in range(5)],
                         "item": list("abcde") * 3, "score": [5, 4, 3, 2, 1] * 3})
    ev = evaluate(truth, {"m": same}, max_cutoff=10, catalogue="all")
    values = ev.beyond.curve("m", "personalization")
    assert values[4] == 0.0 and values[9] == 0.5  # the same 5 items: 1 - 5/10 at K = 10
    description = declared("personalization").description
    assert "0 when everyone gets the same K items" in description
    assert "the same 5 items gives 0.5 at K = 10" in description


# ----- popularity ---------------------------------------------------------------------------

def test_arp_by_interactions_and_by_users():
    # popularity a=4, b=1, c=1, d=1, e=0 (interactions)
    assert per_user("arp") == {"u1": [4, 2.5, round(5 / 3, 6)], "u2": [4, 2.5, 2.5],
                               "u3": [1, 2.5, 2]}
    # distinct users: a=3, b=c=d=1, e=0
    users = BeyondOptions(popularity="users")
    assert per_user("arp", beyond_options=users)["u1"] == close([3, 2, 4 / 3])
    # the mean over users: K=1 (4 + 4 + 1) / 3
    assert curve("arp")[0] == 3.0


def test_long_tail_short_head():
    # popularity a=4, b, c, d = 1 (ties in order of appearance); 80% of 7 = 5.6:
    # cumulative 4, 5, 6 -> short head a, b, c; long tail d and every other item (e)
    assert per_user("aplt") == {"u1": [0, 0, round(1 / 3, 6)], "u2": [0, 0, 0],
                                "u3": [1, 0.5, round(1 / 3, 6)]}
    assert per_user("aclt") == {"u1": [0, 0, 1], "u2": [0, 0, 0], "u3": [1, 1, 1]}


def test_long_tail_bottom_items():
    # the least popular half of a, b, c, d: c and d (and e, outside the short head a, b)
    half = BeyondOptions(long_tail="bottom_items", long_tail_share=0.5)
    assert per_user("aclt", beyond_options=half) == {"u1": [0, 0, 1], "u2": [0, 1, 1],
                                                     "u3": [1, 1, 1]}


def test_short_head_share():
    # 50% of 7 = 3.5: a alone (4) holds it; b, c, d, e are the long tail
    half = BeyondOptions(long_tail_share=0.5)
    assert per_user("aclt", beyond_options=half) == {"u1": [0, 1, 2], "u2": [0, 1, 1],
                                                     "u3": [1, 1, 2]}


def test_novelty_by_interactions():
    # p(a) = 4/7, p(b) = p(c) = p(d) = 1/7, e unseen counts as seen once: 1/7
    assert per_user("novelty")["u1"] == close(
        [LOG2_7_4, (LOG2_7_4 + LOG2_7) / 2, (LOG2_7_4 + 2 * LOG2_7) / 3])


def test_novelty_by_users():
    # p(a) = 3/3 users, p(b) = 1/3, e unseen: 1/3
    users = BeyondOptions(popularity="users")
    assert per_user("novelty", beyond_options=users)["u1"] == close(
        [0.0, math.log2(3) / 2, 2 * math.log2(3) / 3])


def test_long_tail_accuracy():
    # long tail d, e: u1's relevant a, e -> e (rank 3); u2's c is in the head (skipped);
    # u3's d at rank 1
    assert curve("recall_long_tail") == [0.5, 0.5, 1.0]
    # NDCG: u1 1/log2(4) over an ideal of 1 at K=3 (0 before); u3: 1
    assert curve("ndcg_long_tail") == close([0.5, 0.5, (0.5 + 1) / 2])
    assert beyond().beyond.users("m", "recall_long_tail") == 2


# ----- diversity ----------------------------------------------------------------------------

def test_ild_jaccard():
    # d(a,b) = 1 - 1/2; d(a,c) = 1; anything against d or e (no genres) = 1
    # u1 a, b, e: K=2 0.5; K=3 (0.5 + 1 + 1) / 3.  u2 a, c: 1.  u3 d, a, b: 1, (1 + 1 + .5)/3
    # K=1: no pair, 0
    assert per_user("ild") == {"u1": [0, 0.5, round(2.5 / 3, 6)], "u2": [0, 1, 1],
                               "u3": [0, 1, round(2.5 / 3, 6)]}


def test_ild_cosine_on_numeric_features():
    # a (1, 0), b (1, 1), c (0, 1): d(a, b) = 1 - 1/sqrt(2); e has no features: distance 1
    features = pd.DataFrame({"item": list("abc"), "f1": [1.0, 1.0, 0.0], "f2": [0.0, 1.0, 1.0]})
    values = per_user("ild", item_attributes=features)
    assert values["u1"] == close([0, 1 - 1 / math.sqrt(2), (1 - 1 / math.sqrt(2) + 2) / 3])
    assert values["u2"] == [0, 1, 1]  # a . c = 0
    assert "categories" not in beyond(item_attributes=features).beyond.metrics


def test_distinct_categories():
    # u1 a {x,y}, b {y}, e: 2, 2, 2.  u2 a, c {z}: 2, 3.  u3 d (none), a, b: 0, 2, 2
    assert per_user("categories") == {"u1": [2, 2, 2], "u2": [2, 3, 3], "u3": [0, 2, 2]}


# ----- where per-user values go -------------------------------------------------------------

def test_per_user_beyond_metrics_work_like_accuracy_metrics():
    ev = beyond()
    assert ev.paired("arp", 2)["m"].tolist() == [2.5, 2.5, 2.5]
    bands = ev.confidence_bands(["novelty", "ndcg"], cutoffs=[2], n_bootstrap=50)
    assert set(bands["metric"]) == {"novelty", "ndcg"}
    table = ev.summary(["ndcg", "ild"], [3])
    assert table.set_index("metric").loc["ild", "value"] == pytest.approx((2.5 / 3 + 1 + 2.5 / 3)
                                                                          / 3)
    with pytest.raises(ValueError, match="metric"):
        evaluate(TRUTH, {"m": RUN}, max_cutoff=3).curve("m", "arp")


def test_system_bands_hold_the_value_on_every_user():
    bands = beyond().beyond.system_bands(["coverage", "gini", "personalization"], cutoff=2,
                                         n_bootstrap=200).set_index("metric")
    assert bands.loc["coverage", "mean"] == 1.0
    assert (bands["ci_low"] <= bands["mean"] + 1e-12).all()
    assert (bands["mean"] <= bands["ci_high"] + 1e-12).all()


def test_popularity_deciles():
    # catalogue by popularity: a, b, c, d -> deciles 1, 3, 6, 8 (4 items over 10 deciles)
    # recommended at K=1: a, a, d; relevant in the ground truth: a, c, d (e is outside)
    table = beyond().beyond.popularity_deciles(1).pivot(index="decile", columns="source",
                                                        values="share")
    assert table["m"].loc[[1, 8]].tolist() == [2 / 3, 1 / 3]
    assert table["ground truth"].loc[[1, 6, 8]].tolist() == [1 / 3, 1 / 3, 1 / 3]


def test_choices_are_stated():
    choices = beyond().beyond.choices()
    assert choices["catalogue"] == "the items in the training interactions"
    assert choices["catalogue_items"] == 4 and choices["long_tail_items"] == 1
    assert choices["popularity"] == "interactions" and choices["ild_distance"] == "jaccard"


@pytest.mark.parametrize(("options", "message"), [
    ({"popularity": "views"}, "popularity"),
    ({"long_tail_share": 1.0}, "long_tail_share"),
    ({"distribution": "all"}, "distribution"),
])
def test_bad_options_name_the_argument(options, message):
    with pytest.raises(ValueError, match=message):
        BeyondOptions(**options)


def test_bad_catalogue_names_the_argument():
    with pytest.raises(ValueError, match="catalogue"):
        evaluate(TRUTH, {"m": RUN}, catalogue="everything")
    with pytest.raises(ValueError, match="training interactions"):
        evaluate(TRUTH, {"m": RUN}, catalogue="interactions")


# ----- invariants on random data ------------------------------------------------------------

ITEMS = [f"i{n}" for n in range(9)]


@st.composite
def lists(draw):
    """2-6 users with lists of 0-5 distinct items out of 9."""
    rows = []
    for number in range(draw(st.integers(2, 6))):
        listed = draw(st.lists(st.sampled_from(ITEMS), max_size=5, unique=True))
        rows += [(f"u{number}", item, float(-rank)) for rank, item in enumerate(listed)]
    truth = pd.DataFrame({"user": [f"u{n}" for n in range(6)], "item": "i0", "rating": 1})
    return truth, pd.DataFrame(rows, columns=["user", "item", "score"])


def brute_personalization(run: pd.DataFrame, cutoff: int) -> float:
    tops = [set(group.sort_values("score", ascending=False)["item"][:cutoff])
            for _, group in run.groupby("user")]
    pairs = list(itertools.combinations(tops, 2))
    return 1 - np.mean([len(a & b) / cutoff for a, b in pairs]) if pairs else np.nan


@settings(max_examples=40, deadline=None)
@given(lists())
def test_fast_personalization_equals_every_pair_of_users(data):
    truth, run = data
    if run.empty:
        return
    ev = evaluate(truth, {"m": run}, max_cutoff=5, catalogue=ITEMS)
    fast = ev.beyond.curve("m", "personalization")
    for cutoff in range(1, 6):
        expected = brute_personalization(run, cutoff)
        if np.isnan(expected):
            assert np.isnan(fast[cutoff - 1])
        else:
            assert fast[cutoff - 1] == pytest.approx(expected, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(lists())
def test_bounds(data):
    truth, run = data
    if run.empty:
        return
    ev = evaluate(truth, {"m": run}, max_cutoff=5, catalogue=ITEMS)
    n = len(ITEMS)
    for metric in ("coverage", "entropy"):
        values = ev.beyond.curve("m", metric)
        assert ((values >= 0) & (values <= 1 + 1e-12)).all()
    gini = ev.beyond.curve("m", "gini")
    assert ((gini >= 0) & (gini <= 1 - 1 / n + 1e-12)).all()


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=5, unique=True),
       st.integers(2, 6))
def test_the_same_list_for_everyone(items, n_users):
    users = [f"u{n}" for n in range(n_users)]
    run = pd.DataFrame([(user, item, float(-rank)) for user in users
                        for rank, item in enumerate(items)], columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": users, "item": "i0", "rating": 1})
    ev = evaluate(truth, {"m": run}, max_cutoff=len(items), catalogue=ITEMS)
    cutoffs = np.arange(1, len(items) + 1)
    assert np.allclose(ev.beyond.curve("m", "personalization"), 0.0)
    assert np.allclose(ev.beyond.curve("m", "coverage"), cutoffs / len(ITEMS))


@settings(max_examples=30, deadline=None)
@given(lists(), st.lists(st.sets(st.sampled_from("xyz")), min_size=9, max_size=9))
def test_per_user_bounds(data, genres):
    truth, run = data
    if run.empty:
        return
    attributes = pd.DataFrame({"item": ITEMS, "genres": [tuple(sorted(g)) or None
                                                         for g in genres]})
    train = pd.DataFrame({"user": ["t"] * 9 + ["s"] * 3, "item": ITEMS + ITEMS[:3]})
    ev = evaluate(truth, {"m": run}, max_cutoff=5, interactions=train,
                  item_attributes=attributes)
    for metric in ("aplt", "ild"):
        values = ev.per_user("m", metric).to_numpy()
        assert ((values >= 0) & (values <= 1 + 1e-12)).all()
    assert (ev.per_user("m", "categories").to_numpy() <= 3).all()


# one word of bits; 64 categories, and none a category of its own, take two words: then, as
# for 70, a table of the distinct sets
@pytest.mark.parametrize("n_categories", [12, 63, 64, 70])
def test_ild_jaccard_against_every_pair(n_categories):
    rng = np.random.default_rng(n_categories)
    items = [f"i{n}" for n in range(40)]
    genres = {item: frozenset(f"g{g}" for g in rng.choice(n_categories, rng.integers(0, 4),
                                                            replace=False)) for item in items}
    for n in range(29):  # every category is some item's
        genres[items[n]] |= {f"g{g}" for g in (n, n + 29, n + 58) if g < n_categories}
    rows = [(f"u{u}", item, float(-rank)) for u in range(30)
            for rank, item in enumerate(rng.choice(items, rng.integers(0, 12), replace=False))]
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": [f"u{u}" for u in range(30)], "item": "i0", "rating": 1})
    attributes = pd.DataFrame({"item": items[:35],  # five items without genres
                               "genres": [tuple(sorted(genres[i])) or None for i in items[:35]]})
    ev = evaluate(truth, {"m": run}, max_cutoff=11, item_attributes=attributes)
    assert ev.beyond.facts.attributes.category_bits.shape[1] == (1 if n_categories < 64 else 2)
    values = ev.per_user("m", "ild")
    known = {item: genres[item] for item in items[:35]}

    def distance(a, b):
        first, second = known.get(a, frozenset()), known.get(b, frozenset())
        union = first | second
        return 1 - len(first & second) / len(union) if union else 0.0

    for user, group in run.groupby("user"):
        listed = group["item"].tolist()
        for cutoff in range(1, 12):
            top = listed[:cutoff]
            pairs = list(itertools.combinations(top, 2))
            expected = np.mean([distance(a, b) for a, b in pairs]) if pairs else 0.0
            assert values.loc[user, cutoff] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_summed_means_equal_the_mean_of_per_user_values(seed):
    """ARP, APLT, ACLT, novelty and categories are averaged from sums over users (no users x
    K matrix of values): the same as the mean of every user's values, with lists of 0 to 12
    items, K past the longest list, and for a part of the users; categories in one word of
    bits or in two."""
    rng = np.random.default_rng(seed)
    items = [f"i{n}" for n in range(30)]
    train = pd.DataFrame({"user": rng.integers(0, 20, 200).astype(str),
                          "item": np.array(items)[rng.zipf(1.5, 200) % 30]})
    rows = [(f"u{u}", item, float(-rank)) for u in range(40)
            for rank, item in enumerate(rng.choice(items, rng.integers(0, 13), replace=False))]
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": [f"u{u}" for u in range(40)], "item": "i0", "rating": 1})
    words = 1 + seed % 2  # more than 64 categories for an odd seed
    genres = pd.DataFrame({"item": items[:25], "genres": [
        tuple(f"g{g}" for g in rng.choice(10 * words ** 4, rng.integers(4 * words - 4, 4 * words),
                                          replace=False))
        or None for _ in range(25)]})
    ev = evaluate(truth, {"m": run}, max_cutoff=15, interactions=train, item_attributes=genres)
    assert ev.beyond.facts.attributes.category_bits.shape[1] == words
    part = rng.random(40) < 0.5
    for metric in ("arp", "aplt", "aclt", "novelty", "categories"):
        values = ev.per_user("m", metric)
        assert ev.curve("m", metric) == pytest.approx(values.mean(axis=0).to_numpy(),
                                                      abs=1e-12)
        within = ev.means([metric], within=part)["m"][metric]
        chosen = values.loc[ev.truth.users[part]]
        assert within == pytest.approx(chosen.mean(axis=0).to_numpy(), abs=1e-12)


# ----- the libraries' definitions, transcribed ----------------------------------------------

def _random_full_lists(seed: int):
    rng = np.random.default_rng(seed)
    items = [f"i{n}" for n in range(30)]
    train = pd.DataFrame({"user": rng.integers(0, 40, 430).astype(str),  # every item once
                          "item": np.concatenate([items, np.array(items)[rng.zipf(1.6, 400)
                                                                         % 30]])})
    rows = [(f"u{u}", items[i], float(-r)) for u in range(25)
            for r, i in enumerate(rng.choice(30, 10, replace=False))]
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": [f"u{u}" for u in range(25)], "item": "i0", "rating": 1})
    ev = evaluate(truth, {"m": run}, max_cutoff=10, interactions=train)
    matrix = np.array([[row[1] for row in rows[u * 10:(u + 1) * 10]] for u in range(25)])
    return ev, train, matrix


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_recbole_gini_index_and_average_popularity(seed):
    """RecBole's GiniIndex (counts over num_items, zeros first) and AveragePopularity
    (training interaction counts, cumulative mean) on full lists."""
    ev, train, matrix = _random_full_lists(seed)
    num_items = ev.beyond.facts.catalogue_size
    counts = train["item"].value_counts().to_dict()
    for k in (1, 5, 10):
        top = matrix[:, :k]
        sorted_count = np.array(sorted(pd.Series(top.ravel()).value_counts().to_list()))
        idx = np.arange(num_items - len(sorted_count) + 1, num_items + 1)
        recbole_gini = np.sum((2 * idx - num_items - 1) * sorted_count) / top.size / num_items
        assert ev.beyond.curve("m", "gini")[k - 1] == pytest.approx(recbole_gini, abs=1e-12)
        popularity = np.vectorize(lambda item: counts.get(item, 0))(top)
        recbole_arp = (popularity.cumsum(axis=1) / np.arange(1, k + 1)).mean(axis=0)[-1]
        assert ev.curve("m", "arp")[k - 1] == pytest.approx(recbole_arp, abs=1e-12)


@pytest.mark.parametrize("seed", [1, 2])
def test_elliot_gini_is_one_minus_a_rescaled_gini(seed):
    """Elliot's Gini: 1 - sum_j (2(j + n - m) + 1 - n - 1) p_j / (n - 1), p_j the shares of
    the m recommended items ascending: 1 - G n / (n - 1) of ours over the catalogue."""
    ev, _, matrix = _random_full_lists(seed)
    n = ev.beyond.facts.catalogue_size
    shares = np.sort(pd.Series(matrix[:, :5].ravel()).value_counts().to_numpy()) / matrix[:,
                                                                                      :5].size
    m = len(shares)
    elliot = 1 - sum((2 * (j + (n - m) + 1) - n - 1) * p for j, p in enumerate(shares)) / (n - 1)
    assert elliot == pytest.approx(1 - ev.beyond.curve("m", "gini")[4] * n / (n - 1), abs=1e-12)


@pytest.mark.parametrize("seed", [1, 2])
def test_microsoft_recommenders_novelty(seed):
    """Microsoft Recommenders: -log2(interactions of the item / interactions), averaged over
    every recommendation; with full lists, the mean over users of our per-user novelty."""
    ev, train, matrix = _random_full_lists(seed)
    item_novelty = -np.log2(train["item"].value_counts() / len(train))
    assert ev.curve("m", "novelty")[9] == pytest.approx(
        item_novelty[pd.Series(matrix.ravel())].mean(), abs=1e-12)


def test_every_metric_is_declared_with_words():
    for metric in BEYOND_METRICS.values():
        assert metric.description and metric.formula and metric.label
        assert metric.help().startswith(f"**{metric.label}**")
    # what a higher value means, for every metric compared user by user
    for name in LIST_METRICS:
        assert BEYOND_METRICS[name].higher.startswith("recommends ")


@pytest.mark.parametrize("seed", [21, 22])
def test_ild_jaccard_with_one_category_an_item_against_every_pair(seed):
    """One category an item (some items none): pairs are alike when they share it, and
    counted without comparing them."""
    rng = np.random.default_rng(seed)
    items = [f"i{n}" for n in range(30)]
    category = {item: f"c{rng.integers(0, 5)}" for item in items[:25]}  # i25.. have none
    rows = [(f"u{u}", item, float(-rank)) for u in range(25)
            for rank, item in enumerate(rng.choice(items, rng.integers(0, 13), replace=False))]
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": [f"u{u}" for u in range(25)], "item": "i0", "rating": 1})
    attributes = pd.DataFrame({"item": items[:27], "genre": [category.get(i) for i in
                                                             items[:27]]})
    ev = evaluate(truth, {"m": run}, max_cutoff=13, item_attributes=attributes)
    values = ev.per_user("m", "ild")
    for user, group in run.groupby("user"):
        listed = group["item"].tolist()
        for cutoff in range(1, 14):
            pairs = list(itertools.combinations(listed[:cutoff], 2))
            # Jaccard distance of one category each: 0 when the same (or both none), else 1
            expected = (np.mean([category.get(a) != category.get(b) for a, b in pairs])
                        if pairs else 0.0)
            assert values.loc[user, cutoff] == pytest.approx(expected, abs=1e-12)
