"""A saved evaluation (a bundle): everything the dashboard shows, without the raw data.

A team with a hundred million users evaluates where its data lives (on one machine or with
Spark, :mod:`rankmetrics.spark`) and opens the result anywhere. A bundle is a folder, or the
same files in one zip archive:

- ``evaluation.json``: the format and its version, the rankmetrics version, the models,
  metrics, cutoffs, relevance mapping and conventions, the user counts of each model, and a
  fingerprint of each input (rows, users and, where cheap, a hash of its content);
- ``means.parquet``: the mean of every metric at every K 1..max_cutoff per model, with the
  users averaged (:meth:`rankmetrics.Evaluation.summary`);
- ``per_user/``: Parquet files of per-user values at a few cutoffs (by default
  1, 3, 5, 10, 20, 50, 100 and the chosen K), one row per model and counted user: the user's
  relevant items, then one column per metric and cutoff (``ndcg@10``; ``r_precision``):
  distributions, significance and head-to-head read these;
- ``sample_truth.parquet``, ``sample_runs.parquet``: the ground truth and every model's rows of
  a sample of users (default 1,000), the same users whichever engine wrote the bundle: those
  whose id hashes lowest (:func:`sample_order`). Pages that need raw lists show these users;
- when the evaluation had beyond-accuracy inputs (training interactions, item attributes, a
  catalogue): ``beyond_means.parquet``, ``beyond_deciles.parquet``,
  ``beyond_long_tail.parquet``, ``beyond_activity.parquet`` (each user's training
  interactions, to split users by activity), the per-user beyond-accuracy metrics as more
  ``per_user/`` columns, and their options and inputs in ``evaluation.json``
  (:mod:`rankmetrics.bundle.beyond`; format version 2; a version-1 bundle, without them,
  still opens).

:func:`load_bundle` reads one back as a :class:`SavedEvaluation`, which answers the questions
an :class:`~rankmetrics.Evaluation` answers, at the saved cutoffs.
"""

from __future__ import annotations

import hashlib
import io
import json
import tempfile
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from rankmetrics.beyond import declared
from rankmetrics.bundle.beyond import (
    BEYOND_ACTIVITY,
    BEYOND_DECILES,
    BEYOND_LONG_TAIL,
    BEYOND_MEANS,
    SavedBeyond,
    beyond_fingerprints,
    beyond_metadata,
    beyond_tables,
)
from rankmetrics.checks import check_int
from rankmetrics.conventions import Conventions
from rankmetrics.errors import DataError
from rankmetrics.io import hash_text
from rankmetrics.metrics import METRICS, check_metrics
from rankmetrics.relevance import RelevanceMapping

if TYPE_CHECKING:
    from rankmetrics.evaluation import Evaluation

FORMAT = "rankmetrics-evaluation"
#: The bundle layout this version writes and the newest it reads (2: beyond-accuracy results).
FORMAT_VERSION = 2
DEFAULT_CUTOFFS = (1, 3, 5, 10, 20, 50, 100)
DEFAULT_SAMPLE_USERS = 1_000
#: The seed of the hash that orders users for the sample (any engine, the same users).
SAMPLE_SEED = 0x5A3D_11E5
METADATA = "evaluation.json"
MEANS = "means.parquet"
PER_USER = "per_user"
SAMPLE_TRUTH = "sample_truth.parquet"
SAMPLE_RUNS = "sample_runs.parquet"
#: The folder holding the user-attributes file given at save time (as it was, any format
#: rankmetrics.io.read_attributes reads), for the dashboard's segments.
USER_ATTRIBUTES = "user_attributes"
#: Most bytes a bundle archive may hold once unpacked (an upload must not fill the memory).
MAX_ARCHIVE_BYTES = 8 << 30


@dataclass(frozen=True)
class Fingerprint:
    """What tells two inputs apart: rows and users evaluated (None for an input whose rows
    are items), and where cheap a hash of the content with the way it was computed
    (``hash_kind``)."""

    rows: int
    users: int | None
    content_hash: str | None = None
    hash_kind: str | None = None


