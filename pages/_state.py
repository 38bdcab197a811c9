"""The dashboard's Streamlit side: session state, the shared sidebar, and cached calls into
the library. Page scripts read what they need from here and draw it.

Caching is in two layers:

- big objects (read tables, the prepared ground truth, each model's ranked run, the
  Evaluation) live in ``st.cache_resource``, keyed on the files' contents and read options and
  on the settings they depend on. They are shared, never copied and never mutated: copying a
  10-million-row table on every rerun, as ``st.cache_data`` does, would take seconds;
- everything a page shows (curves, tables, per-user values, NDCG breakdowns, validation
  warnings) comes from ``st.cache_data`` functions keyed on the same data keys and the
  settings, so changing K, a threshold or a preset recomputes only what it changes.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePath

import numpy as np
import pandas as pd
import streamlit as st

from rankmetrics import GroundTruth, RankedRun
from rankmetrics.conventions import OPTION_CHOICES, OPTION_HELP, PRESET_HELP, PRESETS, Conventions
from rankmetrics.errors import DataError
from rankmetrics.evaluate import Evaluation, band_cutoffs, evaluate
from rankmetrics.explain import (
    NdcgBreakdown,
    SideBySide,
    compare_conventions,
    explain_ndcg,
    side_by_side,
)
from rankmetrics.figures import metric_label, model_colors
from rankmetrics.io import LoadedTable, check_against_truth, read_run, read_truth
from rankmetrics.io._source import Source
from rankmetrics.metrics import MAIN_METRICS
from rankmetrics.relevance import RelevanceMapping, suggest_mapping
from rankmetrics.stats import ModelComparison, compare_models
from rankmetrics.users import (
    Disagreement,
    biggest_differences,
    distribution_summary,
    head_to_head,
    largest_disagreement,
    surprise_user,
    worst_users,
)

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
UPLOADS = "uploads"
PAGES = {
    "data": "pages/data.py",
    "compare": "pages/compare.py",
    "users": "pages/users.py",
    "significance": "pages/significance.py",
    "head_to_head": "pages/head_to_head.py",
    "ndcg": "pages/ndcg.py",
}
CUTOFF_LIMIT = 200
DEFAULT_CUTOFF = 10
DEFAULT_MAX_CUTOFF = 50
EDITABLE_RATINGS = 20
USER_LIST_LIMIT = 5_000
CONFIDENCE_LEVELS = (0.8, 0.9, 0.95, 0.99)
DEFAULT_CONFIDENCE = 0.95
N_BOOTSTRAP = 1_000
BIGGEST_SHOWN = 10
PRESET_CUSTOM = "custom"
FORMAT_CHOICES = (None, "csv", "tsv", "parquet", "jsonl", "trec_run", "trec_qrels",
                  "list_csv", "list_parquet", "list_jsonl")


# ----- demo data sets --------------------------------------------------------------------


@dataclass(frozen=True)
class SeedClaim:
    """A number a seed document states for a demo user, and the rank where it slipped."""

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
    seed_claim: SeedClaim | None = None


DEMOS: dict[str, Demo] = {
    "movies": Demo(
        "Movies demo: 2,000 users, 4 models",
        "A synthetic movie-rating benchmark: held-out 1-5 star ratings as the ground truth and "
        "four models with 50 films per user (a popularity baseline, a personalized model, a "
        "model that is near-perfect at the top but weak below, and a random floor).",
        "movies/ground_truth.csv",
        (("popularity", "movies/popularity.parquet"),
         ("personalized", "movies/personalized.parquet"),
         ("top_heavy", "movies/top_heavy.parquet"),
         ("random", "movies/random.parquet")),
    ),
    "textbook": Demo(
        "Textbook: liked A, C, X, Y, Z",
        "The worked example of the seed documents: a user liked A, C, X, Y and Z; one model "
        "recommends A, B, C, D, E, the other the same items with C moved to position 5.",
        "textbook/ground_truth.csv",
        (("recommended", "textbook/recommended.csv"),
         ("c_at_position_5", "textbook/c_at_position_5.csv")),
        SeedClaim(
            model="c_at_position_5", user="user", cutoff=5, rank=5, claimed="~0.88",
            quote="If movie C had appeared at position 5 instead of position 3, DCG would "
            "drop to 1.0 + 0.43 = 1.43, and NDCG would be ~0.88.",
        ),
    ),
    "textbook_graded": Demo(
        "Textbook: graded judgments d1-d5",
        "A graded example: query q1 with d1 = 3, d2 = 2, d3 = 0, d4 = 1 and the ranking d3, "
        "d1, d4, d5, d2 (d5 has no judgment).",
        "textbook/graded_ground_truth.csv",
        (("graded_ranking", "textbook/graded_ranking.csv"),),
    ),
}


# ----- files, data sets and what was made of them ----------------------------------------


@dataclass(frozen=True)
class FileSpec:
    """One file of a data set and how to read it; ``token`` is its cache key."""

    id: str
    kind: str
    file_name: str
    name: str
    digest: str
    columns: tuple[tuple[str, str], ...] = ()
    format: str | None = None
    path: str | None = None
    data: bytes | None = field(default=None, repr=False, compare=False)

    @property
    def token(self) -> str:
        return f"{self.kind}|{self.file_name}|{self.digest}|{self.columns}|{self.format}"


@dataclass(frozen=True)
class Loaded:
    """What reading a file gave: the table, or the message saying why not."""

    table: LoadedTable | None
    error: str | None = None


@dataclass(frozen=True)
class RelevanceDefaults:
    """The sidebar's starting relevance controls for one ground truth."""

    kind: str
    threshold: float
    table: tuple[tuple[float, float], ...]
    grade_threshold: float
    ratings: tuple[float, ...]
    reason: str


