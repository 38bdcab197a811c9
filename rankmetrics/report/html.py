"""One HTML file that carries a comparison to someone who was not there.

The report opens offline in any browser (plotly.js is inside the file, so its charts stay
interactive), and says everything needed to trust and reproduce it: the decision in words
(:mod:`rankmetrics.report.decision`), the curves over K, the table at K, the distributions of
per-user values, the significance matrix, the models in each segment of users, the
beyond-accuracy metrics (when their inputs were given), the relevance mapping and every
convention, each input file's fingerprint (rows, users, SHA-256 of the content), the
rankmetrics version and the command line that computes the same numbers again: with every
file's hand-chosen columns and format, and the optional files (user attributes, training
interactions, item attributes, catalogue) that the numbers depend on.

Every string that comes from a user's file (model names, user and item ids, file names) is
escaped before it enters the HTML, and the figures' JSON cannot close its script element.
"""

from __future__ import annotations

import hashlib
import html
import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

import pandas as pd
from plotly.offline import get_plotlyjs

from rankmetrics.conventions import NUMBER_OPTIONS, OPTION_HELP, Conventions
from rankmetrics.figures import (
    distribution,
    ecdf,
    metric_curves,
    metric_label,
    model_colors,
    pairwise_matrix,
)
from rankmetrics.metrics import MAIN_METRICS, METRICS, check_metrics
from rankmetrics.printed import unbroken_cutoffs
from rankmetrics.relevance import RelevanceMapping
from rankmetrics.report.decision import (
    MetricDecision,
    decision_note,
    decision_summary,
    describe_across,
    describe_across_segments,
    describe_verdict,
    headline,
    label,
    short_verdict,
)
from rankmetrics.results import EvaluationResults, SavedFrom
from rankmetrics.segments import (
    GROUND_TRUTH_SIZE,
    N_BUCKETS,
    RELEVANT_ITEMS,
    Segmentation,
    compare_segments,
    segment_users,
)
from rankmetrics.stats import (
    CORRECTION_NAMES,
    TEST_NAMES,
    ModelComparison,
    compare_models,
    compare_runs,
    describe_effect,
    describe_plan,
    describe_runs_pair,
    has_runs,
    plan_pair,
    run_groups,
    runs_method_text,
)
from rankmetrics.version import __version__

#: Charts in the report: drawn by the plotly.js inside the file, saved from it as PNG.
CHART_CONFIG: dict[str, Any] = {"displaylogo": False, "responsive": True,
                "toImageButtonOptions": {"format": "png", "width": 1200, "height": 700,
                                         "scale": 2}}


#: The optional inputs a report can name, by role, and the command line's option of each.
EXTRA_INPUTS = {"user attributes": "--segments", "training interactions": "--interactions",
                "item attributes": "--item-attributes", "catalogue": "--catalogue"}


@dataclass(frozen=True)
class InputFile:
    """What identifies one input: its role (``ground truth``, a model's name, or one of
    :data:`EXTRA_INPUTS`), file name, rows, distinct users, the SHA-256 of its bytes, and
    how it was read when not as detected: ``columns`` as (role, column) pairs and
    ``format``."""

    role: str
    file_name: str
    rows: int
    users: int
    sha256: str
    columns: tuple[tuple[str, str], ...] = ()
    format: str | None = None


def fingerprint(role: str, file_name: str, content: bytes, rows: int, users: int, *,
                columns: Sequence[tuple[str, str]] = (), format: str | None = None
                ) -> InputFile:
    """The fingerprint of one input from its bytes and the counts its reading gave."""
    return InputFile(role, file_name, int(rows), int(users), hashlib.sha256(content).hexdigest(),
                     tuple((str(r), str(c)) for r, c in columns), format)


def saved_input(file_name: str, sha256: str, saved: EvaluationResults) -> InputFile:
    """The fingerprint of a saved evaluation as a report's input: its file name, the users
    it holds and the SHA-256 of its content (:func:`rankmetrics.bundle.content_sha256`)."""
    users = len(saved.users)
    return InputFile("saved evaluation", file_name, users, users, sha256)


