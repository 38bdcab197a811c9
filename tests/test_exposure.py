"""Exposure: the Gini index of position-weighted exposure over the catalogue (LensKit's
``ExposureGini``) and each item group's share of the exposure.

LensKit (lkpy 2025, ``lenskit.metrics.ranking._gini.ExposureGini``) gives rank r of each list
truncated at K the weight of its ``GeometricRankWeight`` (patience 0.85; its ``weight``
returns p^r), sums each item's weights over the lists into an array of the training items
(zero for an item never recommended) and takes ``lenskit.stats.gini``: sorted ascending,
sum((2i - n - 1) x_i) / (n sum x), floored at 0. LensKit cannot be installed beside the
pins here (it requires PyTorch), so :func:`lenskit_exposure_gini` transcribes that definition
loop by loop in double precision (LensKit sums in float32). Our weight is p^(r - 1), the
chance that a reader reaches rank r; a Gini index does not change when every value is
multiplied by one number, so the two weights give one value, which the tests check.

The group shares are derived by hand on a tiny case and by brute force on random data.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from rankmetrics import evaluate
from rankmetrics.beyond import BeyondOptions
from rankmetrics.cli import main
from rankmetrics.evaluation import load_bundle
from rankmetrics.relevance import RelevanceMapping
from tests.apptest import MOVIE_MODELS, figure, ok, start
from tests.helpers import MOVIES

LENSKIT_PATIENCE = 0.85


def lenskit_exposure_gini(lists: list[list[str]], catalogue: list[str], k: int,
                          weight) -> float:
    """LensKit's ExposureGini, as its source defines it (see the module docstring)."""
    exposure = dict.fromkeys(catalogue, 0.0)
    for items in lists:
        for rank, item in enumerate(items[:k], start=1):
            exposure[item] += weight(rank)
    xs = np.sort(np.array(list(exposure.values()), dtype=np.float64))
    n = len(xs)
    ranks = 2.0 * np.arange(1, n + 1) - n - 1
    return max(float(np.sum(xs * ranks)) / (n * float(xs.sum())), 0.0)


def tiny():
    truth = pd.DataFrame({"user": ["u1", "u2"], "item": ["a", "c"], "rating": [1, 1]})
    run = pd.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["a", "b", "a", "c"],
                        "score": [2, 1, 2, 1]})
    seen = pd.DataFrame({"user": ["x", "x", "y", "y", "z"], "item": ["a", "b", "a", "c", "a"]})
    genres = pd.DataFrame({"item": ["a", "b", "c"], "genres": ["x|y", "y", ""]})
    return truth, run, seen, genres


def random_lists(seed: int, n_users: int = 40, n_items: int = 30, longest: int = 12):
    """Every user relevant to something; lists of distinct items and distinct scores, of
    1..longest items; some truth users without a list; a catalogue with unrecommended
    items."""
    rng = np.random.default_rng(seed)
    truth, run, lists = [], [], []
    for user in range(n_users):
        truth.append((f"u{user}", f"i{rng.integers(n_items)}", 1))
        if user % 7 == 3:
            continue  # in the ground truth, no list
        items = [f"i{item}" for item in rng.permutation(n_items)[:rng.integers(1, longest + 1)]]
        lists.append(items)
        run += [(f"u{user}", item, float(len(items) - rank)) for rank, item in enumerate(items)]
    catalogue = [f"i{item}" for item in range(n_items + 5)]
    return (pd.DataFrame(truth, columns=["user", "item", "rating"]),
            pd.DataFrame(run, columns=["user", "item", "score"]), lists, catalogue)


# ----- the Gini index of exposure ------------------------------------------------------------