def bundle_cutoffs(max_cutoff: int, chosen: Iterable[int] = (),
                   base: Iterable[int] = DEFAULT_CUTOFFS) -> list[int]:
    """The cutoffs per-user values are saved at: ``base`` and ``chosen``, up to max_cutoff.

    >>> bundle_cutoffs(30, chosen=[7])
    [1, 3, 5, 7, 10, 20]
    """
    wanted = {check_int("cutoff", cutoff) for cutoff in [*base, *chosen]}
    kept = sorted(cutoff for cutoff in wanted if cutoff <= max_cutoff)
    return kept or [max_cutoff]


def per_user_column(metric: str, cutoff: int | None) -> str:
    """The column of a metric's per-user values at a cutoff (``ndcg@10``; ``r_precision``)."""
    return metric if cutoff is None or not declared(metric).has_cutoff else f"{metric}@{cutoff}"


def per_user_columns(metrics: Sequence[str], cutoffs: Sequence[int]) -> list[str]:
    return [per_user_column(metric, cutoff) for metric in metrics
            for cutoff in (cutoffs if declared(metric).has_cutoff else [None])]


def per_user_values(evaluation: Evaluation, metrics: Sequence[str], cutoffs: Sequence[int]
                    ) -> pd.DataFrame:
    """One row per model and counted user: the user's relevant items (``relevant``), then
    one column per metric (accuracy or per-user beyond accuracy) and cutoff."""
    parts = []
    for model in evaluation.models:
        columns: dict[str, np.ndarray] = {}
        users = None
        for metric in metrics:
            has_cutoff = declared(metric).has_cutoff
            labels: Sequence[int | None] = cutoffs if has_cutoff else [None]
            frame = evaluation._per_user_frame(model, metric, cutoffs if has_cutoff else None)
            users = frame.index
            for cutoff, values in zip(labels, frame.to_numpy().T, strict=True):
                columns[per_user_column(metric, cutoff)] = values
        user_ids = np.asarray(users if users is not None else [], dtype=object)
        relevant = evaluation.n_relevant[evaluation.included(model)].astype(np.int64)
        parts.append(pd.DataFrame({"model": model, "user": pd.array(user_ids, dtype="str"),
                                   "relevant": relevant, **columns}))
    return pd.concat(parts, ignore_index=True)


def sample_order(users: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Each user's place in the sampling order: a 63-bit hash of its id (ties, which a 63-bit
    hash all but never has, are broken by id). The sample is the first users in this order."""
    return (hash_text(users, SAMPLE_SEED) >> np.uint64(1)).astype(np.int64)


def sample_users(users: Sequence[str] | pa.Array, count: int) -> list[str]:
    """The ``count`` users first in the sampling order (:func:`sample_order`)."""
    check_int("count", count, low=0)
    array = pa.array(users, type=pa.string()) if not isinstance(users, pa.Array) else users
    keys = sample_order(array)
    ids = np.asarray(array.to_pylist(), dtype=object)
    order = np.lexsort((ids, keys))[:count]
    return [str(user) for user in ids[order]]


def write_bundle(
    directory: str | Path,
    *,
    metadata: Mapping[str, object],
    means: pd.DataFrame,
    per_user: pd.DataFrame | None,
    sample_truth: pd.DataFrame,
    sample_runs: pd.DataFrame,
    user_attributes: str | Path | None = None,
    beyond_tables: Mapping[str, pd.DataFrame] | None = None,
) -> Path:
    """Write a bundle's files into ``directory`` (made if missing; per_user None: the
    caller writes the ``per_user/`` Parquet files itself, as Spark does; a user-attributes
    file is copied as it is; the beyond-accuracy tables when given)."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / METADATA).write_text(json.dumps(metadata, indent=1))
    means.to_parquet(folder / MEANS, index=False)
    if per_user is not None:
        (folder / PER_USER).mkdir(exist_ok=True)
        per_user.to_parquet(folder / PER_USER / "part-00000.parquet", index=False)
    sample_truth.to_parquet(folder / SAMPLE_TRUTH, index=False)
    sample_runs.to_parquet(folder / SAMPLE_RUNS, index=False)
    for name, table in (beyond_tables or {}).items():
        table.to_parquet(folder / name, index=False)
    if user_attributes is not None:
        source = Path(user_attributes)
        (folder / USER_ATTRIBUTES).mkdir(exist_ok=True)
        (folder / USER_ATTRIBUTES / source.name).write_bytes(source.read_bytes())
    return folder