def regenerate_command(inputs: Sequence[InputFile], relevance: RelevanceMapping,
                       evaluation: EvaluationResults, cutoff: int, metric: str, *, test: str,
                       correction: str, confidence: float, extras: Sequence[InputFile] = (),
                       segment_by: str | None = None, buckets: int = N_BUCKETS) -> str:
    """The ``rankmetrics report`` command that computes these numbers from the same files
    (run where the files are; every convention spelled out, so no default can drift).

    >>> from rankmetrics import Conventions
    >>> class Ev:  # what the command needs of an evaluation
    ...     conventions, max_cutoff = Conventions(), 20
    >>> files = [InputFile("ground truth", "truth.csv", 3, 2, "0", (("user", "who"),)),
    ...          InputFile("my model", "run 1.csv", 3, 2, "0", format="tsv")]
    >>> print(regenerate_command(files, RelevanceMapping.binary(4), Ev(), 10, "ndcg",
    ...       test="t", correction="holm", confidence=0.95))  # doctest: +NORMALIZE_WHITESPACE
    rankmetrics report --truth truth.csv --columns truth:user=who
    --run 'my model=run 1.csv' --file-format 'run:my model:tsv' --binary 4
    --gain exponential --ideal ground_truth --ap-denominator relevant --threshold-gains no
    --empty-users skip --missing-users zero --ties item_desc --rbp-gain binary
    --identical-ids keep --relevant-items ground_truth --precision-denominator cutoff
    --recall-denominator relevant --discount shifted --cutoff 10 --max-cutoff 20
    --metric ndcg --test t --correction holm --confidence 0.95 --output report.html
    """
    truth, runs = inputs[0], inputs[1:]
    words = ["rankmetrics", "report", "--truth", truth.file_name,
             *_read_options("truth", truth)]
    for run in runs:
        words += ["--run", f"{run.role}={run.file_name}", *_read_options(f"run:{run.role}", run)]
    for extra in extras:
        option = EXTRA_INPUTS[extra.role]
        words += [option, extra.file_name, *_read_options(option.removeprefix("--"), extra)]
    if segment_by is not None:
        words += ["--segment-by", segment_by, "--buckets", str(buckets)]
    words += _relevance_options(relevance)
    defaults = Conventions().as_dict()
    for option, value in evaluation.conventions.as_dict().items():
        if option in NUMBER_OPTIONS and value == defaults[option]:
            continue  # RBP's p and ERR's g_max: named only where they are not the default
        if isinstance(value, bool):
            value = "yes" if value else "no"
        words += [f"--{option.replace('_', '-')}",
                  f"{value:g}" if option in NUMBER_OPTIONS else str(value)]
    words += ["--cutoff", str(cutoff), "--max-cutoff", str(evaluation.max_cutoff),
              "--metric", metric, "--test", test, "--correction", correction,
              "--confidence", f"{confidence:g}", "--output", "report.html"]
    return shlex.join(words)


def saved_command(bundle: InputFile, cutoff: int, metric: str, *, test: str, correction: str,
                  confidence: float, extras: Sequence[InputFile] = (),
                  segment_by: str | None = None, buckets: int = N_BUCKETS) -> str:
    """The ``rankmetrics report --bundle`` command that writes the report of a saved
    evaluation again (its relevance and conventions are the saved ones).

    >>> print(saved_command(InputFile("saved evaluation", "big run.zip", 0, 9, "0"), 10,
    ...       "ndcg", test="t", correction="holm", confidence=0.95))
    ... # doctest: +NORMALIZE_WHITESPACE
    rankmetrics report --bundle 'big run.zip' --cutoff 10 --metric ndcg --test t
    --correction holm --confidence 0.95 --output report.html
    """
    words = ["rankmetrics", "report", "--bundle", bundle.file_name]
    for extra in extras:
        option = EXTRA_INPUTS[extra.role]
        words += [option, extra.file_name, *_read_options(option.removeprefix("--"), extra)]
    if segment_by is not None:
        words += ["--segment-by", segment_by, "--buckets", str(buckets)]
    words += ["--cutoff", str(cutoff), "--metric", metric, "--test", test,
              "--correction", correction, "--confidence", f"{confidence:g}",
              "--output", "report.html"]
    return shlex.join(words)


