"""The bundled demo data: reproducible, shaped as advertised, and behaving as designed.

Metrics here are computed the plain way in pandas (binary relevance rating >= 4, a missing list
counts as no hits, users without a relevant item are left out), independent of the library.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.helpers import MOVIE_MODELS, MOVIES, REPO, TEXTBOOK

DATA = REPO / "data"
N_USERS, N_ITEMS, LIST_LENGTH = 2_000, 1_500, 50
USERS = {f"u{i:04d}" for i in range(1, N_USERS + 1)}
ITEMS = {f"m{i:04d}" for i in range(1, N_ITEMS + 1)}


def _load_make_demo():
    spec = importlib.util.spec_from_file_location("make_demo", DATA / "make_demo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _data_files(root: Path) -> list[str]:
    """Relative paths of the generated files (everything under textbook/, movies/, simpson/
    and seeds/)."""
    return sorted(
        p.relative_to(root).as_posix()
        for folder in ("textbook", "movies", "simpson", "seeds")
        for p in (root / folder).rglob("*")
        if p.is_file()
    )


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo")
    _load_make_demo().main(["--out", str(out)])
    return out


@pytest.fixture(scope="module")
def truth() -> pd.DataFrame:
    return pd.read_csv(MOVIES / "ground_truth.csv", dtype={"user": str, "item": str})


@pytest.fixture(scope="module")
def runs() -> dict[str, pd.DataFrame]:
    return {name: pd.read_parquet(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS}


# --------------------------------------------------------------------------------------------
# Reproducibility
# --------------------------------------------------------------------------------------------


def test_regeneration_is_byte_identical(regenerated: Path) -> None:
    committed = _data_files(DATA)
    assert committed == _data_files(regenerated)
    # 5 textbook, 8 movies (users, train, items), 4 simpson, 6 seeds
    assert len(committed) == 23
    for rel in committed:
        old, new = (DATA / rel).read_bytes(), (regenerated / rel).read_bytes()
        if rel.endswith(".parquet"):
            writer = pq.ParquetFile(DATA / rel).metadata.created_by
            if f"version {pa.__version__}" not in writer:
                # Another pyarrow writes other bytes; the contents must still be the same.
                assert pq.read_table(DATA / rel).equals(pq.read_table(regenerated / rel)), rel
                continue
        assert old == new, f"{rel} differs from a fresh `python data/make_demo.py`"


# --------------------------------------------------------------------------------------------
# Shape of the movies data
# --------------------------------------------------------------------------------------------


def test_ground_truth_shape(truth: pd.DataFrame) -> None:
    assert list(truth.columns) == ["user", "item", "rating"]
    assert set(truth["user"]) == USERS
    assert set(truth["item"]) <= ITEMS
    assert truth["item"].nunique() > 0.8 * N_ITEMS
    assert pd.api.types.is_integer_dtype(truth["rating"])
    assert set(truth["rating"]) == {1, 2, 3, 4, 5}
    assert not truth.duplicated(["user", "item"]).any()
    per_user = truth.groupby("user").size()
    assert per_user.min() >= 10 and per_user.max() <= 30
    # Some held-out items are disliked, so a relevance threshold matters.
    assert (truth["rating"] <= 2).mean() > 0.05
    assert truth.equals(truth.sort_values(["user", "item"], ignore_index=True))


def test_some_users_have_no_relevant_item(truth: pd.DataFrame) -> None:
    best = truth.groupby("user")["rating"].max()
    no_relevant = (best < 4).sum()
    assert 0.01 * N_USERS <= no_relevant <= 0.05 * N_USERS


def test_popularity_is_long_tailed(truth: pd.DataFrame) -> None:
    counts = truth["item"].value_counts()
    # The 10 % most-rated items hold far more than 10 % of the ratings.
    assert counts.head(N_ITEMS // 10).sum() > 0.3 * len(truth)


@pytest.mark.parametrize("name", MOVIE_MODELS)
def test_model_file_shape(name: str, runs: dict[str, pd.DataFrame]) -> None:
    run = runs[name]
    assert list(run.columns) == ["user", "item", "score"]
    assert run["score"].dtype == np.float64
    assert set(run["user"]) <= USERS
    assert set(run["item"]) <= ITEMS
    assert (run.groupby("user").size() == LIST_LENGTH).all()
    assert not run.duplicated(["user", "item"]).any()
    # Sorted by user, then by strictly decreasing score (so no ties to break).
    assert run["user"].is_monotonic_increasing
    same_user = run["user"].eq(run["user"].shift())
    assert (run["score"].diff()[same_user] < 0).all()
    micro = run["score"].to_numpy() * 1e6
    assert np.allclose(micro, np.round(micro), rtol=0, atol=1e-6)


def test_missing_users(runs: dict[str, pd.DataFrame]) -> None:
    covered = {name: set(run["user"]) for name, run in runs.items()}
    assert covered["popularity"] == USERS
    assert covered["personalized"] == USERS
    assert 0 < len(USERS - covered["top_heavy"]) <= 0.03 * N_USERS
    assert 0 < len(USERS - covered["random"]) <= 0.03 * N_USERS


def test_popularity_is_the_same_list_for_everyone(runs: dict[str, pd.DataFrame]) -> None:
    lists = runs["popularity"].groupby("user")["item"].agg(tuple)
    assert lists.nunique() == 1


# --------------------------------------------------------------------------------------------
# Behaviour of the models
# --------------------------------------------------------------------------------------------


def _precision_recall(run: pd.DataFrame, truth: pd.DataFrame, k: int) -> tuple[float, float]:
    relevant = truth.loc[truth["rating"] >= 4, ["user", "item"]]
    n_relevant = relevant.groupby("user").size()
    top = run[run.groupby("user").cumcount() < k]
    hits = top.merge(relevant, on=["user", "item"]).groupby("user").size()
    hits = hits.reindex(n_relevant.index, fill_value=0)
    return float((hits / k).mean()), float((hits / n_relevant).mean())


def test_models_behave_as_designed(runs: dict[str, pd.DataFrame], truth: pd.DataFrame) -> None:
    m = {(name, k): _precision_recall(runs[name], truth, k)
         for name in MOVIE_MODELS for k in (1, 10, 50)}
    recall10 = {name: m[name, 10][1] for name in MOVIE_MODELS}
    assert recall10["personalized"] > recall10["popularity"] > recall10["random"]
    # top_heavy: best at the very top, worst-but-random at depth.
    assert m["top_heavy", 1][0] > m["personalized", 1][0] + 0.1
    assert m["top_heavy", 50][1] < m["personalized", 50][1] - 0.1
    # personalized beats popularity and random at every cutoff.
    for k in (1, 10, 50):
        for other in ("popularity", "random"):
            assert m["personalized", k][0] > m[other, k][0]
            assert m["personalized", k][1] > m[other, k][1]


SEED_RUNS = [f"{model}@seed{run}" for model in ("personalized", "tuned") for run in (1, 2, 3)]


def test_the_seeds_are_runs_of_two_models_that_differ_by_about_their_spread(
        truth: pd.DataFrame) -> None:
    precision = {}
    for name in SEED_RUNS:
        run = pd.read_parquet(DATA / "seeds" / f"{name}.parquet")
        assert list(run.columns) == ["user", "item", "score"]
        assert set(run["user"]) == USERS and (run.groupby("user").size() == 20).all()
        assert (run.groupby("user")["score"].diff().dropna() < 0).all()  # best first
        precision[name] = _precision_recall(run, truth, 10)[0]
    personalized = np.array([precision[f"personalized@seed{r}"] for r in (1, 2, 3)])
    tuned = np.array([precision[f"tuned@seed{r}"] for r in (1, 2, 3)])
    assert tuned.mean() > personalized.mean()
    # every seed moves the mean: the runs differ by about as much as the two models
    assert personalized.std(ddof=1) > 0 and tuned.std(ddof=1) > 0
    assert tuned.mean() - personalized.mean() < 4 * max(tuned.std(ddof=1),
                                                         personalized.std(ddof=1))


# --------------------------------------------------------------------------------------------
# Textbook examples
# --------------------------------------------------------------------------------------------


def _ranked(file: str) -> list[str]:
    frame = pd.read_csv(TEXTBOOK / file, dtype={"item": str})
    assert list(frame.columns) == ["user", "item", "rank"]
    return frame.sort_values("rank")["item"].tolist()


def _dcg(gains: list[float]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def test_textbook_example() -> None:
    truth = pd.read_csv(TEXTBOOK / "ground_truth.csv", dtype={"item": str})
    assert list(truth.columns) == ["user", "item", "rating"]
    assert set(truth["user"]) == {"user"}
    liked = set(truth.loc[truth["rating"] >= 1, "item"])
    assert liked == {"A", "C", "X", "Y", "Z"}

    recommended = _ranked("recommended.csv")
    assert recommended == ["A", "B", "C", "D", "E"]
    hits = [1.0 if item in liked else 0.0 for item in recommended]
    assert sum(hits) / 5 == pytest.approx(0.4)
    assert sum(hits) / len(liked) == pytest.approx(0.4)
    assert _dcg(hits) == pytest.approx(1.5)
    assert _dcg(hits) / _dcg([1.0] * 5) == pytest.approx(0.5087, abs=1e-4)
    assert _dcg(hits) / _dcg(sorted(hits, reverse=True)) == pytest.approx(0.9197, abs=1e-4)
    precisions = [sum(hits[: i + 1]) / (i + 1) for i, h in enumerate(hits) if h]
    assert sum(precisions) / 5 == pytest.approx(1 / 3)

    moved = _ranked("c_at_position_5.csv")
    assert moved[0] == "A" and moved[4] == "C" and set(moved) == set(recommended)
    hits = [1.0 if item in liked else 0.0 for item in moved]
    assert _dcg(hits) == pytest.approx(1.3869, abs=1e-4)
    assert _dcg(hits) / _dcg(sorted(hits, reverse=True)) == pytest.approx(0.8503, abs=1e-4)
    assert _dcg(hits) / _dcg([1.0] * 5) == pytest.approx(0.4704, abs=1e-4)


def test_graded_textbook_example() -> None:
    truth = pd.read_csv(TEXTBOOK / "graded_ground_truth.csv")
    assert list(truth.columns) == ["user", "item", "rating"]
    grades = dict(zip(truth["item"], truth["rating"], strict=True))
    assert grades == {"d1": 3, "d2": 2, "d3": 0, "d4": 1}
    ranking = _ranked("graded_ranking.csv")
    assert ranking == ["d3", "d1", "d4", "d5", "d2"]

    gains = [float(grades.get(item, 0)) for item in ranking]
    ideal = sorted(grades.values(), reverse=True)
    assert _dcg(gains[:3]) / _dcg(ideal[:3]) == pytest.approx(0.5025, abs=1e-4)
    assert _dcg(gains) / _dcg(ideal) == pytest.approx(0.6650, abs=1e-4)
    hits = [g > 0 for g in gains]
    n_relevant = sum(v > 0 for v in grades.values())
    precisions = [sum(hits[: i + 1]) / (i + 1) for i, h in enumerate(hits) if h]
    assert sum(precisions) / n_relevant == pytest.approx(0.5889, abs=1e-4)
    assert 1 / (hits.index(True) + 1) == 0.5
    assert sum(hits) / 5 == pytest.approx(0.6)
    assert sum(hits) / n_relevant == pytest.approx(1.0)


# --------------------------------------------------------------------------------------------
# Training interactions and genres (the beyond-accuracy inputs)
# --------------------------------------------------------------------------------------------


def test_training_interactions_never_hold_a_held_out_rating(truth: pd.DataFrame) -> None:
    train = pd.read_csv(MOVIES / "train.csv", dtype={"user": str, "item": str})
    assert list(train.columns) == ["user", "item", "timestamp"]
    assert train["user"].nunique() == 2_000
    held_out = set(zip(truth["user"], truth["item"], strict=True))
    assert not any(pair in held_out for pair in zip(train["user"], train["item"], strict=True))
    assert train.groupby("user").size().between(10, 60).all()


def test_the_popularity_model_recommends_what_training_views_most(
        runs: dict[str, pd.DataFrame]) -> None:
    views = pd.read_csv(MOVIES / "train.csv", dtype={"item": str})["item"].value_counts()
    recommended = set(runs["popularity"]["item"].unique())
    assert len(recommended) == 50
    assert len(recommended & set(views.index[:50])) >= 40  # drawn, so not exactly the same


def test_every_movie_has_one_to_five_genres() -> None:
    items = pd.read_csv(MOVIES / "items.csv", dtype=str)
    counts = items["genres"].str.split("|").str.len()
    assert len(items) == 1_500 and counts.between(1, 5).all()
