"""The ``trec_eval`` preset reproduces trec_eval's own regression outputs line by line.

Every P_k, recall_k, map, map_cut_k, ndcg, ndcg_cut_k, recip_rank, Rprec, bpref and success_k
line of ``out.test`` (default measures), ``out.test.aq`` (``-m all_trec -q``), ``out.test.aql``
(``-m all_trec -q -l2`` on graded judgments -1..4), ``out.test.aqc`` (``-m all_trec -q -c`` on
a run missing topic 302) and ``out.comment.test`` (default measures, 31 graded topics) is
recomputed, per topic and for ``all``, and compared as the 4-decimal string trec_eval prints.
See fixtures/trec_eval/README.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
import pytrec_eval

from rankmetrics import Conventions, RelevanceMapping, evaluate

OUT_FILES = Path(__file__).parent / "fixtures" / "trec_eval"

# Larger than every list (500 results per topic) and every topic's judged items: the uncut
# measures (map, recip_rank, ndcg) are the values at this cutoff.
UNCUT = 1000

# out file -> (qrels, results, trec_eval's -l relevance level)
OUTPUTS = {
    "out.test": ("qrels.test", "results.test", 1),
    "out.test.aq": ("qrels.test", "results.test", 1),
    "out.test.aql": ("qrels.rel_level", "results.test", 2),
    # -c: the mean is over every topic of the qrels, the missing topic 302 scoring 0
    "out.test.aqc": ("qrels.test", "results.trunc", 1),
    "out.comment.test": ("qrels.comment.test", "results.comment.test", 1),
}

CUT_MEASURES = {
    "P": "precision",
    "recall": "recall",
    "map_cut": "map",
    "ndcg_cut": "ndcg",
    "success": "hit_rate",
}
UNCUT_MEASURES = {"map": "map", "recip_rank": "mrr", "ndcg": "ndcg", "Rprec": "r_precision",
                  "bpref": "bpref"}


def _metric_and_cutoff(measure: str) -> tuple[str, int | None] | None:
    """Our metric and cutoff for a trec_eval measure name, None for measures not compared."""
    cut = re.fullmatch(r"(P|recall|map_cut|ndcg_cut|success)_(\d+)", measure)
    if cut:
        return CUT_MEASURES[cut[1]], int(cut[2])
    if measure in UNCUT_MEASURES:
        return UNCUT_MEASURES[measure], None if measure == "Rprec" else UNCUT
    return None


def _printed(out_name: str) -> dict[str, dict[str, str]]:
    """measure -> topic (or "all") -> the printed value, for the compared measures."""
    printed: dict[str, dict[str, str]] = {}
    for line in (OUT_FILES / out_name).read_text().splitlines():
        measure, topic, value = line.split()
        if _metric_and_cutoff(measure):
            printed.setdefault(measure, {})[topic] = value
    return printed


PRINTED = {out_name: _printed(out_name) for out_name in OUTPUTS}
PRINTED_NUM_Q = {
    out_name: next(line.split()[2] for line in (OUT_FILES / out_name).read_text().splitlines()
                   if line.startswith("num_q"))
    for out_name in OUTPUTS
}
LINES = [
    pytest.param(out_name, measure, id=f"{out_name}:{measure}")
    for out_name, measures in PRINTED.items()
    for measure in measures
]


def _trec_eval(trec_qrels, trec_run, out_name: str, **options: object):
    qrels, results, level = OUTPUTS[out_name]
    return evaluate(
        trec_qrels(qrels),
        {"run": trec_run(results)},
        relevance=RelevanceMapping.identity(level),
        conventions=Conventions.preset("trec_eval", **options),
        max_cutoff=UNCUT,
    )


@pytest.fixture(scope="module")
def evaluations(trec_qrels, trec_run):
    return {out_name: _trec_eval(trec_qrels, trec_run, out_name) for out_name in OUTPUTS}


def _as_printed(evaluation, measure: str, topics) -> dict[str, str]:
    metric, cutoff = _metric_and_cutoff(measure)
    mean = evaluation.curve("run", metric)[0 if cutoff is None else cutoff - 1]
    per_topic = evaluation.per_user_at("run", metric, cutoff)
    return {
        topic: f"{mean if topic == 'all' else per_topic[topic]:.4f}" for topic in topics
    }


def test_every_compared_measure_is_found():
    # 9 cutoffs of P, recall, map_cut and ndcg_cut, 3 of success, map, ndcg, recip_rank,
    # Rprec, bpref
    every_trec = ("out.test.aq", "out.test.aql", "out.test.aqc")
    assert all(len(PRINTED[out_name]) == 4 * 9 + 3 + 5 for out_name in every_trec)
    # default measures: map, Rprec, recip_rank, bpref and P at 9 cutoffs, means only
    for out_name in ("out.test", "out.comment.test"):
        assert len(PRINTED[out_name]) == 4 + 9
        assert all(set(topics) == {"all"} for topics in PRINTED[out_name].values())
    # -q -c prints the topic missing from results.trunc too
    assert all(
        set(topics) == {"301", "302", "303", "all"}
        for out_name in every_trec
        for topics in PRINTED[out_name].values()
    )


@pytest.mark.parametrize(("out_name", "measure"), LINES)
def test_reproduces_trec_eval_line(evaluations, out_name, measure):
    expected = PRINTED[out_name][measure]
    assert _as_printed(evaluations[out_name], measure, expected) == expected


@pytest.mark.parametrize("out_name", list(OUTPUTS))
def test_counts_every_topic(evaluations, out_name):
    counts = evaluations[out_name].user_counts().iloc[0]
    num_q = {"out.comment.test": 31}.get(out_name, 3)  # trec_eval's num_q
    assert counts["users"] == counts["ground_truth_users"] == num_q
    assert PRINTED_NUM_Q[out_name] == str(num_q)


# ----- full precision and a run missing a topic, checked with pytrec_eval ------------------

PYTREC_MEASURES = {
    "P.5,10,30,1000", "recall.5,10,30,1000", "map_cut.5,10,30,1000", "ndcg_cut.5,10,30,1000",
    "success.1,5,10", "map", "recip_rank", "ndcg", "Rprec",
}


def _pytrec_eval(qrels: pd.DataFrame, run: pd.DataFrame, level: int) -> pd.DataFrame:
    """pytrec_eval's values: topics x trec_eval measure names."""
    evaluator = pytrec_eval.RelevanceEvaluator(
        {user: dict(zip(g["item"], g["rating"], strict=True)) for user, g in qrels.groupby("user")},
        PYTREC_MEASURES,
        relevance_level=level,
    )
    values = evaluator.evaluate(
        {user: dict(zip(g["item"], g["score"], strict=True)) for user, g in run.groupby("user")}
    )
    return pd.DataFrame(values).T.rename_axis("user")