def _read_options(which: str, read: InputFile) -> list[str]:
    """The command line's options that read one file as it was read (``which``: truth,
    run:NAME, segments, interactions, item-attributes, catalogue)."""
    words = []
    if read.columns:
        words += ["--columns", f"{which}:" + ",".join(f"{role}={column}"
                                                      for role, column in read.columns)]
    if read.format:
        words += ["--file-format", f"{which}:{read.format}"]
    return words


def _relevance_options(relevance: RelevanceMapping) -> list[str]:
    if relevance.kind == "binary":
        return ["--binary", f"{relevance.table[0][0]:g}"]
    if relevance.kind == "identity":
        return ["--threshold", f"{relevance.threshold:g}"]
    table = ",".join(f"{rating:g}={grade:g}" for rating, grade in relevance.table)
    return ["--grades", table, "--threshold", f"{relevance.threshold:g}"]


def build_report(
    evaluation: EvaluationResults,
    inputs: Sequence[InputFile],
    *,
    cutoff: int,
    metric: str = "ndcg",
    metrics: Sequence[str] = MAIN_METRICS,
    test: str = "randomization",
    correction: str = "holm",
    confidence: float = 0.95,
    n_permutations: int = 10_000,
    n_bootstrap: int = 1_000,
    title: str = "Model comparison",
    colors: dict[str, str] | None = None,
    command: str | None = None,
    extras: Sequence[InputFile] = (),
    segments: Segmentation | None = None,
    buckets: int = N_BUCKETS,
) -> str:
    """The report as one HTML document (a string to write to a ``.html`` file).

    Parameters
    ----------
    evaluation : Evaluation or SavedEvaluation
        At least two models, evaluated up to a largest K of at least ``cutoff``; or a saved
        evaluation (its numbers as saved: ``cutoff`` one of its saved cutoffs, the users
        split by their relevant items unless ``segments`` says otherwise).
    inputs : sequence of InputFile
        The ground truth first, then one per model (in the evaluation's order); for a saved
        evaluation, the saved evaluation's own file alone (the files it was computed from
        are listed from what it recorded of them).
    cutoff : int
        The K of the table, the distributions, the significance tests and the decision.
    metric : str
        The metric of the distributions and the significance matrix.
    metrics : sequence of str
        The metrics of the curves, the table and the decision summary.
    test, correction, confidence, n_permutations, n_bootstrap
        As for :func:`rankmetrics.stats.compare_models`.
    title : str
        The report's heading (escaped).
    colors : dict, optional
        Model -> colour, as the dashboard draws them.
    command : str, optional
        The command line that regenerates the report (default: :func:`regenerate_command`).
    extras : sequence of InputFile
        The optional files the numbers depend on (roles of :data:`EXTRA_INPUTS`), listed
        with the inputs and named in the command.
    segments : Segmentation, optional
        The users' segments of the table per segment and of the sentence on whether the
        decision holds across segments (default: the users by ground-truth size).
    buckets : int
        The quantile buckets ``segments`` cut numbers into (for the command).
    """
    metrics = check_metrics(list(metrics))
    check_metrics([metric])
    if len(evaluation.models) < 2:
        raise ValueError(f"A report compares models: got {len(evaluation.models)}, give at "
                         "least two.")
    if not 1 <= cutoff <= evaluation.max_cutoff:
        raise ValueError(f"The 'cutoff' argument must be from 1 to the evaluation's largest "
                         f"K, {evaluation.max_cutoff}; got {cutoff!r}.")
    if cutoff not in evaluation.per_user_cutoffs:
        raise ValueError(f"A saved evaluation holds every user's values at K = "
                         f"{', '.join(map(str, evaluation.per_user_cutoffs))}; the 'cutoff' "
                         f"argument must be one of them, got {cutoff!r}.")
    origin = evaluation.saved_from
    saved = origin is not None
    wanted = 1 if saved else len(evaluation.models) + 1
    if len(inputs) != wanted:
        raise ValueError(
            "The 'inputs' argument needs " + ("the saved evaluation's file alone"
                                              if saved else "the ground truth and one file per "
                                              "model") + f": {wanted} fingerprint"
            f"{'s' if wanted > 1 else ''}, got {len(inputs)}.")
    colors = colors or model_colors(evaluation.models)
    summary = decision_summary(evaluation, metrics, cutoff, test=test, correction=correction,
                               confidence=confidence, n_permutations=n_permutations,
                               n_bootstrap=n_bootstrap)
    metric_cutoff = cutoff if METRICS[metric].has_cutoff else None
    comparison = compare_models(evaluation.paired(metric, metric_cutoff),
                                n_permutations=n_permutations, n_bootstrap=n_bootstrap,
                                test=test, correction=correction, confidence=confidence)
    order = comparison.models["model"].tolist()
    automatic = (GROUND_TRUTH_SIZE if evaluation.ground_truth_sizes() is not None
                 else RELEVANT_ITEMS)
    split = segments or segment_users(evaluation, automatic)
    by_segment = compare_segments(evaluation, split, metric, metric_cutoff, test=test,
                                  correction=correction, confidence=confidence,
                                  n_permutations=n_permutations, n_bootstrap=n_bootstrap)
    values = {model: cast(Sequence[float],
                          evaluation.per_user_at(model, metric, metric_cutoff).to_numpy())
              for model in evaluation.models}
    curves = {model: {m: list(v) for m, v in by_metric.items()}
              for model, by_metric in evaluation.means(metrics).items()}
    segment_by = segments.name if segments is not None else None
    command = command or (saved_command(inputs[0], cutoff, metric, test=test,
                                        correction=correction, confidence=confidence,
                                        extras=extras, segment_by=segment_by, buckets=buckets)
                          if saved else regenerate_command(
        inputs, evaluation.relevance, evaluation, cutoff, metric, test=test,
        correction=correction, confidence=confidence, extras=extras,
        segment_by=segment_by, buckets=buckets))
    sections = [
        _section("The decision", _decision(summary, describe_across_segments(by_segment))),
        _section("Every metric over K", _figure(metric_curves(curves, metrics, cutoff, colors),
                                                 "curves")),
        _section(f"Every metric at K = {cutoff}", _table_at(evaluation, metrics, cutoff)),
        _section(f"How {label(metric, metric_cutoff)} is spread over users",
                 _figure(distribution(values, metric, metric_cutoff, colors), "distribution")
                 + _figure(ecdf(values, metric, metric_cutoff, colors), "ecdf")),
        _section(f"Significance of every pair at {label(metric, metric_cutoff)}",
                 _figure(pairwise_matrix(comparison.pairs, order, label(metric, metric_cutoff))
                         .update_layout(margin={"l": 180}), "significance")
                 + _paragraph(f"{TEST_NAMES[test].capitalize()}, {CORRECTION_NAMES[correction]}"
                              f" correction, significance level {1 - confidence:.2g}, on the "
                              f"{len(evaluation.paired(metric, metric_cutoff)):,} users every "
                              "model counts. Each cell: the row's model minus the column's.")
                 + _how_sure(comparison, evaluation.paired(metric, metric_cutoff),
                             label(metric, metric_cutoff))),
        *([_section("Several runs of one model",
                    _runs(evaluation.paired(metric, metric_cutoff), label(metric, metric_cutoff),
                          test, correction, confidence, n_permutations, n_bootstrap))]
          if has_runs(run_groups(evaluation.models)) else []),
        _section(f"{label(metric, metric_cutoff)} by segment: {split.name}",
                 _segment_table(by_segment)),
        *([_section(f"Beyond accuracy at K = {cutoff}", _beyond_table(evaluation, cutoff))]
          if evaluation.beyond is not None else []),
        _section("Relevance and conventions", _settings(evaluation)),
        _section("Inputs", _inputs([*inputs, *extras])
                 + (_saved_inputs(origin) if origin is not None else "")),
        _section("Reproduce", _reproduce(command, saved)),
    ]
    return _page(title, "\n".join(sections))


