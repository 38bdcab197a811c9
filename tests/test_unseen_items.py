"""ARP and novelty leaving out the items unseen in training (``unseen_items="left_out"``),
against Evidently's computation transcribed from its source:

- ``PopularityBias.get_apr`` (src/evidently/metrics/recsys/popularity_bias.py): keep the
  rows ranked within K, map each item to its popularity, drop the items without one
  (unseen), then ``groupby(user).popularity.mean().mean()``;
- ``NoveltyMetric.get_miuf`` (src/evidently/metrics/recsys/novelty.py): the same with
  ``-log2(popularity / training users)``;
- ``TrainStats`` (src/evidently/metrics/recsys/train_stats.py): an item's popularity is the
  number of distinct training users holding it, ``groupby(item)[user].nunique()``, and the
  training users are ``train[user].nunique()``.

With ``popularity="users"`` these are our popularity and novelty's p(i); a user without a seen
item in the top K is left out of that K's mean, as ``groupby`` leaves it out.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from rankmetrics import evaluate
from rankmetrics.beyond import BeyondOptions
from rankmetrics.cli import main

MAX_CUTOFF = 6


def _data(seed: int):
    rng = np.random.default_rng(seed)
    users = [f"u{u:02d}" for u in range(40)]
    seen_items = [f"i{i:02d}" for i in range(25)]
    new_items = [f"new{i:02d}" for i in range(15)]
    train = pd.DataFrame({"user": [f"t{u}" for u in rng.integers(0, 30, 300)],
                          "item": rng.choice(seen_items, 300)})
    train = pd.concat([train, train.iloc[:40]])  # repeated interactions: users count once
    rows = []
    for user in users:
        length = int(rng.integers(1, MAX_CUTOFF + 3))
        share_new = rng.choice([0.0, 0.5, 1.0])  # some users get only new items
        pool = new_items if share_new == 1.0 else (
            seen_items if share_new == 0.0 else seen_items + new_items)
        items = rng.choice(pool, size=length, replace=False)
        scores = rng.permutation(length) + 1.0  # distinct scores: one order
        rows += [(user, item, score) for item, score in zip(items, scores, strict=True)]
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": users, "item": "i00", "rating": 1})
    return truth, train, run


def _evidently(run: pd.DataFrame, train: pd.DataFrame, k: int) -> dict[str, tuple[float, int]]:
    """Evidently's ARP and novelty at K (the transcription), and the users they average."""
    data = run.copy()
    data["rank"] = data.groupby("user")["score"].transform("rank", ascending=False)
    data = data[data["rank"] <= k]
    interacted = train.groupby("item")["user"].nunique()
    n_users = train["user"].nunique()
    out = {}
    popularity = data["item"].map(interacted).replace([np.inf, -np.inf], np.nan)
    kept = data.assign(popularity=popularity)
    kept = kept[~kept["popularity"].isna()]
    per_user = kept.groupby("user")["popularity"].mean()
    out["arp"] = (per_user.mean(), len(per_user))
    miuf = -np.log2(data["item"].map(interacted / n_users)).replace([np.inf, -np.inf], np.nan)
    kept = data.assign(miuf=miuf)
    kept = kept[~kept["miuf"].isna()]
    per_user = kept.groupby("user")["miuf"].mean()
    out["novelty"] = (per_user.mean(), len(per_user))
    return out


def _evaluated(truth, train, run, unseen_items="left_out"):
    return evaluate(truth, {"m": run}, max_cutoff=MAX_CUTOFF, interactions=train,
                    beyond_options=BeyondOptions(popularity="users",
                                                 unseen_items=unseen_items))