def archive(directory: str | Path, target: str | Path) -> Path:
    """The bundle folder as one zip archive (members stored: Parquet is compressed already)."""
    folder, target = Path(directory), Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)  # as a folder bundle's folder is made
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_STORED) as zipped:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.name.startswith((".", "_")):
                zipped.write(path, path.relative_to(folder).as_posix())
    return target


def metadata(
    *,
    engine: str,
    models: Sequence[str],
    metrics: Sequence[str],
    relevance: RelevanceMapping,
    conventions: Conventions,
    max_cutoff: int,
    cutoffs: Sequence[int],
    user_counts: pd.DataFrame,
    sample_users: int,
    inputs: Mapping[str, Fingerprint],
    beyond: Mapping[str, object] | None = None,
) -> dict[str, object]:
    """The content of ``evaluation.json`` (``beyond``: :func:`beyond_metadata`, when the
    evaluation had beyond-accuracy inputs)."""
    from rankmetrics import __version__

    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "rankmetrics_version": __version__,
        "engine": engine,
        "models": list(models),
        "metrics": list(metrics),
        "relevance": relevance.as_dict(),
        "conventions": conventions.as_dict(),
        "max_cutoff": int(max_cutoff),
        "per_user_cutoffs": [int(cutoff) for cutoff in cutoffs],
        "user_counts": [{key: (int(value) if isinstance(value, (int, np.integer)) else value)
                         for key, value in row.items()}
                        for row in user_counts.to_dict("records")],
        "sample_users": int(sample_users),
        "inputs": {name: asdict(fingerprint) for name, fingerprint in inputs.items()},
        **({"beyond": dict(beyond)} if beyond is not None else {}),
    }


def save_evaluation(
    evaluation: Evaluation,
    path: str | Path,
    *,
    cutoffs: Iterable[int] | None = None,
    chosen_cutoff: int | None = None,
    sample: int = DEFAULT_SAMPLE_USERS,
    metrics: Iterable[str] | None = None,
    inputs: Mapping[str, Fingerprint] | None = None,
    user_attributes: str | Path | None = None,
    beyond_inputs: Mapping[str, Fingerprint] | None = None,
) -> Path:
    """Write ``evaluation`` as a bundle folder, or a zip archive when ``path`` ends in
    ``.zip`` (see :meth:`rankmetrics.Evaluation.save`)."""
    check_int("sample", sample, low=0)
    metrics = check_metrics(list(metrics) if metrics is not None else list(METRICS))
    chosen = bundle_cutoffs(evaluation.max_cutoff, [] if chosen_cutoff is None
                            else [chosen_cutoff], DEFAULT_CUTOFFS if cutoffs is None
                            else cutoffs)
    truth_rows, run_rows = evaluation.raw_rows(
        sample_users(pa.array(evaluation.truth.users, type=pa.string()), sample))
    beyond = evaluation.beyond
    beyond_info = beyond_files = None
    if beyond is not None:
        beyond_files = beyond_tables(beyond, chosen)
        beyond_info = beyond_metadata(beyond, beyond_fingerprints(beyond)
                                      if beyond_inputs is None else beyond_inputs)
    info = metadata(
        engine="single machine", models=evaluation.models, metrics=metrics,
        relevance=evaluation.relevance, conventions=evaluation.conventions,
        max_cutoff=evaluation.max_cutoff, cutoffs=chosen,
        user_counts=evaluation.user_counts(), sample_users=sample,
        inputs=dict(inputs) if inputs is not None else evaluation_fingerprints(evaluation),
        beyond=beyond_info,
    )
    per_user_metrics = [*metrics, *(beyond.per_user_metrics if beyond is not None else ())]
    files = {
        "means": evaluation.summary(metrics),
        "per_user": per_user_values(evaluation, per_user_metrics, chosen),
        "sample_truth": truth_rows,
        "sample_runs": run_rows,
        "user_attributes": user_attributes,
        "beyond_tables": beyond_files,
    }
    return write_or_archive(path, info, **files)


def write_or_archive(path: str | Path, info: Mapping[str, object], **files) -> Path:
    """:func:`write_bundle` into ``path``, or into a zip archive when it ends in ``.zip``."""
    target = Path(path)
    if target.suffix.lower() != ".zip":
        return write_bundle(target, metadata=info, **files)
    with tempfile.TemporaryDirectory() as scratch:
        write_bundle(scratch, metadata=info, **files)
        return archive(scratch, target)