def test_exposure_gini_by_hand():
    truth, run, _, _ = tiny()
    ev = evaluate(truth, {"m": run}, max_cutoff=3, catalogue=["a", "b", "c", "d"],
                  beyond_options=BeyondOptions(exposure_patience=0.5))
    # K=1: a has 2, b, c, d none: (3 * 2) / (4 * 2) = 0.75. K=2: a 2, b 0.5, c 0.5, d 0:
    # sorted 0, 0.5, 0.5, 2: (-3 * 0 - 1 * 0.5 + 1 * 0.5 + 3 * 2) / (4 * 3) = 0.5; K=3: no
    # list is longer, the value stays
    assert ev.beyond.curve("m", "exposure_gini").tolist() == [0.75, 0.5, 0.5]
    # counts, not exposure: K=2 gives a 2, b 1, c 1, d 0: (-1 + 1 + 6) / (4 * 4) = 0.375
    assert ev.beyond.curve("m", "gini").tolist() == [0.75, 0.375, 0.375]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exposure_gini_is_lenskit_s_at_every_cutoff(seed):
    truth, run, lists, catalogue = random_lists(seed)
    ev = evaluate(truth, {"m": run}, max_cutoff=15, catalogue=catalogue)
    values = ev.beyond.curve("m", "exposure_gini")
    for k in range(1, 16):
        expected = lenskit_exposure_gini(lists, catalogue, k,
                                         lambda rank: LENSKIT_PATIENCE ** rank)
        assert values[k - 1] == pytest.approx(expected, rel=1e-9, abs=1e-12)
    # the weight a reader's chance of reaching the rank gives, p^(r-1): the same index
    assert values[9] == pytest.approx(lenskit_exposure_gini(
        lists, catalogue, 10, lambda rank: LENSKIT_PATIENCE ** (rank - 1)), rel=1e-12)


def test_exposure_gini_with_ndcg_s_discount_and_other_patience():
    truth, run, lists, catalogue = random_lists(5)
    for options, weight in (
        (BeyondOptions(exposure_weight="log"), lambda rank: 1 / math.log2(rank + 1)),
        (BeyondOptions(exposure_patience=0.5), lambda rank: 0.5 ** (rank - 1)),
    ):
        ev = evaluate(truth, {"m": run}, max_cutoff=12, catalogue=catalogue,
                      beyond_options=options)
        for k in (1, 4, 12):
            assert ev.beyond.curve("m", "exposure_gini")[k - 1] == pytest.approx(
                lenskit_exposure_gini(lists, catalogue, k, weight), rel=1e-9)


def test_exposure_gini_over_the_recommended_items():
    truth, run, lists, catalogue = random_lists(3)
    ev = evaluate(truth, {"m": run}, max_cutoff=10, catalogue=catalogue,
                  beyond_options=BeyondOptions(distribution="recommended"))
    shown = sorted({item for items in lists for item in items[:10]})
    assert ev.beyond.curve("m", "exposure_gini")[9] == pytest.approx(
        lenskit_exposure_gini(lists, shown, 10, lambda rank: LENSKIT_PATIENCE ** rank),
        rel=1e-9)


def test_equal_exposure_gives_zero_and_one_item_for_all_nearly_one():
    truth = pd.DataFrame({"user": ["u1", "u2"], "item": ["a", "a"], "rating": [1, 1]})
    spread = pd.DataFrame({"user": ["u1", "u2"], "item": ["a", "b"], "score": [1, 1]})
    same = pd.DataFrame({"user": ["u1", "u2"], "item": ["a", "a"], "score": [1, 1]})
    ev = evaluate(truth, {"spread": spread, "same": same}, max_cutoff=1,
                  catalogue=["a", "b"])
    assert ev.beyond.curve("spread", "exposure_gini").tolist() == [0.0]
    assert ev.beyond.curve("same", "exposure_gini").tolist() == [0.5]  # (n - 1) / n, n = 2


def test_exposure_gini_bands_resample_the_users():
    """Each resample counts a user as often as it is drawn (the users in the ground truth's
    order, a user without a list adding nothing); the interval is the resamples' percentile
    interval. On a sample, a Gini index is biased upward, so the interval need not hold the
    value itself."""
    truth, run, lists, catalogue = random_lists(4)
    ev = evaluate(truth, {"m": run}, max_cutoff=10, catalogue=catalogue)
    bands = ev.beyond.bands("exposure_gini", 10, n_bootstrap=200, seed=1)
    by_user = {user: list(rows["item"]) for user, rows in run.groupby("user", sort=False)}
    users = list(dict.fromkeys(truth["user"]))
    rng = np.random.default_rng(1)
    values = []
    for _ in range(200):
        drawn = rng.integers(0, len(users), len(users))
        values.append(lenskit_exposure_gini([by_user.get(users[i], []) for i in drawn],
                                            catalogue, 10, lambda r: LENSKIT_PATIENCE ** r))
    low, high = np.quantile(values, [0.025, 0.975])
    row = bands.iloc[0]
    assert row["mean"] == ev.beyond.curve("m", "exposure_gini")[9]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), rel=1e-9)