# ----- pieces of the page --------------------------------------------------------------------


def _how_sure(comparison: ModelComparison, values: pd.DataFrame, metric_label: str) -> str:
    """Each model's rank interval, and how big the top two models' difference is and how
    many users it would take to see a 1% lift (the paired t-test's power)."""
    order = [str(model) for model in comparison.models["model"]]
    ranked = "; ".join(f"{model} {comparison.rank_text(model)}" for model in order)
    text = _paragraph(f"Ranks when the users are resampled ({comparison.confidence:.0%} "
                      f"intervals): {ranked}.")
    best, runner_up = order[0], order[1]
    text += _paragraph(describe_effect(comparison.pair(runner_up, best)))
    pairs = len(order) * (len(order) - 1) // 2
    plan = plan_pair(values[runner_up].to_numpy(), values[best].to_numpy(),
                     confidence=comparison.confidence, pairs=pairs)
    return text + _paragraph(" ".join(describe_plan(plan, metric_label, runner_up, best,
                                                    0.01)))



def _runs(values: pd.DataFrame, metric_label: str, test: str, correction: str,
          confidence: float, n_permutations: int, n_bootstrap: int) -> str:
    """Each model's mean and SD across its runs, and every pair tested over users and over
    runs (:func:`rankmetrics.stats.compare_runs`)."""
    result = compare_runs(values, run_groups(list(values.columns)), test=test,
                          correction=correction, confidence=confidence,
                          n_permutations=n_permutations, n_bootstrap=n_bootstrap)
    body = ""
    for model, row in result.models.iterrows():
        spread = "one run" if pd.isna(row["sd"]) else f"{row['sd']:.4f}"
        body += (f"<tr><th>{_safe(model)}</th><td>{int(row['runs'])}</td>"
                 f"<td>{row['mean']:.4f}</td><td>{spread}</td><td>{row['lowest']:.4f}</td>"
                 f"<td>{row['highest']:.4f}</td></tr>")
    table = (f"<table><thead><tr><th>Model</th><th>Runs</th><th>Mean {_safe(metric_label)}"
             "</th><th>SD across runs</th><th>Lowest run</th><th>Highest run</th></tr>"
             f"</thead><tbody>{body}</tbody></table>")
    pairs = "".join(_paragraph(describe_runs_pair(row, metric_label))
                    for _, row in result.pairs.iterrows())
    return table + pairs + _paragraph(runs_method_text(result))


