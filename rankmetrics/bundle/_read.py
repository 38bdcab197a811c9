"""Reading a bundle back: a folder, a zip archive or the archive's bytes, checked."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from rankmetrics.bundle._format import (
    BEYOND_ACTIVITY,
    BEYOND_DECILES,
    BEYOND_EXPOSURE,
    BEYOND_LONG_TAIL,
    BEYOND_MEANS,
    FORMAT,
    FORMAT_VERSION,
    MAX_ARCHIVE_BYTES,
    MEANS,
    METADATA,
    PER_USER,
    SAMPLE_RUNS,
    SAMPLE_TRUTH,
    USER_ATTRIBUTES,
)
from rankmetrics.bundle._schema import checked_metadata
from rankmetrics.errors import DataError
from rankmetrics.io import decompressed_limit


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


@dataclass(frozen=True)
class BundleContents:
    """A bundle's files as read: ``info`` (``evaluation.json``), the tables, the
    user-attributes file saved with it (its name and bytes), the beyond-accuracy tables (by
    file name; empty when the evaluation had no beyond-accuracy inputs) and the bundle's name
    (its path, or "uploaded bundle")."""

    info: dict
    means: pd.DataFrame
    per_user: pd.DataFrame
    sample_truth: pd.DataFrame
    sample_runs: pd.DataFrame
    name: str
    user_attributes: tuple[str, bytes] | None
    beyond_tables: dict[str, pd.DataFrame]


#: Bytes a row of a Parquet column takes once decoded, by its physical type (text: its
#: offset, the text itself counted apart).
PHYSICAL_WIDTH = {"BOOLEAN": 1, "INT32": 4, "FLOAT": 4, "INT64": 8, "DOUBLE": 8, "INT96": 12,
                  "BYTE_ARRAY": 8, "FIXED_LEN_BYTE_ARRAY": 16}
#: Bytes a table takes in memory while it is read, per byte its Parquet file says it holds
#: uncompressed (Arrow's table, then the DataFrame made of it).
READ_MEMORY = 3


def read_bundle(path: str | Path | bytes, *, max_memory: int | str | None = None
                ) -> BundleContents:
    """Read a bundle's files: a folder, a zip archive, or the archive's bytes (an upload).

    A bundle of a newer or unknown format raises :class:`rankmetrics.DataError` saying which
    versions this rankmetrics reads and how to get one that reads it. ``max_memory`` (bytes,
    or text such as "2G"; default: as for compressed files, the environment variable
    ``RANKMETRICS_MAX_DECOMPRESSED_SIZE``, else 4 GiB) bounds what reading its tables may
    take, from the sizes their Parquet files declare, before any is read.
    """
    limit = decompressed_limit(max_memory)
    files = BundleFiles(path, limit=limit)
    info = _metadata(files)
    files.check_parts(info.get("parts") or {})
    needed = files.read_memory()
    if needed > limit:
        raise DataError(f"reading this bundle's tables would take about {_size(needed)} of "
                        f"memory (their files hold {_size(needed // READ_MEMORY)} once "
                        f"decoded), more than the {_size(limit)} allowed. Raise "
                        "the limit (--max-decompressed-size, RANKMETRICS_MAX_DECOMPRESSED_SIZE) "
                        "if the bundle is yours.", file=files.name)
    beyond_tables = {}
    if "beyond" in info:
        beyond_tables = {name: files.table(name) for name in (BEYOND_MEANS, BEYOND_DECILES,
                                                              BEYOND_LONG_TAIL, BEYOND_ACTIVITY,
                                                              BEYOND_EXPOSURE)
                         if name == BEYOND_MEANS or files.has(name)}
    per_user = files.table(PER_USER)
    _check_user_counts(info, per_user, files.name)
    return BundleContents(
        info,
        means=files.table(MEANS),
        per_user=per_user,
        sample_truth=files.table(SAMPLE_TRUTH),
        sample_runs=files.table(SAMPLE_RUNS),
        name=files.name,
        user_attributes=files.first_file(USER_ATTRIBUTES),
        beyond_tables=beyond_tables,
    )


def bundle_read_memory(path: str | Path | bytes) -> int:
    """About the memory reading a bundle takes, from what its Parquet files declare (a
    server checks it against what it has room for before reading); 0 for a bundle whose
    files cannot tell, which :func:`read_bundle` then refuses, saying why."""
    try:
        return BundleFiles(path).read_memory()
    except DataError:
        return 0


def check_format(info: object, name: str) -> None:
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


def _metadata(files: BundleFiles) -> dict:
    """``evaluation.json``, read and checked (see :func:`checked_metadata`)."""
    raw = files.read(METADATA)
    if raw is None:
        raise DataError(f"no {METADATA} found: this is not a saved rankmetrics evaluation "
                        "(save one with Evaluation.save or `rankmetrics evaluate --save`).",
                        file=files.name)
    try:
        info = json.loads(raw)
    except ValueError as error:
        raise DataError(f"{METADATA} is not valid JSON ({error}).", file=files.name) from None
    check_format(info, files.name)
    return checked_metadata(info, files.name)


def _check_user_counts(info: dict, per_user: pd.DataFrame, name: str) -> None:
    """Each model's users averaged, as ``evaluation.json`` says, are the users its per-user
    values hold (a count edited after saving would be reported as users averaged)."""
    if "model" not in per_user.columns or "user" not in per_user.columns:
        raise DataError(f"{PER_USER} has no model or user column: the bundle is damaged. "
                        "Save the evaluation again.", file=name)
    held = per_user.groupby("model", sort=False)["user"].nunique()
    for row in info["user_counts"]:
        model, said = row["model"], row["users"]
        found = int(held.get(model, 0))
        if found != said:
            raise DataError(f"{METADATA} says {said:,} users are averaged for the model "
                            f"'{model}', but its per-user values hold {found:,}: the bundle "
                            "was changed after it was saved. Save the evaluation again.",
                            file=name)


#: What reading a member of a damaged archive or a damaged Parquet file may raise.
DAMAGED = (OSError, EOFError, zipfile.BadZipFile, zlib.error, pa.ArrowException, ValueError)


class BundleFiles:
    """A bundle's members, from a folder or a zip archive (a path or bytes)."""

    def __init__(self, path: str | Path | bytes, *, limit: int | None = None) -> None:
        """``limit``: the most bytes the archive may unpack to, and a folder's file read
        whole may hold (default: :data:`MAX_ARCHIVE_BYTES`)."""
        self.folder: Path | None = None
        self.zipped: zipfile.ZipFile | None = None
        self.limit = MAX_ARCHIVE_BYTES if limit is None else min(limit, MAX_ARCHIVE_BYTES)
        if isinstance(path, bytes):
            self.name = "uploaded bundle"
            self.zipped = open_zip(io.BytesIO(path), self.name, self.limit)
            return
        self.name = str(path)
        location = Path(path)
        if location.is_dir():
            self.folder = location
        elif location.is_file():
            self.zipped = open_zip(location, self.name, self.limit)
        else:
            raise DataError("no such folder or file.", file=self.name)

    def _whole(self, file: Path) -> bytes:
        """A folder's file read whole, refused when it holds more than the limit."""
        size = file.stat().st_size
        if size > self.limit:
            raise DataError(f"{file.name} holds {_size(size)}, more than the {_size(self.limit)} "
                            "allowed. Raise the limit (--max-decompressed-size, "
                            "RANKMETRICS_MAX_DECOMPRESSED_SIZE) if the bundle is yours.",
                            file=self.name)
        return file.read_bytes()

    def has(self, member: str) -> bool:
        if self.folder is not None:
            return (self.folder / member).is_file()
        return self.zipped is not None and member in self.zipped.namelist()

    def read(self, member: str) -> bytes | None:
        try:
            if self.folder is not None:
                file = self.folder / member
                return self._whole(file) if file.is_file() else None
            if self.zipped is None or member not in self.zipped.namelist():
                return None
            return self.zipped.read(member)
        except DAMAGED as error:
            raise DataError(f"{member} could not be read ({_reason(error)}): the bundle is "
                            "damaged. Save the evaluation again.", file=self.name) from None

    def read_memory(self) -> int:
        """About the memory reading the bundle's tables takes (:data:`READ_MEMORY` times
        what their files declare)."""
        return READ_MEMORY * self.declared_bytes()

    def declared_bytes(self) -> int:
        """What the bundle's Parquet files hold once decoded, from their footers (nothing
        else is read)."""
        total = 0
        for member in self._parquet_members():
            try:
                if self.folder is not None:
                    meta = pq.read_metadata(self.folder / member)
                elif self.zipped is not None:
                    with self.zipped.open(member) as opened:
                        meta = pq.ParquetFile(opened).metadata
                else:
                    continue
            except DAMAGED as error:
                raise DataError(f"{member} could not be read ({_reason(error)}): the bundle "
                                "is damaged. Save the evaluation again.",
                                file=self.name) from None
            for group in range(meta.num_row_groups):
                row_group = meta.row_group(group)
                for column in range(row_group.num_columns):
                    chunk = row_group.column(column)
                    # the values decoded: fixed-width ones take their width a row, text its
                    # bytes and an offset a row (dictionary and run-length encoding hide how
                    # many rows a few encoded bytes hold)
                    width = PHYSICAL_WIDTH.get(chunk.physical_type, 8)
                    total += (row_group.num_rows * width
                              + (chunk.total_uncompressed_size
                                 if chunk.physical_type == "BYTE_ARRAY" else 0))
        return total

    def _parquet_members(self) -> list[str]:
        if self.folder is not None:
            return [path.relative_to(self.folder).as_posix()
                    for path in sorted(self.folder.rglob("*.parquet"))
                    if not path.name.startswith((".", "_"))]
        names = self.zipped.namelist() if self.zipped is not None else []
        return [name for name in names if name.endswith(".parquet")]

    def check_parts(self, parts: dict) -> None:
        """Each file whose SHA-256 the bundle records holds what was saved."""
        for member, recorded in parts.items():
            found = self._sha256(str(member))
            if found is None:
                raise DataError(f"{member} is missing from the bundle: it was changed after "
                                "it was saved. Save the evaluation again.", file=self.name)
            if found != recorded:
                raise DataError(f"{member} is not the file that was saved (its SHA-256 "
                                "differs from the one recorded): the bundle was damaged or "
                                "changed. Save the evaluation again.", file=self.name)

    def _sha256(self, member: str) -> str | None:
        """The SHA-256 of a member, read a block at a time (None: no such member)."""
        digest = hashlib.sha256()
        try:
            if self.folder is not None:
                path = self.folder / member
                if not path.is_file():
                    return None
                opened: IO[bytes] = path.open("rb")
            else:
                if self.zipped is None or member not in self.zipped.namelist():
                    return None
                opened = self.zipped.open(member)
            with opened:
                for block in iter(lambda: opened.read(1 << 22), b""):
                    digest.update(block)
        except DAMAGED as error:
            raise DataError(f"{member} could not be read ({_reason(error)}): the bundle is "
                            "damaged. Save the evaluation again.", file=self.name) from None
        return digest.hexdigest()

    def first_file(self, folder: str) -> tuple[str, bytes] | None:
        """The name and bytes of the file in ``folder`` (None: no such file)."""
        if self.folder is not None:
            found = sorted(self.folder.glob(f"{folder}/*"))
            return (found[0].name, self._whole(found[0])) if found else None
        names = sorted(name for name in (self.zipped.namelist() if self.zipped else [])
                       if name.startswith(folder + "/") and not name.endswith("/"))
        if not names or self.zipped is None:
            return None
        return names[0].split("/", 1)[1], self.zipped.read(names[0])

    def table(self, member: str) -> pd.DataFrame:
        """A Parquet member (a file, or a folder of part files) as a DataFrame."""
        try:
            if self.folder is not None:
                if not (self.folder / member).exists():
                    raise DataError(f"{member} is missing from the bundle.", file=self.name)
                return pq.read_table(self.folder / member).to_pandas()
            zipped = self.zipped
            parts = [zipped.read(name) for name in self._members(member)] if zipped else []
            if not parts:
                raise DataError(f"{member} is missing from the bundle.", file=self.name)
            return pa.concat_tables([pq.read_table(pa.BufferReader(part)) for part in parts]
                                    ).to_pandas()
        except DataError:
            raise
        except DAMAGED as error:
            raise DataError(f"{member} could not be read ({_reason(error)}): the bundle is "
                            "damaged. Save the evaluation again.", file=self.name) from None

    def _members(self, member: str) -> list[str]:
        names = self.zipped.namelist() if self.zipped is not None else []
        if member in names:
            return [member]
        return sorted(name for name in names
                      if name.startswith(member + "/") and name.endswith(".parquet"))


