"""The server's memory budget: objects sized and bounded in bytes, dropped when no session
used them for a while, computed once for sessions asking at the same time, and an upload
refused with a message (everything else staying loaded) when it would not fit."""

from __future__ import annotations

import gc
import threading
import time
import weakref

import numpy as np
import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import budget as budget_module
from dashboard.budget import READ_EXPANSION, MemoryBudget, limit_from_environment, size_of
from dashboard.uploads import Uploads
from tests.apptest import APP, UPLOADS, curves, ok, plain, upload


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def array(n_bytes: int) -> np.ndarray:
    return np.zeros(n_bytes // 8)


def test_objects_are_sized_by_their_buffers_each_counted_once():
    values = array(800)
    table = pa.table({"x": np.arange(100, dtype=np.int64)})
    assert size_of(values) == 800
    assert size_of(table) == 800
    assert size_of({"a": values, "b": [values, b"1234"], "t": table}) == 1604


def test_a_full_budget_drops_the_least_recently_used_and_frees_its_memory():
    budget = MemoryBudget(limit_bytes=2_000)
    first = budget.get_or_compute("first", lambda: array(800))
    alive = weakref.ref(first)
    budget.get_or_compute("second", lambda: array(800))
    assert budget.kept_bytes() == 1_600
    del first
    budget.get_or_compute("third", lambda: array(800))
    assert "first" not in budget and "second" in budget and "third" in budget
    assert budget.kept_bytes() == 1_600
    gc.collect()
    assert alive() is None  # nothing else holds the dropped array: its memory is freed


def test_an_object_larger_than_the_limit_is_returned_but_not_kept():
    budget = MemoryBudget(limit_bytes=1_000)
    assert budget.get_or_compute("big", lambda: array(2_000)).nbytes == 2_000
    assert "big" not in budget and budget.kept_bytes() == 0


def test_an_upload_that_does_not_fit_is_refused_and_everything_else_stays():
    budget = MemoryBudget(limit_bytes=10_000)
    files = Uploads()
    files.add([("model.csv", b"x" * 1_000)], None)
    lease = budget.lease(files)
    budget.get_or_compute("table", lambda: array(4_000), lease)
    assert budget.held_bytes() == 5_000

    refusal = budget.admit(1_000)  # with what reading it makes: 9,000 bytes
    assert refusal is not None
    assert refusal.startswith("The server is busy: it holds 1 MiB of its 1 MiB for the "
                              "people using it, and these files need about 1 MiB more.")
    assert "RANKMETRICS_MEMORY_LIMIT_GIB" in refusal
    assert "table" in budget and budget.held_bytes() == 5_000
    assert budget.admit(500) is None  # 4,500 bytes fit next to the 5,000 in use


def test_making_room_for_an_upload_drops_only_what_no_open_session_uses():
    budget = MemoryBudget(limit_bytes=10_000)
    open_session, closed_session = budget.lease(), budget.lease()
    budget.get_or_compute("open", lambda: array(4_000), open_session)
    budget.get_or_compute("closed", lambda: array(4_000), closed_session)
    del closed_session  # Streamlit forgot the session, and its lease with it
    gc.collect()
    assert budget.admit(5_000 // (1 + READ_EXPANSION)) is None
    assert "open" in budget and "closed" not in budget


def test_objects_of_a_session_whose_browser_left_are_dropped_after_a_while():
    clock = Clock()
    budget = MemoryBudget(limit_bytes=10_000, orphan_seconds=60, clock=clock)
    connected = {"left": True}
    leaving = budget.lease(is_open=lambda: connected["left"])
    budget.get_or_compute("theirs", lambda: array(800), leaving)
    clock.now = 61
    assert budget.sweep() == 0 and "theirs" in budget
    connected["left"] = False
    assert budget.sweep() == 1 and budget.kept_bytes() == 0


def test_a_forgotten_sessions_state_in_a_reference_cycle_is_freed_and_given_back(
        monkeypatch):
    """Streamlit forgets a closed session; its state waits in a reference cycle until the
    collector runs: the sweep runs it while a browser has left, and gives the memory back."""
    given_back = []
    monkeypatch.setattr(budget_module, "give_back_memory", lambda: given_back.append(1))
    budget = MemoryBudget(limit_bytes=10_000)

    class State:  # a session's state that refers to itself, as Streamlit's does
        def __init__(self) -> None:
            self.me = self
            self.upload = array(800)

    connected = {"open": True}
    state = State()
    state.lease = budget.lease(is_open=lambda: connected["open"])
    upload = weakref.ref(state.upload)
    gc.disable()
    # (the server's own sweep collects under its lock: held here, it cannot be collecting at
    # the same time, which would make this sweep's collection return at once)
    held = budget_module.BUDGET._lock
    held.acquire()
    try:
        del state  # forgotten, but alive in its cycle
        assert upload() is not None and budget.sweep() == 0
        assert not given_back and upload() is not None  # every browser open: no collection
        connected["open"] = False
        assert budget.sweep() == 0
    finally:
        held.release()
        gc.enable()
    assert upload() is None and given_back == [1]
    assert budget.sweep() == 0 and given_back == [1]  # nothing more to give back


def test_sessions_past_their_time_to_live_are_dropped_from_streamlits_store(monkeypatch):
    """Streamlit's session store drops a disconnected session past its time to live only when
    it is next written to; the sweep drops it on a quiet server too."""
    from types import SimpleNamespace

    from streamlit import runtime
    from streamlit.runtime.caching.ttl_cache import TTLCache

    clock = Clock()
    store = TTLCache(maxsize=128, ttl=120, timer=clock)
    store["closed"], store["open"] = "state of a closed tab", "state of an open tab"
    server = SimpleNamespace(_session_mgr=SimpleNamespace(
        _session_storage=SimpleNamespace(_cache=store)))
    monkeypatch.setattr(runtime, "exists", lambda: True)
    monkeypatch.setattr(runtime, "get_instance", lambda: server)
    assert budget_module.forget_expired_sessions() == 0
    clock.now = 100
    store["open"] = "state of an open tab"  # saved again: its time to live starts again
    clock.now = 121
    assert budget_module.forget_expired_sessions() == 1
    assert list(store) == ["open"]
    monkeypatch.setattr(runtime, "exists", lambda: False)
    assert budget_module.forget_expired_sessions() == 0


def test_objects_no_session_uses_are_dropped_after_a_while_the_others_after_an_hour():
    clock = Clock()
    budget = MemoryBudget(limit_bytes=10_000, orphan_seconds=60, ttl_seconds=3_600,
                          clock=clock)
    session = budget.lease()
    budget.get_or_compute("used", lambda: array(800), session)
    budget.get_or_compute("unused", lambda: array(800))
    clock.now = 61
    assert budget.sweep() == 1
    assert "used" in budget and "unused" not in budget and budget.kept_bytes() == 800
    clock.now = 3_700
    assert budget.sweep() == 1 and budget.kept_bytes() == 0


def test_sessions_asking_at_once_for_the_same_object_share_one_computation():
    budget = MemoryBudget(limit_bytes=10_000)
    calls = []

    def compute():
        calls.append(1)
        time.sleep(0.2)
        return array(80)

    results = []
    threads = [threading.Thread(target=lambda: results.append(budget.get_or_compute("k", compute)))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and all(result is results[0] for result in results)


@pytest.mark.parametrize("text", ["0", "-1", "four", "nan"])
def test_a_bad_limit_in_the_environment_is_named(monkeypatch, text):
    monkeypatch.setenv("RANKMETRICS_MEMORY_LIMIT_GIB", text)
    with pytest.raises(ValueError, match="RANKMETRICS_MEMORY_LIMIT_GIB must be a positive"):
        limit_from_environment()


def test_the_app_refuses_an_upload_beyond_the_limit_and_keeps_showing_the_demo(monkeypatch):
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    ok(at)
    shown = curves(at)
    at.switch_page("app_pages/data.py").run()
    size = len((UPLOADS / "als_model.csv").read_bytes())
    in_use = budget_module.BUDGET.in_use_bytes()
    monkeypatch.setattr(budget_module.BUDGET, "limit_bytes", in_use + size * READ_EXPANSION)
    upload(at, 0, "als_model.csv")
    refused = [plain(e.value) for e in at.error]
    assert len(refused) == 1 and refused[0].startswith("The server is busy: it holds")
    assert "ask the server's admin to raise RANKMETRICS_MEMORY_LIMIT_GIB" in refused[0]
    assert not at.session_state["uploads"].runs
    assert at.session_state["dataset"] == "movies"
    at.switch_page("app_pages/compare.py").run()
    ok(at)
    assert curves(at) == shown


def test_the_models_ranked_two_at_a_time_are_held_by_the_session_that_opened_them():
    # The demo's models are ranked in threads; what they make is kept for this session as
    # if the page had made it, so it stays while the browser is connected.
    from dashboard.budget import BUDGET
    from dashboard.demos import demo_specs
    from dashboard.keys import LEASE
    from rankmetrics.conventions import Conventions
    from tests.apptest import start

    at = start("movies")
    lease = at.session_state[LEASE]
    truth, runs = demo_specs("movies")
    assert len(runs) >= 2
    with BUDGET._lock:
        ranked = {key[1]: entry for key, entry in BUDGET._entries.items()
                  if isinstance(key, tuple) and key[0] == "ranked" and key[2] == truth.token
                  and key[3:] == (Conventions().ties, Conventions().identical_ids)}
    ours = {spec.token for spec in runs}  # (other demos share the ground truth)
    assert ours <= set(ranked)
    assert all(lease in ranked[token].holders for token in ours)