@dataclass(frozen=True)
class Prepared:
    """A data set ready to evaluate: the ground truth and every usable model, ranked."""

    key: str
    source: str
    truth_spec: FileSpec
    truth: LoadedTable
    ground_truth: GroundTruth
    specs: dict[str, FileSpec]
    runs: dict[str, RankedRun]
    problems: dict[str, str]
    colors: dict[str, str]
    relevance_defaults: RelevanceDefaults
    longest_list: int

    @property
    def models(self) -> list[str]:
        return list(self.runs)


@dataclass(frozen=True)
class Settings:
    """The shared sidebar settings."""

    relevance: RelevanceMapping
    conventions: Conventions
    cutoff: int
    max_cutoff: int


HASH = {
    FileSpec: lambda spec: spec.token,
    Prepared: lambda prepared: prepared.key,
}


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def demo_specs(demo_id: str) -> tuple[FileSpec, list[FileSpec]]:
    demo = DEMOS[demo_id]

    def spec(kind: str, name: str, relative: str) -> FileSpec:
        path = DATA / relative
        stat = path.stat()
        return FileSpec(
            id=f"demo/{demo_id}/{name}", kind=kind, file_name=path.name, name=name,
            digest=f"{path}:{stat.st_mtime_ns}:{stat.st_size}", path=str(path),
        )

    truth = spec("truth", PurePath(demo.truth).stem, demo.truth)
    return truth, [spec("run", name, relative) for name, relative in demo.runs]


# ----- cached library calls ---------------------------------------------------------------


@st.cache_resource(max_entries=24, show_spinner=False, hash_funcs=HASH)
def read_file(spec: FileSpec) -> Loaded:
    """Read and validate one file; errors become a message instead of an exception."""
    reader = read_run if spec.kind == "run" else read_truth
    options = {"columns": dict(spec.columns) or None, "format": spec.format}
    try:
        if spec.path is not None:
            table = reader(spec.path, **options)
        else:
            table = reader(spec.data or b"", name=spec.file_name, **options)
    except (DataError, ValueError) as error:
        return Loaded(None, str(error))
    except Exception as error:  # a reader bug must not reach the page as a traceback
        log.exception("reading %s failed", spec.file_name)
        return Loaded(None, f"{spec.file_name}: could not be read ({type(error).__name__}: "
                            f"{error}).")
    return Loaded(table)


@st.cache_resource(max_entries=8, show_spinner=False, hash_funcs=HASH)
def ground_truth(spec: FileSpec) -> GroundTruth:
    return GroundTruth.from_loaded(read_file(spec).table)


@st.cache_resource(max_entries=24, show_spinner=False, hash_funcs=HASH)
def ranked_run(spec: FileSpec, truth: FileSpec, ties: str) -> RankedRun | str:
    """One model's output ranked and matched against the ground truth (or an error)."""
    try:
        return RankedRun.from_loaded(read_file(spec).table, ground_truth(truth), ties=ties)
    except (DataError, ValueError) as error:
        return f"{spec.file_name}: {error}"


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=HASH)
def cross_check(
    spec: FileSpec, truth: FileSpec, relevance: RelevanceMapping, max_cutoff: int
) -> tuple[list[str], str | None]:
    """Warnings from checking a model's file against the ground truth, and an error message
    when they do not belong together."""
    try:
        warnings = check_against_truth(read_file(spec).table, read_file(truth).table,
                                       mapping=relevance, max_cutoff=max_cutoff)
    except (DataError, ValueError) as error:
        return [], str(error)
    return warnings, None


