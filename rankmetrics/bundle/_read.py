"""Reading a bundle back: a folder, a zip archive or the archive's bytes, checked."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

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
from rankmetrics.errors import DataError


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


def read_bundle(path: str | Path | bytes) -> BundleContents:
    """Read a bundle's files: a folder, a zip archive, or the archive's bytes (an upload).

    A bundle of a newer or unknown format raises :class:`rankmetrics.DataError` saying which
    versions this rankmetrics reads and how to get one that reads it.
    """
    files = BundleFiles(path)
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
    beyond_tables = {}
    if "beyond" in info:
        beyond_tables = {name: files.table(name) for name in (BEYOND_MEANS, BEYOND_DECILES,
                                                              BEYOND_LONG_TAIL, BEYOND_ACTIVITY,
                                                              BEYOND_EXPOSURE)
                         if name == BEYOND_MEANS or files.has(name)}
    return BundleContents(
        info,
        means=files.table(MEANS),
        per_user=files.table(PER_USER),
        sample_truth=files.table(SAMPLE_TRUTH),
        sample_runs=files.table(SAMPLE_RUNS),
        name=files.name,
        user_attributes=files.first_file(USER_ATTRIBUTES),
        beyond_tables=beyond_tables,
    )


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


class BundleFiles:
    """A bundle's members, from a folder or a zip archive (a path or bytes)."""

    def __init__(self, path: str | Path | bytes) -> None:
        self.folder: Path | None = None
        self.zipped: zipfile.ZipFile | None = None
        if isinstance(path, bytes):
            self.name = "uploaded bundle"
            self.zipped = open_zip(io.BytesIO(path), self.name)
            return
        self.name = str(path)
        location = Path(path)
        if location.is_dir():
            self.folder = location
        elif location.is_file():
            self.zipped = open_zip(location, self.name)
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


def open_zip(source: Path | io.BytesIO, name: str) -> zipfile.ZipFile:
    try:
        zipped = zipfile.ZipFile(source)
    except zipfile.BadZipFile:
        raise DataError("not a bundle folder or zip archive.", file=name) from None
    if sum(member.file_size for member in zipped.infolist()) > MAX_ARCHIVE_BYTES:
        raise DataError(f"the archive would unpack to more than {MAX_ARCHIVE_BYTES >> 30} GiB; "
                        "open the bundle folder instead.", file=name)
    return zipped
