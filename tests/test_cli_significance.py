"""``rankmetrics significance``: intervals, ranks, effect sizes and tests of every pair, in
words and as CSV, from files and from a saved evaluation, checked against scipy on the
library's per-user values."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rankmetrics import RelevanceMapping, evaluate
from rankmetrics.cli import main
from rankmetrics.io import read_run, read_truth
from tests.helpers import MOVIES

MODELS = {"pop": "popularity", "pers": "personalized", "top": "top_heavy"}
FILES = ["--truth", str(MOVIES / "ground_truth.csv"), "--binary", "4",
         *(option for name, stem in MODELS.items()
           for option in ("--run", f"{name}={MOVIES / f'{stem}.parquet'}"))]


@pytest.fixture(scope="module")
def values() -> pd.DataFrame:
    runs = {name: read_run(MOVIES / f"{stem}.parquet") for name, stem in MODELS.items()}
    ev = evaluate(read_truth(MOVIES / "ground_truth.csv"), runs,
                  relevance=RelevanceMapping.binary(4), max_cutoff=10)
    return ev.paired("ndcg", 10)


def _tables(capsys, *options: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    assert main(["significance", *options, "--csv", "--bootstrap", "200"]) == 0
    models, pairs = capsys.readouterr().out.split("\n\n")
    return pd.read_csv(io.StringIO(models)), pd.read_csv(io.StringIO(pairs))


def test_the_pairs_are_scipys_t_test_and_the_effect_sizes_the_users_differences(capsys,
                                                                               values):
    models, pairs = _tables(capsys, *FILES, "--test", "t")
    assert models["model"].tolist() == ["top", "pers", "pop"]  # best mean first
    for row in models.itertuples():
        assert row.mean == pytest.approx(values[row.model].mean(), rel=1e-9)
        assert row.ci_low <= row.mean <= row.ci_high
        assert row.rank_low <= row.rank <= row.rank_high
    raw = []
    for row in pairs.itertuples():
        a, b = values[row.model_a].to_numpy(), values[row.model_b].to_numpy()
        reference = stats.ttest_rel(b, a)
        assert row.p_value == pytest.approx(reference.pvalue, rel=1e-6, abs=1e-300)
        d = b - a
        assert row.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-9)
        assert row.effect_low < row.effect_size < row.effect_high
        raw.append(reference.pvalue)
    holm = np.minimum(1, np.maximum.accumulate(np.sort(raw) * (3 - np.arange(3))))
    np.testing.assert_allclose(np.sort(pairs["p_corrected"]), holm, rtol=1e-6, atol=1e-300)


def test_tukeys_test_needs_no_correction(capsys):
    _, pairs = _tables(capsys, *FILES, "--test", "tukey_unpaired")
    assert (pairs["p_corrected"] == pairs["p_value"]).all()


def test_the_answer_in_words_says_ranks_and_how_big(capsys):
    assert main(["significance", *FILES, "--test", "t", "--bootstrap", "200"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("NDCG@10 on the 1,940 users every model counts (95% intervals):")
    assert "  top: " in out and ", ranked 1 of 3, group a" in out
    assert out.count(" vs ") == 3 and out.count("How big: ") == 3
    assert out.rstrip().endswith("Paired t-test with Holm correction, significance level "
                                 "0.05.")


def test_two_copies_of_one_model_are_tied_for_first(capsys):
    copy = ["--run", f"copy={MOVIES / 'top_heavy.parquet'}"]
    assert main(["significance", *FILES, *copy, "--test", "t", "--bootstrap", "200"]) == 0
    assert "Tied for first: top and copy" in capsys.readouterr().out


def test_a_saved_evaluation(tmp_path, capsys):
    saved = tmp_path / "movies.zip"
    assert main(["evaluate", *FILES, "--max-cutoff", "10", "--save", str(saved)]) == 0
    capsys.readouterr()
    from_bundle = _tables(capsys, "--bundle", str(saved), "--test", "t")
    from_files = _tables(capsys, *FILES, "--test", "t")
    for bundle_table, file_table in zip(from_bundle, from_files, strict=True):
        pd.testing.assert_frame_equal(bundle_table, file_table)


@pytest.mark.parametrize(("options", "message"), [
    (["--bootstrap", "0"], "--bootstrap must be at least 1"),
    (["--permutations", "0"], "--permutations must be at least 1"),
    (["--cutoff", "x"], "--cutoff"),
])
def test_bad_options_say_what_is_wrong(capsys, options, message):
    assert main(["significance", *FILES, *options]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
