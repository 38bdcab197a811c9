"""Two models' lists compared (rankmetrics.agreement, ``rankmetrics overlap``): rank-biased
overlap against the rbo package (Webber et al.'s extrapolated RBO, its ``rbo_ext``), the
overlap of the top K against Python's sets, the means against the mean of those per-user
values, on random lists of every length, empty ones included."""

from __future__ import annotations

import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import rbo

from rankmetrics import evaluate
from rankmetrics.agreement import (
    MEASURES,
    ListOverlap,
    list_agreement,
    list_overlap,
    shared_by_depth,
    summed_agreement,
)
from rankmetrics.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _reference(a: list[int], b: list[int], k: int, p: float) -> dict[str, float]:
    """Every measure of two lists' top k, from sets and the rbo package."""
    top_a, top_b = a[:k], b[:k]
    common = len(set(top_a) & set(top_b))
    if not top_a and not top_b:
        return dict.fromkeys(MEASURES, 1.0)
    return {
        "jaccard": common / len(set(top_a) | set(top_b)),
        "share_a_in_b": common / len(top_a) if top_a else 0.0,
        "share_b_in_a": common / len(top_b) if top_b else 0.0,
        "rbo": rbo.RankingSimilarity(top_a, top_b).rbo_ext(p=p),
    }


def _random_lists(rng: np.random.Generator, n_users: int, width: int, n_items: int
                  ) -> tuple[np.ndarray, list[list[int]]]:
    """Users x width item codes (-1 past each list's end) and the same lists as lists; a
    list may be empty or shorter than width."""
    matrix = np.full((n_users, width), -1, dtype=np.int64)
    lists = []
    for user in range(n_users):
        length = int(rng.integers(0, width + 1))
        items = rng.choice(n_items, size=min(length, n_items), replace=False).tolist()
        matrix[user, :len(items)] = items
        lists.append(items)
    return matrix, lists


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("persistence", [0.5, 0.9, 0.98])
def test_every_users_value_at_every_k_matches_sets_and_the_rbo_package(seed, persistence):
    rng = np.random.default_rng(seed)
    width, n_items = 12, 18  # few items: lists share many of them
    matrix_a, lists_a = _random_lists(rng, 60, width, n_items)
    matrix_b, lists_b = _random_lists(rng, 60, width, n_items)
    values = list_agreement(matrix_a, matrix_b, persistence=persistence)
    for user in range(60):
        for k in range(1, width + 1):
            expected = _reference(lists_a[user], lists_b[user], k, persistence)
            for measure in MEASURES:
                assert values[measure][user, k - 1] == pytest.approx(
                    expected[measure], rel=0, abs=1e-12), (measure, user, k)


def test_rbo_of_the_same_list_is_one_and_of_disjoint_lists_zero():
    same = list_agreement(np.array([[4, 2, 7, 1]]), np.array([[4, 2, 7, 1]]))
    assert same["rbo"][0] == pytest.approx([1.0] * 4, abs=1e-15)
    apart = list_agreement(np.array([[4, 2, 7, 1]]), np.array([[0, 3, 5, 6]]))
    assert apart["rbo"][0].tolist() == [0.0] * 4
    # agreement at the top counts more than the same agreement lower down
    top = list_agreement(np.array([[1, 2, 3, 4]]), np.array([[1, 9, 8, 7]]))["rbo"][0, -1]
    low = list_agreement(np.array([[1, 2, 3, 4]]), np.array([[9, 8, 7, 4]]))["rbo"][0, -1]
    assert top > low > 0


def test_shared_items_count_from_the_depth_both_lists_hold_them():
    assert shared_by_depth(np.array([[1, 2, 3, -1]]), np.array([[3, 9, 1, 2]])).tolist() == [
        [0, 0, 2, 3]]


def _full_lists(rng: np.random.Generator, n_users: int, width: int, n_items: int
                ) -> tuple[np.ndarray, list[list[int]]]:
    """Users x width item codes with every list full (no -1), as a matrix and as lists."""
    lists = [rng.choice(n_items, size=width, replace=False).tolist() for _ in range(n_users)]
    return np.array(lists, dtype=np.int64), lists


