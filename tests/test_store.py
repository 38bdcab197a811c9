"""The workspace store: files kept once on disk, workspaces that never see each other's files,
limits, expiry and a restart that loses nothing."""

from __future__ import annotations

import pytest

from dashboard.files import digest
from dashboard.store import (
    DAY,
    KINDS,
    MB,
    SWEEP_SECONDS,
    Limits,
    StoredFile,
    WorkspaceFull,
    WorkspaceStore,
)

TRUTH = b"user,item,rating\nu1,a,5\nu2,b,4\n"
RUN = b"user,item,score\nu1,a,0.9\nu2,c,0.5\n"
ROOMY = Limits(workspace_bytes=10 * MB, workspaces=10, expiry_seconds=30 * DAY)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def stored(kind: str, data: bytes, file_id: str = "f1", name: str = "model") -> StoredFile:
    return StoredFile(file_id=file_id, kind=kind, file_name=f"{name}.csv", name=name,
                      digest=digest(data))


def blobs(store: WorkspaceStore) -> list[str]:
    return sorted(path.name for path in (store.root / "blobs").rglob("*") if path.is_file())


@pytest.fixture
def store(tmp_path) -> WorkspaceStore:
    return WorkspaceStore(tmp_path, ROOMY)


def test_files_and_settings_survive_a_restart(tmp_path):
    first = WorkspaceStore(tmp_path, ROOMY)
    workspace = first.create()
    files = [stored("truth", TRUTH, "t"), StoredFile("r", "run", "m.csv", "my model",
                                                     digest(RUN), (("score", "s"),), "csv")]
    first.save_files(workspace, files, {digest(TRUTH): TRUTH, digest(RUN): RUN})
    first.save_settings(workspace, {"k": "5"})
    again = WorkspaceStore(tmp_path, ROOMY)
    assert again.open(workspace)
    assert again.files(workspace) == files
    assert again.content(workspace, digest(RUN)) == RUN
    assert again.settings(workspace) == {"k": "5"}


def test_ids_are_long_random_tokens(store):
    ids = {store.create() for _ in range(5)}
    assert len(ids) == 5
    assert all(len(workspace) >= 22 for workspace in ids)  # at least 128 bits in base64


def test_two_workspaces_never_see_each_others_files(store):
    mine, theirs = store.create(), store.create()
    store.save_files(mine, [stored("run", RUN)], {digest(RUN): RUN})
    assert store.files(theirs) == []
    with pytest.raises(KeyError):
        store.content(theirs, digest(RUN))
    assert not store.open("not-a-workspace")
    assert store.files("not-a-workspace") == []


def test_a_file_stored_twice_is_kept_once(store):
    one, two = store.create(), store.create()
    store.save_files(one, [stored("run", RUN, "a"), stored("run", RUN, "b", "copy")],
                     {digest(RUN): RUN})
    store.save_files(two, [stored("run", RUN)], {digest(RUN): RUN})
    assert blobs(store) == [digest(RUN)]
    assert store.size(one) == len(RUN)
    store.delete(one)
    assert store.content(two, digest(RUN)) == RUN  # still held by the other workspace
    store.delete(two)
    assert blobs(store) == []


def test_removing_a_file_deletes_its_content(store):
    workspace = store.create()
    store.save_files(workspace, [stored("truth", TRUTH, "t"), stored("run", RUN, "r")],
                     {digest(TRUTH): TRUTH, digest(RUN): RUN})
    store.save_files(workspace, [stored("truth", TRUTH, "t")], {})
    assert blobs(store) == [digest(TRUTH)]


def test_size_limit_refuses_and_changes_nothing(tmp_path):
    store = WorkspaceStore(tmp_path, Limits(len(TRUTH) + 5, 10, DAY))
    workspace = store.create()
    store.save_files(workspace, [stored("truth", TRUTH, "t")], {digest(TRUTH): TRUTH})
    with pytest.raises(WorkspaceFull, match="RANKMETRICS_WORKSPACE_MB"):
        store.save_files(workspace, [stored("truth", TRUTH, "t"), stored("run", RUN, "r")],
                         {digest(RUN): RUN})
    assert [f.file_id for f in store.files(workspace)] == ["t"]
    assert blobs(store) == [digest(TRUTH)]


