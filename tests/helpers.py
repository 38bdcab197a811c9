"""Helpers shared by the tests: where the demo data is, and random data sets.

Fixtures built on them (the demo data read and evaluated once per session) are in
``conftest.py``; a test module imports from here, never from another test module.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd

from rankmetrics.conventions import OPTION_CHOICES

REPO = Path(__file__).resolve().parents[1]
TEXTBOOK = REPO / "data" / "textbook"
MOVIES = REPO / "data" / "movies"
MOVIE_MODELS = ("popularity", "personalized", "top_heavy", "random")

#: The options whose every combination the convention tests run: those that meet in one
#: kernel (gain and ideal in NDCG, the denominators and user rules in every mean, ties and
#: identical ids in the ranking).
COMBINED_OPTIONS = ("gain", "ideal", "ap_denominator", "empty_users", "missing_users", "ties",
                    "rbp_gain", "identical_ids")


def convention_combinations() -> list[dict[str, str]]:
    """Every combination of :data:`COMBINED_OPTIONS`, each with the other options' choices
    drawn at random (a fixed seed), so that every choice of those meets every choice of the
    others many times without the full product (which grows with every option)."""
    rng = np.random.default_rng(2024)
    others = [option for option in OPTION_CHOICES if option not in COMBINED_OPTIONS]
    combinations = []
    for values in itertools.product(*(OPTION_CHOICES[o] for o in COMBINED_OPTIONS)):
        chosen = dict(zip(COMBINED_OPTIONS, values, strict=True))
        chosen |= {option: OPTION_CHOICES[option][rng.integers(len(OPTION_CHOICES[option]))]
                   for option in others}
        combinations.append({option: chosen[option] for option in OPTION_CHOICES})
    return combinations


def random_data(
    seed: int, *, ratings: str = "grades", tie_free: bool = False, n_users: int = 30
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A random ground truth (user, item, rating) and model output (user, item, score).

    ratings: "grades" (0-3) or "stars" (1-5). About one user in six has no relevant item (all
    grades 0, or stars 1-2), and about one in six is missing from the model; the other lists
    have 1 to 30 items, mostly judged ones; two users of the output are unknown to the ground
    truth. Item ids are text ("i7" > "i12"), so the tie order by id is not the numeric one.
    Odd seeds shuffle the output's rows; even seeds group them by user, in another user order
    than the ground truth's, each user's rows sorted by score.
    """
    rng = np.random.default_rng(seed)
    catalog = np.array([f"i{number}" for number in range(60)])
    no_relevant, missing = rng.random((2, n_users)) < 0.17
    no_relevant[0] = missing[1] = True
    truth, run = [], []
    for number in range(n_users):
        user = f"u{number}"
        judged = rng.choice(catalog, size=rng.integers(1, 16), replace=False)
        if ratings == "grades":
            grades = rng.integers(0, 1 if no_relevant[number] else 4, len(judged))
        else:
            grades = rng.integers(1, 3 if no_relevant[number] else 6, len(judged))
        truth += [(user, item, int(grade)) for item, grade in zip(judged, grades, strict=True)]
        weights = np.where(np.isin(catalog, judged), 6.0, 1.0)
        length = 0 if missing[number] else rng.integers(1, 31)
        items = rng.choice(catalog, size=length, replace=False, p=weights / weights.sum())
        scores = rng.permutation(length) / 10 if tie_free else np.round(rng.random(length), 1)
        run += [(user, item, float(score)) for item, score in zip(items, scores, strict=True)]
    for user in ("stranger1", "stranger2"):
        run += [(user, item, float(score)) for score, item in enumerate(catalog[:5])]
    truth_df = pd.DataFrame(truth, columns=["user", "item", "rating"])
    run_df = pd.DataFrame(run, columns=["user", "item", "score"])
    if seed % 2:
        return truth_df, run_df.sample(frac=1.0, random_state=seed, ignore_index=True)
    # as a model writes its output: grouped by user (in another order than the ground truth),
    # best score first
    users = rng.permutation(run_df["user"].unique())
    position = dict(zip(users, range(len(users)), strict=True))
    run_df = run_df.assign(position=run_df["user"].map(position)).sort_values(
        ["position", "score"], ascending=[True, False], kind="stable", ignore_index=True
    )
    return truth_df, run_df.drop(columns="position")