def _safe(text: object) -> str:
    """``text`` escaped for HTML (its quotes too)."""
    return html.escape(str(text), quote=True)


def _section(heading: str, body: str) -> str:
    return f"<section><h2>{_safe(heading)}</h2>\n{body}\n</section>"


def _paragraph(text: str) -> str:
    return f"<p>{_safe(text)}</p>"


def _decision(decisions: Sequence[MetricDecision], across_segments: str) -> str:
    """The headline first, one short line per metric, the test said once, whether the
    leader holds across segments, and the details (p-values, users) folded away."""
    def text(words: str) -> str:
        return _safe(unbroken_cutoffs(words))

    lines = "".join(f"<li><strong>{_safe(decision.label)}</strong>: "
                    f"{text(short_verdict(decision))}</li>" for decision in decisions)
    details = "".join(f"<li><p>{text(describe_verdict(decision.verdict))}</p>"
                      + (f"<p class='k'>{text(across)}</p>"
                         if (across := describe_across(decision)) else "") + "</li>"
                      for decision in decisions)
    return (f"<p class='headline'><strong>{text(headline(decisions))}</strong></p>"
            f"<ul class='decision'>{lines}</ul>"
            f"<p class='note'>{text(decision_note(decisions))}</p>"
            + _paragraph(across_segments)
            + "<details><summary>Details: each metric's p-value, users and leader at each K"
            f"</summary><ul class='details'>{details}</ul></details>")


