"""A LaTeX table of the models at chosen metrics and cutoffs, with significance superscripts.

Papers in information retrieval report a table of means with, after each number, the letters
of the models it is significantly better than (each model gets a letter in the first
column), and the best mean of each column in bold. The tests are the paired tests of
:func:`rankmetrics.stats.compare_models` on the users every model counts, corrected for the
number of pairs in each column; the means are over those same users, so the numbers and the
letters are about one set of users.
"""

from __future__ import annotations

from collections.abc import Sequence

from rankmetrics.checks import check_choice
from rankmetrics.metrics import METRICS, check_metrics
from rankmetrics.results import EvaluationResults
from rankmetrics.stats import CORRECTION_NAMES, CORRECTIONS, TEST_NAMES, TESTS, compare_models

LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                 "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                 "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}"}


def latex_escape(text: object) -> str:
    r"""Text as LaTeX prints it (special characters escaped, control characters dropped).

    >>> latex_escape("ALS_v2 & 100% {best}")
    'ALS\\_v2 \\& 100\\% \\{best\\}'
    """
    return "".join(LATEX_SPECIAL.get(char, char) for char in str(text)
                   if char.isprintable() or char == " ")


def letter(position: int) -> str:
    """The letter of the model in row ``position`` (a, b, ..., z, aa, ab, ...)."""
    word = ""
    position += 1
    while position:
        position, rest = divmod(position - 1, 26)
        word = chr(ord("a") + rest) + word
    return word


def latex_table(
    evaluation: EvaluationResults,
    metrics: Sequence[str] = ("ndcg", "map", "recall"),
    cutoffs: Sequence[int] = (10,),
    *,
    test: str = "randomization",
    correction: str = "holm",
    confidence: float = 0.95,
    n_permutations: int = 10_000,
    decimals: int = 4,
    caption: str | None = None,
    seed: int | None = 0,
) -> str:
    r"""A ``table`` environment (booktabs rules): one row per model, one column per metric
    and cutoff, superscripts naming the models each mean is significantly better than.

    Parameters
    ----------
    evaluation : Evaluation or SavedEvaluation
    metrics : sequence of str
        Metric names of :data:`rankmetrics.METRICS` (a metric without a cutoff, such as
        ``r_precision``, gets one column).
    cutoffs : sequence of int
        The cutoffs K, each at most the evaluation's ``max_cutoff``.
    test, correction, confidence, n_permutations, seed
        As for :func:`rankmetrics.stats.compare_models`; ``1 - confidence`` is the
        significance level.
    decimals : int
        Digits after the point.
    caption : str, optional
        The caption (LaTeX, not escaped); by default one that says what the letters mean.

    Returns
    -------
    str
        LaTeX needing ``\usepackage{booktabs}``.
    """
    metrics = check_metrics(list(metrics))
    check_choice("test", test, TESTS)
    check_choice("correction", correction, CORRECTIONS)
    if not cutoffs:
        raise ValueError("The 'cutoffs' argument is empty; give at least one cutoff K.")
    if len(evaluation.models) < 2:
        raise ValueError("A table with significance markers needs at least two models; got "
                         f"{len(evaluation.models)}.")
    columns = [(metric, cutoff if METRICS[metric].has_cutoff else None)
               for metric in metrics for cutoff in cutoffs]
    columns = list(dict.fromkeys(columns))
    models = list(evaluation.models)
    cells: dict[str, list[str]] = {model: [] for model in models}
    for metric, cutoff in columns:
        comparison = compare_models(evaluation.paired(metric, cutoff), test=test,
                                    correction=correction, confidence=confidence,
                                    n_permutations=n_permutations, n_bootstrap=200, seed=seed)
        means = comparison.models.set_index("model")["mean"]
        best = means.max()
        for model in models:
            beaten = [letter(position) for position, other in enumerate(models)
                      if other != model and _beats(comparison, model, other)]
            number = f"{means[model]:.{decimals}f}"
            if means[model] == best:
                number = rf"\textbf{{{number}}}"
            cells[model].append(number + (rf"$^{{{''.join(beaten)}}}$" if beaten else ""))
    return _assemble(models, columns, cells, caption or _caption(test, correction, confidence))


def _beats(comparison, model: str, other: str) -> bool:
    row = comparison.pair(other, model)  # difference = mean of model - mean of other
    return bool(row["significant"]) and float(row["difference"]) > 0


def _caption(test: str, correction: str, confidence: float) -> str:
    return (rf"Means over the users every model counts. Superscripts: the models (by letter) "
            rf"a model is significantly better than ({TEST_NAMES[test]}, "
            rf"{CORRECTION_NAMES[correction]} correction, significance level "
            rf"{1 - confidence:.2g}); bold: the best mean of each column.")


def _assemble(models: list[str], columns: list[tuple[str, int | None]],
              cells: dict[str, list[str]], caption: str) -> str:
    heads = [METRICS[m].label + (f"@{k}" if k is not None else "") for m, k in columns]
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{caption}}}",
        r"\begin{tabular}{ll" + "r" * len(columns) + "}",
        r"\toprule",
        " & Model & " + " & ".join(latex_escape(head) for head in heads) + r" \\",
        r"\midrule",
        *(f"{letter(i)} & {latex_escape(model)} & " + " & ".join(cells[model]) + r" \\"
          for i, model in enumerate(models)),
        r"\bottomrule",
        r"\end{tabular}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"
