"""The bundled demo data sets: their files and the words that introduce them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePath

from dashboard.files import FileSpec

DATA = Path(__file__).resolve().parent.parent / "data"


@dataclass(frozen=True)
class TutorialSlip:
    """A figure a widely copied NDCG tutorial gives for a demo user, where its arithmetic
    slipped (``rank``'s discount), and the tutorial's own words."""

    model: str
    user: str
    cutoff: int
    rank: int
    claimed: str
    quote: str


@dataclass(frozen=True)
class Demo:
    label: str
    description: str
    truth: str
    runs: tuple[tuple[str, str], ...]
    tutorial_slip: TutorialSlip | None = None
    #: User attributes for the Segments page (a path under data/), if the demo has them.
    user_attributes: str | None = None
    #: Conventions the demo is about, set when it is chosen: (option, value) pairs.
    conventions: tuple[tuple[str, str], ...] = ()
    #: Optional files by kind ("interactions", "attributes"), for the beyond-accuracy metrics.
    extras: tuple[tuple[str, str], ...] = ()


DEMOS: dict[str, Demo] = {
    "movies": Demo(
        "Movies: 2,000 users",  # fits the sidebar's select box
        "A synthetic movie-rating benchmark: held-out 1-5 star ratings as the ground truth and "
        "four models with 50 films per user (a popularity baseline, a personalized model, a "
        "model that is near-perfect at the top but weak below, and a random floor).",
        "movies/ground_truth.csv",
        (("popularity", "movies/popularity.parquet"),
         ("personalized", "movies/personalized.parquet"),
         ("top_heavy", "movies/top_heavy.parquet"),
         ("random", "movies/random.parquet")),
        user_attributes="movies/users.csv",
        extras=(("interactions", "movies/train.csv"), ("attributes", "movies/items.csv")),
    ),
    "textbook": Demo(
        "Textbook: liked or not",
        "The worked example of a widely copied NDCG tutorial: a user liked A, C, X, Y and Z; "
        "one model recommends A, B, C, D, E, the other the same items with C moved to "
        "position 5.",
        "textbook/ground_truth.csv",
        (("recommended", "textbook/recommended.csv"),
         ("c_at_position_5", "textbook/c_at_position_5.csv")),
        TutorialSlip(
            model="c_at_position_5", user="user", cutoff=5, rank=5, claimed="~0.88",
            quote="If movie C had appeared at position 5 instead of position 3, DCG would "
            "drop to 1.0 + 0.43 = 1.43, and NDCG would be ~0.88.",
        ),
    ),
    "textbook_graded": Demo(
        "Textbook: graded",
        "A graded example: query q1 with d1 = 3, d2 = 2, d3 = 0, d4 = 1 and the ranking d3, "
        "d1, d4, d5, d2 (d5 has no judgment).",
        "textbook/graded_ground_truth.csv",
        (("graded_ranking", "textbook/graded_ranking.csv"),),
    ),
    "simpson": Demo(
        "Simpson's paradox",
        "A teaching example: 'cautious' lists only the users it is sure of, mostly returning "
        "ones; 'thorough' lists everyone and is better for returning users and for new users "
        "alike. With users missing from a model skipped (set when this data set is chosen), "
        "cautious still wins on average: open the Segments page and split by user_type.",
        "simpson/ground_truth.csv",
        (("thorough", "simpson/thorough.csv"), ("cautious", "simpson/cautious.csv")),
        user_attributes="simpson/users.csv",
        conventions=(("missing_users", "skip"),),
    ),
    "seeds": Demo(
        "Seeds: 3 runs of 2 models",
        "The movies' users with two models trained three times each (seeds 1-3): "
        "personalized and a slightly better tuned, and the popularity baseline. Over users, "
        "tuned is ahead; the Significance page asks whether the gap is larger than the "
        "seeds' own spread.",
        "movies/ground_truth.csv",
        (*((f"{model}@seed{run}", f"seeds/{model}@seed{run}.parquet")
           for model in ("personalized", "tuned") for run in (1, 2, 3)),
         ("popularity", "movies/popularity.parquet")),
    ),
}


def demo_specs(demo_id: str) -> tuple[FileSpec, list[FileSpec]]:
    """The demo's ground truth and model files (keyed on their path, size and mtime)."""
    demo = DEMOS[demo_id]
    truth = _spec(demo_id, "truth", PurePath(demo.truth).stem, demo.truth)
    return truth, [_spec(demo_id, "run", name, relative) for name, relative in demo.runs]


def demo_attributes_spec(demo_id: str) -> FileSpec | None:
    """The demo's user-attributes file, if it has one."""
    relative = DEMOS[demo_id].user_attributes
    if relative is None:
        return None
    return _spec(demo_id, "user_attributes", PurePath(relative).stem, relative)


def demo_extra_specs(demo_id: str) -> dict[str, FileSpec]:
    """The demo's optional files by kind (training interactions, item attributes)."""
    return {kind: _spec(demo_id, kind, PurePath(relative).stem, relative)
            for kind, relative in DEMOS[demo_id].extras}


def _spec(demo_id: str, kind: str, name: str, relative: str) -> FileSpec:
    path = DATA / relative
    stat = path.stat()
    return FileSpec(
        id=f"demo/{demo_id}/{name}", kind=kind, file_name=path.name, name=name,
        digest=f"{path}:{stat.st_mtime_ns}:{stat.st_size}", path=str(path),
    )