def _figure(figure, name: str) -> str:
    """A figure as a div and the script that draws it with the page's plotly.js."""
    spec = json.loads(figure.to_json())
    payload = json.dumps({"data": spec["data"], "layout": spec["layout"],
                          "config": {**CHART_CONFIG, "toImageButtonOptions": {
                              **CHART_CONFIG["toImageButtonOptions"], "filename": name}}})
    payload = payload.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return (f"<div class='chart' id='chart-{name}'></div>\n<script>(function () {{"
            f"const f = {payload}; Plotly.newPlot('chart-{name}', f.data, f.layout, f.config);"
            "})();</script>")


def _table_at(evaluation: EvaluationResults, metrics: Sequence[str], cutoff: int) -> str:
    means = evaluation.means(metrics)
    counts = evaluation.user_counts()
    users = {str(model): int(n) for model, n in zip(counts["model"], counts["users"],
                                                     strict=True)}
    columns = [(m, cutoff if METRICS[m].has_cutoff else None) for m in metrics]
    rows = pd.DataFrame({label(m, k): [float(means[model][m][(k or 1) - 1])
                                       for model in evaluation.models] for m, k in columns},
                        index=evaluation.models)
    best = rows.max().to_dict()
    head = "".join(f"<th>{_safe(name)}</th>" for name in rows.columns)
    body = "".join(
        f"<tr><th>{_safe(model)}</th>" + "".join(
            f"<td class='{'best' if value == best[name] else ''}'>{value:.4f}</td>"
            for name, value in row.items()) + f"<td>{users[str(model)]:,}</td></tr>"
        for model, row in rows.iterrows())
    return (f"<table><thead><tr><th>Model</th>{head}<th>Users averaged</th></tr></thead>"
            f"<tbody>{body}</tbody></table>"
            + _paragraph("Bold: the best model for each metric. Means over the users each "
                         "model counts (see the conventions)."))


def _segment_table(comparison) -> str:
    """Each segment's users and each model's mean in it (the winner's in bold)."""
    means = comparison.models.pivot(index="segment", columns="model", values="mean")
    segments = comparison.segments.set_index("segment")
    models = [model for model in comparison.overall_means.index if model in means.columns]
    head = "".join(f"<th>{_safe(model)}</th>" for model in models)
    body = "".join(
        f"<tr><th>{_safe(segment)}</th><td>{int(segments.loc[segment, 'users']):,}</td>" + "".join(
            f"<td class='{'best' if model == segments.loc[segment, 'winner'] else ''}'>"
            f"{means.loc[segment, model]:.4f}</td>" for model in models) + "</tr>"
        for segment in segments.index)
    return (f"<table><thead><tr><th>Segment</th><th>Users</th>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>"
            + _paragraph("Each model's mean over the segment's users it counts; bold: the "
                         "segment's highest."))


def _beyond_table(evaluation: EvaluationResults, cutoff: int) -> str:
    """Every beyond-accuracy metric the inputs allow, for each model at K."""
    beyond = evaluation.beyond
    if beyond is None:
        return ""
    head = "".join(f"<th>{_safe(metric_label(metric, cutoff))}</th>" for metric in beyond.metrics)
    body = "".join(
        f"<tr><th>{_safe(model)}</th>" + "".join(
            f"<td>{float(beyond.curve(model, metric)[cutoff - 1]):.4f}</td>"
            for metric in beyond.metrics) + "</tr>"
        for model in evaluation.models)
    return (f"<div class='wide'><table><thead><tr><th>Model</th>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table></div>")


def _settings(evaluation: EvaluationResults) -> str:
    relevance = evaluation.relevance
    rows = [("Relevance", relevance.describe())]
    if relevance.table:
        rows.append(("Grade table (rating at least → grade)",
                     ", ".join(f"{r:g} → {g:g}" for r, g in relevance.table)))
    conventions = evaluation.conventions
    rows.append(("Conventions", conventions.describe()))
    rows += [(f"{option.replace('_', ' ')} = {value}", OPTION_HELP.get(option, ""))
             for option, value in conventions.as_dict().items()]
    rows.append(("Largest K evaluated", str(evaluation.max_cutoff)))
    counts = evaluation.user_counts()
    rows += [(f"Users of {row['model']}",
              f"{int(row['users']):,} averaged of {int(row['ground_truth_users']):,} in the "
              f"ground truth; {int(row['no_relevant_items']):,} without a relevant item "
              f"({row['no_relevant_items_policy']})")
             for _, row in counts.iterrows()]
    return _definition_table(rows)


