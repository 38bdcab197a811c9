"""``rankmetrics conventions``: the metric under every preset and what each setting moves, in
words and as CSV, checked against evaluating each preset afresh and pytrec_eval's mean."""

from __future__ import annotations

import io

import pandas as pd
import pytest
import pytrec_eval

from rankmetrics import RelevanceMapping, evaluate
from rankmetrics.cli import main
from rankmetrics.conventions import PRESETS
from rankmetrics.io import read_run, read_truth
from tests.helpers import MOVIES

FILES = ["--truth", str(MOVIES / "ground_truth.csv"), "--binary", "4",
         "--run", f"pers={MOVIES / 'personalized.parquet'}",
         "--run", f"top={MOVIES / 'top_heavy.parquet'}"]


def _tables(capsys, *options: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    assert main(["conventions", *FILES, "--csv", *options]) == 0
    means, steps = capsys.readouterr().out.split("\n\n")
    return pd.read_csv(io.StringIO(means)), pd.read_csv(io.StringIO(steps))


def test_every_presets_mean_and_every_step_from_the_files(capsys):
    means, steps = _tables(capsys, "--metric", "map", "--cutoff", "5")
    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {"pers": read_run(MOVIES / "personalized.parquet"),
            "top": read_run(MOVIES / "top_heavy.parquet")}
    means = means.set_index("preset")
    for name, conventions in PRESETS.items():
        alone = evaluate(truth, runs, relevance=RelevanceMapping.binary(4),
                         conventions=conventions, max_cutoff=5).means(["map"])
        for model in runs:
            assert means.at[name, model] == pytest.approx(alone[model]["map"][4], abs=1e-12)
    last = steps[steps["setting"] == "all of them"]
    for row in last.itertuples():
        assert row.value == pytest.approx(means.at[row.preset_b, row.model], abs=1e-12)
        # the CSV holds 12 decimals: a difference of two printed means is within 2e-12
        assert row.move == pytest.approx(means.at[row.preset_b, row.model]
                                         - means.at[row.preset_a, row.model], abs=2e-12)


def test_the_trec_eval_preset_is_pytrec_evals_mean(capsys):
    means, _ = _tables(capsys, "--presets", "trec_eval,default")
    truth = pd.read_csv(MOVIES / "ground_truth.csv", dtype={"user": str, "item": str})
    qrels = {user: dict(zip(group["item"], (group["rating"] >= 4).astype(int).tolist(),
                            strict=True)) for user, group in truth.groupby("user")}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
    run = pd.read_parquet(MOVIES / "personalized.parquet")
    scored = {user: dict(zip(group["item"], group["score"].tolist(), strict=True))
              for user, group in run.groupby("user")}
    values = evaluator.evaluate(scored)
    mean = sum(v["ndcg_cut_10"] for v in values.values()) / len(qrels)
    assert means.set_index("preset").at["trec_eval", "pers"] == pytest.approx(mean, abs=1e-9)


def test_the_answer_in_words(capsys):
    assert main(["conventions", *FILES, "--presets", "default,trec_eval,retrieved_ideal",
                 "--users", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("NDCG@10 under each preset (2,000 users in the ground truth;")
    assert "default vs trec_eval: they differ on gain, empty_users." in out
    assert "  gain alone (exponential gain (2^g − 1) -> linear gain (g)): no change on this " \
           "data" in out  # 0/1 grades: both gains are 1
    assert "default vs retrieved_ideal: they differ on ideal." in out
    assert "  ideal alone (ideal list from every ground-truth item -> ideal list from the " \
           "model's own top K): pers +" in out
    assert out.count("users moved most (pers): ") == 3
    assert "not counted -> " in out  # a user only trec_eval counts


def test_presets_that_agree_say_so(capsys):
    assert main(["conventions", *FILES, "--metric", "precision", "--presets",
                 "trec_eval,ranx_burges"]) == 0
    assert "Every preset gives the same means here" in capsys.readouterr().out


@pytest.mark.parametrize(("options", "message"), [
    (["--presets", "scikit"], "--presets: scikit is not a preset; choose from default"),
    (["--users", "-1"], "--users must be 0 or more"),
    (["--cutoff", "0"], "--cutoff"),
])
def test_bad_options_say_what_is_wrong(capsys, options, message):
    assert main(["conventions", *FILES, *options]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_the_files_are_needed(capsys):
    assert main(["conventions", "--truth", str(MOVIES / "ground_truth.csv")]) == 1
    assert "conventions needs --truth FILE and at least one --run FILE." in (
        capsys.readouterr().err)


def test_equal_scores_give_bounds_that_hold_pytrec_evals_value(capsys, tmp_path):
    import re

    run = pd.read_parquet(MOVIES / "personalized.parquet")
    run["score"] = run["score"].round(1)  # coarse scores: many ties across K
    run.to_csv(tmp_path / "coarse.csv", index=False)
    files = ["--truth", str(MOVIES / "ground_truth.csv"), "--binary", "4",
             "--run", str(tmp_path / "coarse.csv"), "--preset", "trec_eval", "--users", "0"]
    assert main(["conventions", *files]) == 0
    out = capsys.readouterr().out
    found = re.search(r"coarse: (\d\.\d{4}) to (\d\.\d{4}) \(in force (\d\.\d{4}); (\d+)% of "
                      r"users with ties across K\)", out)
    assert found, out
    low, high, active, share = (float(g) for g in found.groups())
    assert low < active < high and share > 0
    truth = pd.read_csv(MOVIES / "ground_truth.csv", dtype={"user": str, "item": str})
    qrels = {user: dict(zip(group["item"], (group["rating"] >= 4).astype(int).tolist(),
                            strict=True)) for user, group in truth.groupby("user")}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
    scored = {user: dict(zip(group["item"].astype(str), group["score"].tolist(), strict=True))
              for user, group in run.groupby("user")}
    mean = sum(v["ndcg_cut_10"] for v in evaluator.evaluate(scored).values()) / len(qrels)
    assert mean == pytest.approx(active, abs=6e-5)  # trec_eval's own tie order is in force
    assert low - 1e-4 <= mean <= high + 1e-4
    assert "ranx: an unstable sort" in out


def test_a_model_without_equal_scores_says_so(capsys):
    assert main(["conventions", *FILES, "--users", "0"]) == 0
    assert "no list has equal scores across K = 10" in capsys.readouterr().out
