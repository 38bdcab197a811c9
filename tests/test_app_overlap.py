"""Head-to-head's "How different are their lists?": the two models' top K compared, checked
against sets built here from the demo's own files, and the persistence control."""

from __future__ import annotations

import io

import pandas as pd
import pytest
import rbo

from tests.apptest import ROOT, figure, ok, plain, start

MOVIES = ROOT / "data" / "movies"


def top_lists(model: str, k: int) -> dict[str, list[str]]:
    """Each user's top ``k`` by score, equal scores by item id from the last (the default tie
    rule), straight from the demo's file."""
    run = pd.read_parquet(MOVIES / f"{model}.parquet")
    ranked = run.sort_values(["user", "score", "item"], ascending=[True, False, False])
    return {user: group["item"].head(k).tolist() for user, group in ranked.groupby("user")}


def expected_at(k: int, p: float) -> tuple[float, float, float]:
    """Jaccard, the share of personalized's top K in top_heavy's, and extrapolated RBO, each
    averaged over the ground-truth users with a list from either model."""
    truth_users = pd.read_csv(MOVIES / "ground_truth.csv", dtype=str)["user"].unique()
    a, b = top_lists("personalized", k), top_lists("top_heavy", k)
    jaccard, share, overlap = [], [], []
    for user in truth_users:
        left, right = a.get(user, []), b.get(user, [])
        if not left and not right:
            continue
        union = set(left) | set(right)
        jaccard.append(len(set(left) & set(right)) / len(union))
        share.append(len(set(left) & set(right)) / len(left) if left else 0.0)
        overlap.append(rbo.RankingSimilarity(left, right).rbo_ext(p=p) if left and right
                       else 0.0)
    return (sum(jaccard) / len(jaccard), sum(share) / len(share),
            sum(overlap) / len(overlap))


def lines(at) -> dict[str, dict]:
    return {t["meta"]["measure"]: t for t in figure(at, "h2h_overlap")["data"]}


@pytest.fixture(scope="module")
def head_to_head():
    return start("movies", "app_pages/head_to_head.py")


def test_the_curves_are_the_means_of_the_users_sets(head_to_head):
    at = head_to_head
    assert (at.session_state["h2h_a"], at.session_state["h2h_b"]) == ("personalized",
                                                                      "top_heavy")
    shown = lines(at)
    jaccard, share, overlap = expected_at(10, 0.9)
    assert shown["jaccard"]["x"][9] == 10
    assert shown["jaccard"]["y"][9] == pytest.approx(jaccard, abs=1e-12)
    assert shown["share_a_in_b"]["y"][9] == pytest.approx(share, abs=1e-12)
    assert shown["rbo"]["y"][9] == pytest.approx(overlap, abs=1e-12)
    jaccard_3, _, _ = expected_at(3, 0.9)
    assert shown["jaccard"]["y"][2] == pytest.approx(jaccard_3, abs=1e-12)
    # every list of the demo has 50 items: one share stands for both, named so
    assert "share_b_in_a" not in shown
    assert shown["share_a_in_b"]["name"] == "Share of one's top K also in the other's"
    sentence = next(plain(m.value) for m in at.markdown if "top 10 is also in" in m.value)
    assert f"{share:.0%} of personalized's top 10 is also in top_heavy's" in sentence


def test_persistence_moves_only_the_rank_biased_overlap(head_to_head):
    at = head_to_head
    before = lines(at)
    at.number_input(key="h2h_persistence").set_value(0.5).run()
    ok(at)
    after = lines(at)
    assert after["rbo"]["name"] == "Rank-biased overlap (RBO, p = 0.5)"
    assert after["rbo"]["y"][9] == pytest.approx(expected_at(10, 0.5)[2], abs=1e-12)
    assert after["rbo"]["y"][9] != pytest.approx(before["rbo"]["y"][9])
    assert after["jaccard"]["y"] == before["jaccard"]["y"]


def test_the_per_user_values_download(downloaded):
    at = start("movies", "app_pages/head_to_head.py")
    saved = pd.read_csv(io.StringIO(downloaded(at, "h2h_overlap_csv")),
                        dtype={"user": str})
    jaccard, _, _ = expected_at(10, 0.9)
    assert saved["Items in common (Jaccard)"].mean() == pytest.approx(jaccard, rel=1e-9)
    assert saved["user"].is_unique and len(saved) >= 1900


def test_uploaded_lists_without_optional_files_give_the_same_overlap():
    # An upload with no optional files: the page reads only the two models' lists (no other
    # page has read every model's); the values are the same.
    from dashboard.budget import BUDGET
    from tests.apptest import go, upload

    at = start("movies", "app_pages/data.py")
    files = {"ground_truth.csv": (MOVIES / "ground_truth.csv").read_bytes(),
             **{f"{m}.parquet": (MOVIES / f"{m}.parquet").read_bytes()
                for m in ("personalized", "top_heavy", "popularity")}}
    upload(at, 0, "personalized.parquet", "top_heavy.parquet", "popularity.parquet",
           content=files)
    upload(at, 1, "ground_truth.csv", content=files)
    go(at, "app_pages/head_to_head.py")
    ok(at)
    assert (at.session_state["h2h_a"], at.session_state["h2h_b"]) == ("personalized",
                                                                      "top_heavy")
    with BUDGET._lock:
        kept = [key for key in BUDGET._entries if isinstance(key, tuple)]
    assert any(key[0] == "pair lists" and key[-1] == ("personalized", "top_heavy")
               for key in kept)
    shown = lines(at)
    jaccard, share, overlap = expected_at(10, 0.9)
    assert shown["jaccard"]["y"][9] == pytest.approx(jaccard, abs=1e-12)
    assert shown["share_a_in_b"]["y"][9] == pytest.approx(share, abs=1e-12)
    assert shown["rbo"]["y"][9] == pytest.approx(overlap, abs=1e-12)
