"""Why do they differ? The demo under every preset, the steps between two presets (all of them
giving the second preset's value) and the users moved most, one click from their arithmetic."""

from __future__ import annotations

import pytest

from rankmetrics import evaluate
from rankmetrics.conventions import LIBRARY_TIES, PRESET_NAMES, PRESETS, Conventions
from rankmetrics.io import read_run, read_truth
from rankmetrics.relevance import suggest_mapping
from tests.apptest import MOVIE_MODELS, frame, ok, plain, start
from tests.helpers import MOVIES

PAGE = "app_pages/conventions.py"


def _page():
    return start("movies", PAGE)


def test_every_preset_on_the_demo_is_that_preset_evaluated_alone():
    at = _page()
    means = frame(at, "conventions_means")
    assert [name.removesuffix(" (in the sidebar)") for name in means.index] == [
        PRESET_NAMES[name] for name in PRESETS]
    assert means.index[0].endswith("(in the sidebar)")
    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {name: read_run(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS}
    relevance = suggest_mapping(truth.numbers()).recommended
    for row, name in zip(means.index, PRESETS, strict=True):
        alone = evaluate(truth, runs, relevance=relevance, conventions=PRESETS[name],
                         max_cutoff=10).means(["ndcg"])
        for model in MOVIE_MODELS:
            assert means.at[row, model] == pytest.approx(alone[model]["ndcg"][9], abs=1e-12)
    # the demo's ratings become grades: the page says which libraries ignore them in NDCG
    notes = [plain(info.value) for info in at.info]
    assert any("Spark MLlib" in note and "gain of 1" in note for note in notes), notes


def test_the_steps_end_at_the_second_preset_and_say_what_moves_most():
    at = _page()
    means = frame(at, "conventions_means")
    at.selectbox(key="conventions_pair").set_value("default → trec_eval").run()
    ok(at)
    steps = frame(at, "conventions_steps")
    assert steps.index.tolist() == ["Gain", "Empty users", "All of them"]
    assert steps.at["Gain", "Change"] == "exponential gain (2^g − 1) → linear gain (g)"
    for model in MOVIE_MODELS:
        assert steps.at["All of them", model] == pytest.approx(
            means.iloc[1][model] - means.iloc[0][model], abs=1e-12)
    said = " ".join(plain(m.value) for m in at.markdown)
    assert "From default to trec_eval, gain moves NDCG@10 most on its own" in said


def test_the_users_moved_most_lead_to_their_arithmetic():
    at = _page()
    at.selectbox(key="conventions_pair").set_value("default → retrieved_ideal").run()
    ok(at)
    users = frame(at, "conventions_users")
    moves = users["Move"].abs().to_numpy()
    assert len(users) == 10 and (moves[:-1] >= moves[1:]).all()
    first = users.iloc[0]
    assert first["retrieved_ideal"] - first["default"] == pytest.approx(first["Move"])
    at.button(key="conventions_explain").click().run()
    ok(at)
    assert at.session_state["explain_user"] == first.iloc[0]
    assert at.session_state["explain_model"] == at.session_state["conventions_model"]


def test_equal_scores_are_checked_and_each_library_tie_order_listed():
    at = _page()
    captions = [plain(c.value) for c in at.caption]
    assert any("No list has equal scores across K = 10" in c for c in captions), captions
    libraries = [d.value for d in at.dataframe if "Orders equal scores" in d.value.columns]
    assert len(libraries) == 1 and len(libraries[0]) == len(LIBRARY_TIES)


def test_equal_scores_in_an_upload_bound_every_tie_rule(tmp_path):
    import pandas as pd

    from tests.apptest import UPLOADS, go, upload

    als = pd.read_csv(UPLOADS / "als_model.csv")
    als["prediction"] = als["prediction"].round(0)  # whole numbers: many equal scores
    tied = als.to_csv(index=False).encode()
    at = start("movies", "app_pages/data.py")
    upload(at, 1, "ratings.csv")
    upload(at, 0, "rounded.csv", "popular_items.tsv", content={"rounded.csv": tied})
    go(at, PAGE)
    table = next(d.value for d in at.main.dataframe if "Lowest" in d.value.columns)
    assert sorted(table.index) == ["popular_items", "rounded"]
    low, high = table.at["rounded", "Lowest"], table.at["rounded", "Highest"]
    assert low < high
    shares = table.filter(like="with ties across K")
    assert shares.at["rounded", shares.columns[0]] > 0
    assert shares.at["popular_items", shares.columns[0]] == 0  # ranks, no ties
    # every tie rule's value lies within the bounds, and the one in force is the table's
    (tmp_path / "rounded.csv").write_bytes(tied)
    truth = read_truth(UPLOADS / "ratings.csv")
    run = read_run(tmp_path / "rounded.csv")
    relevance = suggest_mapping(truth.numbers()).recommended
    values = {}
    for rule in ("item_desc", "item_asc", "input"):
        conventions = Conventions(ties=rule)
        values[rule] = evaluate(truth, {"rounded": run}, relevance=relevance,
                                conventions=conventions, max_cutoff=10).means(["ndcg"])[
            "rounded"]["ndcg"][9]
        assert low - 1e-12 <= values[rule] <= high + 1e-12
    in_force = next(c for c in table.columns if c.startswith("In force"))
    assert table.at["rounded", in_force] == pytest.approx(values["item_desc"], abs=1e-12)
    said = " ".join(plain(m.value) for m in at.markdown)
    assert f"rounded's NDCG@10 lies between {low:.4f} and {high:.4f}" in said


def test_items_named_like_the_user_are_dropped_for_beir_and_by_the_sidebar(tmp_path):
    import pandas as pd

    from tests.apptest import UPLOADS, curves, go, upload

    als = pd.read_csv(UPLOADS / "als_model.csv")
    users = als["user"].drop_duplicates().iloc[::2]  # every other user: its own id on top
    own = pd.DataFrame({"user": users, "item": users, "prediction": 99.0})
    named = pd.concat([own, als], ignore_index=True).to_csv(index=False).encode()
    (tmp_path / "named.csv").write_bytes(named)
    at = start("movies", "app_pages/data.py")
    upload(at, 1, "ratings.csv")
    upload(at, 0, "named.csv", content={"named.csv": named})
    go(at, PAGE)
    means = frame(at, "conventions_means")
    truth, run = read_truth(UPLOADS / "ratings.csv"), read_run(tmp_path / "named.csv")
    relevance = suggest_mapping(truth.numbers()).recommended

    def mean(conventions):
        return evaluate(truth, {"named": run}, relevance=relevance, conventions=conventions,
                        max_cutoff=20).means(["ndcg"])["named"]["ndcg"][9]

    beir = mean(PRESETS["beir"])
    assert means.at[PRESET_NAMES["beir"], "named"] == pytest.approx(beir, abs=1e-12)
    assert abs(beir - mean(Conventions.preset("beir", identical_ids="keep"))) > 1e-3
    # the sidebar's rule: every page drops them
    at.sidebar.selectbox(key="conv_identical_ids").set_value("drop").run()
    ok(at)
    go(at, "app_pages/compare.py")
    shown = curves(at)[("named", "ndcg")]["y"][9]
    assert shown == pytest.approx(mean(Conventions(identical_ids="drop")), abs=1e-12)
