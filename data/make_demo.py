"""Generate the bundled demo data sets of rankmetrics (seeded; byte-identical on every run).

Usage::

    python data/make_demo.py [--out DIR]

``DIR`` defaults to the folder this script is in. Two data sets are written:

``textbook/``
    The tiny worked examples of the documentation, whose metric values are known by hand.
``movies/``
    A synthetic movie-rating set: 2,000 users, 1,500 items with long-tail popularity, held-out
    1-5 star ratings as ground truth, and four models (``popularity``, ``personalized``,
    ``top_heavy``, ``random``) that each rank 50 items per user, built to behave differently;
    with training interactions (``train.csv``) and genres per movie (``items.csv``).
    ``movies/users.csv`` gives the users a plan, a country and an age.
``simpson/``
    A teaching example of Simpson's paradox: a model that wins overall and loses in every
    segment, because it leaves out the hard users.
``seeds/``
    Three training runs (seeds) of each of two models of the movies' users, ``personalized``
    and a slightly better ``tuned``: their 20-item lists, for telling a real difference from
    the seeds' own spread.

Only numpy, pandas and pyarrow are used. See ``data/README.md`` for what each file holds.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

SEED = 20240611

N_USERS = 2_000
N_ITEMS = 1_500
N_GENRES = 12
LIST_LENGTH = 50
MIN_RATED, MAX_RATED = 10, 30

ZIPF_EXPONENT = 0.9  # popularity of the item of popularity rank r is proportional to r^-0.9
HARSH_SHARE = 0.03  # users who never rate above 3 stars: no relevant item at threshold 4
TOP_HEAVY_MISSING_SHARE = 0.01  # users top_heavy returns nothing for
RANDOM_MISSING_SHARE = 0.005  # users random returns nothing for
WATCH_POPULARITY = 0.7  # held-out items are drawn with weight popularity^0.7 ...
WATCH_TASTE = 6.0  # ... * exp(6 * affinity)
TASTE_NOISE = 0.08  # standard deviation of the noise personalized adds to each taste weight
RATING_BASE = 1.2  # stars = round(1.2 + 4 * affinity + user bias + noise), clipped to 1..5
TOP_HEAVY_HEAD = 3  # positions where top_heavy picks (almost) perfectly
TOP_HEAVY_HIT_RATE = 0.8  # chance that one of those head picks is a liked held-out item

MODELS = ("popularity", "personalized", "top_heavy", "random")
MIN_SEEN, MAX_SEEN = 10, 60  # training interactions per user
GENRE_NAMES = ("Action", "Adventure", "Animation", "Comedy", "Crime", "Documentary", "Drama",
               "Fantasy", "Horror", "Romance", "Sci-Fi", "Thriller")
GENRE_WEIGHT = 0.35  # a film has a genre holding at least this much of its genre profile
DECIMALS = 6


# --------------------------------------------------------------------------------------------
# Writing (deterministic bytes)
# --------------------------------------------------------------------------------------------


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """Write a CSV with ``\\n`` line ends and no index, the same bytes on every platform."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = frame.to_csv(index=False, lineterminator="\n")
    path.write_bytes(text.encode("utf-8"))


def write_parquet(frame: pd.DataFrame, path: Path) -> None:
    """Write a user,item,score table as Parquet without pandas metadata, zstd-compressed.

    The table is built column by column from plain Python/numpy values, so the file holds no
    pandas index or version metadata; statistics are off so the bytes depend only on the data
    (and on the pyarrow version, which writes its name into the file footer).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.table(
        {
            "user": pa.array(frame["user"].tolist(), type=pa.string()),
            "item": pa.array(frame["item"].tolist(), type=pa.string()),
            "score": pa.array(frame["score"].to_numpy(dtype=np.float64), type=pa.float64()),
        }
    )
    pq.write_table(
        table,
        path,
        compression="zstd",
        use_dictionary=True,
        write_statistics=False,
        store_schema=False,
    )


# --------------------------------------------------------------------------------------------
# Textbook examples
# --------------------------------------------------------------------------------------------


def make_textbook(out: Path) -> None:
    """The hand-checkable examples (see README for the expected metric values)."""
    folder = out / "textbook"
    liked = ["A", "C", "X", "Y", "Z"]
    write_csv(
        pd.DataFrame({"user": "user", "item": liked, "rating": 1}),
        folder / "ground_truth.csv",
    )
    for name, items in (
        ("recommended.csv", ["A", "B", "C", "D", "E"]),
        ("c_at_position_5.csv", ["A", "B", "E", "D", "C"]),
    ):
        ranks = list(range(1, len(items) + 1))
        write_csv(pd.DataFrame({"user": "user", "item": items, "rank": ranks}), folder / name)

    write_csv(
        pd.DataFrame({"user": "q1", "item": ["d1", "d2", "d3", "d4"], "rating": [3, 2, 0, 1]}),
        folder / "graded_ground_truth.csv",
    )
    write_csv(
        pd.DataFrame(
            {"user": "q1", "item": ["d3", "d1", "d4", "d5", "d2"], "rank": [1, 2, 3, 4, 5]}
        ),
        folder / "graded_ranking.csv",
    )


# --------------------------------------------------------------------------------------------
# Synthetic movies
# --------------------------------------------------------------------------------------------


def _ids(prefix: str, n: int) -> np.ndarray:
    width = len(str(n))
    return np.array([f"{prefix}{i:0{width}d}" for i in range(1, n + 1)], dtype=object)


def _top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the k largest scores of each row, best first."""
    part = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    part_scores = np.take_along_axis(scores, part, axis=1)
    order = np.argsort(-part_scores, axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)


