"""Writing a bundle's files into a folder, or into one zip archive.

Either is written beside its place and then moved there (:func:`saved_in_place`), so a
bundle saved again into the same folder holds the new save's files only, and a save that fails
or is stopped leaves the earlier bundle as it was (or nothing) rather than a mix of both.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path

import pandas as pd

from rankmetrics.bundle._format import (
    MEANS,
    METADATA,
    PER_USER,
    SAMPLE_RUNS,
    SAMPLE_TRUTH,
    USER_ATTRIBUTES,
)
from rankmetrics.io import file_sha256


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
    # written last, with the SHA-256 of every other file, which reading checks
    parts = {path.relative_to(folder).as_posix(): file_sha256(path)
             for path in sorted(folder.rglob("*"))
             if path.is_file() and not path.name.startswith((".", "_"))
             and path.name != METADATA}
    (folder / METADATA).write_text(json.dumps({**metadata, "parts": parts}, indent=1))
    return folder



def archive(directory: str | Path, target: str | Path) -> Path:
    """The bundle folder as one zip archive (members stored: Parquet is compressed already),
    written beside ``target`` and renamed into place."""
    folder, target = Path(directory), Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)  # as a folder bundle's folder is made
    scratch = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with zipfile.ZipFile(scratch, "w", compression=zipfile.ZIP_STORED) as zipped:
            for path in sorted(folder.rglob("*")):
                if path.is_file() and not path.name.startswith((".", "_")):
                    zipped.write(path, path.relative_to(folder).as_posix())
        os.replace(scratch, target)
    finally:
        scratch.unlink(missing_ok=True)
    return target


def saved_in_place(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Save a bundle at ``path``: ``write(folder)`` fills a new folder, which becomes the
    bundle folder at ``path`` or, for a path ending in ``.zip``, its archive.

    A folder already at ``path`` is replaced only when it is a bundle (or empty): a folder
    of other files is refused, so that saving never deletes them.
    """
    target = Path(path)
    zipped = target.suffix.lower() == ".zip"
    if not zipped and target.exists():
        _check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial",
                                    dir=target.parent))
    try:
        folder = scratch / "bundle"
        write(folder)
        if zipped:
            return archive(folder, target)
        if target.exists() and exchanged(folder, target):
            return target  # one atomic step: the old bundle is now in ``folder``, removed below
        old = scratch / "replaced"
        if target.exists():
            target.rename(old)
        folder.rename(target)
        return target
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


#: Linux's renameat2 flag that swaps two paths in one step.
RENAME_EXCHANGE = 2
AT_FDCWD = -100


def exchanged(first: Path, second: Path) -> bool:
    """Swap two paths in one atomic step (Linux's ``renameat2`` with ``RENAME_EXCHANGE``), so
    that no reader finds neither; False where the system cannot (then nothing changed)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    done = renameat2(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second),
                     RENAME_EXCHANGE)
    return done == 0


def _check_replaceable(target: Path) -> None:
    if not target.is_dir():
        raise ValueError(f"{target} is a file, not a bundle folder: save the evaluation to "
                         "a folder, or to a path ending in .zip.")
    if any(target.iterdir()) and not (target / METADATA).is_file():
        raise ValueError(f"{target} is a folder of other files, not a saved evaluation: "
                         "saving there would replace them. Save to a new or empty folder.")


def write_or_archive(path: str | Path, info: Mapping[str, object], **files) -> Path:
    """:func:`write_bundle` into a folder at ``path``, or into a zip archive when it ends in
    ``.zip`` (see :func:`saved_in_place`)."""
    return saved_in_place(path, lambda folder: write_bundle(folder, metadata=info, **files))