@pytest.mark.parametrize("n_items", [14, 400])  # lists sharing most items, and few
@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("persistence", [0.6, 0.9])
def test_the_sums_over_users_are_the_sums_of_the_rbo_packages_values(full, persistence,
                                                                     n_items):
    rng = np.random.default_rng(11)
    width = 9
    make = _full_lists if full else _random_lists
    matrix_a, lists_a = make(rng, 50, width, n_items)
    matrix_b, lists_b = make(rng, 50, width, n_items)
    matrix_b[:5] = rng.choice(1000, size=(5, width), replace=False) + 100  # sharing nothing
    lists_b[:5] = [row[row >= 0].tolist() for row in matrix_b[:5]]
    sums = summed_agreement(matrix_a, matrix_b, persistence=persistence)
    for k in range(1, width + 1):
        expected = [_reference(a, b, k, persistence) for a, b in zip(lists_a, lists_b,
                                                                       strict=True)]
        for measure in MEASURES:
            total = sum(e[measure] for e in expected)
            assert sums[measure][k - 1] == pytest.approx(total, rel=0, abs=1e-11), (
                measure, k)


@pytest.mark.parametrize("full", [True, False])
def test_each_users_values_at_one_k_match_the_rbo_package_and_sets(full):
    rng = np.random.default_rng(5)
    width, n_items = 10, 16
    make = _full_lists if full else _random_lists
    matrix_a, lists_a = make(rng, 40, width, n_items)
    matrix_b, lists_b = make(rng, 40, width, n_items)
    overlap = ListOverlap("a", "b", 0.8, pd.Index(range(40), name="user"), matrix_a,
                          matrix_b)
    every_k = overlap.per_user()
    for k in range(1, width + 3):  # past the largest K: the values at the largest
        at_k = overlap.at(k)
        assert at_k.index.tolist() == list(range(40))
        for user in range(40):
            expected = _reference(lists_a[user], lists_b[user], min(k, width), 0.8)
            for measure in MEASURES:
                assert at_k.loc[user, measure] == pytest.approx(
                    expected[measure], rel=0, abs=1e-12), (measure, user, k)
                assert every_k[measure].loc[user, min(k, width)] == pytest.approx(
                    expected[measure], rel=0, abs=1e-12)
    means = overlap.curves()
    for measure in MEASURES:
        np.testing.assert_allclose(means[measure].to_numpy(),
                                   every_k[measure].mean(axis=0).to_numpy(), rtol=0,
                                   atol=1e-13)


def test_lists_sorted_in_blocks_find_the_same_shared_items(monkeypatch):
    import rankmetrics.agreement as agreement

    rng = np.random.default_rng(2)
    matrix_a, _ = _random_lists(rng, 70, 8, 12)
    matrix_b, _ = _random_lists(rng, 70, 8, 12)
    whole = shared_by_depth(matrix_a, matrix_b)
    monkeypatch.setattr(agreement, "USERS_PER_SORT", 3)
    assert shared_by_depth(matrix_a, matrix_b).tolist() == whole.tolist()
    large = matrix_a + np.where(matrix_a >= 0, 1 << 40, 0)  # codes past 32 bits
    assert shared_by_depth(large, matrix_b + np.where(matrix_b >= 0, 1 << 40, 0)
                           ).tolist() == whole.tolist()


def _frames(rng: np.random.Generator, n_users: int = 80, n_items: int = 25):
    """A ground truth and two models' outputs with tied scores, a user without a list in
    either model and a user listed by one model only."""
    users = [f"u{u:03d}" for u in range(n_users)]
    truth = pd.DataFrame({"user": users, "item": [f"i{u % n_items:02d}" for u in
                                                  range(n_users)], "rating": 1})
    runs = {}
    for name, skip in (("als", {0, 1}), ("bpr", {0, 2})):
        rows = []
        for u, user in enumerate(users):
            if u in skip:
                continue
            length = int(rng.integers(1, 12))
            items = rng.choice(n_items, size=length, replace=False)
            scores = rng.integers(0, 4, size=length)  # many ties
            rows += [(user, f"i{item:02d}", float(s)) for item, s in zip(items, scores,
                                                                        strict=True)]
        runs[name] = pd.DataFrame(rows, columns=["user", "item", "score"])
    return truth, runs


