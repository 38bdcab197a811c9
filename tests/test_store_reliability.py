"""The workspace store when things go wrong on the server: a stored file deleted or cut short,
an index that is not a database, writes killed halfway, a full disk, and two server processes
sharing one folder."""

from __future__ import annotations

import dataclasses
import errno
import os
import threading
import time
from pathlib import Path

import pytest

import dashboard.files
import dashboard.store
from dashboard.files import digest
from dashboard.store import (
    DAY,
    MB,
    DamagedFile,
    Limits,
    StoredFile,
    StoreUnavailable,
    WorkspaceStore,
)
from tests.apptest import errors, go, ok, opened, plain, upload
from tests.test_links import link_of

TRUTH = b"user,item,rating\nu1,a,5\nu2,b,4\n"
RUN = b"user,item,score\nu1,a,0.9\nu2,c,0.5\n"
ROOMY = Limits(workspace_bytes=10 * MB, workspaces=10, expiry_seconds=30 * DAY)


def stored(kind: str, data: bytes, file_id: str) -> StoredFile:
    return StoredFile(file_id=file_id, kind=kind, file_name=f"{file_id}.csv", name=file_id,
                      digest=digest(data))


def saved(store: WorkspaceStore) -> str:
    workspace = store.create()
    store.save_files(workspace, [stored("truth", TRUTH, "t"), stored("run", RUN, "r")],
                     {digest(TRUTH): TRUTH, digest(RUN): RUN})
    return workspace


def blob(store: WorkspaceStore, data: bytes) -> Path:
    name = digest(data)
    return store.root / "blobs" / name[:2] / name


def test_a_file_cut_short_on_disk_is_damaged_and_a_fresh_upload_repairs_it(tmp_path):
    store = WorkspaceStore(tmp_path, ROOMY)
    workspace = saved(store)
    blob(store, RUN).write_bytes(RUN[:10])
    with pytest.raises(DamagedFile) as damaged:
        store.content(workspace, digest(RUN))
    assert not damaged.value.missing
    assert store.content(workspace, digest(TRUTH)) == TRUTH  # the others stay readable
    store.save_files(workspace, store.files(workspace), {digest(RUN): RUN})  # uploaded again
    assert store.content(workspace, digest(RUN)) == RUN


def test_a_deleted_file_is_missing(tmp_path):
    store = WorkspaceStore(tmp_path, ROOMY)
    workspace = saved(store)
    blob(store, TRUTH).unlink()
    with pytest.raises(DamagedFile) as damaged:
        store.content(workspace, digest(TRUTH))
    assert damaged.value.missing


def test_an_index_that_is_not_a_database_is_set_aside_and_a_new_one_begun(tmp_path):
    (tmp_path / "index.sqlite3").write_bytes(b"this is not a database" * 100)
    store = WorkspaceStore(tmp_path, ROOMY)
    workspace = saved(store)
    assert store.open(workspace) and store.content(workspace, digest(RUN)) == RUN
    aside = [path.name for path in tmp_path.iterdir() if ".damaged-" in path.name]
    assert len(aside) == 1 and aside[0].startswith("index.sqlite3.damaged-")


def test_the_leftovers_of_killed_writes_are_swept_once_an_hour_old(tmp_path):
    store = WorkspaceStore(tmp_path, ROOMY)
    workspace = saved(store)
    folder = blob(store, RUN).parent
    partial = folder / "abc.1234.partial"
    unindexed = folder / ("f" * 64)
    fresh = folder / "def.5678.partial"
    for path in (partial, unindexed, fresh):
        path.write_bytes(b"x" * 1000)
    hour_ago = time.time() - 2 * 3600
    for path in (partial, unindexed):
        os.utime(path, (hour_ago, hour_ago))
    assert store.sweep_leftovers() == 2
    assert not partial.exists() and not unindexed.exists()
    assert fresh.exists()  # a write may be under way
    assert store.content(workspace, digest(RUN)) == RUN  # indexed contents stay


