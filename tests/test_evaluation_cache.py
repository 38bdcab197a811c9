"""An Evaluation shared between threads (the dashboard's sessions) keeps its per-user values
in a bounded, locked cache, and nothing it hands out can change what it keeps."""

from __future__ import annotations

import importlib
import itertools
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

from rankmetrics import evaluate
from rankmetrics.cache import BoundedCache
from rankmetrics.metrics import CUTOFF_METRICS
from tests.helpers import random_data

evaluate_module = importlib.import_module("rankmetrics.evaluation._evaluation")
MAX_CUTOFF = 20


def _evaluation(monkeypatch=None, cache_bytes: int | None = None):
    if cache_bytes is not None:
        monkeypatch.setattr(evaluate_module, "PER_USER_CACHE_BYTES", cache_bytes)
    truth, run_a = random_data(11, n_users=300)
    _, run_b = random_data(12, n_users=300)
    return evaluate(truth, {"a": run_a, "b": run_b}, max_cutoff=MAX_CUTOFF)


def test_the_cache_drops_the_least_recently_used_first():
    cache = BoundedCache(max_bytes=3 * 80)  # three arrays of ten float64
    for key in "abc":
        cache.get_or_compute(key, lambda: np.zeros(10))
    cache.get_or_compute("a", lambda: pytest.fail("kept, not computed again"))
    cache.get_or_compute("d", lambda: np.zeros(10))
    assert ["a" in cache, "b" in cache, "c" in cache, "d" in cache] == [True, False, True, True]
    assert cache.nbytes == 240 and len(cache) == 3


def test_an_array_larger_than_the_bound_is_returned_not_kept():
    cache = BoundedCache(max_bytes=100)
    assert cache.get_or_compute("big", lambda: np.arange(20.0)).sum() == 190.0
    assert "big" not in cache and cache.nbytes == 0


def test_the_bound_holds_and_values_stay_right(monkeypatch):
    bound = 3 * 300 * 8  # three per-user columns of 300 users
    small = _evaluation(monkeypatch, cache_bytes=bound)
    monkeypatch.undo()
    roomy = _evaluation()
    for metric, cutoff in itertools.product(("ndcg", "map", "recall"), (1, 5, 20)):
        pd.testing.assert_series_equal(small.per_user_at("a", metric, cutoff),
                                       roomy.per_user_at("a", metric, cutoff))
        assert small._per_user_cache.nbytes <= bound
    assert len(small._per_user_cache) == 3
    full = small.per_user("b", "ndcg")  # 300 x 20 values: more than the bound, not kept
    pd.testing.assert_frame_equal(full, roomy.per_user("b", "ndcg"))
    assert small._per_user_cache.nbytes <= bound


def test_what_is_handed_out_cannot_change_what_is_kept():
    evaluation = _evaluation()
    series = evaluation.per_user_at("a", "ndcg", 5)
    expected = series.copy()
    series.iloc[:] = -1.0
    frame = evaluation.per_user("a", "map")
    expected_frame = frame.copy()
    frame.iloc[:, :] = -1.0
    kept = evaluation._per_user_cache.get_or_compute(("a", "ndcg", 5), pytest.fail)
    with pytest.raises(ValueError, match="read-only"):
        kept[0] = -1.0
    pd.testing.assert_series_equal(evaluation.per_user_at("a", "ndcg", 5), expected)
    pd.testing.assert_frame_equal(evaluation.per_user("a", "map"), expected_frame)
    for shared in (evaluation.n_relevant, evaluation.truth_gains, evaluation.truth_relevant):
        with pytest.raises(ValueError, match="read-only"):
            shared[0] = 1


def test_threads_sharing_an_evaluation_get_the_right_values(monkeypatch):
    """Eight threads ask for per-user values at once, with a cache so small that entries are
    dropped while others are being computed; every answer equals a serial evaluation's."""
    shared = _evaluation(monkeypatch, cache_bytes=4 * 300 * 8)
    monkeypatch.undo()
    serial = _evaluation()
    requests = [(model, metric, cutoff)
                for model, metric, cutoff
                in itertools.product(("a", "b"), CUTOFF_METRICS, (1, 3, 10, MAX_CUTOFF))] * 3
    expected = {request: serial.per_user_at(*request).to_numpy() for request in set(requests)}
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda request: shared.per_user_at(*request).to_numpy(),
                                requests))
        full = list(pool.map(lambda model: shared.per_user(model, "ndcg"), ["a", "b"] * 4))
    for request, answer in zip(requests, answers, strict=True):
        np.testing.assert_array_equal(answer, expected[request], err_msg=str(request))
    for model, frame in zip(["a", "b"] * 4, full, strict=True):
        pd.testing.assert_frame_equal(frame, serial.per_user(model, "ndcg"))
    assert shared._per_user_cache.nbytes <= 4 * 300 * 8


def test_values_of_a_block_of_users_equal_the_per_user_values():
    evaluation = _evaluation()
    start, stop, cutoffs = 50, 200, [1, 3, 7, MAX_CUTOFF]
    block = evaluation.user_block_values("b", ["ndcg", "precision"], start, stop, cutoffs)
    counted = evaluation.included("b")[start:stop]
    users = evaluation.truth.users[start:stop][counted]
    for metric in ("ndcg", "precision"):
        assert block[metric].shape == (stop - start, len(cutoffs))
        for column, cutoff in enumerate(cutoffs):
            expected = evaluation.per_user_at("b", metric, cutoff).loc[users].to_numpy()
            np.testing.assert_array_equal(block[metric][counted, column], expected)
    with pytest.raises(ValueError, match="'cutoffs' argument must be increasing"):
        evaluation.user_block_values("b", ["ndcg"], 0, 10, [5, 3])
    with pytest.raises(ValueError, match="'stop' argument"):
        evaluation.user_block_values("b", ["ndcg"], 10, 5, [3])