def _ordered(run: pd.DataFrame, user: str, ties: str) -> list[str]:
    """A user's list as the tie rule orders it: score descending, then item."""
    rows = run[run["user"] == user]
    return rows.sort_values(["score", "item"], ascending=[False, ties == "item_asc"],
                            kind="stable")["item"].tolist()


@pytest.mark.parametrize("ties", ["item_desc", "item_asc"])
def test_the_means_are_the_mean_of_each_users_value_over_users_with_a_list(ties):
    from rankmetrics.conventions import Conventions

    truth, runs = _frames(np.random.default_rng(7))
    ev = evaluate(truth, runs, max_cutoff=10, catalogue="all",
                  conventions=Conventions(ties=ties))
    overlap = list_overlap(ev, "als", "bpr", persistence=0.8)
    users = truth["user"].tolist()
    listed = [u for u in users if u != "u000"]  # u000 has a list in neither model
    assert overlap.n_users == len(listed)
    assert overlap.users.tolist() == listed
    curves = overlap.curves()
    for k in range(1, 11):
        expected = [_reference(_ordered(runs["als"], u, ties), _ordered(runs["bpr"], u, ties),
                               k, 0.8) for u in listed]
        for measure in MEASURES:
            mean = sum(e[measure] for e in expected) / len(expected)
            assert curves.loc[k, measure] == pytest.approx(mean, rel=0, abs=1e-12)
        at_k = overlap.at(k)
        assert at_k.loc["u001", "share_a_in_b"] == 0.0  # als has no list for u001
        assert at_k.loc["u002", "share_b_in_a"] == 0.0


def test_the_tie_rule_decides_which_tied_items_are_in_the_top_k():
    truth = pd.DataFrame({"user": ["u"], "item": ["a"], "rating": [1]})
    runs = {"one": pd.DataFrame({"user": "u", "item": ["a", "b"], "score": [1.0, 1.0]}),
            "two": pd.DataFrame({"user": "u", "item": ["a", "c"], "score": [2.0, 1.0]})}
    from rankmetrics.conventions import Conventions

    top_one = {ties: list_overlap(evaluate(truth, runs, max_cutoff=2, catalogue="all",
                                           conventions=Conventions(ties=ties)),
                                  "one", "two").at(1).loc["u", "jaccard"]
               for ties in ("item_desc", "item_asc")}
    assert top_one == {"item_desc": 0.0, "item_asc": 1.0}  # b first, then a first


def test_bad_requests_say_what_to_give():
    truth, runs = _frames(np.random.default_rng(1), n_users=5)
    ev = evaluate(truth, runs, max_cutoff=5, catalogue="all")
    with pytest.raises(ValueError, match="between 0 and 1"):
        list_overlap(ev, "als", "bpr", persistence=1.0)
    with pytest.raises(ValueError, match="No model named 'svd'.*'als', 'bpr'"):
        list_overlap(ev, "als", "svd")
    with pytest.raises(ValueError, match='catalogue="all"'):
        list_overlap(evaluate(truth, runs, max_cutoff=5), "als", "bpr")
    with pytest.raises(ValueError, match="same users"):
        list_agreement(np.zeros((2, 3), dtype=int), np.zeros((3, 3), dtype=int))


def _files(tmp_path):
    truth, runs = _frames(np.random.default_rng(3), n_users=40)
    truth.to_csv(tmp_path / "truth.csv", index=False)
    for name, run in runs.items():
        run.to_csv(tmp_path / f"{name}.csv", index=False)
    return truth, runs


