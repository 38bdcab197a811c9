"""The files a user uploaded, and the Data page's callbacks that change them.

``Uploads`` is plain data (no Streamlit) so that its rules (unique model names, a new ground
truth replacing the old one only once it reads) can be read in one place; the callbacks below
move what the widgets say into it, and keep it in the session's workspace on the server
(:mod:`dashboard.store`), so that a reload, a link or a restarted server brings it back.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import PurePath

import streamlit as st

from dashboard import keys
from dashboard.budget import BUDGET
from dashboard.cached import inputs as cached_inputs
from dashboard.files import FileSpec, digest, shared_content
from dashboard.store import (
    DamagedFile,
    FilesTooLarge,
    StoredFile,
    StoreUnavailable,
    WorkspaceFull,
    WorkspaceStore,
    workspace_store,
)
from rankmetrics.io import file_stem

DATASET = "uploads"  # the data selector's choice for the uploaded files


@dataclass
class Uploads:
    """The uploaded model files, the ground truth in use, and a newly uploaded ground truth
    waiting to be read (``truth_candidate``)."""

    runs: list[FileSpec] = field(default_factory=list)
    truth: FileSpec | None = None
    truth_candidate: FileSpec | None = None
    next_id: int = 1
    #: The optional files the session holds (kind -> file), counted with the uploads in the
    #: session's memory (see :func:`set_optional_file`).
    optional: dict[str, FileSpec] = field(default_factory=dict)

    def add(self, runs: Sequence[tuple[str, bytes]], truth: tuple[str, bytes] | None) -> None:
        """Newly uploaded files, as (file name, content): models are named after their file
        (made unique among the models); a new ground truth replaces the one in use once it
        reads cleanly."""
        for file_name, data in runs:
            spec = self._new("run", file_name, data)
            name = unique_name(spec.name, [run.name for run in self.runs])
            self.runs.append(replace(spec, name=name))
        if truth is not None:
            self.truth_candidate = self._new("truth", *truth)

    @property
    def nbytes(self) -> int:
        """The bytes of the uploaded files this session holds."""
        return sum(len(data) for data in self.buffers())

    def buffers(self) -> list[bytes]:
        """The uploaded files' bytes this session holds (objects other sessions may share)."""
        specs = [*self.runs, self.truth, self.truth_candidate, *self.optional.values()]
        return [spec.data for spec in specs if spec is not None and spec.data is not None]

    def accept_truth(self) -> None:
        self.truth, self.truth_candidate = self.truth_candidate, None

    def dismiss_truth(self) -> None:
        self.truth_candidate = None

    def stored(self) -> tuple[list[StoredFile], dict[str, bytes]]:
        """The files as a workspace keeps them, and their contents by digest."""
        placed = [(self.truth, "in_use"), (self.truth_candidate, "candidate"),
                  *((spec, "in_use") for spec in self.runs)]
        files = [as_stored(spec, slot) for spec, slot in placed if spec is not None]
        contents = {spec.digest: spec.data for spec, _ in placed
                    if spec is not None and spec.data is not None}
        return files, contents

    @classmethod
    def from_stored(cls, files: Sequence[StoredFile],
                    content: Callable[[str], bytes]) -> Uploads:
        """The uploads a workspace keeps (``content`` gives a file's bytes by digest)."""
        restored = cls()
        for stored in files:
            spec = as_spec(stored, content)
            if stored.kind == "run":
                restored.runs.append(spec)
            elif stored.kind == "truth" and stored.slot == "candidate":
                restored.truth_candidate = spec
            elif stored.kind == "truth":
                restored.truth = spec
        numbers = [int(number) for number in
                   (s.file_id.removeprefix("upload").split("-")[0] for s in files)
                   if number.isdigit()]
        restored.next_id = max(numbers, default=0) + 1
        return restored

    def take(self, other: Uploads) -> None:
        """Hold what ``other`` holds (the session's budget lease keeps this object)."""
        self.runs, self.truth = list(other.runs), other.truth
        self.truth_candidate, self.next_id = other.truth_candidate, other.next_id

    def copy(self) -> Uploads:
        return replace(self, runs=list(self.runs), optional=dict(self.optional))

    def run(self, file_id: str) -> FileSpec:
        return next(spec for spec in self.runs if spec.id == file_id)

    def remove_run(self, file_id: str) -> None:
        self.runs = [spec for spec in self.runs if spec.id != file_id]

    def rename_run(self, file_id: str, wanted: str) -> str | None:
        """Rename a model; the reason when the name is refused (empty or taken)."""
        wanted = wanted.strip()
        if not wanted:
            return "A model needs a name."
        if wanted in [spec.name for spec in self.runs if spec.id != file_id]:
            return f"Another model is already called {wanted!r}."
        self._replace_run(file_id, name=wanted)
        return None

    def read_with(self, file_id: str, columns: dict[str, str], file_format: str | None) -> None:
        """Read a file again with columns and a format chosen by hand."""
        chosen = tuple(sorted(columns.items()))
        if any(spec.id == file_id for spec in self.runs):
            self._replace_run(file_id, columns=chosen, format=file_format)
            return
        candidate = self.truth_candidate
        base = candidate if candidate is not None and candidate.id == file_id else self.truth
        if base is None:
            raise KeyError(file_id)
        # A new id: the ground truth in use and the file being tried are both on the page.
        self.truth_candidate = replace(base, id=self._next_id(), columns=chosen,
                                       format=file_format)

    def _replace_run(self, file_id: str, **changes) -> None:
        self.runs = [replace(spec, **changes) if spec.id == file_id else spec
                     for spec in self.runs]

    def _new(self, kind: str, file_name: str, data: bytes) -> FileSpec:
        file_name = PurePath(file_name).name
        content_digest = digest(data)
        return FileSpec(id=self._next_id(), kind=kind, file_name=file_name,
                        name=file_stem(file_name), digest=content_digest,
                        data=shared_content(content_digest, data))

    def _next_id(self) -> str:
        # numbered, and with a random part: two tabs on one workspace never give two files
        # one id
        file_id = f"upload{self.next_id}-{secrets.token_hex(3)}"
        self.next_id += 1
        return file_id


