"""``rankmetrics plan``: power and sample size of every pair, in words and as CSV, from files
and from a saved evaluation, checked against statsmodels on the library's per-user values."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.power import TTestPower

from rankmetrics import RelevanceMapping, evaluate
from rankmetrics.cli import main
from rankmetrics.io import read_run, read_truth
from tests.helpers import MOVIES

FILES = ["--truth", str(MOVIES / "ground_truth.csv"),
         "--run", f"pop={MOVIES / 'popularity.parquet'}",
         "--run", f"pers={MOVIES / 'personalized.parquet'}",
         "--run", f"top={MOVIES / 'top_heavy.parquet'}", "--binary", "4"]


@pytest.fixture(scope="module")
def values() -> pd.DataFrame:
    runs = {name: read_run(MOVIES / f"{stem}.parquet")
            for name, stem in (("pop", "popularity"), ("pers", "personalized"),
                               ("top", "top_heavy"))}
    ev = evaluate(read_truth(MOVIES / "ground_truth.csv"), runs,
                  relevance=RelevanceMapping.binary(4), max_cutoff=10)
    return ev.paired("ndcg", 10)


def _csv(capsys, *options: str) -> pd.DataFrame:
    assert main(["plan", *FILES, "--csv", *options]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


def test_every_pair_is_statsmodels_on_the_per_user_differences(capsys, values):
    table = _csv(capsys, "--lift", "2", "--power", "0.9")
    assert len(table) == 3
    power = TTestPower()
    for row in table.itertuples():
        a, b = values[row.model_a].to_numpy(), values[row.model_b].to_numpy()
        assert a.mean() <= b.mean()  # A is the lower mean: the lift is of it
        d = b - a
        assert row.users == len(d) == 1940
        assert row.sd == pytest.approx(d.std(ddof=1), rel=1e-5)
        assert row.alpha == pytest.approx(0.05 / 3)
        effect = 0.02 * a.mean() / d.std(ddof=1)
        assert row.users_needed == math.ceil(power.solve_power(
            effect_size=effect, power=0.9, alpha=0.05 / 3))
        assert power.power(row.detectable / d.std(ddof=1), 1940, 0.05 / 3) == pytest.approx(
            0.9, abs=1e-5)


def test_a_difference_instead_of_a_lift(capsys, values):
    table = _csv(capsys, "--difference", "0.01", "--metric", "recall", "--cutoff", "5",
                 "--confidence", "0.99")
    assert set(table["alpha"].round(6)) == {round(0.01 / 3, 6)}
    assert np.allclose(table["lift"] * table["mean_a"], 0.01, rtol=1e-9, atol=0)
    assert (table["users_needed"] > 0).all()


def test_the_answer_in_words(capsys):
    assert main(["plan", *FILES]) == 0
    out = capsys.readouterr().out
    assert out.count(" vs ") == 3
    assert "With these 1,940 users, the smallest difference in NDCG@10 a paired t-test at " \
           "level 1.67% (5% shared by 3 pairs) detects 80% of the time is" in out
    assert "To detect a 1% lift over pop" in out
    assert out.rstrip().endswith("(the strictest the Holm correction applies).")


def test_a_saved_evaluation(tmp_path, capsys):
    saved = tmp_path / "movies.zip"
    assert main(["evaluate", *FILES, "--max-cutoff", "10", "--save", str(saved)]) == 0
    capsys.readouterr()
    assert main(["plan", "--bundle", str(saved), "--csv"]) == 0
    from_bundle = pd.read_csv(io.StringIO(capsys.readouterr().out))
    from_files = _csv(capsys)
    pd.testing.assert_frame_equal(from_bundle, from_files)


@pytest.mark.parametrize(("options", "message"), [
    (["--power", "1.5"], "--power must be between 0 and 1"),
    (["--lift", "0"], "--lift is a percentage above 0"),
    (["--difference", "-1"], "--difference must be above 0"),
    (["--cutoff", "0"], "--cutoff"),
])
def test_bad_options_say_what_is_wrong(capsys, options, message):
    assert main(["plan", *FILES, *options]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_one_model_is_not_enough(capsys):
    assert main(["plan", "--truth", str(MOVIES / "ground_truth.csv"), "--run",
                 str(MOVIES / "popularity.parquet"), "--binary", "4"]) == 1
    assert "at least two --run" in capsys.readouterr().err


def test_a_bundle_keeps_its_files(tmp_path, capsys):
    assert main(["plan", "--bundle", str(tmp_path / "x.zip"), "--truth", "t.csv"]) == 1
    assert "leave out --truth" in capsys.readouterr().err


def test_users_needed_falls_as_the_lift_grows(capsys):
    small = _csv(capsys, "--lift", "1")["users_needed"].to_numpy()
    large = _csv(capsys, "--lift", "3")["users_needed"].to_numpy()
    assert np.allclose(small / large, 9, rtol=0.02)  # n grows as 1 / lift^2