@st.cache_data(max_entries=16, show_spinner=False, hash_funcs=HASH)
def relevance_defaults(truth: FileSpec) -> RelevanceDefaults:
    """The library's suggestion, as starting values for the sidebar's relevance controls."""
    ratings = read_file(truth).table.table["rating"].to_numpy(dtype=np.float64)
    values = np.unique(ratings)
    suggestion = suggest_mapping(values)
    binary_kind = suggestion.recommended.kind == "binary" or set(values) <= {0.0, 1.0}
    graded = suggestion.graded
    if len(values) <= EDITABLE_RATINGS:
        table = tuple((float(v), float(g)) for v, g in zip(values, graded.grades(values),
                                                            strict=True))
    else:
        table = graded.table
    threshold = suggestion.binary.rating_threshold
    if len(values) <= EDITABLE_RATINGS * 5 and threshold not in values:
        above = values[values >= threshold]
        threshold = float(above[0] if len(above) else values[-1])
    return RelevanceDefaults(
        kind="binary" if binary_kind else "graded",
        threshold=float(threshold),
        table=table,
        grade_threshold=float(graded.threshold),
        ratings=tuple(float(v) for v in values),
        reason=suggestion.reason,
    )


def build_mapping(
    kind: str, threshold: float, table: Sequence[tuple[float, float]], grade_threshold: float
) -> RelevanceMapping:
    """The relevance mapping the sidebar controls describe (ValueError if they are invalid)."""
    if kind == "binary":
        return RelevanceMapping.binary(float(threshold))
    bands = sorted((float(rating), float(grade)) for rating, grade in table)
    if len({rating for rating, _ in bands}) != len(bands):
        raise ValueError("The grade table lists a rating twice: keep one row per rating.")
    while bands and bands[0][1] == 0:  # bottom bands of grade 0 say what "lower -> 0" says
        bands.pop(0)
    if not bands:
        raise ValueError("Every rating has grade 0 in the grade table: nothing is relevant.")
    return RelevanceMapping.graded(dict(bands), threshold=float(grade_threshold))


def default_max_cutoff(longest_list: int) -> int:
    """The starting largest K for curves: the longest list, at most 50 (raise it in the
    sidebar; the metrics' cost grows with it)."""
    return max(1, min(longest_list or DEFAULT_MAX_CUTOFF, DEFAULT_MAX_CUTOFF))


def default_mapping(defaults: RelevanceDefaults) -> RelevanceMapping:
    return build_mapping(defaults.kind, defaults.threshold, defaults.table,
                         defaults.grade_threshold)


@st.cache_resource(max_entries=4, show_spinner=False, hash_funcs=HASH)
def evaluation(
    prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions, max_cutoff: int
) -> Evaluation:
    return evaluate(prepared.ground_truth, prepared.runs, relevance=relevance,
                    conventions=conventions, max_cutoff=max_cutoff)


@st.cache_data(max_entries=32, show_spinner="Computing every metric at K = 1..K max…",
               hash_funcs=HASH)
def curves(
    prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions, max_cutoff: int
) -> dict[str, dict[str, list[float]]]:
    """Model -> metric -> mean at K = 1..max_cutoff, for the main metrics."""
    means = evaluation(prepared, relevance, conventions, max_cutoff).means(MAIN_METRICS)
    return {model: {metric: values.tolist() for metric, values in by_metric.items()}
            for model, by_metric in means.items()}


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=HASH)
def user_counts(prepared: Prepared, settings: Settings) -> pd.DataFrame:
    return _evaluation(prepared, settings).user_counts()


def table_at(prepared: Prepared, settings: Settings) -> pd.DataFrame:
    """Every main metric at the chosen K: one row per model, plus the users averaged."""
    values = curves(prepared, settings.relevance, settings.conventions, settings.max_cutoff)
    k = settings.cutoff
    rows = {
        model: {metric_label(metric, k): values[model][metric][k - 1] for metric in MAIN_METRICS}
        for model in prepared.models
    }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "Model"
    counts = user_counts(prepared, settings).set_index("model")["users"]
    table["Users averaged"] = counts.reindex(table.index).to_numpy()
    return table


@st.cache_data(max_entries=32, show_spinner="Computing per-user values…", hash_funcs=HASH)
def per_user(prepared: Prepared, settings: Settings, metric: str) -> dict[str, np.ndarray]:
    """Model -> per-user values of ``metric`` at the chosen K (the users each model counts)."""
    ev = _evaluation(prepared, settings)
    return {model: ev.per_user_at(model, metric, settings.cutoff).to_numpy()
            for model in ev.models}


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=HASH)
def spread(prepared: Prepared, settings: Settings, metric: str) -> pd.DataFrame:
    return distribution_summary(_evaluation(prepared, settings), metric, settings.cutoff)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=HASH)
def worst(prepared: Prepared, settings: Settings, model: str, metric: str,
          count: int) -> pd.DataFrame:
    return worst_users(_evaluation(prepared, settings), model, metric, settings.cutoff,
                       count=count)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=HASH)