def _ours(evaluation, topics, measures) -> pd.DataFrame:
    columns = {}
    for measure in measures:
        metric, cutoff = _metric_and_cutoff(measure)
        columns[measure] = evaluation.per_user_at("run", metric, cutoff)[topics]
    return pd.DataFrame(columns)


@pytest.mark.parametrize("out_name", ["out.test.aq", "out.test.aql"])
def test_full_precision_matches_pytrec_eval(evaluations, trec_qrels, trec_run, out_name):
    qrels, results, level = OUTPUTS[out_name]
    reference = _pytrec_eval(trec_qrels(qrels), trec_run(results), level)
    ours = _ours(evaluations[out_name], reference.index, reference.columns)
    pd.testing.assert_frame_equal(ours, reference, check_exact=False, rtol=0, atol=1e-12)


def test_tie_rule_changes_full_precision_values(trec_qrels, trec_run):
    # results.test has tied scores; one tie on topic 301 (score 2.243509) pairs a relevant and
    # a non-relevant document. trec_eval puts the larger docno first; the other order changes
    # topic 301's values (below the 4 printed decimals, hence this full-precision check).
    reference = _pytrec_eval(trec_qrels("qrels.test"), trec_run("results.test"), 1)
    ascending = _trec_eval(trec_qrels, trec_run, "out.test.aq", ties="item_asc")
    ours = _ours(ascending, reference.index, reference.columns)
    assert abs(ours.loc["301", "map"] - reference.loc["301", "map"]) > 1e-9


@pytest.fixture(scope="module")
def truncated(trec_qrels, trec_run):
    qrels, run = trec_qrels("qrels.test"), trec_run("results.trunc")
    return qrels, run, _pytrec_eval(qrels, run, 1)


def test_truncated_run_per_topic_matches_pytrec_eval(truncated):
    qrels, run, reference = truncated
    # pytrec_eval (like trec_eval without -c) only reports the topics the run contains
    assert sorted(reference.index) == ["301", "303"]
    evaluation = evaluate(
        qrels, {"run": run}, conventions=Conventions.preset("trec_eval"), max_cutoff=UNCUT
    )
    ours = _ours(evaluation, reference.index, reference.columns)
    pd.testing.assert_frame_equal(ours, reference, check_exact=False, rtol=0, atol=1e-12)
    missing = _ours(evaluation, ["302"], reference.columns)
    assert (missing == 0.0).all(axis=None)  # missing_users="zero": an empty list scores 0


@pytest.mark.parametrize(
    ("missing_users", "users"),
    [
        ("zero", 3),  # trec_eval -c: the missing topic is averaged in as 0
        ("skip", 2),  # trec_eval without -c: the mean is over the topics in the run
    ],
)
def test_truncated_run_means_follow_missing_users(truncated, missing_users, users):
    qrels, run, reference = truncated
    evaluation = evaluate(
        qrels,
        {"run": run},
        conventions=Conventions.preset("trec_eval", missing_users=missing_users),
        max_cutoff=UNCUT,
    )
    counts = evaluation.user_counts().iloc[0]
    assert (counts["users"], counts["missing_from_model"]) == (users, 1)
    for measure in reference.columns:
        metric, cutoff = _metric_and_cutoff(measure)
        mean = evaluation.curve("run", metric)[0 if cutoff is None else cutoff - 1]
        assert mean == pytest.approx(reference[measure].sum() / users, rel=0, abs=1e-12), measure