@pytest.mark.parametrize("weight, patience", [("nope", 0.85), ("geometric", 1.0),
                                              ("geometric", 0.0)])
def test_exposure_options_are_checked(weight, patience):
    with pytest.raises(ValueError, match="exposure_"):
        BeyondOptions(exposure_weight=weight, exposure_patience=patience)


# ----- each group's share ----------------------------------------------------------------


def test_group_shares_by_hand():
    truth, run, seen, genres = tiny()
    ev = evaluate(truth, {"m": run}, max_cutoff=3, interactions=seen, item_attributes=genres,
                  beyond_options=BeyondOptions(exposure_patience=0.5))
    assert ev.beyond.exposure_groups == ("popularity", "categories")
    # popularity a 3, b 1, c 1: a and b hold 80% (the short head), c is the long tail.
    # exposure at K=2: a 1 + 1, b 0.5, c 0.5 of 3
    shares = ev.beyond.exposure(2, "popularity").set_index(["source", "group"])["share"]
    assert shares["m"].to_dict() == pytest.approx({"short head": 2.5 / 3, "long tail": 0.5 / 3})
    assert shares["catalogue"].to_dict() == pytest.approx({"short head": 2 / 3,
                                                           "long tail": 1 / 3})
    assert shares["relevant items"].to_dict() == pytest.approx({"short head": 0.5,
                                                                "long tail": 0.5})
    # a is x and y (1 each of its 2), b is y (0.5), c has none (0.5)
    shares = ev.beyond.exposure(2, "categories").set_index(["source", "group"])["share"]
    assert shares["m"].to_dict() == pytest.approx({"x": 1 / 3, "y": 1.5 / 3,
                                                   "no category": 0.5 / 3})
    assert shares["catalogue"].to_dict() == pytest.approx({"x": 0.5 / 3, "y": 1.5 / 3,
                                                           "no category": 1 / 3})


def test_group_shares_by_brute_force():
    truth, run, lists, catalogue = random_lists(7, n_items=12)
    rng = np.random.default_rng(7)
    names = ["drama", "comedy", "news"]
    genres = {item: [name for name in names if rng.random() < 0.4] for item in catalogue}
    attributes = pd.DataFrame({"item": catalogue,
                               "genres": ["|".join(found) for found in genres.values()]})
    ev = evaluate(truth, {"m": run}, max_cutoff=10, catalogue=catalogue,
                  item_attributes=attributes)
    expected = dict.fromkeys([*names, "no category"], 0.0)
    for items in lists:
        for rank, item in enumerate(items[:6], start=1):
            found = genres[item] or ["no category"]
            for name in found:
                expected[name] += LENSKIT_PATIENCE ** (rank - 1) / len(found)
    total = sum(expected.values())
    table = ev.beyond.exposure(6, "categories")
    got = table[table["source"] == "m"].set_index("group")["share"].to_dict()
    assert got == pytest.approx({name: value / total for name, value in expected.items()
                                 if name in got}, rel=1e-12)
    assert table.groupby("source")["share"].sum().to_numpy() == pytest.approx(1.0)


def test_grouping_needs_its_input():
    truth, run, _, _ = tiny()
    ev = evaluate(truth, {"m": run}, max_cutoff=2, catalogue="all")
    assert ev.beyond.exposure_groups == ()
    with pytest.raises(ValueError, match="needs training interactions"):
        ev.beyond.exposure(2, "popularity")
    with pytest.raises(ValueError, match="item attributes with categories"):
        ev.beyond.exposure(2, "categories")