def test_the_command_prints_the_means_at_every_k_and_each_users_values(tmp_path, capsys):
    truth, runs = _files(tmp_path)
    args = ["overlap", "--truth", str(tmp_path / "truth.csv"),
            "--run", str(tmp_path / "als.csv"), "--run", str(tmp_path / "bpr.csv"),
            "--max-cutoff", "6", "--persistence", "0.7"]
    assert main(args) == 0
    out = capsys.readouterr()
    means = pd.read_csv(io.StringIO(out.out))
    assert means.columns.tolist() == ["cutoff", *MEASURES, "users"]
    assert "A = als, B = bpr" in out.err and "p = 0.7" in out.err
    expected = list_overlap(evaluate(truth, runs, max_cutoff=6, catalogue="all"), "als",
                            "bpr", persistence=0.7).curves()
    assert means["cutoff"].tolist() == list(range(1, 7))
    np.testing.assert_allclose(means[list(MEASURES)].to_numpy(), expected.to_numpy(),
                               rtol=0, atol=1e-6)
    assert (means["users"] == 39).all()

    assert main([*args, "--per-user", "4"]) == 0
    users = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert users.columns.tolist() == ["user", "cutoff", *MEASURES]
    assert len(users) == 39 and (users["cutoff"] == 4).all()
    assert users[list(MEASURES)].mean().to_numpy() == pytest.approx(
        expected.loc[4].to_numpy(), abs=1e-6)


@pytest.mark.parametrize(("extra", "message"), [
    (["--persistence", "1.5"], "--persistence: .*between 0 and 1"),
    (["--per-user", "30"], "--per-user"),
    (["--max-cutoff", "0"], "--max-cutoff"),
])
def test_the_command_names_the_option_that_is_wrong(tmp_path, capsys, extra, message):
    _files(tmp_path)
    args = ["overlap", "--truth", str(tmp_path / "truth.csv"),
            "--run", str(tmp_path / "als.csv"), "--run", str(tmp_path / "bpr.csv"), *extra]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("rankmetrics: error: ") and "Traceback" not in err
    assert pd.Series([err]).str.contains(message).all(), err


def test_the_command_takes_exactly_two_models(tmp_path, capsys):
    _files(tmp_path)
    assert main(["overlap", "--truth", str(tmp_path / "truth.csv"),
                 "--run", str(tmp_path / "als.csv")]) == 1
    assert "give --run exactly twice (got 1)" in capsys.readouterr().err


def test_the_documented_example_prints_what_the_docs_show(capsys):
    page = (ROOT / "docs" / "command-line.md").read_text(encoding="utf-8")
    section = page[page.index("## `rankmetrics overlap`"):page.index("## `rankmetrics metrics`")]
    command = re.search(r"```bash\n\.venv/bin/rankmetrics (.*?)\n```", section, re.S).group(1)
    shown = re.search(r"```text\n(cutoff,.*?)```", section, re.S).group(1)
    assert main(shlex.split(command.replace("\\\n", " "))) == 0
    assert capsys.readouterr().out == shown


def test_a_reader_that_stops_early_gets_no_error(tmp_path):
    # 10,000 users' rows (about 470 kB): far more than a pipe holds, so the command is still
    # writing when the reader closes its end
    users = [f"u{n:05d}" for n in range(10_000)]
    pd.DataFrame({"user": users, "item": "i1", "rating": 5}).to_csv(tmp_path / "truth.csv",
                                                                    index=False)
    for name, item in (("als", "i1"), ("bpr", "i2")):
        pd.DataFrame({"user": users, "item": item, "score": 1.0}).to_csv(
            tmp_path / f"{name}.csv", index=False)
    command = [sys.executable, "-m", "rankmetrics", "overlap",
               "--truth", str(tmp_path / "truth.csv"), "--run", str(tmp_path / "als.csv"),
               "--run", str(tmp_path / "bpr.csv"), "--per-user", "1"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "user,cutoff,jaccard,share_a_in_b,share_b_in_a,rbo\n"
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait(timeout=60) == 1
    assert "error" not in err and "Traceback" not in err and "BrokenPipe" not in err