def disagreement(prepared: Prepared, settings: Settings, model_a: str,
                 model_b: str) -> Disagreement | None:
    return largest_disagreement(_evaluation(prepared, settings), model_a, model_b, "ndcg",
                                settings.cutoff)


def random_user(prepared: Prepared, settings: Settings, model: str, seed: int) -> str | None:
    return surprise_user(_evaluation(prepared, settings), model, seed)


def counted(prepared: Prepared, settings: Settings, model: str, user: str) -> bool:
    """Whether ``user`` enters ``model``'s means under the current conventions."""
    ev = _evaluation(prepared, settings)
    position = ev.truth.users.get_indexer([user])[0]
    return bool(position >= 0 and ev.included(model)[position])


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=HASH)
def user_rows(prepared: Prepared, model: str, user: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One user's ground-truth rows and the model's rows for them."""
    truth = prepared.truth.table
    run = read_file(prepared.specs[model]).table.table
    return (truth.loc[truth["user"] == user].reset_index(drop=True),
            run.loc[run["user"] == user].reset_index(drop=True))


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=HASH)
def breakdown(prepared: Prepared, settings: Settings, model: str, user: str) -> NdcgBreakdown:
    truth, run = user_rows(prepared, model, user)
    return explain_ndcg(truth, run, user, cutoff=settings.cutoff,
                        relevance=settings.relevance, conventions=settings.conventions)


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=HASH)
def convention_variants(prepared: Prepared, settings: Settings, model: str,
                        user: str) -> pd.DataFrame:
    truth, run = user_rows(prepared, model, user)
    return compare_conventions(truth, run, user, cutoff=settings.cutoff,
                               relevance=settings.relevance, conventions=settings.conventions)


@st.cache_data(max_entries=16, show_spinner=False, hash_funcs=HASH)
def bands(prepared: Prepared, settings: Settings, metrics: tuple[str, ...],
          confidence: float) -> tuple[pd.DataFrame, list[int]]:
    """Each model's bootstrap confidence band for each metric, and the cutoffs they were
    computed at: every K when the per-user values fit the library's budget, else a spread."""
    ev = _evaluation(prepared, settings)
    counted = max(int(ev.included(model).sum()) for model in ev.models)
    cutoffs = band_cutoffs(settings.max_cutoff, keep=[settings.cutoff],
                           n_values_per_cutoff=counted * len(ev.models) * len(metrics))
    table = ev.confidence_bands(metrics, cutoffs=cutoffs, n_bootstrap=N_BOOTSTRAP,
                                confidence=confidence)
    return table, cutoffs


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=HASH)
def paired_users(prepared: Prepared, settings: Settings, metric: str) -> int:
    """How many users every model counts (the users the paired tests compare)."""
    return len(_evaluation(prepared, settings).paired(metric, settings.cutoff))


@st.cache_data(max_entries=16, show_spinner=False, hash_funcs=HASH)
def comparison(prepared: Prepared, settings: Settings, metric: str, test: str,
               n_permutations: int, n_bootstrap: int, confidence: float) -> ModelComparison:
    """Every model's mean, interval and letters and every pair's test (Holm correction; use
    ``with_correction`` for another: it does not resample)."""
    values = _evaluation(prepared, settings).paired(metric, settings.cutoff)
    return compare_models(values, test=test, correction="holm",
                          n_permutations=n_permutations, n_bootstrap=n_bootstrap,
                          confidence=confidence)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=HASH)