def test_a_full_disk_is_one_message_and_the_store_stays_usable(tmp_path, monkeypatch):
    store = WorkspaceStore(tmp_path, ROOMY)
    workspace = saved(store)
    other = b"user,item,score\nu1,z,1\n"
    real = Path.write_bytes

    def full(self, data):
        real(self, data[:3])  # what a full disk lets through
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", full)
    with pytest.raises(StoreUnavailable, match="The server's disk is full"):
        store.save_files(workspace, [*store.files(workspace), stored("run", other, "o")],
                         {digest(other): other})
    monkeypatch.setattr(Path, "write_bytes", real)
    assert [path.name for path in tmp_path.rglob("*.partial")] == []
    assert [f.file_id for f in store.files(workspace)] == ["t", "r"]  # nothing changed
    # and every later transaction works (none is left open)
    store.save_files(workspace, [*store.files(workspace), stored("run", other, "o")],
                     {digest(other): other})
    assert store.content(workspace, digest(other)) == other
    assert store.open(store.create())


def test_two_servers_on_one_folder_never_delete_what_the_other_just_stored(tmp_path):
    """Store ``first`` writes a content and, before indexing it, waits; ``second`` (another
    connection, another lock: as another process) deletes a workspace, which drops unused
    contents. It must wait for the first's write transaction, and the content survives."""
    first, second = WorkspaceStore(tmp_path, ROOMY), WorkspaceStore(tmp_path, ROOMY)
    doomed = second.create()
    workspace = first.create()
    written, release = threading.Event(), threading.Event()
    index = first._index

    def slow_index(*args, **kwargs):
        written.set()
        release.wait(10)
        return index(*args, **kwargs)

    first._index = slow_index  # type: ignore[method-assign]
    saver = threading.Thread(target=first.save_files, args=(
        workspace, [stored("run", RUN, "r")], {digest(RUN): RUN}))
    saver.start()
    assert written.wait(10)
    deleter = threading.Thread(target=second.delete, args=(doomed,))
    deleter.start()
    deleter.join(0.5)
    assert deleter.is_alive()  # it waits for the other's write lock
    release.set()
    saver.join(10)
    deleter.join(10)
    assert second.content(workspace, digest(RUN)) == RUN


@pytest.fixture
def app_store(tmp_path, monkeypatch):
    monkeypatch.setattr(dashboard.store, "_STORE", WorkspaceStore(tmp_path, ROOMY))
    monkeypatch.setenv("RANKMETRICS_WORKSPACES", str(tmp_path))
    yield dashboard.store._STORE
    dashboard.store._STORE = None


def test_a_damaged_file_is_that_file_s_problem_on_the_data_page(app_store):
    at = opened({}, "app_pages/data.py")
    upload(at, 1, "ratings.csv")
    upload(at, 0, "als_model.csv", "popular_items.tsv")
    params = link_of(at)
    run = next(f for f in app_store.files(params["ws"]) if f.file_name == "als_model.csv")
    (app_store.root / "blobs" / run.digest[:2] / run.digest).write_bytes(b"user,item\n")
    del at
    dashboard.files._SHARED.clear()  # the server restarts: no session holds the files
    again = opened(params, "app_pages/data.py")
    assert not again.exception
    said = errors(again)
    assert any(message.startswith("als_model.csv: the server's copy of this file is damaged")
               for message in said), said
    assert [spec.name for spec in again.session_state["uploads"].runs] == ["popular_items"]
    assert again.session_state["uploads"].truth is not None  # the ground truth stays
    assert any("change its files and delete it" in m.value for m in again.markdown)
    go(again, "app_pages/compare.py")
    ok(again)