@pytest.mark.parametrize("seed", range(3))
def test_the_means_and_their_users_are_evidentlys_at_every_k(seed):
    truth, train, run = _data(seed)
    summary = _evaluated(truth, train, run).beyond.summary(["arp", "novelty"]).set_index(
        ["metric", "cutoff"])
    for k in range(1, MAX_CUTOFF + 1):
        expected = _evidently(run, train, k)
        for metric in ("arp", "novelty"):
            mean, users = expected[metric]
            assert summary.loc[(metric, k), "value"] == pytest.approx(mean, rel=0, abs=1e-12)
            assert summary.loc[(metric, k), "users"] == users
    # some users have no seen item at small K: the counts must differ from all users
    assert summary.loc[("arp", 1), "users"] < len(truth)


def test_each_users_value_is_the_mean_over_the_seen_items_or_none():
    truth, train, run = _data(4)
    evaluation = _evaluated(truth, train, run).beyond.evaluation
    interacted = train.groupby("item")["user"].nunique()
    values = evaluation.per_user("m", "arp")
    for user, rows in run.sort_values("score", ascending=False).groupby("user"):
        for k in range(1, MAX_CUTOFF + 1):
            seen = rows["item"].iloc[:k].map(interacted).dropna()
            value = values.loc[user, k]
            if seen.empty:
                assert np.isnan(value), (user, k)
            else:
                assert value == pytest.approx(seen.mean(), rel=0, abs=1e-12), (user, k)
    # the mean of those values (users without one left out) is the reported mean
    means = evaluation.means(["arp"])["m"]["arp"]
    np.testing.assert_allclose(means, values.mean(axis=0).to_numpy(), rtol=0, atol=1e-12)


def test_users_without_a_value_are_left_out_of_tests_tables_and_intervals():
    truth, train, run = _data(5)
    evaluation = _evaluated(truth, train, run).beyond.evaluation
    values = evaluation.per_user_at("m", "novelty", 1)
    assert values.isna().any()
    paired = evaluation.paired("novelty", 1)
    assert len(paired) == values.notna().sum() and paired.notna().all().all()
    table = evaluation.per_user_table(["novelty"], [1])
    assert len(table) == values.notna().sum()
    bands = evaluation.confidence_bands(["novelty"], cutoffs=[1, 3], n_bootstrap=200)
    low, mean, high = bands[["ci_low", "mean", "ci_high"]].to_numpy().T
    assert (low <= mean).all() and (mean <= high).all()
    assert mean[0] == pytest.approx(values.mean(), abs=1e-12)
    from rankmetrics.users import distribution_summary, worst_users

    summary = distribution_summary(evaluation, "novelty", 1)
    assert summary["users"].iloc[0] == values.notna().sum()
    assert summary["mean"].iloc[0] == pytest.approx(values.mean(), abs=1e-12)
    assert worst_users(evaluation, "m", "novelty", 1, count=100)["m"].notna().all()


def test_counting_unseen_items_stays_the_default():
    truth, train, run = _data(6)
    counted = _evaluated(truth, train, run, "counted").beyond
    assert BeyondOptions().unseen_items == "counted"
    values = counted.evaluation.per_user("m", "arp")
    assert not values.isna().any().any()  # an unseen item counts with popularity 0
    assert (counted.summary(["arp"])["users"] == len(truth)).all()
    with pytest.raises(ValueError, match="unseen_items"):
        BeyondOptions(unseen_items="dropped")


def test_the_command_line_leaves_them_out_on_request(tmp_path, capsys):
    truth, train, run = _data(7)
    for name, frame in (("truth", truth), ("train", train), ("model", run)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    code = main(["evaluate", "--truth", str(tmp_path / "truth.csv"),
                 "--run", str(tmp_path / "model.csv"), "--metrics", "arp,novelty",
                 "--interactions", str(tmp_path / "train.csv"), "--popularity", "users",
                 "--unseen-items", "left_out", "--cutoffs", "1,3"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    table = pd.read_csv(io.StringIO(captured.out)).set_index(["metric", "cutoff"])
    for k in (1, 3):
        expected = _evidently(run, train, k)
        for metric in ("arp", "novelty"):
            assert table.loc[(metric, k), "value"] == pytest.approx(expected[metric][0],
                                                                    abs=1e-6)
            assert table.loc[(metric, k), "users"] == expected[metric][1]
