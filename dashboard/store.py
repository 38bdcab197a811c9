"""Workspaces: the files people upload and their settings, kept on the server's disk.

This is the only part of the app that writes to disk. A workspace is a set of uploaded files
with their names and read options, and the view's settings; its id is a random, unguessable
token (``secrets.token_urlsafe``, 144 bits) that goes into the page's link, so a reload, a
copied link or a restarted server reopens the same files. Nobody can list workspaces: the
only way in is the id.

- File contents are stored once, named by their SHA-256 (``blobs/ab/abcdef...``): the same
  file uploaded twice, or into two workspaces, is one file on disk. A content no workspace
  refers to any more is deleted.
- An SQLite index (``index.sqlite3``) lists the workspaces, their files (kind, file name,
  model name, read options, order) and settings, and each content's size.
- Limits (environment variables, shown on the Data page): the bytes one workspace may hold,
  how many workspaces the server keeps, and the days a workspace is kept without use.
- Workspaces past their days are removed by a sweep that needs nobody to open them: the
  first session after the server starts sweeps, then a new session at most once an hour
  (``sweep``: a look at the clock when no sweep is due).

The folder is ``RANKMETRICS_WORKSPACES`` or ``data/workspaces`` (ignored by git).
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT_VARIABLE = "RANKMETRICS_WORKSPACES"
DEFAULT_ROOT = Path(__file__).resolve().parent.parent / "data" / "workspaces"
SIZE_VARIABLE = "RANKMETRICS_WORKSPACE_MB"
COUNT_VARIABLE = "RANKMETRICS_MAX_WORKSPACES"
EXPIRY_VARIABLE = "RANKMETRICS_WORKSPACE_DAYS"
DEFAULT_SIZE_MB, DEFAULT_COUNT, DEFAULT_EXPIRY_DAYS = 2_000.0, 200, 30.0
MB, DAY = 1_000_000, 86_400
#: Id length in random bytes (``token_urlsafe`` gives 4 characters per 3 bytes).
ID_BYTES = 18
#: Seconds between two sweeps of expired workspaces.
SWEEP_SECONDS = 3_600

#: The kinds of file a workspace holds. A new kind of upload plugs in with one line here.
KINDS = (
    "truth",  # the ground truth
    "run",  # one model's output
    "interactions",  # training interactions
    "attributes",  # item attributes
    "user_attributes",
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS workspaces (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    last_used REAL NOT NULL,
    settings TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS blobs (
    digest TEXT PRIMARY KEY,
    size INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS files (
    workspace TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    file_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    kind TEXT NOT NULL,
    slot TEXT NOT NULL,
    file_name TEXT NOT NULL,
    name TEXT NOT NULL,
    digest TEXT NOT NULL REFERENCES blobs(digest),
    columns TEXT NOT NULL,
    format TEXT,
    PRIMARY KEY (workspace, file_id)
);
"""


class WorkspaceFull(Exception):
    """An upload or a new workspace the limits do not allow; the message says which limit."""


class FilesTooLarge(WorkspaceFull):
    """Files that would take more than a workspace may hold."""


@dataclass(frozen=True)
class StoredFile:
    """One file of a workspace: its kind, where it stands (``slot``: ``in_use``, or
    ``candidate`` for a new ground truth not yet read), names, content digest and read
    options (``columns`` as (role, column) pairs, ``format`` or None to detect)."""

    file_id: str
    kind: str
    file_name: str
    name: str
    digest: str
    columns: tuple[tuple[str, str], ...] = ()
    format: str | None = None
    slot: str = "in_use"


@dataclass(frozen=True)
class Limits:
    """What the server keeps: bytes per workspace, number of workspaces, days without use."""

    workspace_bytes: int
    workspaces: int
    expiry_seconds: float

    @classmethod
    def from_environment(cls) -> Limits:
        return cls(
            workspace_bytes=int(_number(SIZE_VARIABLE, DEFAULT_SIZE_MB) * MB),
            workspaces=int(_number(COUNT_VARIABLE, DEFAULT_COUNT)),
            expiry_seconds=_number(EXPIRY_VARIABLE, DEFAULT_EXPIRY_DAYS) * DAY,
        )

    def describe(self) -> str:
        days = self.expiry_seconds / DAY
        return (f"up to {self.workspace_bytes / MB:,.0f} MB per workspace, "
                f"{self.workspaces:,} workspaces on this server, each kept "
                f"{days:g} day{'s' if days != 1 else ''} after its last use")


def _number(variable: str, default: float) -> float:
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ValueError(f"The environment variable {variable} must be a positive number; "
                         f"got {text!r}.")
    return value


