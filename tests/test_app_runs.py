"""Several runs of one model in the dashboard: files named model@run are grouped on the Data
page, Compare models gives each model's mean and SD across its runs, and Significance tests
the models over users and over runs (checked with scipy on the library's per-user values)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rankmetrics import evaluate
from rankmetrics.io import read_run, read_truth
from rankmetrics.relevance import suggest_mapping
from tests.apptest import UPLOADS, figure, frame, go, ok, plain, start, upload

# alt's two runs are two of als's three: their difference is inside als's own spread
RUNS = {"als@s1": ("als", 0.4, 1), "als@s2": ("als", 0.4, 2), "als@s3": ("als", 0.4, 3),
        "alt@s1": ("als", 0.4, 1), "alt@s2": ("als", 0.4, 2)}


def _run_files() -> dict[str, bytes]:
    """Runs of two models made from one model's scores with seeded noise."""
    als = pd.read_csv(UPLOADS / "als_model.csv")
    files = {}
    for name, (_, noise, seed) in RUNS.items():
        rng = np.random.default_rng(seed)
        run = als.assign(prediction=als["prediction"] + rng.normal(0, noise, len(als)))
        files[f"{name}.csv"] = run.to_csv(index=False).encode()
    return files


@pytest.fixture(scope="module")
def uploaded():
    files = _run_files()
    at = start("movies", "app_pages/data.py")
    upload(at, 0, *files, "popular_items.tsv", content=files)
    upload(at, 1, "ratings.csv")
    return at, files


def test_the_data_page_names_the_runs_of_each_model(uploaded):
    at, _ = uploaded
    go(at, "app_pages/data.py")
    note = next(plain(info.value) for info in at.info if "Runs of one model" in info.value)
    assert "**als**: 3 runs (s1, s2, s3); **alt**: 2 runs (s1, s2)." in note
    assert "popular_items" not in note


def test_compare_gives_each_models_mean_and_sd_across_its_runs(uploaded):
    at, _ = uploaded
    go(at, "app_pages/compare.py")
    assert any("als, alt have several runs" in plain(info.value) for info in at.info)
    per_run = frame(at, "compare_table")
    summary = frame(at, "runs_table")
    assert summary.index.tolist() == ["als", "alt", "popular_items"]
    assert summary["Runs"].tolist() == [3, 2, 1]
    for model, members in (("als", ["als@s1", "als@s2", "als@s3"]),
                           ("alt", ["alt@s1", "alt@s2"])):
        ndcg = per_run.loc[members, "NDCG@10"].to_numpy()
        assert summary.loc[model, "NDCG@10"] == f"{ndcg.mean():.4f} ± {ndcg.std(ddof=1):.4f}"
    assert summary.loc["popular_items", "NDCG@10"] == (
        f"{per_run.loc['popular_items', 'NDCG@10']:.4f}")
    traces = figure(at, "runs_chart")["data"]
    drawn = {t["name"] for t in traces if t["meta"]["role"] == "curve"}
    banded = {t["name"] for t in traces if t["meta"]["role"] == "band"}
    assert drawn == {"als", "alt", "popular_items"}
    assert banded == {"als", "alt"}
    assert "the runs' range" in figure(at, "runs_chart")["layout"]["title"]["text"]


def test_significance_tests_over_users_and_over_runs(uploaded):
    at, files = uploaded
    go(at, "app_pages/significance.py")
    at.selectbox(key="significance_test").set_value("t").run()
    ok(at)
    pairs = frame(at, "runs_pairs").set_index(["model_a", "model_b"])
    truth = read_truth(UPLOADS / "ratings.csv")
    runs = {name.removesuffix(".csv"): read_run(io.BytesIO(data), name=name)
            for name, data in files.items()}
    runs["popular_items"] = read_run(UPLOADS / "popular_items.tsv")
    # the relevance the Data page suggests for these ratings, which the page uses
    relevance = suggest_mapping(truth.numbers()).recommended
    evaluation = evaluate(truth, runs, relevance=relevance, max_cutoff=10)
    values = evaluation.paired("ndcg", 10)
    means = {"als": values[["als@s1", "als@s2", "als@s3"]].mean(axis=1),
             "alt": values[["alt@s1", "alt@s2"]].mean(axis=1),
             "popular_items": values["popular_items"]}
    run_means = {"als": values[["als@s1", "als@s2", "als@s3"]].mean().to_numpy(),
                 "alt": values[["alt@s1", "alt@s2"]].mean().to_numpy()}
    raw = []
    for (a, b), row in pairs.iterrows():
        raw.append(stats.ttest_rel(means[b], means[a]).pvalue)
        assert row["difference"] == pytest.approx(means[b].mean() - means[a].mean(), abs=1e-12)
    expected = np.minimum(1, np.maximum.accumulate(
        np.sort(raw) * (len(raw) - np.arange(len(raw)))))  # Holm
    np.testing.assert_allclose(np.sort(pairs["p_corrected"]), np.sort(expected), rtol=1e-9)
    welch = stats.ttest_ind(run_means["alt"], run_means["als"], equal_var=False).pvalue
    assert pairs.loc[("als", "alt"), "runs_p_corrected"] == pytest.approx(welch, rel=1e-9)
    assert np.isnan(pairs.loc[("als", "popular_items"), "runs_p_corrected"])
    warned = [plain(w.value) for w in at.warning if "runs of one model differ" in w.value]
    assert pairs.loc[("als", "alt"), "within_spread"]
    assert not pairs.loc[("als", "popular_items"), "within_spread"]
    assert len(warned) == int(pairs["within_spread"].sum()) >= 1
    models = frame(at, "runs_models")
    assert models.loc["als", "Runs"] == 3
    assert models.loc["als", "SD across runs"] == f"{np.std(run_means['als'], ddof=1):.4f}"
    assert models.loc["popular_items", "SD across runs"] == "– (one run)"
    assert models.loc["als", "Mean NDCG@10"] == pytest.approx(run_means["als"].mean(),
                                                              rel=1e-12)
    assert any("Welch's t-test on the runs' means" in plain(c.value) for c in at.caption)


def test_the_seeds_demo_tells_a_users_difference_from_the_seeds_spread():
    at = start("seeds", "app_pages/significance.py")
    at.selectbox(key="significance_test").set_value("t").run()
    ok(at)
    models = frame(at, "runs_models")
    assert models.index.tolist() == ["personalized", "tuned", "popularity"]
    assert models["Runs"].tolist() == [3, 3, 1]
    pairs = frame(at, "runs_pairs").set_index(["model_a", "model_b"])
    pair = pairs.loc[("personalized", "tuned")]
    assert pair["difference"] > 0 and pair["p_corrected"] < 0.05 <= pair["runs_p_corrected"]
    said = " ".join(plain(m.value) for m in at.markdown)
    assert ("tuned is ahead of personalized by" in said
            and "Over users, the difference is more than chance" in said
            and "Over runs, it is not clearly larger than the seeds' own spread" in said)
    go(at, "app_pages/compare.py")
    summary = frame(at, "runs_table")
    assert summary.loc["tuned", "Runs"] == 3 and " ± " in summary.loc["tuned", "NDCG@10"]
