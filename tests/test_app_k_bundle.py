"""Choosing K on a saved evaluation shows the live page's numbers at the saved cutoffs.

The movies demo is opened as a live upload (the sidebar's defaults: K = 10, curves to K =
50), and the same data are evaluated with the same settings and saved, then opened as a
bundle. Every panel that needs every user's values (the share of pairs told apart, the
difference band, the winners by metric, the table of cutoffs and its marks) must show, at
each saved cutoff, the number the live page shows at that K; the order of the models, read
from the means, must match at every K; the ties and the relevance thresholds, which need
the lists, are those of the sampled users and say so."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from dashboard import keys
from rankmetrics import evaluate, load_bundle
from rankmetrics.choosing_k.ties import tie_bounds
from rankmetrics.io import read_run, read_truth
from tests.apptest import MOVIE_MODELS, figure, go, plain, start
from tests.helpers import MOVIES
from tests.test_app_bundle import open_archive

PAGE = "app_pages/choosing_k.py"
SAMPLE = 50


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """(live page, bundle page, the saved evaluation) of the movies demo."""
    live = start("movies", PAGE)
    settings = live.session_state[keys.SETTINGS]
    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {name: read_run(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS}
    evaluation = evaluate(truth, runs, relevance=settings.relevance,
                          conventions=settings.conventions, max_cutoff=settings.max_cutoff)
    path = evaluation.save(tmp_path_factory.mktemp("k_bundle") / "movies.zip",
                           chosen_cutoff=settings.cutoff, sample=SAMPLE)
    saved_page = open_archive(path.read_bytes())
    go(saved_page, PAGE)
    return live, saved_page, load_bundle(path)


def test_the_saved_cutoffs_are_those_of_the_live_page(pages):
    live, saved_page, saved = pages
    assert live.session_state[keys.SETTINGS].max_cutoff == saved.max_cutoff == 50
    assert saved.cutoffs == [1, 3, 5, 10, 20, 50]
    info = " ".join(plain(box.value) for box in saved_page.info)
    assert "at the saved cutoffs 1, 3, 5, 10, 20, 50 only" in info
    assert f"the {SAMPLE} sampled users whose lists it keeps" in info


def _at(trace: dict, cutoffs: list[int]) -> list[float]:
    """The trace's y at each of ``cutoffs`` (its x are cutoffs)."""
    by_cutoff = dict(zip(trace["x"], trace["y"], strict=True))
    return [by_cutoff[cutoff] for cutoff in cutoffs]


def test_the_share_of_pairs_told_apart_is_the_live_one_at_each_saved_cutoff(pages):
    live, saved_page, saved = pages
    live_power = {trace["name"]: trace for trace in figure(live, "k_power")["data"]}
    saved_power = figure(saved_page, "k_power")["data"]
    assert [trace["name"] for trace in saved_power] == list(live_power)  # NDCG first, then 5
    for trace in saved_power:
        assert trace["x"] == saved.cutoffs, trace["name"]
        assert trace["y"] == _at(live_power[trace["name"]], saved.cutoffs), trace["name"]
    # with four models, six pairs: some share below 1 somewhere, so the check can fail
    assert any(share < 1 for trace in saved_power for share in trace["y"])


def test_the_difference_band_is_the_live_one_at_each_saved_cutoff(pages):
    live, saved_page, saved = pages
    assert live.session_state[keys.CHOOSING_K_PAIR] == saved_page.session_state[
        keys.CHOOSING_K_PAIR]
    live_band, saved_band = figure(live, "k_band")["data"], figure(saved_page, "k_band")["data"]
    assert saved_band[1]["x"] == saved.cutoffs
    np.testing.assert_allclose(saved_band[1]["y"], _at(live_band[1], saved.cutoffs),
                               rtol=0, atol=1e-12)
    # the interval: its upper edge then its lower edge backwards, as cutoff -> (low, high)
    count = len(saved.cutoffs)
    live_count = len(live_band[0]["x"]) // 2
    live_high = dict(zip(live_band[0]["x"][:live_count], live_band[0]["y"][:live_count],
                         strict=True))
    live_low = dict(zip(live_band[0]["x"][live_count:], live_band[0]["y"][live_count:],
                        strict=True))
    np.testing.assert_allclose(saved_band[0]["y"][:count],
                               [live_high[k] for k in saved.cutoffs], rtol=0, atol=1e-12)
    np.testing.assert_allclose(saved_band[0]["y"][count:],
                               [live_low[k] for k in saved.cutoffs[::-1]], rtol=0, atol=1e-12)