def test_a_saved_evaluation_keeps_the_shares_and_the_index(tmp_path):
    truth, run, seen, genres = tiny()
    ev = evaluate(truth, {"m": run}, max_cutoff=3, interactions=seen, item_attributes=genres)
    ev.save(tmp_path / "bundle")
    saved = load_bundle(tmp_path / "bundle").beyond
    assert saved.exposure_groups == ("popularity", "categories")
    for groups in saved.exposure_groups:
        pd.testing.assert_frame_equal(saved.exposure(3, groups), ev.beyond.exposure(3, groups))
    assert saved.curve("m", "exposure_gini").tolist() == ev.beyond.curve(
        "m", "exposure_gini").tolist()
    with pytest.raises(ValueError, match="K = 1, 3"):
        saved.exposure(2, "popularity")


# ----- the command line and the page ---------------------------------------------------------


def movies_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["evaluate", "--truth", str(MOVIES / "ground_truth.csv"),
                 "--run", str(MOVIES / "popularity.parquet"),
                 "--run", str(MOVIES / "personalized.parquet"), "--threshold", "4",
                 *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_command_line_gives_the_index_and_the_shares(capsys):
    code, out, _ = movies_cli(capsys, "--metrics", "exposure_gini", "--cutoffs", "10",
                              "--interactions", MOVIES / "train.csv", "--exposure-by",
                              "popularity", "--format", "json", "--exposure-patience", "0.7")
    assert code == 0
    document = json.loads(out)
    ev = evaluate(pd.read_csv(MOVIES / "ground_truth.csv"),
                  {name: pd.read_parquet(MOVIES / f"{name}.parquet")
                   for name in ("popularity", "personalized")},
                  max_cutoff=10, interactions=pd.read_csv(MOVIES / "train.csv"),
                  beyond_options=BeyondOptions(exposure_patience=0.7),
                  relevance=RelevanceMapping.binary(4))
    values = {row["model"]: row["value"] for row in document["results"]}
    assert values == pytest.approx({model: ev.beyond.curve(model, "exposure_gini")[9]
                                    for model in ("popularity", "personalized")}, rel=1e-12)
    exposure = document["exposure"]
    assert exposure["groups"] == "popularity" and exposure["cutoff"] == 10
    assert exposure["patience"] == 0.7
    expected = ev.beyond.exposure(10, "popularity")
    assert [row["share"] for row in exposure["shares"]] == pytest.approx(
        expected["share"].tolist(), rel=1e-12)

    code, out, _ = movies_cli(capsys, "--metrics", "ndcg", "--cutoffs", "10",
                              "--item-attributes", MOVIES / "items.csv", "--exposure-by",
                              "categories", "--format", "table")
    assert code == 0
    assert "Share of exposure in the top 10 by categories" in out
    assert "relevant items" in out and "Drama" in out


@pytest.mark.parametrize("args, message", [
    (("--exposure-by", "popularity", "--format", "table"),
     "--exposure-by popularity needs --interactions FILE."),
    (("--exposure-by", "categories", "--item-attributes", MOVIES / "items.csv"),
     "which --format csv cannot hold: add --format table or --format json"),
    (("--exposure-by", "categories", "--item-attributes", MOVIES / "items.csv",
      "--per-user", "--format", "json"), "leave out --per-user"),
])
def test_the_command_line_says_what_exposure_by_needs(capsys, args, message):
    code, out, err = movies_cli(capsys, *args)
    assert code != 0 and not out
    assert message in err and "Traceback" not in err


def test_the_beyond_page_shows_who_gets_the_attention():
    at = start("movies", "app_pages/beyond.py")
    shares = figure(at, "beyond_exposure")
    assert [trace["name"] for trace in shares["data"]] == [*MOVIE_MODELS, "catalogue",
                                                           "relevant items"]
    assert shares["data"][0]["x"] == ["short head", "long tail"]
    assert shares["data"][0]["y"] == pytest.approx([1.0, 0.0])  # popularity: the head only
    assert shares["layout"]["title"]["text"].startswith(
        "Each group's share of the attention in the top 10")
    at.radio(key="beyond_exposure_groups").set_value("categories").run()
    ok(at)
    shares = figure(at, "beyond_exposure")
    assert "Drama" in shares["data"][0]["x"]
    assert any("A reader looks at the top of a list more than at its bottom" in c.value
               for c in at.caption)
