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
- Every content is checked against its SHA-256 when it is read: a missing or damaged one is
  :class:`DamagedFile` (the page reports that file, the others stay loaded), and uploading
  the same content again writes it afresh.
- Writing a content and indexing it happen inside one SQLite write transaction, which holds
  SQLite's own lock across processes: two servers sharing the folder never delete a content
  the other has just stored. A full disk is one :class:`StoreUnavailable` message and leaves
  the store usable; an index that is not a database is moved aside and a new one begun.
- Leftovers of writes that were killed (``*.partial`` files, contents never indexed) are
  removed by the sweep once an hour old.
- Workspaces past their days are removed by a sweep that needs nobody to open them: the
  first session after the server starts sweeps, then a new session at most once an hour
  (``sweep``: a look at the clock when no sweep is due).

The folder is ``RANKMETRICS_WORKSPACES`` or ``data/workspaces`` (ignored by git).
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from rankmetrics.io import file_sha256

ROOT_VARIABLE = "RANKMETRICS_WORKSPACES"
DEFAULT_ROOT = Path(__file__).resolve().parent.parent / "data" / "workspaces"
SIZE_VARIABLE = "RANKMETRICS_WORKSPACE_MB"
COUNT_VARIABLE = "RANKMETRICS_MAX_WORKSPACES"
EXPIRY_VARIABLE = "RANKMETRICS_WORKSPACE_DAYS"
TOTAL_VARIABLE = "RANKMETRICS_WORKSPACES_TOTAL_MB"
DEFAULT_SIZE_MB, DEFAULT_COUNT, DEFAULT_EXPIRY_DAYS = 2_000.0, 200, 30.0
#: What every workspace together may hold on the server's disk (a file two workspaces share
#: counts once).
DEFAULT_TOTAL_MB = 20_000.0
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


class StoreUnavailable(Exception):
    """The server's disk cannot take the write (full, or not writable): the message says so;
    nothing was changed."""


