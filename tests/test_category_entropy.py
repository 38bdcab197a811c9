"""Category entropy: hand-derived values at every cutoff, items with several categories or
none, short and missing lists, more than 64 categories, a plain implementation on random data,
and the same values through the library and the command line."""

from __future__ import annotations

import io
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from rankmetrics import evaluate
from rankmetrics.beyond import ItemTraits
from rankmetrics.cli import main
from rankmetrics.conventions import Conventions
from rankmetrics.metrics import ALL_METRICS, LIST_METRICS
from rankmetrics.metrics._beyond_kernels import category_entropy

# Items: p {a}, q {a, b}, r {b}, s no category, t {a, b, c}.
# Lists: u1 p, q, r, s   u2 q (shorter than K)   u3 s, p   u4 t, p   u5 nothing (no list)
GENRES = pd.DataFrame({"item": list("pqrst"),
                       "genres": [("a",), ("a", "b"), ("b",), None, ("a", "b", "c")]})
RUN = pd.DataFrame({"user": ["u1"] * 4 + ["u2"] + ["u3"] * 2 + ["u4"] * 2,
                    "item": list("pqrs") + ["q"] + list("sp") + list("tp"),
                    "score": [4, 3, 2, 1, 1, 2, 1, 2, 1]})
TRUTH = pd.DataFrame({"user": ["u1", "u2", "u3", "u4", "u5"], "item": list("pqstp"),
                      "rating": 1})


def entropy_bits(counts: list[int]) -> float:
    total = sum(counts)
    return -sum(c / total * math.log2(c / total) for c in counts if c) if total else 0.0


# at K = 1..4; u4 at K=2: a=2, b=1, c=1 of 4 memberships
EXPECTED = {
    "u1": [0.0, 0.9182958340544896, 1.0, 1.0],
    "u2": [1.0, 1.0, 1.0, 1.0],
    "u3": [0.0, 0.0, 0.0, 0.0],
    "u4": [math.log2(3), 1.5, 1.5, 1.5],
    "u5": [0.0, 0.0, 0.0, 0.0],
}


def evaluated(**options):
    return evaluate(TRUTH, {"m": RUN}, max_cutoff=4, item_attributes=GENRES, **options)


def test_the_metric_is_declared_as_a_list_metric():
    metric = ALL_METRICS["category_entropy"]
    assert "category_entropy" in LIST_METRICS
    assert list(ALL_METRICS).index("category_entropy") == list(ALL_METRICS).index(
        "categories") + 1
    assert metric.needs == "attributes" and not metric.main and metric.highest is None
    assert metric.decimals == 3 and "bits" in metric.description
    assert r"\log_2" in metric.formula


def test_hand_derived_values_at_every_cutoff():
    assert entropy_bits([2, 1]) == pytest.approx(0.9182958340544896, abs=1e-15)
    frame = evaluated().per_user("m", "category_entropy")
    found = {user: [float(v) for v in row] for user, row in frame.iterrows()}
    assert found.keys() == EXPECTED.keys()
    for user, values in EXPECTED.items():
        assert found[user] == pytest.approx(values, abs=1e-12), user


def test_the_mean_is_the_mean_of_the_per_user_values():
    ev = evaluated()
    per_user = ev.per_user("m", "category_entropy")
    expected = np.mean(list(EXPECTED.values()), axis=0)
    assert np.allclose(ev.curve("m", "category_entropy"), expected, atol=1e-12)
    assert np.allclose(ev.beyond.curve("m", "category_entropy"), per_user.mean(axis=0),
                       atol=1e-12)
    table = ev.summary(["ndcg", "category_entropy"], [2, 4]).set_index(["metric", "cutoff"])
    assert table.loc[("category_entropy", 2), "value"] == pytest.approx(expected[1], abs=1e-12)
    assert table.loc[("category_entropy", 4), "users"] == 5


def test_skipped_users_leave_the_mean():
    ev = evaluated(conventions=Conventions(missing_users="skip"))
    expected = np.mean([EXPECTED[user] for user in ("u1", "u2", "u3", "u4")], axis=0)
    assert np.allclose(ev.curve("m", "category_entropy"), expected, atol=1e-12)


def test_numeric_features_only_are_refused_and_not_offered():
    features = pd.DataFrame({"item": list("pqrst"), "f1": [1.0, 0.0, 1.0, 0.5, 0.2]})
    ev = evaluate(TRUTH, {"m": RUN}, max_cutoff=3, item_attributes=features)
    assert "category_entropy" not in ev.beyond.metrics and "ild" in ev.beyond.metrics
    traits = ItemTraits("cosine", ("f1",), unit_features=np.ones((5, 1)))
    with pytest.raises(ValueError, match="category_entropy needs item attributes with "
                       "categories"):
        category_entropy(np.zeros((1, 2), dtype=np.int64), traits)