def _strictly_decreasing(scores: np.ndarray) -> np.ndarray:
    """Round each row to DECIMALS places and break ties so every row strictly decreases.

    Rows arrive sorted descending. In integer units of 10^-DECIMALS the rule
    ``s'[j] = min(s[j], s'[j-1] - 1)`` is a running minimum of ``s[j] + j``, minus ``j``.
    """
    units = np.round(scores * 10**DECIMALS).astype(np.int64)
    offsets = np.arange(units.shape[1], dtype=np.int64)
    units = np.minimum.accumulate(units + offsets, axis=1) - offsets
    return np.round(units / 10**DECIMALS, DECIMALS)


def _ranked_frame(
    user_ids: np.ndarray,
    item_ids: np.ndarray,
    users: np.ndarray,
    items: np.ndarray,
    scores: np.ndarray,
) -> pd.DataFrame:
    """A long user,item,score table from per-user rows of item indices and sorted scores."""
    scores = _strictly_decreasing(scores)
    k = items.shape[1]
    return pd.DataFrame(
        {
            "user": np.repeat(user_ids[users], k),
            "item": item_ids[items.ravel()],
            "score": scores.ravel(),
        }
    )


def _movie_world(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first draws of the movies: each item's popularity and genre profile, each user's
    taste."""
    # Items: a long-tail popularity (Zipf over a random order of the ids) and a genre profile:
    # one main genre, often a second one, a little of everything else; unit length.
    pop_rank = rng.permutation(N_ITEMS)
    popularity = (pop_rank + 1.0) ** -ZIPF_EXPONENT
    popularity /= popularity.sum()
    genres = rng.gamma(0.15, 1.0, size=(N_ITEMS, N_GENRES))
    genres[np.arange(N_ITEMS), rng.integers(0, N_GENRES, N_ITEMS)] += 1.0
    second = rng.random(N_ITEMS) < 0.5
    genres[np.flatnonzero(second), rng.integers(0, N_GENRES, second.sum())] += 0.6
    genres /= np.linalg.norm(genres, axis=1, keepdims=True)

    # Users: a taste concentrated on one to three genres (Dirichlet), unit length, so the
    # affinity taste . genres lies in [0, 1]; plus a personal rating bias.
    taste = rng.dirichlet(np.full(N_GENRES, 0.25), size=N_USERS)
    taste /= np.linalg.norm(taste, axis=1, keepdims=True)
    return popularity, genres, taste


def make_movie_history(out: Path) -> None:
    """The movies' training interactions and genres (for popularity, novelty and diversity).

    Training interactions are earlier views, drawn as the held-out ones are (popularity and
    taste) but in proportion to popularity itself, the popularity model's own signal, and
    never a held-out film of the same user. Each film's genres are those holding at least
    GENRE_WEIGHT of its unit genre profile (its main genre always does).
    """
    popularity, genres, taste = _movie_world(np.random.default_rng(SEED))
    rng = np.random.default_rng(SEED + 1)
    folder = out / "movies"
    user_ids, item_ids = _ids("u", N_USERS), _ids("m", N_ITEMS)
    truth = pd.read_csv(folder / "ground_truth.csv", dtype=str)
    held_out = np.zeros((N_USERS, N_ITEMS), dtype=bool)
    held_out[truth["user"].str[1:].astype(int) - 1, truth["item"].str[1:].astype(int) - 1] = True
    log_weight = np.log(popularity)[None, :] + WATCH_TASTE * (taste @ genres.T)
    keys = np.where(held_out, -np.inf, log_weight + rng.gumbel(size=log_weight.shape))
    seen = _top_k(keys, MAX_SEEN)
    n_seen = rng.integers(MIN_SEEN, MAX_SEEN + 1, N_USERS)
    keep = np.arange(MAX_SEEN)[None, :] < n_seen[:, None]
    users = np.repeat(np.arange(N_USERS), MAX_SEEN).reshape(N_USERS, MAX_SEEN)
    views = pd.DataFrame({"user": user_ids[users[keep]], "item": item_ids[seen[keep]],
                          "timestamp": rng.integers(1_600_000_000, 1_700_000_000, keep.sum())})
    write_csv(views.sort_values(["user", "timestamp"], kind="stable", ignore_index=True),
              folder / "train.csv")
    names = np.array(GENRE_NAMES, dtype=object)
    write_csv(pd.DataFrame({"item": item_ids, "genres": [
        "|".join(names[profile >= GENRE_WEIGHT]) for profile in genres]}),
        folder / "items.csv")


def make_movies(out: Path) -> None:
    """The synthetic movie ratings and four models' top-50 lists."""
    rng = np.random.default_rng(SEED)
    folder = out / "movies"
    user_ids = _ids("u", N_USERS)
    item_ids = _ids("m", N_ITEMS)

    popularity, genres, taste = _movie_world(rng)
    log_pop = np.log(popularity)[None, :]
    affinity = taste @ genres.T  # (users, items), in [0, 1]
    bias = rng.normal(0.0, 0.35, N_USERS)

    # Held-out ratings: each user rates 10-30 distinct items, drawn in proportion to
    # popularity^0.7 * exp(6 * affinity) (people watch popular films and films of their
    # genres), without replacement via the Gumbel top-k trick.
    n_rated = rng.integers(MIN_RATED, MAX_RATED + 1, N_USERS)
    log_weight = WATCH_POPULARITY * log_pop + WATCH_TASTE * affinity
    keys = log_weight + rng.gumbel(size=log_weight.shape)
    watched = _top_k(keys, MAX_RATED)
    watch_affinity = np.take_along_axis(affinity, watched, axis=1)
    latent = (
        RATING_BASE + 4.0 * watch_affinity + bias[:, None] + rng.normal(0.0, 0.8, watched.shape)
    )
    stars = np.clip(np.rint(latent), 1, 5).astype(np.int64)

    # Harsh critics: about 3 % of users never give more than 3 stars.
    harsh = rng.permutation(N_USERS)[: round(HARSH_SHARE * N_USERS)]
    stars[harsh] = np.minimum(stars[harsh], 3)

    keep = np.arange(MAX_RATED)[None, :] < n_rated[:, None]
    rated_users = np.repeat(np.arange(N_USERS), MAX_RATED).reshape(N_USERS, MAX_RATED)
    truth = pd.DataFrame(
        {
            "user": user_ids[rated_users[keep]],
            "item": item_ids[watched[keep]],
            "rating": stars[keep],
        }
    )
    truth = truth.sort_values(["user", "item"], kind="stable", ignore_index=True)
    write_csv(truth, folder / "ground_truth.csv")

    all_users = np.arange(N_USERS)
    frames: dict[str, pd.DataFrame] = {}

    # popularity: the 50 most popular items for everyone, score = share of all views.
    top_pop = np.argsort(-popularity, kind="stable")[:LIST_LENGTH]
    pop_items = np.tile(top_pop, (N_USERS, 1))
    pop_scores = np.tile(popularity[top_pop] * 100.0, (N_USERS, 1))
    frames["popularity"] = _ranked_frame(user_ids, item_ids, all_users, pop_items, pop_scores)

    # personalized: a noisy estimate of the taste, plus a popularity prior.
    noisy_taste = taste + rng.normal(0.0, TASTE_NOISE, taste.shape)
    pers_all = (WATCH_TASTE + 2.0) * (noisy_taste @ genres.T) + WATCH_POPULARITY * log_pop
    pers_items = _top_k(pers_all, LIST_LENGTH)
    pers_scores = np.take_along_axis(pers_all, pers_items, axis=1)
    frames["personalized"] = _ranked_frame(user_ids, item_ids, all_users, pers_items, pers_scores)

    # top_heavy: near-oracle at the head, weak after it. Each of the first 3 positions is, with
    # probability TOP_HEAVY_HIT_RATE, the user's next best-rated liked (>= 4 stars) held-out
    # film, otherwise their next best held-out film rated below 4 (a near miss); positions
    # 4-50 are random films. About 1 % of users get no list at all.
    th_missing = rng.permutation(N_USERS)[: round(TOP_HEAVY_MISSING_SHARE * N_USERS)]
    th_users = np.setdiff1d(all_users, th_missing)
    n_th = len(th_users)
    th_items = np.empty((n_th, LIST_LENGTH), dtype=np.int64)
    rated_keys = np.where(keep, stars + rng.random(stars.shape), -np.inf)  # random tie-break
    best_first = np.argsort(-rated_keys, axis=1, kind="stable")
    for row, user in enumerate(th_users):
        order = best_first[user, : n_rated[user]]
        is_liked = stars[user, order] >= 4
        liked = list(watched[user, order[is_liked]])
        near_misses = list(watched[user, order[~is_liked]])
        head: list[int] = []
        for _ in range(TOP_HEAVY_HEAD):
            hit = rng.random() < TOP_HEAVY_HIT_RATE
            pool = liked if (hit and liked) or not near_misses else near_misses
            head.append(pool.pop(0))
        th_items[row, :TOP_HEAVY_HEAD] = head
    tail_keys = rng.random((n_th, N_ITEMS))
    np.put_along_axis(tail_keys, th_items[:, :TOP_HEAVY_HEAD], -1.0, axis=1)  # never repeat
    th_items[:, TOP_HEAVY_HEAD:] = _top_k(tail_keys, LIST_LENGTH - TOP_HEAVY_HEAD)
    head_scores = (
        0.99 - 0.01 * np.arange(TOP_HEAVY_HEAD) + rng.uniform(0.0, 0.005, (n_th, TOP_HEAVY_HEAD))
    )
    tail_scores = -np.sort(-rng.uniform(0.0, 0.5, (n_th, LIST_LENGTH - TOP_HEAVY_HEAD)), axis=1)
    th_scores = np.concatenate([head_scores, tail_scores], axis=1)
    frames["top_heavy"] = _ranked_frame(user_ids, item_ids, th_users, th_items, th_scores)

    # random: 50 distinct random items per user with random descending scores; about 0.5 % of
    # users get no list.
    rnd_missing = rng.permutation(N_USERS)[: round(RANDOM_MISSING_SHARE * N_USERS)]
    rnd_users = np.setdiff1d(all_users, rnd_missing)
    rnd_keys = rng.random((len(rnd_users), N_ITEMS))
    rnd_items = _top_k(rnd_keys, LIST_LENGTH)
    rnd_scores = np.take_along_axis(rnd_keys, rnd_items, axis=1)
    frames["random"] = _ranked_frame(user_ids, item_ids, rnd_users, rnd_items, rnd_scores)

    for name in MODELS:
        write_parquet(frames[name], folder / f"{name}.parquet")


# --------------------------------------------------------------------------------------------
# User attributes of the movies demo
# --------------------------------------------------------------------------------------------

USERS_SEED = SEED + 1
PREMIUM_LIKED = 20  # users with this many liked (>= 4 stars) held-out films are premium
COUNTRIES = ("US", "DE", "FR", "BR", "JP")
USERS_WITHOUT_ROW = 40
AGE_UNKNOWN_SHARE = 0.05


def make_movie_users(out: Path) -> None:
    """``movies/users.csv``: plan, country and age of the movie demo's users.

    Premium members watch more: the users with 20 or more liked held-out films are premium.
    For them ``personalized`` beats ``top_heavy`` at NDCG@10 (top_heavy finds only 3 of their
    many liked films), while top_heavy wins over all users. Country and age are drawn at
    random and say nothing about the models. 40 users have no row (the segments show them as
    "(no value)") and about 5 % have no age.
    """
    rng = np.random.default_rng(USERS_SEED)
    truth = pd.read_csv(out / "movies" / "ground_truth.csv", dtype={"user": str, "item": str})
    user_ids = _ids("u", N_USERS)
    liked = (truth[truth["rating"] >= 4].groupby("user").size()
             .reindex(user_ids, fill_value=0).to_numpy())
    premium = liked >= PREMIUM_LIKED
    country = np.asarray(COUNTRIES, dtype=object)[rng.integers(0, len(COUNTRIES), N_USERS)]
    age = rng.integers(18, 71, N_USERS).astype(object)
    age[rng.random(N_USERS) < AGE_UNKNOWN_SHARE] = ""
    users = pd.DataFrame({"user": user_ids, "plan": np.where(premium, "premium", "free"),
                          "country": country, "age": age})
    listed = np.sort(rng.permutation(N_USERS)[USERS_WITHOUT_ROW:])
    write_csv(users.iloc[listed], out / "movies" / "users.csv")


# --------------------------------------------------------------------------------------------
# Simpson's paradox
# --------------------------------------------------------------------------------------------

SIMPSON_USERS = 300  # per segment
SIMPSON_LIST = 10
# Per segment: users the cautious model lists, and how many of them each model hits at rank 1
# (the thorough model lists every user; its hits among the others are below).
SIMPSON = {
    "returning": {"cautious_lists": 270, "cautious_hits": 189, "thorough_hits_listed": 216,
                  "thorough_hits_others": 24},
    "new": {"cautious_lists": 40, "cautious_hits": 8, "thorough_hits_listed": 12,
            "thorough_hits_others": 78},
}


def make_simpson(out: Path) -> None:
    """``simpson/``: each user has one film they watched next (the ground truth); a model hits
    when it puts that film first.

    ``thorough`` lists all 600 users; ``cautious`` lists only the users it is sure of: 270 of
    the 300 returning users and 40 of the 300 new ones. Within each segment thorough hits more
    often (returning 0.80 against 0.70, new 0.30 against 0.20), yet with missing users skipped
    cautious is averaged over mostly returning users and wins overall (0.635 against 0.55).
    No randomness: the hits are the first users of each group.
    """
    folder = out / "simpson"
    rows, truth, thorough, cautious = [], [], [], []
    for segment, design in SIMPSON.items():
        for i in range(SIMPSON_USERS):
            user = f"{segment[0]}{i + 1:03d}"
            rows.append((user, segment))
            target = f"film_{user}"
            truth.append((user, target, 1))
            listed = i < design["cautious_lists"]
            thorough_hit = (i < design["thorough_hits_listed"] if listed else
                            i - design["cautious_lists"] < design["thorough_hits_others"])
            thorough.extend(_simpson_list(user, target, thorough_hit))
            if listed:
                cautious.extend(_simpson_list(user, target, i < design["cautious_hits"]))
    write_csv(pd.DataFrame(rows, columns=["user", "user_type"]), folder / "users.csv")
    write_csv(pd.DataFrame(truth, columns=["user", "item", "rating"]),
              folder / "ground_truth.csv")
    for name, lists in (("thorough", thorough), ("cautious", cautious)):
        write_csv(pd.DataFrame(lists, columns=["user", "item", "rank"]), folder / f"{name}.csv")


def _simpson_list(user: str, target: str, hit: bool) -> list[tuple[str, str, int]]:
    """A list of SIMPSON_LIST films, the target first when ``hit``, else not at all."""
    films = [target] if hit else []
    films += [f"other_{j:02d}" for j in range(1, SIMPSON_LIST + 1 - len(films))]
    return [(user, film, rank) for rank, film in enumerate(films, start=1)]


# --------------------------------------------------------------------------------------------
# Several runs (seeds) of two models of the movies' users
# --------------------------------------------------------------------------------------------

SEED_RUNS = 3
SEED_LIST_LENGTH = 20
#: Each model's noise on the users' tastes, as personalized has it; tuned knows them better.
SEED_MODELS = (("personalized", TASTE_NOISE), ("tuned", 0.055))
#: What a training run gets wrong about every film's genres, drawn anew for each seed: shared
#: by all users, so it moves the run's mean (unlike the users' own noise, which averages out).
SEED_ITEM_NOISE = 0.07


def make_seeds(out: Path) -> None:
    """Runs ``model@seedN`` of two models of the movies' world, each seed its own draws."""
    popularity, genres, taste = _movie_world(np.random.default_rng(SEED))
    log_pop = np.log(popularity)[None, :]
    user_ids, item_ids = _ids("u", N_USERS), _ids("m", N_ITEMS)
    for index, (model, noise) in enumerate(SEED_MODELS):
        for run in range(1, SEED_RUNS + 1):
            rng = np.random.default_rng([SEED, index, run])
            noisy_taste = taste + rng.normal(0.0, noise, taste.shape)
            learned = genres + rng.normal(0.0, SEED_ITEM_NOISE, genres.shape)
            scores = (WATCH_TASTE + 2.0) * (noisy_taste @ learned.T) + WATCH_POPULARITY * log_pop
            top = _top_k(scores, SEED_LIST_LENGTH)
            frame = _ranked_frame(user_ids, item_ids, np.arange(N_USERS), top,
                                  np.take_along_axis(scores, top, axis=1))
            write_parquet(frame, out / "seeds" / f"{model}@seed{run}.parquet")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent,
        help="folder to write textbook/, movies/, simpson/ and seeds/ into (default: this "
        "script's folder)",
    )
    args = parser.parse_args(argv)
    make_textbook(args.out)
    make_movies(args.out)
    make_movie_users(args.out)
    make_simpson(args.out)
    make_movie_history(args.out)
    make_seeds(args.out)


if __name__ == "__main__":
    main()
