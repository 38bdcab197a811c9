"""Several runs of one model: a model trained with several seeds, compared with the runs' own
spread taken into account.

Runs are grouped by name: ``als@seed1``, ``als@seed2`` and ``als@seed3`` are three runs of
``als`` (:func:`run_groups`; the part after the last ``@`` names the run). A model with one
file stays a model of one run. The functions work on what the rest of the library gives:

- :func:`run_summary`: a table of means (one row per run, one column per metric) as each
  model's mean across its runs and the runs' standard deviation;
- :func:`run_curves`: curves over K (one per run) as each model's mean curve and the band
  from its lowest to its highest run at each K, for :func:`rankmetrics.figures.metric_curves`;
- :func:`compare_runs`: every pair of models, tested two ways.

The two tests of :func:`compare_runs` answer two questions:

- *over users*: each user's value averaged over a model's runs, then the paired test of the
  Significance page (t-test, Wilcoxon, randomization or Tukey's, with its correction) on
  those per-user means. It says whether the difference is more than the chance of which
  users were sampled, for these trained models;
- *over runs*: Welch's t-test on the runs' means (each run one observation; the runs of the
  two models need not be as many). It says whether the difference is more than the chance of
  which seeds were drawn: another training of the models could reverse a difference that
  passes the first test and fails this one. It needs two runs of each model.

A difference smaller than the runs' own spread (the larger standard deviation of the two
models' run means) is flagged: the seeds move the mean as much as the choice of model does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rankmetrics.checks import check_choice
from rankmetrics.stats.corrections import CORRECTION_NAMES, CORRECTIONS, correct_pvalues
from rankmetrics.stats.paired import FAMILY_TESTS, TEST_NAMES, TESTS, paired_comparison
from rankmetrics.stats.values import EQUALITY_PRECISION
from rankmetrics.stats.words import difference_decimals, p_text

#: What separates a model's name from its run's in a file or model name (``als@seed1``).
RUN_SEPARATOR = "@"
#: The columns of :attr:`RunComparison.pairs`, after those of :func:`paired_comparison`.
RUN_COLUMNS = ("runs_a", "runs_b", "sd_a", "sd_b", "spread", "within_spread", "runs_t",
               "runs_p", "runs_p_corrected", "runs_significant")


def run_groups(models: Sequence[str], separator: str = RUN_SEPARATOR) -> dict[str, list[str]]:
    """Each model's runs, in the order given: names ``name@run`` sharing ``name`` are runs of
    one model when there are at least two of them; any other name is a model of one run.

    >>> run_groups(["als@1", "bpr", "als@2", "pop@only"])
    {'als': ['als@1', 'als@2'], 'bpr': ['bpr'], 'pop@only': ['pop@only']}
    """
    bases: dict[str, list[str]] = {}
    for name in models:
        base, found, run = name.rpartition(separator)
        bases.setdefault(base if found and base and run else name, []).append(name)
    groups: dict[str, list[str]] = {}
    for name in models:
        base, found, run = name.rpartition(separator)
        key = base if found and base and run else name
        if len(bases[key]) >= 2:
            groups.setdefault(key, bases[key])
        else:
            groups[name] = [name]
    return groups


def has_runs(groups: Mapping[str, Sequence[str]]) -> bool:
    """Whether some model of ``groups`` has several runs."""
    return any(len(runs) >= 2 for runs in groups.values())


def run_name(model: str, run: str, separator: str = RUN_SEPARATOR) -> str:
    """The run's own part of its name (``als@seed1`` -> ``seed1``; a model's only run: its
    name)."""
    head = model + separator
    return run[len(head):] if run.startswith(head) else run


def run_summary(table: pd.DataFrame, groups: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """Each model's mean across its runs and the runs' standard deviation (ddof = 1; empty
    for a model of one run), from a table with one row per run and numeric columns.

    The result has one row per model of ``groups`` (index named ``Model``), a column ``Runs``
    and, for each column ``c`` of ``table``, ``c`` (the mean of the runs' values) and
    ``c + " SD"``.
    """
    missing = [run for runs in groups.values() for run in runs if run not in table.index]
    if missing:
        raise ValueError(f"The table has no row for {', '.join(map(repr, missing))}.")
    rows = {}
    for model, runs in groups.items():
        values = table.loc[list(runs)].astype(float)
        row: dict[str, float] = {"Runs": len(runs)}
        for column in table.columns:
            row[column] = float(values[column].mean())
            row[f"{column} SD"] = (float(values[column].std(ddof=1)) if len(runs) >= 2
                                   else float("nan"))
        rows[model] = row
    summary = pd.DataFrame.from_dict(rows, orient="index")
    summary["Runs"] = summary["Runs"].astype(int)
    summary.index.name = "Model"
    return summary


def run_curves(curves: Mapping[str, Mapping[str, Sequence[float]]],
               groups: Mapping[str, Sequence[str]],
               ) -> tuple[dict[str, dict[str, list[float]]], pd.DataFrame]:
    """Each model's mean curve over its runs (model -> metric -> value at K = 1..), and the
    runs' range: a long table ``model, metric, cutoff, ci_low, ci_high`` with the lowest and
    the highest run at each K, for the models of several runs (the ``bands`` of
    :func:`rankmetrics.figures.metric_curves`)."""
    means: dict[str, dict[str, list[float]]] = {}
    bands = []
    for model, runs in groups.items():
        metrics = list(curves[runs[0]])
        means[model] = {}
        for metric in metrics:
            stacked = np.array([list(curves[run][metric]) for run in runs], dtype=float)
            means[model][metric] = stacked.mean(axis=0).tolist()
            if len(runs) >= 2:
                bands.append(pd.DataFrame({
                    "model": model, "metric": metric,
                    "cutoff": np.arange(1, stacked.shape[1] + 1),
                    "ci_low": stacked.min(axis=0), "ci_high": stacked.max(axis=0)}))
    columns = ["model", "metric", "cutoff", "ci_low", "ci_high"]
    band_table = (pd.concat(bands, ignore_index=True) if bands
                  else pd.DataFrame(columns=columns))
    return means, band_table


@dataclass(frozen=True)
class RunComparison:
    """:func:`compare_runs`' answer.

    ``models``: one row per model (index ``model``): ``runs``, ``mean`` (of its runs'
    means), ``sd`` (the runs' standard deviation, ddof = 1), ``lowest`` and ``highest`` run
    mean. ``pairs``: the columns of :func:`paired_comparison` (on the per-user means across
    runs), then ``runs_a``, ``runs_b``, ``sd_a``, ``sd_b``; ``spread`` (the larger of the
    two SDs); ``within_spread`` (the difference is no larger than the spread); ``runs_t``,
    ``runs_p`` (Welch's t-test on the runs' means, NaN without two runs of each model or any
    spread), ``runs_p_corrected`` (the correction over the pairs tested) and
    ``runs_significant``.
    """

    groups: dict[str, list[str]]
    models: pd.DataFrame
    pairs: pd.DataFrame
    test: str
    correction: str
    confidence: float


def compare_runs(
    values: pd.DataFrame,
    groups: Mapping[str, Sequence[str]],
    *,
    test: str = "t",
    correction: str = "holm",
    confidence: float = 0.95,
    n_permutations: int = 10_000,
    n_bootstrap: int = 1_000,
    seed: int | None = 0,
) -> RunComparison:
    """Every pair of models of ``groups``, tested over users and over runs (see the module).

    ``values``: per-user values paired by user (index users, one column per run, as
    :meth:`rankmetrics.evaluation.Evaluation.paired` gives them). Each model's per-user value
    is the mean over its runs; the pairs' table is :func:`paired_comparison` of those, with
    the run-level columns added.
    """
    from scipy import stats as _sps  # loaded when needed: 0.3 s
    test = check_choice("test", test, TESTS)
    correction = check_choice("correction", correction, CORRECTIONS)
    if len(groups) < 2:
        raise ValueError("Comparing runs needs at least two models.")
    missing = [run for runs in groups.values() for run in runs if run not in values.columns]
    if missing:
        raise ValueError(f"No per-user values for {', '.join(map(repr, missing))}.")
    per_model = pd.DataFrame({model: values[list(runs)].mean(axis=1)
                              for model, runs in groups.items()}, index=values.index)
    pairs = paired_comparison(per_model, test=test, correction=correction,
                              n_permutations=n_permutations, n_bootstrap=n_bootstrap,
                              confidence=confidence, seed=seed)
    run_means = {model: values[list(runs)].mean(axis=0).to_numpy(dtype=float)
                 for model, runs in groups.items()}
    sd = {m: float(run_means[m].std(ddof=1)) if len(groups[m]) >= 2 else float("nan")
          for m in groups}
    models = pd.DataFrame({
        "runs": [len(groups[m]) for m in groups],
        "mean": [float(run_means[m].mean()) for m in groups],
        "sd": [sd[m] for m in groups],
        "lowest": [float(run_means[m].min()) for m in groups],
        "highest": [float(run_means[m].max()) for m in groups],
    }, index=pd.Index(list(groups), name="model"))
    largest = float(np.abs(models["mean"]).max()) if len(models) else 0.0
    tolerance = EQUALITY_PRECISION * max(largest, np.finfo(float).tiny)
    extra: dict[str, list] = {column: [] for column in RUN_COLUMNS}
    for a, b in zip(pairs["model_a"], pairs["model_b"], strict=True):
        sd_a, sd_b = sd[a], sd[b]
        spreads = [s for s in (sd_a, sd_b) if not np.isnan(s)]
        spread = max(spreads) if spreads else float("nan")
        difference = abs(float(run_means[b].mean() - run_means[a].mean()))
        t, p = float("nan"), float("nan")
        if len(groups[a]) >= 2 and len(groups[b]) >= 2 and (sd_a > 0 or sd_b > 0):
            result = _sps.ttest_ind(run_means[b], run_means[a], equal_var=False)
            t, p = float(result.statistic), float(result.pvalue)
        extra["runs_a"].append(len(groups[a]))
        extra["runs_b"].append(len(groups[b]))
        extra["sd_a"].append(sd_a)
        extra["sd_b"].append(sd_b)
        extra["spread"].append(spread)
        extra["within_spread"].append(bool(spreads) and difference <= spread + tolerance)
        extra["runs_t"].append(t)
        extra["runs_p"].append(p)
    p_values = np.array(extra["runs_p"], dtype=float)
    tested = ~np.isnan(p_values)
    corrected = np.full(len(p_values), np.nan)
    if tested.any():
        corrected[tested] = correct_pvalues(p_values[tested], correction)
    extra["runs_p_corrected"] = corrected.tolist()
    extra["runs_significant"] = [bool(tested[i] and corrected[i] < 1 - confidence)
                                 for i in range(len(p_values))]
    for column in RUN_COLUMNS:
        pairs[column] = extra[column]
    return RunComparison({model: list(runs) for model, runs in groups.items()}, models, pairs,
                         test, correction, confidence)


def runs_method_text(comparison: RunComparison) -> str:
    """How :func:`compare_runs` tested, in one paragraph."""
    test = TEST_NAMES[comparison.test]
    corrected = ("" if comparison.test in FAMILY_TESTS
                 else f", {CORRECTION_NAMES[comparison.correction]}-corrected over the pairs")
    return (f"Each user's value is averaged over a model's runs, then the models are compared "
            f"with the {test}{corrected} (how sure we are with these users). Welch's t-test "
            "on the runs' means asks whether the difference is larger than the seeds' own "
            "spread (how sure we are that another training would agree); it needs two runs "
            f"of each model, {CORRECTION_NAMES[comparison.correction]}-corrected.")


def describe_runs_pair(row: Mapping[str, Any] | pd.Series, metric_label: str) -> str:
    """Plain sentences on one row of :attr:`RunComparison.pairs`: the difference across
    runs, what each test says, and a warning when the runs' spread is as large as the
    difference."""
    a_first = float(row["mean_b"]) < float(row["mean_a"])
    high, low = ("a", "b") if a_first else ("b", "a")
    difference = abs(float(row["mean_b"]) - float(row["mean_a"]))
    spreads = [float(row[key]) for key in ("sd_a", "sd_b") if not np.isnan(float(row[key]))]
    places = difference_decimals(difference, *spreads)
    runs = " and ".join(_runs(int(row[f"runs_{side}"])) for side in (high, low))
    if difference == 0:
        text = (f"{row[f'model_{high}']} and {row[f'model_{low}']} have the same mean "
                f"{metric_label} over their runs ({runs}).")
    else:
        text = (f"Averaged over their runs ({runs}), {row[f'model_{high}']} is ahead of "
                f"{row[f'model_{low}']} by {difference:.{places}f} {metric_label}.")
    users_say = ("more than chance" if bool(row["significant"])
                 else "not clearly more than chance")
    text += f" Over users, the difference is {users_say} ({p_text(float(row['p_corrected']))})."
    runs_p = float(row["runs_p_corrected"])
    if np.isnan(runs_p):
        text += (" Over runs it cannot be tested: that needs two runs of each model with some "
                 "spread between them.")
    elif bool(row["runs_significant"]):
        text += f" Over runs, it is larger than the seeds' own spread ({p_text(runs_p)})."
    else:
        text += (" Over runs, it is not clearly larger than the seeds' own spread "
                 f"({p_text(runs_p)}).")
    if bool(row["within_spread"]):
        text += (" Careful: the runs of one model differ from each other as much as the two "
                 f"models differ (the runs' SD is up to {float(row['spread']):.{places}f}): "
                 "another seed could change the order.")
    return text


def _runs(count: int) -> str:
    return f"{count} run" if count == 1 else f"{count} runs"