class WorkspaceStore:
    """Workspaces on disk under ``root``; safe to share between the server's threads."""

    def __init__(self, root: Path | str, limits: Limits, *,
                 clock: Callable[[], float] = time.time) -> None:
        self.root = Path(root)
        self.limits, self.clock = limits, clock
        (self.root / "blobs").mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._last_sweep: float | None = None
        self._db = sqlite3.connect(self.root / "index.sqlite3", check_same_thread=False,
                                   isolation_level=None)
        self._db.execute("PRAGMA foreign_keys = ON")
        self._db.executescript(SCHEMA)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # ----- workspaces ----------------------------------------------------------------------

    def create(self) -> str:
        """A new empty workspace's id (expired workspaces are removed first); WorkspaceFull
        when the server already keeps as many as it may."""
        self.expire()
        workspace = secrets.token_urlsafe(ID_BYTES)
        with self._transaction() as db:
            (count,) = db.execute("SELECT COUNT(*) FROM workspaces").fetchone()
            if count >= self.limits.workspaces:
                raise WorkspaceFull(
                    f"This server already keeps {count:,} workspace{'s' if count != 1 else ''}"
                    ", its limit "
                    f"({COUNT_VARIABLE}); your files are used in this browser tab only "
                    "and will not be kept.")
            now = self.clock()
            db.execute("INSERT INTO workspaces (id, created, last_used) VALUES (?, ?, ?)",
                       (workspace, now, now))
        return workspace

    def open(self, workspace: str) -> bool:
        """Whether the workspace exists (and has not expired); using it keeps it alive."""
        self.expire()
        with self._transaction() as db:
            found = db.execute("UPDATE workspaces SET last_used = ? WHERE id = ?",
                               (self.clock(), workspace)).rowcount
        return bool(found)

    def delete(self, workspace: str) -> None:
        """Remove the workspace, its settings and every file only it held."""
        with self._transaction() as db:
            db.execute("DELETE FROM files WHERE workspace = ?", (workspace,))
            db.execute("DELETE FROM workspaces WHERE id = ?", (workspace,))
        self._drop_unused_blobs()

    def expire(self) -> int:
        """Remove the workspaces unused for longer than the limit; how many went."""
        cutoff = self.clock() - self.limits.expiry_seconds
        with self._transaction() as db:
            old = [row[0] for row in db.execute(
                "SELECT id FROM workspaces WHERE last_used < ?", (cutoff,))]
            for workspace in old:
                db.execute("DELETE FROM files WHERE workspace = ?", (workspace,))
                db.execute("DELETE FROM workspaces WHERE id = ?", (workspace,))
        if old:
            self._drop_unused_blobs()
        return len(old)

    def sweep(self) -> int:
        """Remove expired workspaces if no sweep ran in the last ``SWEEP_SECONDS`` (the first
        call always sweeps); how many went."""
        with self._lock:
            now = self.clock()
            if self._last_sweep is not None and now - self._last_sweep < SWEEP_SECONDS:
                return 0
            self._last_sweep = now
        return self.expire()

    def count(self) -> int:
        """How many workspaces the server keeps."""
        with self._lock:
            (count,) = self._db.execute("SELECT COUNT(*) FROM workspaces").fetchone()
        return int(count)

    # ----- files ---------------------------------------------------------------------------

    def files(self, workspace: str) -> list[StoredFile]:
        """The workspace's files in the order they were saved."""
        with self._lock:
            rows = self._db.execute(
                "SELECT file_id, kind, file_name, name, digest, columns, format, slot "
                "FROM files WHERE workspace = ? ORDER BY position", (workspace,)).fetchall()
        return [StoredFile(file_id, kind, file_name, name, content,
                           tuple(tuple(pair) for pair in json.loads(columns)), fmt, slot)
                for file_id, kind, file_name, name, content, columns, fmt, slot in rows]

    def content(self, workspace: str, content_digest: str) -> bytes:
        """A file's content, if the workspace holds it (KeyError otherwise)."""
        with self._lock:
            held = self._db.execute("SELECT 1 FROM files WHERE workspace = ? AND digest = ?",
                                    (workspace, content_digest)).fetchone()
        if held is None:
            raise KeyError(content_digest)
        return self._blob_path(content_digest).read_bytes()

    def size(self, workspace: str) -> int:
        """The bytes of the distinct contents the workspace holds."""
        with self._lock:
            (total,) = self._db.execute(
                "SELECT COALESCE(SUM(size), 0) FROM blobs WHERE digest IN "
                "(SELECT digest FROM files WHERE workspace = ?)", (workspace,)).fetchone()
        return int(total)

    def save_files(self, workspace: str, files: Sequence[StoredFile],
                   contents: dict[str, bytes]) -> None:
        """Make ``files`` the workspace's files, in this order. ``contents`` holds, by
        digest, the content of every file not stored yet (its digest made by
        :func:`dashboard.files.digest` when the file came in: it is not hashed again here,
        which would cost a tenth of a second per 100 MB on every save). WorkspaceFull when the
        files would take more than a workspace may hold (nothing changes then)."""
        for stored in files:
            if stored.kind not in KINDS:
                raise ValueError(f"Unknown kind of file {stored.kind!r}; the kinds are "
                                 f"{', '.join(KINDS)}.")
        sizes = {stored.digest: self._size_of(stored.digest, contents) for stored in files}
        total = sum(sizes.values())
        if total > self.limits.workspace_bytes:
            raise FilesTooLarge(
                f"These files take {total / MB:,.1f} MB; a workspace on this server holds at "
                f"most {self.limits.workspace_bytes / MB:,.0f} MB ({SIZE_VARIABLE}). Remove a "
                "file first.")
        with self._lock:  # no other thread drops a content between writing and indexing it
            for content_digest in sizes:
                if content_digest in contents:
                    self._write_blob(content_digest, contents[content_digest])
            self._index(workspace, files, sizes)
        self._drop_unused_blobs()

    def _index(self, workspace: str, files: Sequence[StoredFile], sizes: dict[str, int]) -> None:
        with self._transaction() as db:
            if not db.execute("SELECT 1 FROM workspaces WHERE id = ?", (workspace,)).fetchone():
                raise KeyError(workspace)
            for content_digest, size in sizes.items():
                db.execute("INSERT OR IGNORE INTO blobs (digest, size) VALUES (?, ?)",
                           (content_digest, size))
            db.execute("DELETE FROM files WHERE workspace = ?", (workspace,))
            db.executemany(
                "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(workspace, stored.file_id, position, stored.kind, stored.slot,
                  stored.file_name, stored.name, stored.digest, json.dumps(stored.columns),
                  stored.format) for position, stored in enumerate(files)])
            db.execute("UPDATE workspaces SET last_used = ? WHERE id = ?",
                       (self.clock(), workspace))

    # ----- settings ------------------------------------------------------------------------

    def settings(self, workspace: str) -> dict[str, str]:
        with self._lock:
            row = self._db.execute("SELECT settings FROM workspaces WHERE id = ?",
                                   (workspace,)).fetchone()
        return dict(json.loads(row[0])) if row else {}

    def save_settings(self, workspace: str, settings: dict[str, str]) -> None:
        with self._transaction() as db:
            db.execute("UPDATE workspaces SET settings = ?, last_used = ? WHERE id = ?",
                       (json.dumps(settings, sort_keys=True), self.clock(), workspace))

    # ----- contents on disk ----------------------------------------------------------------

    def _blob_path(self, content_digest: str) -> Path:
        if len(content_digest) != 64 or not all(c in "0123456789abcdef" for c in content_digest):
            raise KeyError(content_digest)
        return self.root / "blobs" / content_digest[:2] / content_digest

    def _size_of(self, content_digest: str, contents: dict[str, bytes]) -> int:
        if content_digest in contents:
            return len(contents[content_digest])
        with self._lock:
            row = self._db.execute("SELECT size FROM blobs WHERE digest = ?",
                                   (content_digest,)).fetchone()
        if row is None:
            raise KeyError(content_digest)
        return int(row[0])

    def _write_blob(self, content_digest: str, data: bytes) -> None:
        path = self._blob_path(content_digest)
        if path.exists():
            return
        path.parent.mkdir(exist_ok=True)
        partial = path.with_name(f"{path.name}.{secrets.token_hex(4)}.partial")
        partial.write_bytes(data)
        os.replace(partial, path)

    def _drop_unused_blobs(self) -> None:
        with self._lock, self._transaction() as db:
            unused = [row[0] for row in db.execute(
                "SELECT digest FROM blobs WHERE digest NOT IN (SELECT digest FROM files)")]
            db.executemany("DELETE FROM blobs WHERE digest = ?", [(d,) for d in unused])
            for content_digest in unused:
                self._blob_path(content_digest).unlink(missing_ok=True)


_STORE: WorkspaceStore | None = None
_STORE_LOCK = threading.Lock()


def workspace_store() -> WorkspaceStore:
    """The server's store (one per process), in ``RANKMETRICS_WORKSPACES`` or the default
    folder, with the limits from the environment."""
    global _STORE
    with _STORE_LOCK:
        root = Path(os.environ.get(ROOT_VARIABLE) or DEFAULT_ROOT)
        if _STORE is None or _STORE.root != root:
            _STORE = WorkspaceStore(root, Limits.from_environment())
        return _STORE