def _inputs(inputs: Sequence[InputFile]) -> str:
    body = "".join(f"<tr><td>{_safe(f.role)}</td><td>{_safe(f.file_name)}</td><td>{f.rows:,}</td>"
                   f"<td>{f.users:,}</td><td><code>{_safe(f.sha256)}</code></td></tr>"
                   for f in inputs)
    return ("<table><thead><tr><th>Role</th><th>File</th><th>Rows</th><th>Users</th>"
            f"<th>SHA-256 of the file</th></tr></thead><tbody>{body}</tbody></table>")


#: How a saved evaluation names its inputs, in words.
SAVED_ROLES = {"ground_truth": "ground truth", "interactions": "training interactions",
               "item_attributes": "item attributes"}


def _saved_inputs(origin: SavedFrom) -> str:
    """The files a saved evaluation was computed from, as it recorded them."""
    body = "".join(
        f"<tr><td>{_safe(SAVED_ROLES.get(role, role))}</td><td>{f.rows:,}</td>"
        f"<td>{'–' if f.users is None else f'{f.users:,}'}</td>"
        f"<td>{_safe(f.hash_kind or '–')}</td><td><code>{_safe(f.content_hash or '–')}</code></td>"
        "</tr>" for role, f in origin.inputs)
    engine = "Spark" if origin.engine == "spark" else "one machine"
    return (_paragraph(f"The saved evaluation was computed by rankmetrics {origin.version} on "
                       f"{engine} from these inputs:")
            + "<table><thead><tr><th>Input</th><th>Rows</th><th>Users</th><th>Hash</th>"
            f"<th>Value</th></tr></thead><tbody>{body}</tbody></table>")


def _reproduce(command: str, saved: bool) -> str:
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (_paragraph(f"Made with rankmetrics {__version__} on {stamp}. This command, run "
                       + ("where the saved evaluation is, writes this report again from its "
                          "numbers" if saved else
                          "where the input files are, computes the same numbers again")
                       + " (rankmetrics is the command the package installs; in a checkout "
                       "of rankmetrics after its README's quick start, run source "
                       ".venv/bin/activate there first):")
            + f"<pre><code>{_safe(command)}</code></pre>")


def _definition_table(rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><th>{_safe(name)}</th><td>{_safe(text)}</td></tr>" for name, text in rows)
    return f"<table class='settings'><tbody>{body}</tbody></table>"


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1200px;
       color: #222; line-height: 1.45; padding: 0 1rem; }
h1 { font-size: 1.8rem; } h2 { border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid #ddd; padding: .3rem .6rem; text-align: left; }
td { font-variant-numeric: tabular-nums; } td.best { font-weight: bold; background: #d6f5d6; }
.settings th { width: 30%; font-weight: normal; color: #444; }
.headline { font-size: 1.15rem; } .decision li { margin-bottom: .3rem; }
.note { color: #555; font-size: .9rem; }
details { margin: .5rem 0; } summary { cursor: pointer; color: #333; }
.details li { margin-bottom: .6rem; } .details p { margin: 0; } .k { color: #555; }
pre { background: #f5f5f5; padding: .8rem; white-space: pre-wrap; word-break: break-all; }
.chart { width: 100%; min-height: 460px; }
.wide { overflow-x: auto; }
"""


def _page(title: str, body: str) -> str:
    plotly_js = get_plotlyjs()
    return (
        "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
        f"<title>{_safe(title)}</title>\n<style>{STYLE}</style>\n"
        f"<script>{plotly_js}</script>\n</head>\n<body>\n<h1>{_safe(title)}</h1>\n"
        f"{body}\n</body>\n</html>\n"
    )