def bits_of(categories: list[set[int]], words: int) -> np.ndarray:
    bits = np.zeros((len(categories), words), dtype=np.uint64)
    for item, held in enumerate(categories):
        for c in held:
            bits[item, c // 64] |= np.uint64(1) << np.uint64(c % 64)
    return bits


def plain(lists: np.ndarray, categories: list[set[int]]) -> np.ndarray:
    out = np.zeros(lists.shape)
    for u, row in enumerate(lists):
        counts: Counter[int] = Counter()
        for k, item in enumerate(row):
            if item >= 0:
                counts.update(categories[item])
            out[u, k] = entropy_bits(list(counts.values()))
    return out


def test_more_than_64_categories_in_several_words():
    # item 0 {0, 64, 130}, item 1 {64}, item 2 {130, 131}, item 3 {63}
    categories = [{0, 64, 130}, {64}, {130, 131}, {63}]
    traits = ItemTraits("jaccard", ("genres",), category_bits=bits_of(categories, 3))
    lists = np.array([[0, 1, 2, 3], [3, -1, -1, -1], [-1, -1, -1, -1]])
    found = category_entropy(lists, traits)
    assert found.dtype == np.float64 and found.shape == (3, 4)
    assert found[0].tolist() == pytest.approx(
        [math.log2(3), entropy_bits([1, 2, 1]), entropy_bits([1, 2, 2, 1]),
         entropy_bits([1, 2, 2, 1, 1])], abs=1e-12)
    assert found[1:].tolist() == [[0.0] * 4] * 2


@pytest.mark.parametrize("n_categories", [5, 64, 150])
def test_matches_a_plain_implementation_on_random_data(n_categories):
    rng = np.random.default_rng(n_categories)
    n_items, n_users, width = 40, 60, 12
    categories = [set(rng.choice(n_categories, size=rng.integers(0, 5), replace=False).tolist())
                  for _ in range(n_items)]
    lists = np.full((n_users, width), -1, dtype=np.int64)
    for u in range(n_users):
        length = int(rng.integers(0, width + 1))
        lists[u, :length] = rng.choice(n_items, size=length, replace=False)
    traits = ItemTraits("jaccard", ("genres",),
                        category_bits=bits_of(categories, (n_categories + 64) // 64))
    found = category_entropy(lists, traits)
    assert np.abs(found - plain(lists, categories)).max() <= 1e-12


def test_blocks_of_users_give_the_same_values(monkeypatch):
    from rankmetrics.metrics import _beyond_kernels
    rng = np.random.default_rng(7)
    categories = [set(rng.choice(70, size=3, replace=False).tolist()) for _ in range(20)]
    lists = rng.integers(-1, 20, size=(30, 6))
    traits = ItemTraits("jaccard", ("genres",), category_bits=bits_of(categories, 2))
    whole = category_entropy(lists, traits)
    monkeypatch.setattr(_beyond_kernels, "USERS_PER_SUM", 1)  # one user a block
    assert np.array_equal(category_entropy(lists, traits), whole)
    assert np.abs(whole - plain(lists, categories)).max() <= 1e-12


def test_the_library_and_the_command_line_agree_on_random_data(tmp_path, capsys):
    rng = np.random.default_rng(3)
    items = [f"i{n}" for n in range(30)]
    genres = [rng.choice(list("abcdefg"), size=rng.integers(0, 4), replace=False)
              for _ in items]
    rows = [(f"u{u}", item, float(score)) for u in range(25)
            for score, item in enumerate(rng.choice(items, size=rng.integers(1, 9),
                                                    replace=False))]
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": [f"u{u}" for u in range(27)],
                          "item": rng.choice(items, size=27), "rating": 1})
    attributes = pd.DataFrame({"item": items, "genres": ["|".join(g) for g in genres]})
    for name, frame in (("run", run), ("truth", truth), ("items", attributes)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    ev = evaluate(truth, {"run": run}, max_cutoff=10,
                  item_attributes=attributes.assign(genres=[tuple(g) for g in genres]))
    per_user = ev.per_user("run", "category_entropy")
    means = ev.curve("run", "category_entropy")
    assert np.allclose(means, per_user.mean(axis=0), atol=1e-12)

    code = main(["evaluate", "--truth", str(tmp_path / "truth.csv"), "--run",
                 str(tmp_path / "run.csv"), "--metrics", "category_entropy",
                 "--item-attributes", str(tmp_path / "items.csv"), "--cutoffs", "1,5,10"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    table = pd.read_csv(io.StringIO(captured.out)).set_index("cutoff")
    assert set(table["metric"]) == {"category_entropy"}
    for cutoff in (1, 5, 10):  # (the CSV writes 10 significant digits)
        assert table.loc[cutoff, "value"] == pytest.approx(means[cutoff - 1], rel=1e-9)