def test_count_limit_and_expiry(tmp_path):
    clock = Clock()
    store = WorkspaceStore(tmp_path, Limits(MB, 2, 10 * DAY), clock=clock)
    old = store.create()
    store.save_files(old, [stored("run", RUN)], {digest(RUN): RUN})
    clock.now += 6 * DAY
    recent = store.create()
    with pytest.raises(WorkspaceFull, match="RANKMETRICS_MAX_WORKSPACES"):
        store.create()
    clock.now += 5 * DAY  # old: 11 days unused, recent: 5
    third = store.create()
    assert not store.open(old) and store.open(recent) and store.open(third)
    assert blobs(store) == []


def test_a_sweep_removes_expired_workspaces_nobody_opens(tmp_path):
    clock = Clock()
    store = WorkspaceStore(tmp_path, Limits(MB, 5, 10 * DAY), clock=clock)
    forgotten, used = store.create(), store.create()
    store.save_files(forgotten, [stored("run", RUN)], {digest(RUN): RUN})
    assert store.sweep() == 0  # the first sweep: nothing has expired yet
    clock.now += 9 * DAY
    store.save_settings(used, {"k": "5"})  # used: its days start again
    clock.now += 2 * DAY  # forgotten: 11 days unused, used: 2
    restarted = WorkspaceStore(tmp_path, store.limits, clock=clock)  # the server restarts
    assert restarted.sweep() == 1  # its first sweep, before anybody opens anything
    assert restarted.count() == 1 and restarted.files(forgotten) == [] and blobs(store) == []
    assert restarted.settings(used) == {"k": "5"}


def test_sweeps_come_at_most_once_an_hour(tmp_path):
    clock = Clock()
    store = WorkspaceStore(tmp_path, Limits(MB, 5, 10 * DAY), clock=clock)
    store.sweep()
    store.create()
    clock.now += 10 * DAY - 60
    store.sweep()  # a sweep 10 days on: the workspace has one minute left
    clock.now += 120
    assert store.sweep() == 0 and store.count() == 1  # expired, but the last sweep is recent
    clock.now += SWEEP_SECONDS
    assert store.sweep() == 1 and store.count() == 0


def test_opening_keeps_a_workspace_alive(tmp_path):
    clock = Clock()
    store = WorkspaceStore(tmp_path, Limits(MB, 5, 10 * DAY), clock=clock)
    workspace = store.create()
    for _ in range(3):
        clock.now += 8 * DAY
        assert store.open(workspace)


def test_every_kind_is_stored_and_unknown_kinds_refused(store):
    workspace = store.create()
    files = [stored(kind, kind.encode(), kind) for kind in KINDS]
    store.save_files(workspace, files, {digest(k.encode()): k.encode() for k in KINDS})
    assert [f.kind for f in store.files(workspace)] == list(KINDS)
    with pytest.raises(ValueError, match="Unknown kind of file 'photos'"):
        store.save_files(workspace, [stored("photos", RUN)], {digest(RUN): RUN})


def test_limits_from_the_environment(monkeypatch):
    monkeypatch.setenv("RANKMETRICS_WORKSPACE_MB", "5")
    monkeypatch.setenv("RANKMETRICS_MAX_WORKSPACES", "3")
    monkeypatch.setenv("RANKMETRICS_WORKSPACE_DAYS", "0.5")
    limits = Limits.from_environment()
    monkeypatch.setenv("RANKMETRICS_WORKSPACES_TOTAL_MB", "12")
    limits = Limits.from_environment()
    assert limits == Limits(5 * MB, 3, 0.5 * DAY, 12 * MB)
    assert "5 MB per workspace, 3 workspaces" in limits.describe()
    assert limits.describe().endswith("and 12 MB in all")
    monkeypatch.setenv("RANKMETRICS_MAX_WORKSPACES", "many")
    with pytest.raises(ValueError, match="RANKMETRICS_MAX_WORKSPACES must be a positive"):
        Limits.from_environment()