def test_every_workspace_together_stays_within_the_total(tmp_path):
    total = len(TRUTH) + len(RUN) + 10
    store = WorkspaceStore(tmp_path, Limits(10 * MB, 10, 30 * DAY, total))
    first = saved(store)
    second = store.create()
    # the same contents again take no more room: a workspace sharing them is kept
    store.save_files(second, [stored("run", RUN, "r")], {digest(RUN): RUN})
    more = b"user,item,score\nu9,q,1\n"
    with pytest.raises(dashboard.store.WorkspaceFull,
                       match="RANKMETRICS_WORKSPACES_TOTAL_MB"):
        store.save_files(second, [stored("run", more, "m")], {digest(more): more})
    assert [f.file_id for f in store.files(second)] == ["r"]  # nothing changed
    assert store.content(first, digest(TRUTH)) == TRUTH


def test_two_tabs_saving_one_workspace_keep_both_tabs_files(tmp_path):
    store = WorkspaceStore(tmp_path, ROOMY)
    workspace = saved(store)  # the ground truth "t" and the model "r"
    seen = [f.file_id for f in store.files(workspace)]
    first, second = b"user,item,score\nu1,x,1\n", b"user,item,score\nu1,y,1\n"
    # each tab adds a model named "als" to what it saw, then saves
    one = [*store.files(workspace), dataclasses.replace(stored("run", first, "a1"), name="als")]
    store.save_files(workspace, one, {digest(first): first}, base=seen)
    two = [*store.files(workspace)[:2],
           dataclasses.replace(stored("run", second, "b1"), name="als")]
    kept = store.save_files(workspace, two, {digest(second): second}, base=seen)
    assert [(f.file_id, f.name) for f in kept] == [("t", "t"), ("r", "r"), ("b1", "als"),
                                                   ("a1", "als (2)")]
    assert store.content(workspace, digest(first)) == first  # neither tab's file was dropped
    # a file a tab saw and removed is removed; what it never saw stays
    three = [f for f in store.files(workspace) if f.file_id != "r"]
    kept = store.save_files(workspace, three[:-1], {}, base=["t", "r", "b1"])
    assert [f.file_id for f in kept] == ["t", "b1", "a1"]


def test_another_tab_s_ground_truth_does_not_replace_this_tab_s(tmp_path):
    store = WorkspaceStore(tmp_path, ROOMY)
    workspace = store.create()
    other_truth = b"user,item,rating\nu1,z,1\n"
    store.save_files(workspace, [stored("truth", other_truth, "t2")],
                     {digest(other_truth): other_truth})
    kept = store.save_files(workspace, [stored("truth", TRUTH, "t1")], {digest(TRUTH): TRUTH},
                            base=[])
    assert [f.file_id for f in kept] == ["t1"]


def test_two_tabs_in_the_app_keep_both_models(app_store):
    first = opened({}, "app_pages/data.py")
    upload(first, 1, "ratings.csv")
    params = link_of(first)
    second = opened(params, "app_pages/data.py")  # the same link in another tab
    upload(first, 0, "als_model.csv")
    upload(second, 0, "popular_items.tsv")
    names = sorted(f.file_name for f in app_store.files(params["ws"]))
    assert names == ["als_model.csv", "popular_items.tsv", "ratings.csv"]
    assert any("als_model.csv, saved from another tab" in plain(info.value)
               for info in second.info)
    again = opened(params, "app_pages/data.py")
    assert sorted(spec.name for spec in again.session_state["uploads"].runs) == [
        "als_model", "popular_items"]


def test_tabs_opening_one_link_share_one_copy_of_its_files(app_store):
    first = opened({}, "app_pages/data.py")
    upload(first, 1, "ratings.csv")
    upload(first, 0, "als_model.csv")
    params = link_of(first)
    tabs = [opened(params, "app_pages/data.py") for _ in range(4)]
    datas = [tab.session_state["uploads"].truth.data for tab in [first, *tabs]]
    assert all(data is datas[0] for data in datas)  # one object, not five copies
    size = len(datas[0]) + len(first.session_state["uploads"].runs[0].data)
    from dashboard.budget import _leased_bytes

    leases = [tab.session_state["_lease"] for tab in [first, *tabs]]
    assert _leased_bytes(leases) == size  # counted once, not once per tab
    assert sum(lease.nbytes for lease in leases) == 5 * size