def _cells(data: list[dict]) -> dict[tuple[int, str], tuple[str, str]]:
    """(K, row) -> (best model, filled or open) of a winner map."""
    return {(x, row): (trace["name"], symbol)
            for trace in data
            for x, row, symbol in zip(trace["x"], trace["y"], trace["marker"]["symbol"],
                                      strict=True)}


def test_the_winners_by_metric_are_the_live_ones_at_each_saved_cutoff(pages):
    live, saved_page, saved = pages
    live_cells = _cells(figure(live, "k_metric_map")["data"])
    saved_cells = _cells(figure(saved_page, "k_metric_map")["data"])
    assert {k for k, _ in saved_cells} == set(saved.cutoffs)
    assert saved_cells == {cell: live_cells[cell] for cell in saved_cells}
    assert {symbol for _, symbol in saved_cells.values()} == {"square", "square-open"}


def test_the_table_of_cutoffs_is_the_live_one_marks_included(pages):
    live, saved_page, _ = pages
    live_table, saved_table = _cutoff_table(live).value, _cutoff_table(saved_page).value
    assert list(saved_table.columns) == list(live_table.columns)
    assert "NDCG@10" in saved_table.columns
    pd.testing.assert_frame_equal(saved_table, live_table, check_exact=False, rtol=0,
                                  atol=1e-12)
    assert _green(saved_page) == _green(live) != set()


def _cutoff_table(at):
    """The table of cutoffs as shown (the one table with metric@K columns)."""
    return next(d for d in at.main.dataframe if "NDCG@10" in d.value.columns)


def _green(at) -> set[tuple[int, int]]:
    """(row, column) of the cells marked significantly best in the table of cutoffs."""
    marked = set()
    for block in _cutoff_table(at).proto.arrow_data.styler.styles.split("}"):
        selectors, _, style = block.partition("{")
        if "background-color" in style:
            marked |= {(int(row), int(column))
                       for row, column in re.findall(r"row(\d+)_col(\d+)", selectors)}
    return marked


def test_a_cutoff_outside_the_saved_ones_shows_its_means_untested(pages):
    _, saved_page, saved = pages
    saved_page.text_input(key=keys.CHOOSING_K_CUTOFFS).set_value("7,10").run()
    table = _cutoff_table(saved_page).value
    expected = saved.summary(["ndcg"], [7]).set_index("model")["value"]
    np.testing.assert_allclose(table["NDCG@7"].to_numpy(), expected[MOVIE_MODELS], rtol=0,
                               atol=1e-12)
    captions = " ".join(plain(c.value) for c in saved_page.caption)
    assert ("K = 7 is not among the saved cutoffs (1, 3, 5, 10, 20, 50): its column shows the "
            "means, untested.") in captions
    assert list(table.columns[:2]) == ["Precision@7", "Precision@10"]
    assert all(column % 2 == 1 for _, column in _green(saved_page))  # no K = 7 column marked
    saved_page.text_input(key=keys.CHOOSING_K_CUTOFFS).set_value("1,5,10").run()


def test_ties_and_relevance_thresholds_are_those_of_the_sampled_users(pages):
    _, saved_page, saved = pages
    sample = saved.sample_evaluation
    runs = {model: rows.drop(columns="model")
            for model, rows in saved.sample_runs.groupby("model", sort=False)}
    bounds = tie_bounds(sample, runs, ["ndcg"])
    ties = [t for t in figure(saved_page, "k_ties")["data"] if t.get("fill") is None
            and t["name"] in MOVIE_MODELS and t["line"].get("dash") is None]
    for trace in ties:
        expected = bounds.loc[bounds["model"] == trace["name"], "active"].to_numpy()
        np.testing.assert_allclose(trace["y"], expected, rtol=0, atol=1e-12)
    assert len(ties) == len(MOVIE_MODELS)
    captions = " ".join(plain(c.value) for c in saved_page.caption)
    assert f"these are the {SAMPLE} sampled users whose lists the saved evaluation keeps" \
        in captions
    assert f"this map is that of the {SAMPLE} sampled users" in captions


def test_the_summary_names_its_metric_and_what_the_sampled_users_measured(pages):
    live, saved_page, _ = pages
    for at in (live, saved_page):
        assert "In short, on NDCG" in [h.value for h in at.subheader]
    lines = plain(next(m.value for m in saved_page.markdown if m.value.startswith("- ")))
    lines = lines.splitlines()
    assert len(lines) == 5
    assert lines[2].startswith("- At the saved cutoffs 1, 3, 5, 10, 20, 50: On NDCG, ")
    assert "best on NDCG at K = 10" in lines[3] or "The best model on NDCG" in lines[3]
    assert lines[3].startswith(f"- On the {SAMPLE} sampled users: ")
    assert lines[4].startswith(f"- On the {SAMPLE} sampled users: ")
