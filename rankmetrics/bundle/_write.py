"""Writing a bundle's files into a folder, or into one zip archive."""

from __future__ import annotations

import json
import tempfile
import zipfile
from collections.abc import Mapping
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


def write_or_archive(path: str | Path, info: Mapping[str, object], **files) -> Path:
    """:func:`write_bundle` into ``path``, or into a zip archive when it ends in ``.zip``."""
    target = Path(path)
    if target.suffix.lower() != ".zip":
        return write_bundle(target, metadata=info, **files)
    with tempfile.TemporaryDirectory() as scratch:
        write_bundle(scratch, metadata=info, **files)
        return archive(scratch, target)