def _damage_index(root: Path) -> None:
    """Write over the index in place, as a failing disk would, while a store has it open."""
    index = root / "index.sqlite3"
    with open(index, "r+b") as handle:
        handle.write(b"not a database!!" * (index.stat().st_size // 16))


def test_an_index_damaged_while_the_server_runs_is_one_message_then_a_new_one(tmp_path):
    store = WorkspaceStore(tmp_path, ROOMY)
    workspace = saved(store)
    _damage_index(tmp_path)
    with pytest.raises(StoreUnavailable, match="list of workspaces was damaged"):
        store.open(workspace)
    aside = [path.name for path in tmp_path.iterdir() if ".damaged-" in path.name]
    assert len(aside) == 1
    # the store goes on with a new index: the old workspace is gone, new ones work
    assert not store.open(workspace)
    fresh = saved(store)
    assert store.open(fresh) and store.content(fresh, digest(RUN)) == RUN
    _damage_index(tmp_path)
    with pytest.raises(StoreUnavailable, match="list of workspaces was damaged"):
        store.files(fresh)  # a read finds it too
    assert store.count() == 0


def test_a_full_index_is_one_message_and_the_store_stays_usable(tmp_path):
    store = WorkspaceStore(tmp_path, ROOMY)
    workspace = saved(store)
    (pages,) = store._db.execute("PRAGMA page_count").fetchone()
    store._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own disk is full
    with pytest.raises(StoreUnavailable, match="disk is full"):
        store.save_settings(workspace, {"note": "x" * 200_000})
    assert store.open(workspace) and store.settings(workspace) == {}
    store._db.execute("PRAGMA max_page_count = 1073741823")
    store.save_settings(workspace, {"note": "kept"})
    assert store.settings(workspace) == {"note": "kept"}


def test_a_link_to_a_workspace_whose_index_was_damaged_shows_the_demo(app_store):
    at = opened({}, "app_pages/data.py")
    upload(at, 1, "ratings.csv")
    upload(at, 0, "als_model.csv")
    link = link_of(at)
    del at
    dashboard.files._SHARED.clear()
    _damage_index(app_store.root)
    again = opened(link, "app_pages/compare.py")
    ok(again)
    shown = " ".join(plain(box.value) for box in (*again.warning, *again.info))
    assert "could not be opened" in shown and "list of workspaces was damaged" in shown, shown
    assert again.session_state["dataset"] == "movies"  # the demo data keeps working
    assert not errors(again)


def test_a_link_whose_files_the_memory_cannot_take_is_refused_and_kept(app_store,
                                                                      monkeypatch):
    from dashboard.budget import BUDGET

    first = opened({}, "app_pages/data.py")
    upload(first, 1, "ratings.csv")
    upload(first, 0, "als_model.csv")
    params = link_of(first)
    monkeypatch.setattr(BUDGET, "limit_bytes", BUDGET.in_use_bytes() + 1000)
    holding = opened(params, "app_pages/data.py")  # the first tab holds the files: one copy
    assert [spec.name for spec in holding.session_state["uploads"].runs] == ["als_model"]
    del first, holding
    dashboard.files._SHARED.clear()  # no tab holds them now: opening reads them again
    refused = opened(params, "app_pages/compare.py")
    ok(refused)
    shown = " ".join(plain(box.value) for box in (*refused.warning, *refused.info))
    assert "workspace was not opened, and is kept as it is" in shown, shown
    assert "The server is busy" in shown
    assert refused.session_state["dataset"] == "movies"
    assert [f.file_name for f in app_store.files(params["ws"])] == ["ratings.csv",
                                                                   "als_model.csv"]