def evaluation_fingerprints(evaluation: Evaluation) -> dict[str, Fingerprint]:
    """Rows and users evaluated of the ground truth and of each model (no content hash: the
    files' own are taken where the files are known, as by the command line)."""
    truth = evaluation.truth
    prints = {"ground_truth": Fingerprint(len(truth.user_index), truth.n_users)}
    for model, run in evaluation.runs.items():
        prints[model] = Fingerprint(int(run.lengths.sum()), int(np.count_nonzero(run.present)))
    return prints


# ----- reading ------------------------------------------------------------------------------


def content_sha256(path: str | Path | bytes) -> str:
    """The SHA-256 of a bundle as given to :func:`load_bundle`: of an archive's bytes, or of
    a folder's files (each one's path within the folder, then its bytes, in path order)."""
    digest = hashlib.sha256()
    if isinstance(path, bytes):
        digest.update(path)
        return digest.hexdigest()
    location = Path(path)
    if location.is_file():
        with location.open("rb") as archive:
            for block in iter(lambda: archive.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    for member in sorted(member for member in location.rglob("*") if member.is_file()):
        digest.update(member.relative_to(location).as_posix().encode() + b"\0")
        digest.update(member.read_bytes())
    return digest.hexdigest()


def load_bundle(path: str | Path | bytes) -> SavedEvaluation:
    """Read a bundle: a folder, a zip archive, or the archive's bytes (an upload).

    A bundle of a newer or unknown format raises :class:`rankmetrics.DataError` saying which
    versions this rankmetrics reads and how to get one that reads it.
    """
    files = _BundleFiles(path)
    raw = files.read(METADATA)
    if raw is None:
        raise DataError(f"no {METADATA} found: this is not a saved rankmetrics evaluation "
                        "(save one with Evaluation.save or `rankmetrics evaluate --save`).",
                        file=files.name)
    try:
        info = json.loads(raw)
    except ValueError as error:
        raise DataError(f"{METADATA} is not valid JSON ({error}).", file=files.name) from None
    _check_format(info, files.name)
    beyond = None
    if "beyond" in info:
        tables = {name: files.table(name) for name in (BEYOND_MEANS, BEYOND_DECILES,
                                                       BEYOND_LONG_TAIL, BEYOND_ACTIVITY)
                  if name == BEYOND_MEANS or files.has(name)}
        beyond = SavedBeyond(info["beyond"], tables, info["per_user_cutoffs"])
    return SavedEvaluation(
        info,
        means=files.table(MEANS),
        per_user=files.table(PER_USER),
        sample_truth=files.table(SAMPLE_TRUTH),
        sample_runs=files.table(SAMPLE_RUNS),
        name=files.name,
        user_attributes=files.first_file(USER_ATTRIBUTES),
        beyond=beyond,
    )


def _check_format(info: object, name: str) -> None:
    if not isinstance(info, dict) or info.get("format") != FORMAT:
        raise DataError(f"{METADATA} does not describe a saved rankmetrics evaluation.",
                        file=name)
    version = info.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise DataError(f"unknown bundle format version {version!r}; this rankmetrics reads "
                        f"versions 1 to {FORMAT_VERSION}.", file=name)
    if version > FORMAT_VERSION:
        raise DataError(
            f"this bundle has format version {version}, written by rankmetrics "
            f"{info.get('rankmetrics_version', '(unknown)')}; this rankmetrics reads versions "
            f"1 to {FORMAT_VERSION}. Upgrade rankmetrics (pip install -U rankmetrics) to "
            "open it.", file=name)


class _BundleFiles:
    """A bundle's members, from a folder or a zip archive (a path or bytes)."""

    def __init__(self, path: str | Path | bytes) -> None:
        self.folder: Path | None = None
        self.zipped: zipfile.ZipFile | None = None
        if isinstance(path, bytes):
            self.name = "uploaded bundle"
            self.zipped = _open_zip(io.BytesIO(path), self.name)
            return
        self.name = str(path)
        location = Path(path)
        if location.is_dir():
            self.folder = location
        elif location.is_file():
            self.zipped = _open_zip(location, self.name)
        else:
            raise DataError("no such folder or file.", file=self.name)

    def has(self, member: str) -> bool:
        if self.folder is not None:
            return (self.folder / member).is_file()
        return self.zipped is not None and member in self.zipped.namelist()

    def read(self, member: str) -> bytes | None:
        if self.folder is not None:
            file = self.folder / member
            return file.read_bytes() if file.is_file() else None
        if self.zipped is None or member not in self.zipped.namelist():
            return None
        return self.zipped.read(member)

    def first_file(self, folder: str) -> tuple[str, bytes] | None:
        """The name and bytes of the file in ``folder`` (None: no such file)."""
        if self.folder is not None:
            found = sorted(self.folder.glob(f"{folder}/*"))
            return (found[0].name, found[0].read_bytes()) if found else None
        names = sorted(name for name in (self.zipped.namelist() if self.zipped else [])
                       if name.startswith(folder + "/") and not name.endswith("/"))
        if not names or self.zipped is None:
            return None
        return names[0].split("/", 1)[1], self.zipped.read(names[0])

    def table(self, member: str) -> pd.DataFrame:
        """A Parquet member (a file, or a folder of part files) as a DataFrame."""
        try:
            if self.folder is not None:
                return pq.read_table(self.folder / member).to_pandas()
            zipped = self.zipped
            parts = [zipped.read(name) for name in self._members(member)] if zipped else []
        except (OSError, pa.ArrowException) as error:
            raise DataError(f"{member} could not be read ({error}).", file=self.name) from None
        if not parts:
            raise DataError(f"{member} is missing from the bundle.", file=self.name)
        return pa.concat_tables([pq.read_table(pa.BufferReader(part)) for part in parts]
                                ).to_pandas()

    def _members(self, member: str) -> list[str]:
        names = self.zipped.namelist() if self.zipped is not None else []
        if member in names:
            return [member]
        return sorted(name for name in names
                      if name.startswith(member + "/") and name.endswith(".parquet"))


def _open_zip(source: Path | io.BytesIO, name: str) -> zipfile.ZipFile:
    try:
        zipped = zipfile.ZipFile(source)
    except zipfile.BadZipFile:
        raise DataError("not a bundle folder or zip archive.", file=name) from None
    if sum(member.file_size for member in zipped.infolist()) > MAX_ARCHIVE_BYTES:
        raise DataError(f"the archive would unpack to more than {MAX_ARCHIVE_BYTES >> 30} GiB; "
                        "open the bundle folder instead.", file=name)
    return zipped


@dataclass(frozen=True)
class SavedUsers:
    """The users of a saved evaluation (what ``Evaluation.truth.users`` is to a fresh one)."""

    users: pd.Index


class SavedEvaluation:
    """An evaluation read back from a bundle: means at every cutoff, per-user values at the
    saved cutoffs (:attr:`cutoffs`), the user counts, and the raw rows of the sampled users
    (:meth:`sample_evaluation` evaluates them)."""

    def __init__(self, info: dict, *, means: pd.DataFrame, per_user: pd.DataFrame,
                 sample_truth: pd.DataFrame, sample_runs: pd.DataFrame, name: str,
                 user_attributes: tuple[str, bytes] | None = None,
                 beyond: SavedBeyond | None = None) -> None:
        self.info = info
        #: The beyond-accuracy results computed when the evaluation was saved (None: it had
        #: no beyond-accuracy inputs, or the bundle is of format version 1).
        self.beyond = beyond
        #: The user-attributes file saved with the evaluation (its name and bytes), if any.
        self.user_attributes = user_attributes
        self.name = name
        self.models: list[str] = list(info["models"])
        self.metrics: list[str] = list(info["metrics"])
        self.max_cutoff: int = int(info["max_cutoff"])
        self.cutoffs: list[int] = [int(cutoff) for cutoff in info["per_user_cutoffs"]]
        self.relevance = RelevanceMapping.from_dict(info["relevance"])
        self.conventions = Conventions(**info["conventions"])
        self.engine: str = info["engine"]
        self.inputs = {key: Fingerprint(**value) for key, value in info["inputs"].items()}
        if beyond is not None and beyond.per_user_metrics:  # averaged like accuracy metrics
            means = pd.concat([means, beyond.summary(beyond.per_user_metrics)],
                              ignore_index=True)
        self._means = means.astype({"cutoff": "Int64"})
        self._per_user = {model: rows.drop(columns="model").set_index("user").sort_index()
                          for model, rows in per_user.groupby("model", sort=False)}
        relevant = (per_user.drop_duplicates("user").set_index("user")["relevant"]
                    .sort_index())
        #: The users some model counts (a bundle keeps no others), and their relevant items.
        self.truth = SavedUsers(pd.Index(relevant.index.astype("str"), name="user"))
        self.n_relevant = relevant.to_numpy(dtype=np.int64)
        self.sample_truth = sample_truth
        self.sample_runs = sample_runs

    @cached_property
    def width(self) -> int:
        """The last cutoff at which a saved mean changes other than by 1/K, read from the
        means (as :attr:`rankmetrics.Evaluation.width`, which it equals unless no mean
        moved over the last cutoffs before that): past it every mean keeps its value or, divided
        by K, falls as 1/K, so the order of the models is the same at every K beyond."""
        last = 1
        for (_, metric), rows in self._means.dropna(subset=["cutoff"]).groupby(
                ["model", "metric"], sort=False):
            values = rows.sort_values("cutoff")["value"].to_numpy(dtype=np.float64)
            if declared(str(metric)).divided_by_cutoff:
                values = values * np.arange(1, len(values) + 1)
            moved = np.flatnonzero(~np.isclose(values[1:], values[:-1], rtol=1e-9, atol=0,
                                               equal_nan=True))
            if len(moved):
                last = max(last, int(moved[-1]) + 2)
        return last

    @property
    def sampled_users(self) -> list[str]:
        """The users whose raw rows the bundle holds."""
        return list(pd.unique(self.sample_truth["user"]))

    def user_counts(self) -> pd.DataFrame:
        return pd.DataFrame(self.info["user_counts"])

    def summary(self, metrics: Iterable[str] | None = None,
                cutoffs: Iterable[int] | None = None) -> pd.DataFrame:
        """As :meth:`rankmetrics.Evaluation.summary`."""
        chosen = self._metrics(metrics)
        table = self._means[self._means["metric"].isin(chosen)]
        if cutoffs is not None:
            wanted = {self._check_cutoff(cutoff) for cutoff in cutoffs}
            table = table[table["cutoff"].isna() | table["cutoff"].isin(wanted)]
        order = {metric: position for position, metric in enumerate(chosen)}
        table = table.assign(_order=table["metric"].map(order),
                             _model=table["model"].map(self.models.index))
        table = table.sort_values(["_model", "_order", "cutoff"], kind="stable")
        return table.drop(columns=["_order", "_model"]).reset_index(drop=True)

    def means(self, metrics: Iterable[str], models: Iterable[str] | None = None
              ) -> dict[str, dict[str, np.ndarray]]:
        """model -> metric -> means at every cutoff 1..max_cutoff (as Evaluation.means)."""
        chosen = self._metrics(metrics)
        table = self._means
        out: dict[str, dict[str, np.ndarray]] = {}
        for model in models or self.models:
            rows = table[table["model"] == self._model(model)]
            out[model] = {
                metric: rows.loc[rows["metric"] == metric, "value"].to_numpy(dtype=np.float64)
                for metric in chosen
            }
        return out

    def curve(self, model: str, metric: str) -> np.ndarray:
        return self.means([metric], [model])[model][metric]

    def per_user_at(self, model: str, metric: str, cutoff: int | None) -> pd.Series:
        """Per-user values at one of the saved cutoffs (see :attr:`cutoffs`)."""
        self._metrics([metric])
        if declared(metric).has_cutoff and self._check_cutoff(cutoff) not in self.cutoffs:
            raise ValueError(
                f"The bundle holds per-user values at K = "
                f"{', '.join(map(str, self.cutoffs))}; got cutoff={cutoff!r}.")
        rows = self._per_user.get(self._model(model))
        column = per_user_column(metric, cutoff)
        if rows is None:  # the model counts no user
            return pd.Series([], index=pd.Index([], dtype="str", name="user"), name=model,
                             dtype=np.float64)
        series = rows[column].astype(np.float64)
        series.index = pd.Index(series.index.astype("str"), name="user")
        series.name = model
        return series

    def included(self, model: str) -> np.ndarray:
        """Which users (in the order of ``truth.users``) the model's means count."""
        rows = self._per_user.get(self._model(model))
        if rows is None:
            return np.zeros(len(self.truth.users), dtype=bool)
        return self.truth.users.isin(rows.index.astype("str"))

    def paired(self, metric: str, cutoff: int | None) -> pd.DataFrame:
        columns = [self.per_user_at(model, metric, cutoff) for model in self.models]
        return pd.concat(columns, axis=1, join="inner")

    def paired_tables(self, metrics: Iterable[str], cutoff: int) -> dict[str, pd.DataFrame]:
        return {metric: self.paired(metric, cutoff) for metric in metrics}

    def per_user_table(self, metrics: Iterable[str] | None = None,
                       cutoffs: Iterable[int] | None = None) -> pd.DataFrame:
        """Long table ``model, user, metric, cutoff, value`` at saved cutoffs."""
        chosen = self._metrics(metrics)
        wanted = self.cutoffs if cutoffs is None else sorted(set(cutoffs))
        parts = []
        for model in self.models:
            for metric in chosen:
                for cutoff in wanted if declared(metric).has_cutoff else [None]:
                    values = self.per_user_at(model, metric, cutoff)
                    parts.append(pd.DataFrame({
                        "model": model, "user": values.index, "metric": metric,
                        "cutoff": pd.array([cutoff] * len(values), dtype="Int64"),
                        "value": values.to_numpy()}))
        return pd.concat(parts, ignore_index=True)

    def confidence_bands(self, metrics: Iterable[str], *, cutoffs: Iterable[int] | None = None,
                         n_bootstrap: int = 1_000, confidence: float = 0.95,
                         seed: int | None = 0) -> pd.DataFrame:
        """As :meth:`rankmetrics.Evaluation.confidence_bands`, at the saved cutoffs among
        ``cutoffs`` (all saved ones when None)."""
        from rankmetrics.evaluation import band_table

        chosen = self._metrics(metrics)
        wanted = self.band_cutoffs(cutoffs)
        per_series = {}
        for model in self.models:
            for metric in chosen:
                columns = wanted if declared(metric).has_cutoff else [None]
                values = np.column_stack([self.per_user_at(model, metric, cutoff).to_numpy()
                                          for cutoff in columns])
                if len(values):
                    per_series[(model, metric)] = values
        return band_table(per_series, wanted, n_bootstrap=n_bootstrap, confidence=confidence,
                          seed=seed, has_cutoff=lambda metric: declared(metric).has_cutoff)

    def band_cutoffs(self, cutoffs: Iterable[int] | None) -> list[int]:
        """The saved cutoffs among ``cutoffs`` (all of them when None)."""
        return [cutoff for cutoff in self.cutoffs if cutoffs is None or cutoff in set(cutoffs)]

    @cached_property
    def sample_run_tables(self) -> dict[str, pd.DataFrame]:
        """Each model's rows of the sampled users (``user, item, score``; none for a model
        that listed none of them)."""
        runs = {model: rows.drop(columns="model").reset_index(drop=True)
                for model, rows in self.sample_runs.groupby("model", sort=False)}
        empty = self.sample_runs.iloc[:0].drop(columns="model")
        return {model: runs.get(model, empty) for model in self.models}

    @cached_property
    def sample_evaluation(self) -> Evaluation:
        """The sampled users evaluated from their raw rows, with the bundle's settings."""
        from rankmetrics.evaluation import evaluate

        return evaluate(self.sample_truth, self.sample_run_tables,
                        relevance=self.relevance, conventions=self.conventions,
                        max_cutoff=self.max_cutoff)

    def _metrics(self, metrics: Iterable[str] | None) -> list[str]:
        """Metric names, checked: the saved accuracy metrics and the saved per-user
        beyond-accuracy ones."""
        wanted = list(metrics) if metrics is not None else self.metrics
        saved = [*self.metrics, *(self.beyond.per_user_metrics if self.beyond else ())]
        chosen = [declared(metric).name for metric in wanted]
        missing = [metric for metric in chosen if metric not in saved]
        if missing:
            raise ValueError(f"The bundle holds {', '.join(saved)}; not "
                             f"{', '.join(missing)}.")
        return chosen

    def _model(self, model: str) -> str:
        if model not in self.models:
            raise ValueError(f"Unknown model {model!r}: the models are "
                             f"{', '.join(self.models)}.")
        return model

    def _check_cutoff(self, cutoff: object) -> int:
        return check_int("cutoff", cutoff, high=self.max_cutoff)