class DamagedFile(Exception):
    """A stored content is missing or no longer what was stored (its SHA-256 differs)."""

    def __init__(self, content_digest: str, missing: bool) -> None:
        super().__init__(content_digest)
        self.digest, self.missing = content_digest, missing


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
    """What the server keeps: bytes per workspace, number of workspaces, days without use,
    and bytes of every workspace together."""

    workspace_bytes: int
    workspaces: int
    expiry_seconds: float
    total_bytes: int = int(DEFAULT_TOTAL_MB * MB)

    @classmethod
    def from_environment(cls) -> Limits:
        return cls(
            workspace_bytes=int(_number(SIZE_VARIABLE, DEFAULT_SIZE_MB) * MB),
            workspaces=int(_number(COUNT_VARIABLE, DEFAULT_COUNT)),
            expiry_seconds=_number(EXPIRY_VARIABLE, DEFAULT_EXPIRY_DAYS) * DAY,
            total_bytes=int(_number(TOTAL_VARIABLE, DEFAULT_TOTAL_MB) * MB),
        )

    def describe(self) -> str:
        days = self.expiry_seconds / DAY
        return (f"up to {self.workspace_bytes / MB:,.0f} MB per workspace, "
                f"{self.workspaces:,} workspaces on this server, each kept "
                f"{days:g} day{'s' if days != 1 else ''} after its last use, and "
                f"{self.total_bytes / MB:,.0f} MB in all")


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
        self._db = self._connect()

    def _connect(self) -> sqlite3.Connection:
        """The index, made when missing; one that is not a database (damaged, or another
        file) is moved aside as ``index.sqlite3.damaged-<time>`` and a new one begun, so the
        server keeps working (the workspaces it listed are lost; their contents are swept)."""
        path = self._index_path
        for attempt in range(2):
            db = sqlite3.connect(path, check_same_thread=False, isolation_level=None,
                                 timeout=30)
            try:
                db.execute("PRAGMA foreign_keys = ON")
                db.executescript(SCHEMA)
                db.execute("SELECT COUNT(*) FROM workspaces").fetchone()
                return db
            except sqlite3.DatabaseError:
                db.close()
                if attempt:
                    raise
                self._move_aside()
        raise AssertionError("unreachable")

    @property
    def _index_path(self) -> Path:
        return self.root / "index.sqlite3"

    def _move_aside(self) -> None:
        path = self._index_path
        if path.exists():
            path.rename(path.with_name(f"{path.name}.damaged-{int(self.clock())}"))

    def _begin_anew(self) -> None:
        """The index was found damaged while the server runs: set it aside and begin a new
        one (called with the lock held)."""
        with suppress(sqlite3.Error):
            self._db.close()
        self._move_aside()
        self._db = self._connect()

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """The index for reading; a damaged one is set aside and a new one begun, and the
        read is refused with one message (:data:`INDEX_DAMAGED`)."""
        with self._lock:
            try:
                yield self._db
            except sqlite3.DatabaseError as error:
                if not _damaged(error):
                    raise
                self._begin_anew()
                raise StoreUnavailable(INDEX_DAMAGED) from None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (SQLite's write lock, held across processes); a failed
        statement or commit rolls back what SQLite has not (a full disk may roll it back
        itself), so the next transaction starts clean."""
        with self._lock:
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")
                yield db
                db.execute("COMMIT")
            except BaseException as error:
                if isinstance(error, sqlite3.DatabaseError) and _damaged(error):
                    self._begin_anew()
                    raise StoreUnavailable(INDEX_DAMAGED) from None
                if db is self._db and db.in_transaction:  # not one set aside meanwhile
                    db.execute("ROLLBACK")
                if isinstance(error, sqlite3.OperationalError) and _full(error):
                    raise StoreUnavailable(DISK_FULL) from None
                raise

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
        self.sweep_leftovers()
        return self.expire()

    def count(self) -> int:
        """How many workspaces the server keeps."""
        with self._reading() as db:
            (count,) = db.execute("SELECT COUNT(*) FROM workspaces").fetchone()
        return int(count)

    # ----- files ---------------------------------------------------------------------------

    def files(self, workspace: str) -> list[StoredFile]:
        """The workspace's files in the order they were saved."""
        with self._reading() as db:
            rows = db.execute(
                "SELECT file_id, kind, file_name, name, digest, columns, format, slot "
                "FROM files WHERE workspace = ? ORDER BY position", (workspace,)).fetchall()
        return [StoredFile(file_id, kind, file_name, name, content,
                           tuple(tuple(pair) for pair in json.loads(columns)), fmt, slot)
                for file_id, kind, file_name, name, content, columns, fmt, slot in rows]

    def content(self, workspace: str, content_digest: str) -> bytes:
        """A file's content, if the workspace holds it (KeyError otherwise), checked against
        its SHA-256 (DamagedFile when it is missing or differs)."""
        with self._reading() as db:
            held = db.execute("SELECT 1 FROM files WHERE workspace = ? AND digest = ?",
                                    (workspace, content_digest)).fetchone()
        if held is None:
            raise KeyError(content_digest)
        try:
            data = self._blob_path(content_digest).read_bytes()
        except FileNotFoundError:
            raise DamagedFile(content_digest, missing=True) from None
        if hashlib.sha256(data).hexdigest() != content_digest:
            raise DamagedFile(content_digest, missing=False)
        return data

    def size(self, workspace: str) -> int:
        """The bytes of the distinct contents the workspace holds."""
        with self._reading() as db:
            (total,) = db.execute(
                "SELECT COALESCE(SUM(size), 0) FROM blobs WHERE digest IN "
                "(SELECT digest FROM files WHERE workspace = ?)", (workspace,)).fetchone()
        return int(total)

    def save_files(self, workspace: str, files: Sequence[StoredFile],
                   contents: dict[str, bytes], *,
                   base: Collection[str] | None = None) -> list[StoredFile]:
        """Make ``files`` the workspace's files, in this order. ``contents`` holds, by
        digest, the content of every file not stored yet (its digest made by
        :func:`dashboard.files.digest` when the file came in: it is not hashed again here,
        which would cost a tenth of a second per 100 MB on every save). WorkspaceFull when the
        files would take more than a workspace may hold (nothing changes then).

        ``base``: the file ids the saver last saw in the workspace (another tab on the same
        link may have saved since). The files saved meanwhile by others, not in ``base``, are
        kept after ``files`` (a model, or a file of a kind ``files`` has none of), so no
        tab's save drops another's; a file in ``base`` left out of ``files`` is removed.
        Returns the workspace's files as saved."""
        for stored in files:
            if stored.kind not in KINDS:
                raise ValueError(f"Unknown kind of file {stored.kind!r}; the kinds are "
                                 f"{', '.join(KINDS)}.")
        # one write transaction (SQLite's lock, across processes): what others saved is read
        # and kept in the same transaction, and no thread or process drops a content between
        # writing and indexing it
        with self._transaction() as db:
            files = list(files)
            if base is not None:
                files = files + self._others(workspace, files, set(base))
            sizes = {stored.digest: self._size_of(stored.digest, contents) for stored in files}
            total = sum(sizes.values())
            if total > self.limits.workspace_bytes:
                raise FilesTooLarge(
                    f"These files take {total / MB:,.1f} MB; a workspace on this server holds "
                    f"at most {self.limits.workspace_bytes / MB:,.0f} MB ({SIZE_VARIABLE}). "
                    "Remove a file first.")
            self._check_total(db, sizes)
            for content_digest in sizes:
                if content_digest in contents:
                    self._write_blob(content_digest, contents[content_digest])
            self._index(db, workspace, files, sizes)
        self._drop_unused_blobs()
        return files

    def _others(self, workspace: str, files: Sequence[StoredFile], base: set[str]
                ) -> list[StoredFile]:
        """The workspace's files saved by others since ``base`` that ``files`` does not
        replace: models (renamed when a model of ``files`` has their name), and files of a
        kind and slot ``files`` holds none of."""
        mine = {stored.file_id for stored in files}
        held = {(stored.kind, stored.slot) for stored in files}
        names = [stored.name for stored in files if stored.kind == "run"]
        kept = []
        for other in self.files(workspace):
            if other.file_id in base or other.file_id in mine:
                continue
            if other.kind == "run":
                name = other.name
                number = 2
                while name in names:
                    name, number = f"{other.name} ({number})", number + 1
                names.append(name)
                kept.append(dataclasses.replace(other, name=name))
            elif (other.kind, other.slot) not in held:
                kept.append(other)
        return kept

    def _check_total(self, db: sqlite3.Connection, sizes: dict[str, int]) -> None:
        """WorkspaceFull when the new contents would take every workspace together past the
        server's total."""
        (held,) = db.execute("SELECT COALESCE(SUM(size), 0) FROM blobs").fetchone()
        known = {row[0] for row in db.execute(
            f"SELECT digest FROM blobs WHERE digest IN ({','.join('?' * len(sizes))})",
            list(sizes))} if sizes else set()
        adding = sum(size for content_digest, size in sizes.items()
                     if content_digest not in known)
        if adding and held + adding > self.limits.total_bytes:
            raise WorkspaceFull(
                f"This server's workspaces already hold {held / MB:,.0f} MB together, and "
                f"these files would take them past {self.limits.total_bytes / MB:,.0f} MB, "
                f"its limit ({TOTAL_VARIABLE}); your files are used in this browser tab only "
                "and will not be kept. Ask whoever runs the server to raise the limit.")

    def _index(self, db: sqlite3.Connection, workspace: str, files: Sequence[StoredFile],
               sizes: dict[str, int]) -> None:
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
        with self._reading() as db:
            row = db.execute("SELECT settings FROM workspaces WHERE id = ?",
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
        with self._reading() as db:
            row = db.execute("SELECT size FROM blobs WHERE digest = ?",
                                   (content_digest,)).fetchone()
        if row is None:
            raise KeyError(content_digest)
        return int(row[0])

    def _write_blob(self, content_digest: str, data: bytes) -> None:
        """Store a content; one already there is kept only when it is intact (a damaged or
        cut one is written afresh)."""
        path = self._blob_path(content_digest)
        if path.exists() and file_sha256(path) == content_digest:
            return
        partial = path.with_name(f"{path.name}.{secrets.token_hex(4)}.partial")
        try:
            path.parent.mkdir(exist_ok=True)
            partial.write_bytes(data)
            os.replace(partial, path)
        except OSError as error:
            partial.unlink(missing_ok=True)
            if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES):
                raise StoreUnavailable(DISK_FULL if error.errno in (errno.ENOSPC, errno.EDQUOT)
                                       else DISK_READ_ONLY) from None
            raise

    def sweep_leftovers(self, older_than: float = SWEEP_SECONDS) -> int:
        """Remove what killed writes left: ``*.partial`` files, and contents no workspace
        lists, once ``older_than`` seconds old; how many files went."""
        cutoff = time.time() - older_than
        removed = 0
        with self._transaction() as db:  # no content is being written meanwhile
            known = {row[0] for row in db.execute("SELECT digest FROM blobs")}
            for path in (self.root / "blobs").glob("*/*"):
                try:
                    if path.stat().st_mtime > cutoff:
                        continue
                    if path.name.endswith(".partial") or path.name not in known:
                        path.unlink()
                        removed += 1
                except FileNotFoundError:
                    continue
        return removed

    def _drop_unused_blobs(self) -> None:
        with self._lock, self._transaction() as db:
            unused = [row[0] for row in db.execute(
                "SELECT digest FROM blobs WHERE digest NOT IN (SELECT digest FROM files)")]
            db.executemany("DELETE FROM blobs WHERE digest = ?", [(d,) for d in unused])
            for content_digest in unused:
                self._blob_path(content_digest).unlink(missing_ok=True)


DISK_FULL = ("The server's disk is full: the file was not kept in the workspace (it stays "
             "loaded in this tab). Ask whoever runs the server to free some space.")
DISK_READ_ONLY = ("The server cannot write to its workspace folder: the file was not kept "
                  "in the workspace (it stays loaded in this tab).")


INDEX_DAMAGED = ("The server's list of workspaces was damaged on its disk: it was set aside "
                 "and a new one begun, so the workspaces kept before are gone. Upload the "
                 "files again to keep them in a new workspace.")


def _full(error: sqlite3.OperationalError) -> bool:
    return "full" in str(error).lower()


def _damaged(error: sqlite3.DatabaseError) -> bool:
    """Whether SQLite says the index file is damaged or not a database at all."""
    if isinstance(error, sqlite3.OperationalError):
        return False  # locked, full, read-only: the file itself is fine
    text = str(error).lower()
    return "not a database" in text or "malformed" in text



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