def duel(prepared: Prepared, settings: Settings, model_a: str, model_b: str,
         metric: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Two models user by user (the users both count), then the users B beats A by most and
    those A beats B by most."""
    pairs = head_to_head(_evaluation(prepared, settings), model_a, model_b, metric,
                         settings.cutoff)
    return (pairs, *biggest_differences(pairs, count=BIGGEST_SHOWN))


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=HASH)
def both_lists(prepared: Prepared, settings: Settings, model_a: str, model_b: str,
               user: str) -> SideBySide:
    """One user's top-K lists from two models side by side, and the user's ground truth."""
    truth, run_a = user_rows(prepared, model_a, user)
    _, run_b = user_rows(prepared, model_b, user)
    return side_by_side(truth, run_a, run_b, user, cutoff=settings.cutoff,
                        relevance=settings.relevance, conventions=settings.conventions)


def _evaluation(prepared: Prepared, settings: Settings) -> Evaluation:
    return evaluation(prepared, settings.relevance, settings.conventions, settings.max_cutoff)


# ----- session state ----------------------------------------------------------------------


def init_session() -> None:
    """Starting values, set once per session: the movies demo, the default preset."""
    state = st.session_state
    state.setdefault("dataset", "movies")
    state.setdefault("uploads", {"runs": [], "truth": None, "truth_candidate": None,
                                 "next_id": 1})
    state.setdefault("uploader_nonce", 0)
    state.setdefault("preset", "default")
    for option, value in PRESETS["default"].as_dict().items():
        state.setdefault(f"conv_{option}", value)
    state.setdefault("surprise_seed", 0)
    state.setdefault("grade_nonce", 0)


def registry() -> dict:
    return st.session_state["uploads"]


def upload_runs_key() -> str:
    return f"upload_runs_{st.session_state.uploader_nonce}"


def upload_truth_key() -> str:
    return f"upload_truth_{st.session_state.uploader_nonce}"


def take_uploads() -> None:
    """File-uploader callback: move the new files into the registry, empty the uploaders and
    switch the data selector to the uploaded files."""
    state = st.session_state
    reg = registry()
    runs = state.get(upload_runs_key()) or []
    truth = state.get(upload_truth_key())
    for uploaded in runs:
        data = uploaded.getvalue()
        reg["runs"].append(_new_spec(reg, "run", uploaded.name, data))
    if truth is not None:
        reg["truth_candidate"] = _new_spec(reg, "truth", truth.name, truth.getvalue())
    state.uploader_nonce += 1
    state.dataset = UPLOADS


def _new_spec(reg: dict, kind: str, file_name: str, data: bytes) -> FileSpec:
    file_name = PurePath(file_name).name
    spec_id = f"upload{reg['next_id']}"
    reg["next_id"] += 1
    name = _stem(file_name)
    if kind == "run":
        name = unique_name(name, [spec.name for spec in reg["runs"]])
    return FileSpec(id=spec_id, kind=kind, file_name=file_name, name=name,
                    digest=digest(data), data=data)


def _stem(file_name: str) -> str:
    """The file name without its compression and table extensions, as the readers name it."""
    return Source(file=file_name, inner=file_name, compression=None).stem


def unique_name(name: str, taken: Sequence[str]) -> str:
    if name not in taken:
        return name
    number = 2
    while f"{name} ({number})" in taken:
        number += 1
    return f"{name} ({number})"


def remove_run(spec_id: str) -> None:
    reg = registry()
    reg["runs"] = [spec for spec in reg["runs"] if spec.id != spec_id]


def dismiss_truth_candidate() -> None:
    registry()["truth_candidate"] = None


def rename_run(spec_id: str) -> None:
    """Text-input callback: rename a model, refusing empty or duplicate names."""
    state = st.session_state
    reg = registry()
    key = f"rename_{spec_id}"
    wanted = str(state.get(key, "")).strip()
    others = [spec.name for spec in reg["runs"] if spec.id != spec_id]
    current = next(spec for spec in reg["runs"] if spec.id == spec_id)
    problem = None
    if not wanted:
        problem = "A model needs a name."
    elif wanted in others:
        problem = f"Another model is already called {wanted!r}."
    if problem:
        state[f"rename_problem_{spec_id}"] = problem
        state[key] = current.name
        return
    state.pop(f"rename_problem_{spec_id}", None)
    reg["runs"] = [replace(spec, name=wanted) if spec.id == spec_id else spec
                   for spec in reg["runs"]]


def set_read_options(spec_id: str, kind: str) -> None:
    """Form callback: read a file again with the columns and format chosen by hand."""
    state = st.session_state
    reg = registry()
    roles = ("user", "item", "order") if kind == "run" else ("user", "item", "rating")
    columns = {}
    for role in roles:
        value = str(state.get(f"col_{spec_id}_{role}", "") or "").strip()
        if not value:
            continue
        if role == "order":
            role = state.get(f"col_{spec_id}_order_kind", "score")
        columns[role] = value
    chosen = state.get(f"format_{spec_id}")
    options = {"columns": tuple(sorted(columns.items())), "format": chosen}
    if kind == "run":
        reg["runs"] = [replace(spec, **options) if spec.id == spec_id else spec
                       for spec in reg["runs"]]
    else:
        candidate = reg["truth_candidate"]
        base = candidate if candidate is not None and candidate.id == spec_id else reg["truth"]
        # A new id: the ground truth in use and the file being tried are both on the page.
        reg["truth_candidate"] = replace(base, id=f"upload{reg['next_id']}", **options)
        reg["next_id"] += 1


def upload_specs() -> tuple[FileSpec | None, list[FileSpec]]:
    """The uploaded ground truth (a newly uploaded one replaces it once it reads cleanly) and
    the uploaded model files."""
    reg = registry()
    candidate = reg["truth_candidate"]
    if candidate is not None and read_file(candidate).table is not None:
        reg["truth"], reg["truth_candidate"] = candidate, None
    return reg["truth"], list(reg["runs"])


def active_specs() -> tuple[FileSpec | None, list[FileSpec]]:
    dataset = st.session_state.dataset
    if dataset == UPLOADS:
        return upload_specs()
    return demo_specs(dataset)


# ----- preparing the active data set -------------------------------------------------------


def prepare_active(status_area) -> Prepared | str:
    """Read, check and rank the active data set (showing progress when anything is new);
    a message for the pages when there is nothing to show yet."""
    truth_spec, run_specs = active_specs()
    if truth_spec is None:
        return ("No ground truth yet. Upload a ground truth (which items each user liked or "
                "rated) and at least one model's output on the **Data** page to start.")
    ties = st.session_state.conv_ties
    seen = st.session_state.setdefault("_prepared_tokens", set())
    todo = {truth_spec.token} | {(spec.token, truth_spec.token, ties) for spec in run_specs}
    fresh = not todo <= seen
    context = status_area.status("Preparing the data…", expanded=True) if fresh else nullcontext()
    with context as status:
        prepared = _prepare(truth_spec, run_specs, ties, status)
        if status is not None:
            label = (f"Data ready: {len(prepared.runs)} model(s), "
                     f"{prepared.ground_truth.n_users:,} users"
                     if isinstance(prepared, Prepared) else "Files read; see the Data page")
            status.update(label=label, state="complete", expanded=False)
    seen.update(todo)
    return prepared


def _prepare(truth_spec: FileSpec, run_specs: list[FileSpec], ties: str,
             status) -> Prepared | str:
    def say(text: str) -> None:
        if status is not None:
            status.write(text)

    say(f"Reading the ground truth {md(truth_spec.file_name)}…")
    truth = read_file(truth_spec)
    if truth.table is None:
        return ("The ground truth could not be read; see the message next to it on the "
                "**Data** page.")
    say("Indexing the ground truth…")
    ground_truth(truth_spec)
    problems: dict[str, str] = {}
    runs: dict[str, RankedRun] = {}
    for spec in run_specs:
        say(f"Reading {md(spec.file_name)}…")
        loaded = read_file(spec)
        if loaded.table is None:
            problems[spec.name] = loaded.error or "could not be read"
            continue
        say(f"Ranking {md(spec.name)}'s lists and matching them with the ground truth…")
        ranked = ranked_run(spec, truth_spec, ties)
        if isinstance(ranked, str):
            problems[spec.name] = ranked
            continue
        runs[spec.name] = ranked
    defaults = relevance_defaults(truth_spec)
    longest = max((int(run.lengths.max(initial=0)) for run in runs.values()), default=0)
    check_cutoff = default_max_cutoff(longest)
    for name in list(runs):
        spec = next(s for s in run_specs if s.name == name)
        say(f"Checking {md(spec.file_name)} against the ground truth…")
        _, error = cross_check(spec, truth_spec, default_mapping(defaults), check_cutoff)
        if error:
            problems[name] = error
            del runs[name]
    if not runs:
        if not run_specs:
            return ("The ground truth is loaded. Now upload at least one model's output (a "
                    "file with user, item and score or rank columns) on the **Data** page.")
        return ("None of the model files can be evaluated; see the messages next to them on "
                "the **Data** page.")
    key = digest("\n".join([truth_spec.token, ties]
                           + [f"{name}={spec.token}" for spec in run_specs
                              for name in [spec.name] if name in runs]).encode())
    return Prepared(
        key=key,
        source=st.session_state.dataset,
        truth_spec=truth_spec,
        truth=truth.table,
        ground_truth=ground_truth(truth_spec),
        specs={spec.name: spec for spec in run_specs},
        runs=runs,
        problems=problems,
        colors=model_colors([spec.name for spec in run_specs]),
        relevance_defaults=defaults,
        longest_list=longest,
    )


# ----- the shared sidebar -----------------------------------------------------------------


def sidebar(status_area) -> None:
    """Data, relevance, conventions and cutoff controls; prepares the active data set and
    stores it with the settings for the pages."""
    state = st.session_state
    # The grade editor restarts from the last edit when it was not on screen in the previous
    # run, or lost its state (Streamlit resets widgets when st.switch_page interrupts a run).
    editor_was_live = (state.pop("_grade_editor_live", False)
                       and f"grade_editor_{state.grade_nonce}" in state)
    options = [*DEMOS, UPLOADS]
    st.selectbox(
        "Data", options, key="dataset",
        format_func=lambda key: DEMOS[key].label if key in DEMOS else "Your uploaded files",
        help="A bundled demo data set, or the files you upload on the Data page.",
        persist_state="session",
    )
    prepared = prepare_active(status_area)
    state["_prepared"] = prepared if isinstance(prepared, Prepared) else None
    state["_problem"] = prepared if isinstance(prepared, str) else None
    if isinstance(prepared, Prepared):
        if _reset_on_new_truth(prepared):
            editor_was_live = False
        relevance = _relevance_controls(prepared, editor_was_live)
    else:
        relevance = None
    conventions = _convention_controls()
    if isinstance(prepared, Prepared):
        cutoff, max_cutoff = _cutoff_controls()
        state["_settings"] = Settings(relevance, conventions, cutoff, max_cutoff)
        st.divider()
        st.caption(f"**Relevance:** {relevance.describe()}")
    else:
        state["_settings"] = None
    st.caption(f"**Conventions:** {conventions.describe()}")


def _reset_on_new_truth(prepared: Prepared) -> bool:
    """A new ground truth (or data set) starts from its suggested relevance and cutoffs;
    True when that happened."""
    state = st.session_state
    scope = prepared.truth_spec.token
    if state.get("_settings_scope") == scope:
        return False
    state["_settings_scope"] = scope
    defaults = prepared.relevance_defaults
    state.rel_kind = defaults.kind
    state.rel_threshold = defaults.threshold
    state.rel_grade_threshold = defaults.grade_threshold
    state.grade_table = pd.DataFrame(defaults.table, columns=["rating", "grade"])
    state.grade_nonce += 1
    state.max_cutoff = default_max_cutoff(prepared.longest_list)
    state.cutoff = min(DEFAULT_CUTOFF, state.max_cutoff)
    return True


def _relevance_controls(prepared: Prepared, editor_was_live: bool) -> RelevanceMapping:
    state = st.session_state
    defaults = prepared.relevance_defaults
    st.subheader("Relevance")
    st.radio(
        "Ratings become", ["binary", "graded"], key="rel_kind", horizontal=True,
        format_func={"binary": "relevant / not", "graded": "grades"}.get, persist_state="session",
        help="Binary: a rating at or above the threshold is relevant (grade 1). Graded: each "
        "rating gets a grade (NDCG uses the grades; the other metrics count grades at or "
        "above a threshold as relevant).",
    )
    st.caption(md(defaults.reason))
    ratings = defaults.ratings
    if state.rel_kind == "binary":
        if len(ratings) == 1:
            st.caption(f"Every rating is {_number(ratings[0])}: every rated item is relevant.")
            state.rel_threshold = ratings[0]
        elif len(ratings) <= EDITABLE_RATINGS * 5:
            if state.get("rel_threshold") not in ratings:
                state.rel_threshold = defaults.threshold
            st.select_slider("Relevant if rating ≥", options=list(ratings), key="rel_threshold",
                             format_func=_number, persist_state="session")
        else:
            st.slider("Relevant if rating ≥", min_value=ratings[0], max_value=ratings[-1],
                      key="rel_threshold", persist_state="session")
        table: list[tuple[float, float]] = []
    else:
        table = _grade_table_editor(editor_was_live)
        grades = sorted({grade for _, grade in table if grade > 0})
        if grades:
            if state.get("rel_grade_threshold") not in grades:
                state.rel_grade_threshold = min(grades, key=lambda g: abs(
                    g - defaults.grade_threshold))
            st.select_slider(
                "Relevant for the binary metrics if grade ≥", options=grades,
                key="rel_grade_threshold", format_func=_number, persist_state="session",
                help="Precision, recall, hit rate, MRR and MAP need relevant / not relevant.",
            )
        else:
            st.warning("No rating has a grade above 0: nothing is relevant.")
    try:
        return build_mapping(state.rel_kind, state.get("rel_threshold", defaults.threshold),
                             table, state.get("rel_grade_threshold", defaults.grade_threshold))
    except ValueError as error:
        st.error(f"{md(str(error))} Using the suggested mapping instead.")
        return default_mapping(defaults)


def _grade_table_editor(was_live: bool) -> list[tuple[float, float]]:
    """The editable rating -> grade table; edits survive page changes and kind switches
    (when the editor was not on screen in the previous run, it restarts from the last edit)."""
    state = st.session_state
    if not was_live:
        state.grade_nonce += 1
        state.grade_base = state.grade_table
    edited = st.data_editor(
        state.grade_base, key=f"grade_editor_{state.grade_nonce}", hide_index=True,
        num_rows="dynamic",
        column_config={
            "rating": st.column_config.NumberColumn("Rating ≥", required=True,
                                                    help="The lowest rating of the band."),
            "grade": st.column_config.NumberColumn("Grade", required=True,
                                                   help="The grade NDCG uses for the band."),
        },
    )
    state.grade_table = edited
    state["_grade_editor_live"] = True
    rows = edited.dropna()
    return [(float(r), float(g)) for r, g in zip(rows["rating"], rows["grade"], strict=True)]


def _convention_controls() -> Conventions:
    state = st.session_state
    st.subheader("Conventions")
    st.selectbox(
        "Preset", [*PRESETS, PRESET_CUSTOM], key="preset", on_change=_apply_preset,
        persist_state="session",
        help=" ".join(f"**{name}**: {text}" for name, text in PRESET_HELP.items()),
    )
    if state.preset in PRESET_HELP:
        st.caption(PRESET_HELP[state.preset])
    with st.expander("Advanced: each option"):
        for option, choices in OPTION_CHOICES.items():
            st.selectbox(option.replace("_", " ").capitalize(), choices,
                         key=f"conv_{option}", help=OPTION_HELP[option],
                         on_change=sync_preset, persist_state="session")
        st.toggle("Threshold applies to NDCG gains", key="conv_threshold_gains",
                  help=OPTION_HELP["threshold_gains"], on_change=sync_preset,
                  persist_state="session")
    return current_conventions()


def current_conventions() -> Conventions:
    state = st.session_state
    options = {option: state[f"conv_{option}"] for option in PRESETS["default"].as_dict()}
    return Conventions(**options)


def _apply_preset() -> None:
    state = st.session_state
    if state.preset in PRESETS:
        for option, value in PRESETS[state.preset].as_dict().items():
            state[f"conv_{option}"] = value


def sync_preset() -> None:
    """After an option changed: name the preset the options now equal, or "custom"."""
    st.session_state.preset = current_conventions().preset_name() or PRESET_CUSTOM


def _cutoff_controls() -> tuple[int, int]:
    state = st.session_state
    st.subheader("Cutoff")
    st.number_input(
        "Largest K for curves", min_value=1, max_value=CUTOFF_LIMIT, step=1, key="max_cutoff",
        on_change=_clamp_cutoff, persist_state="session",
        help="Curves show every K from 1 to this value.",
    )
    state.cutoff = min(int(state.cutoff), int(state.max_cutoff))
    if state.max_cutoff > 1:
        st.slider("K for tables and distributions", min_value=1,
                  max_value=int(state.max_cutoff), key="cutoff", persist_state="session",
                  help="The list length the summary table, the distributions and the NDCG "
                  "breakdown use; marked on every curve.")
    return int(state.cutoff), int(state.max_cutoff)


def _clamp_cutoff() -> None:
    state = st.session_state
    state.cutoff = min(int(state.cutoff), int(state.max_cutoff))


# ----- what pages use ----------------------------------------------------------------------


def header(title: str, intro: str) -> None:
    """A page's title, its one-sentence explanation and the active settings in one line."""
    st.title(title)
    st.markdown(intro)
    settings: Settings | None = st.session_state.get("_settings")
    if settings is not None:
        st.caption(
            f"K = {settings.cutoff} (curves to {settings.max_cutoff}) · "
            f"{settings.relevance.describe()} · {settings.conventions.describe()}"
        )


def require_data() -> tuple[Prepared, Settings]:
    """The prepared data set and settings, or an explanation of what is missing (then the
    page stops)."""
    prepared = st.session_state.get("_prepared")
    settings = st.session_state.get("_settings")
    if prepared is None or settings is None:
        st.info(st.session_state.get("_problem") or "Choose a data set in the sidebar.")
        st.page_link(PAGES["data"], label="Go to the Data page", icon=":material/upload:")
        st.stop()
    for name, problem in prepared.problems.items():
        st.warning(f"**{md(name)}** is left out: {md(problem)} (see the Data page).")
    return prepared, settings


def confidence_control(where=st) -> float:
    """The confidence level of every interval and band, shared by the pages that show them.

    Each page's selector is its own widget, and a widget forgets a value another widget set,
    so the level lives in ``confidence`` and each selector starts from it."""
    state = st.session_state
    state.setdefault("confidence", DEFAULT_CONFIDENCE)
    state.confidence_choice = state.confidence
    where.selectbox(
        "Confidence level", CONFIDENCE_LEVELS, key="confidence_choice",
        format_func="{:.0%}".format, on_change=_keep_confidence,
        help="How sure the intervals are to contain the true mean (the mean over many more "
        "users like these). 1 − this level is the significance level of the tests.",
    )
    return float(state.confidence)


def _keep_confidence() -> None:
    st.session_state.confidence = st.session_state.confidence_choice


def explain_in_ndcg(model: str, user: str, other: str | None = None) -> None:
    """Open the NDCG explained page on ``user``'s NDCG under ``model`` (and ``other`` as the
    model to compare with)."""
    state = st.session_state
    state.explain_model = model
    state.explain_user = user
    if other is not None:
        state.explain_other = other
    st.switch_page(PAGES["ndcg"])


def ensure_choice(key: str, options: Sequence, default=None) -> None:
    """Make a remembered selection valid for the options shown now."""
    if not options:
        return
    if st.session_state.get(key) not in options:
        st.session_state[key] = default if default in options else options[0]


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=])")


def md(text: object) -> str:
    """Text from a user's file, shown literally inside Markdown (no links, emphasis, LaTeX,
    emoji shortcodes or HTML)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))


def code(text: object) -> str:
    """Text from a user's file as inline code: shown literally, as Markdown shows code."""
    text = str(text)
    if "`" in text or "\n" in text:
        return md(text)
    return f"`{text}`"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
