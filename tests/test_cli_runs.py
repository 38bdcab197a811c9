"""``rankmetrics runs``: models of several runs from files and from a saved evaluation, in words
and as CSV, checked against scipy on the library's per-user values."""

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

# Three runs of "pers" (the personalized model with its lists cut or its scores moved), two of
# "top", and one popularity baseline.
STEMS = {"pers@1": "personalized", "top@1": "top_heavy", "pop": "popularity"}


@pytest.fixture(scope="module")
def run_files(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("runs")
    rng = np.random.default_rng(3)
    tables = {name: pd.read_parquet(MOVIES / f"{stem}.parquet") for name, stem in STEMS.items()}
    score = next(c for c in tables["pers@1"].columns if c not in ("user", "item"))
    for name, noise in (("pers@2", 0.3), ("pers@3", 0.6), ("top@2", 0.4)):
        source = tables["pers@1" if name.startswith("pers") else "top@1"]
        tables[name] = source.assign(**{score: source[score]
                                        + rng.normal(0, noise, len(source))})
    paths = {}
    for name, table in tables.items():
        paths[name] = str(folder / f"{name}.parquet")
        table.to_parquet(paths[name])
    return paths


def _files(run_files) -> list[str]:
    options = ["--truth", str(MOVIES / "ground_truth.csv"), "--binary", "4"]
    for name, path in run_files.items():
        options += ["--run", f"{name}={path}"]
    return options


def _values(run_files) -> pd.DataFrame:
    runs = {name: read_run(path) for name, path in run_files.items()}
    ev = evaluate(read_truth(MOVIES / "ground_truth.csv"), runs,
                  relevance=RelevanceMapping.binary(4), max_cutoff=10)
    return ev.paired("ndcg", 10)


def _tables(capsys, *options: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    assert main(["runs", *options, "--csv"]) == 0
    models, pairs = capsys.readouterr().out.split("\n\n")
    return pd.read_csv(io.StringIO(models)), pd.read_csv(io.StringIO(pairs))


def test_the_csv_is_scipy_over_users_and_over_runs(capsys, run_files):
    models, pairs = _tables(capsys, *_files(run_files))
    values = _values(run_files)
    groups = {"pers": ["pers@1", "pers@2", "pers@3"], "top": ["top@1", "top@2"],
              "pop": ["pop"]}
    assert sorted(models["model"]) == sorted(groups)
    per_user = {m: values[r].to_numpy().mean(axis=1) for m, r in groups.items()}
    run_means = {m: values[r].mean().to_numpy() for m, r in groups.items()}
    for row in models.itertuples():
        assert row.runs == len(groups[row.model])
        assert row.mean == pytest.approx(run_means[row.model].mean(), rel=1e-9)
    raw_runs = {}
    for row in pairs.itertuples():
        t = stats.ttest_rel(per_user[row.model_b], per_user[row.model_a])
        assert row.p_value == pytest.approx(t.pvalue, rel=1e-6, abs=1e-300)
        assert row.users == len(values)
        if "pop" in (row.model_a, row.model_b):
            assert np.isnan(row.runs_p)
        else:
            welch = stats.ttest_ind(run_means[row.model_b], run_means[row.model_a],
                                    equal_var=False)
            assert row.runs_p == pytest.approx(welch.pvalue, rel=1e-6)
            raw_runs[(row.model_a, row.model_b)] = welch.pvalue
    assert len(raw_runs) == 1  # pers vs top, the only pair with two runs each


def test_the_answer_in_words(capsys, run_files):
    assert main(["runs", *_files(run_files)]) == 0
    out = capsys.readouterr().out
    assert "NDCG@10 on the 1,940 users every run counts:" in out
    assert "  pers: " in out and " (SD) across 3 runs, lowest " in out
    assert "  pop: " in out and "(one run)" in out
    assert out.count(" vs ") == 3
    assert "Over runs it cannot be tested" in out
    assert "Welch's t-test on the runs' means" in out


def test_a_saved_evaluation(tmp_path, capsys, run_files):
    saved = tmp_path / "runs.zip"
    assert main(["evaluate", *_files(run_files), "--max-cutoff", "10", "--save",
                 str(saved)]) == 0
    capsys.readouterr()
    from_bundle = _tables(capsys, "--bundle", str(saved))
    from_files = _tables(capsys, *_files(run_files))
    for bundle_table, file_table in zip(from_bundle, from_files, strict=True):
        pd.testing.assert_frame_equal(bundle_table, file_table)


def test_models_without_runs_say_how_to_name_them(capsys):
    assert main(["runs", "--truth", str(MOVIES / "ground_truth.csv"), "--binary", "4",
                 "--run", f"a={MOVIES / 'popularity.parquet'}",
                 "--run", f"b={MOVIES / 'random.parquet'}"]) == 1
    err = capsys.readouterr().err
    assert "No model has several runs: name them NAME@RUN" in err and "Traceback" not in err


def test_the_runs_of_one_model_alone_are_not_a_comparison(capsys):
    assert main(["runs", "--truth", str(MOVIES / "ground_truth.csv"), "--binary", "4",
                 "--run", f"a@1={MOVIES / 'popularity.parquet'}",
                 "--run", f"a@2={MOVIES / 'random.parquet'}"]) == 1
    assert "runs compares at least two models; all the runs are of a." in (
        capsys.readouterr().err)


def test_bad_permutations_say_what_is_wrong(capsys, run_files):
    assert main(["runs", *_files(run_files), "--permutations", "0"]) == 1
    assert "--permutations must be at least 1" in capsys.readouterr().err