def as_stored(spec: FileSpec, slot: str = "in_use") -> StoredFile:
    return StoredFile(spec.id, spec.kind, spec.file_name, spec.name, spec.digest, spec.columns,
                      spec.format, slot)


def as_spec(stored: StoredFile, content: Callable[[str], bytes]) -> FileSpec:
    return FileSpec(id=stored.file_id, kind=stored.kind, file_name=stored.file_name,
                    name=stored.name, digest=stored.digest, columns=stored.columns,
                    format=stored.format, data=content(stored.digest))


def unique_name(name: str, taken: Sequence[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)``... when it is taken."""
    if name not in taken:
        return name
    number = 2
    while f"{name} ({number})" in taken:
        number += 1
    return f"{name} ({number})"


def uploads() -> Uploads:
    """This session's uploads."""
    return st.session_state[keys.UPLOADS]


#: The optional files a session holds besides its uploads (the Data page's optional uploads),
#: one per kind: the session key holding it, and its key inside that value when the value is a
#: dict of files (None: the value is the file). They are kept in the workspace too.
OPTIONAL_FILES: dict[str, tuple[str, str | None]] = {
    "user_attributes": (keys.USER_ATTRIBUTES, None),
    "interactions": (keys.BEYOND_FILES, "interactions"),
    "attributes": (keys.BEYOND_FILES, "attributes"),
}


def optional_file(kind: str) -> FileSpec | None:
    key, inner = OPTIONAL_FILES[kind]
    value = st.session_state.get(key)
    return (value or {}).get(inner) if inner is not None else value


def set_optional_file(kind: str, spec: FileSpec | None) -> None:
    """Hold ``spec`` as the session's ``kind`` file (None: drop it), its bytes the server's
    one copy of them and counted in the session's memory with its uploads."""
    state = st.session_state
    held = uploads().optional
    if spec is None:
        held.pop(kind, None)
    else:
        if spec.data is not None:
            spec = replace(spec, data=shared_content(spec.digest, spec.data))
        held[kind] = spec
    key, inner = OPTIONAL_FILES[kind]
    if inner is None:
        if spec is None:
            state.pop(key, None)
        else:
            state[key] = spec
        return
    files = dict(state.get(key) or {})
    files[inner] = spec
    state[key] = {name: held for name, held in files.items() if held is not None}


@dataclass(frozen=True)
class NotSaved:
    """Why the session's files could not be saved in its workspace (they stay in this session
    then): the message, and whether they are more than one workspace may hold."""

    reason: str
    too_large: bool


def save_in_workspace() -> NotSaved | None:
    """Save the uploads in the session's workspace (made on the first upload); None when
    they are saved (or there is nothing to save)."""
    state = st.session_state
    files, contents = uploads().stored()
    for kind in OPTIONAL_FILES:
        spec = optional_file(kind)
        if spec is not None and spec.data is not None:
            files.append(as_stored(spec))
            contents[spec.digest] = spec.data
    store = workspace_store()
    if not files and state.get(keys.WORKSPACE) is None:
        return None  # nothing to save
    try:
        if state.get(keys.WORKSPACE) is not None:
            try:
                # what another tab on the same link saved since this one last looked is kept
                saved = store.save_files(state[keys.WORKSPACE], files, contents,
                                         base=state.get(keys.WORKSPACE_BASE, ()))
                state[keys.WORKSPACE_BASE] = [stored.file_id for stored in files]
                others = saved[len(files):]
                state[keys.WORKSPACE_MERGED] = None
                if others:
                    names = ", ".join(stored.file_name for stored in others)
                    state[keys.WORKSPACE_MERGED] = (
                        f"This workspace also holds {names}, saved from another tab or by "
                        "someone else with its link; they are kept. Open the link again to "
                        "see them here.")
                return None
            except KeyError:  # deleted or expired meanwhile: start a new one
                del state[keys.WORKSPACE]
        state[keys.WORKSPACE] = _new_workspace(store, files, contents)
        state[keys.WORKSPACE_BASE] = [stored.file_id for stored in files]
    except WorkspaceFull as full:
        return NotSaved(str(full), too_large=isinstance(full, FilesTooLarge))
    except StoreUnavailable as unavailable:
        return NotSaved(str(unavailable), too_large=False)
    return None


def _new_workspace(store: WorkspaceStore, files: list[StoredFile],
                   contents: dict[str, bytes]) -> str:
    """A new workspace holding ``files``; none is left behind when they are refused."""
    workspace = store.create()
    try:
        store.save_files(workspace, files, contents)
    except (WorkspaceFull, StoreUnavailable):
        store.delete(workspace)
        raise
    return workspace


def restore(files: Sequence[StoredFile], content: Callable[[str], bytes]) -> None:
    """Take a workspace's files into the session: the uploads and the optional files. A file
    whose stored copy is missing or damaged is left out and said to be (the others are
    taken); uploading it again stores it afresh."""
    read: dict[str, bytes] = {}
    damaged: list[str] = []
    kept = []
    for stored in files:
        try:
            if stored.digest not in read:  # one copy of the bytes for every tab on the link
                read[stored.digest] = shared_content(stored.digest,
                                                     partial(content, stored.digest))
            kept.append(stored)
        except DamagedFile as problem:
            what = "is missing" if problem.missing else "is damaged (not what was uploaded)"
            damaged.append(f"{stored.file_name}: the server's copy of this file {what}, so it "
                           "was not loaded; the workspace's other files are. Upload it "
                           "again to keep it.")
    st.session_state[keys.WORKSPACE_DAMAGED] = damaged
    # every file the workspace held: one this tab then leaves out is removed by its next save
    st.session_state[keys.WORKSPACE_BASE] = [stored.file_id for stored in files]
    uploads().take(Uploads.from_stored(kept, read.__getitem__))
    for stored in kept:
        if stored.kind in OPTIONAL_FILES:
            set_optional_file(stored.kind, as_spec(stored, read.__getitem__))


def runs_uploader_key() -> str:
    return keys.upload_runs(st.session_state[keys.UPLOADER_NONCE])


def truth_uploader_key() -> str:
    return keys.upload_truth(st.session_state[keys.UPLOADER_NONCE])


def upload_specs() -> tuple[FileSpec | None, list[FileSpec]]:
    """The uploaded ground truth (a newly uploaded one replaces it once it reads cleanly) and
    the uploaded model files."""
    files = uploads()
    candidate = files.truth_candidate
    if candidate is not None and cached_inputs.read_file(candidate).table is not None:
        files.accept_truth()
        save_in_workspace()
    return files.truth, list(files.runs)


# ----- callbacks of the Data page's widgets ---------------------------------------------------


def take_uploads() -> None:
    """File-uploader callback: move the new files into the uploads, empty the uploaders and
    switch the data selector to the uploaded files; or, when the server's memory cannot take
    them, leave everything as it was and say why."""
    state = st.session_state
    truth = state.get(truth_uploader_key())
    runs = [(uploaded.name, uploaded.getvalue())
            for uploaded in state.get(runs_uploader_key()) or []]
    new_truth = (truth.name, truth.getvalue()) if truth is not None else None
    state[keys.UPLOADER_NONCE] += 1
    size = sum(len(data) for _, data in [*runs, *([new_truth] if new_truth else [])])
    refusal = BUDGET.admit(size)
    if refusal:
        state[keys.UPLOAD_REFUSED] = refusal
        return
    state.pop(keys.UPLOAD_REFUSED, None)
    before = uploads().copy()
    uploads().add(runs, new_truth)
    not_saved = save_in_workspace()
    if not_saved is not None and not_saved.too_large:  # over a workspace's size: refused
        uploads().take(before)
        state[keys.UPLOAD_REFUSED] = not_saved.reason
        return
    # not saved: the files stay in this tab only, and the Data page says why
    state[keys.WORKSPACE_NOTE] = not_saved.reason if not_saved is not None else None
    state[keys.DATASET] = DATASET


def refusal() -> str | None:
    """Why the last upload was refused, if it was."""
    return st.session_state.get(keys.UPLOAD_REFUSED)


def delete_workspace() -> None:
    """Button callback: delete the session's workspace and its files; back to the demo."""
    state = st.session_state
    workspace = state.pop(keys.WORKSPACE, None)
    if workspace is not None:
        workspace_store().delete(workspace)
    uploads().take(Uploads())
    for kind in OPTIONAL_FILES:
        set_optional_file(kind, None)
    state[keys.DATASET] = "movies"


def rename_run(file_id: str) -> None:
    """Model-name callback: rename the model, or put the name back and say why not."""
    state = st.session_state
    problem = uploads().rename_run(file_id, str(state.get(keys.rename(file_id), "")))
    if problem:
        state[keys.rename_problem(file_id)] = problem
        state[keys.rename(file_id)] = uploads().run(file_id).name
    else:
        state.pop(keys.rename_problem(file_id), None)
        save_in_workspace()


def remove_run(file_id: str) -> None:
    uploads().remove_run(file_id)
    save_in_workspace()


def dismiss_truth_candidate() -> None:
    uploads().dismiss_truth()
    save_in_workspace()


def set_read_options(file_id: str, kind: str) -> None:
    """Form callback: read a file again with the columns and format chosen by hand: by name,
    or, when the first line is data, in the order given (none: the order is inferred)."""
    state = st.session_state
    roles: tuple[str, ...] = (("user", "item", "order") if kind == "run"
                              else ("user", "item", "rating"))
    columns = {}
    if state.get(keys.column(file_id, "first_line")) == "data":
        roles = ()
        order = str(state.get(keys.column(file_id, "column_order"), "") or "").strip()
        if order:
            columns["order"] = order
    for role in roles:
        value = str(state.get(keys.column(file_id, role), "") or "").strip()
        if not value:
            continue
        if role == "order":
            role = state.get(keys.column(file_id, "order_kind"), "score")
        columns[role] = value
    uploads().read_with(file_id, columns, state.get(keys.file_format(file_id)))
    save_in_workspace()