def _size(nbytes: int) -> str:
    return f"{nbytes / 2**30:.1f} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:.0f} MiB"


def _reason(error: BaseException) -> str:
    """What went wrong, in words: an error's message, or its kind when it has none (a
    truncated Parquet file's may be a bare type name)."""
    text = str(error).strip().replace("Could not open Parquet input source '<Buffer>': ", "")
    if not text or text.startswith("<") or len(text) < 4:
        return "the file is cut short or not Parquet"
    return text


def open_zip(source: Path | io.BytesIO, name: str,
             limit: int = MAX_ARCHIVE_BYTES) -> zipfile.ZipFile:
    """The archive, refused when its members would unpack to more than ``limit`` bytes (what
    reading may hold in memory)."""
    try:
        zipped = zipfile.ZipFile(source)
    except zipfile.BadZipFile:
        raise DataError("not a bundle folder or zip archive.", file=name) from None
    unpacked = sum(member.file_size for member in zipped.infolist())
    if unpacked > limit:
        raise DataError(f"the archive would unpack to {_size(unpacked)}, more than the "
                        f"{_size(limit)} allowed. Raise the limit (--max-decompressed-size, "
                        "RANKMETRICS_MAX_DECOMPRESSED_SIZE) if the bundle is yours.",
                        file=name)
    return zipped
