"""How much of each model's top K has a judgment, and the sentence that says so when little
does.

Every metric counts an item without a judgment (no row in the user's ground truth) as not
relevant. Where most of the top K is unjudged, a value says as much about what was judged as
about the model, so the command line and the dashboard say it next to the values.
"""

from __future__ import annotations

import pandas as pd

from rankmetrics.results import EvaluationResults

#: Below this share of the top K judged (mean over users), the values come with a note.
LOW_JUDGED = 0.5


def judged_shares(results: EvaluationResults, cutoff: int) -> pd.Series | None:
    """Each model's mean Judged@``cutoff``, in the order of the models; None when ``results``
    cannot give it (a saved evaluation without it)."""
    try:  # at the one cutoff: a cutoff of 10^8 costs no more than one of 10
        table = results.summary(["judged"], [min(int(cutoff), results.max_cutoff)])
    except ValueError:
        return None
    values = table.set_index("model")["value"]
    return pd.Series({model: float(values[model]) for model in results.models}, name="judged")


def judged_note(results: EvaluationResults, cutoff: int, *,
                threshold: float = LOW_JUDGED) -> str | None:
    """A sentence when some model has less than ``threshold`` of its top K judged, else None.

    >>> import pandas as pd
    >>> from rankmetrics import evaluate
    >>> truth = pd.DataFrame({"user": ["u", "u"], "item": ["a", "b"], "rating": [1, 0]})
    >>> run = pd.DataFrame({"user": "u", "item": list("axyz"), "score": [4, 3, 2, 1]})
    >>> judged_note(evaluate(truth, {"als": run}, max_cutoff=4), 4)
    "Only 25% of als's top 4 is judged: unjudged items count as not relevant, so the values \
may be too low."
    """
    shares = judged_shares(results, cutoff)
    if shares is None:
        return None
    low = shares[shares < threshold].sort_values()
    if low.empty:
        return None
    tail = "unjudged items count as not relevant, so the values may be too low."
    if len(low) == 1:
        return f"Only {_percent(low.iloc[0])} of {low.index[0]}'s top {cutoff} is judged: {tail}"
    if len(low) == len(shares):
        spread = (_percent(low.iloc[0]) if _percent(low.iloc[0]) == _percent(low.iloc[-1])
                  else f"{_percent(low.iloc[0])} ({low.index[0]}) to "
                       f"{_percent(low.iloc[-1])} ({low.index[-1]})")
        return f"Only {spread} of each model's top {cutoff} is judged: {tail}"
    listed = ", ".join(f"{model} {_percent(share)}" for model, share in low.items())
    return f"Little of some models' top {cutoff} is judged ({listed}): {tail}"


def _percent(share: float) -> str:
    """A share as a whole percentage, never "0%" for a share above 0."""
    text = f"{share:.0%}"
    return "under 1%" if text == "0%" and share > 0 else text


def rbp_interval_note(results: EvaluationResults, cutoff: int) -> str:
    """RBP@K of each model as the interval [RBP, RBP + residual]: where it would be were every
    unjudged item (and every rank after K) relevant.

    >>> import pandas as pd
    >>> from rankmetrics import evaluate
    >>> truth = pd.DataFrame({"user": ["u", "u"], "item": ["a", "b"], "rating": [1, 0]})
    >>> run = pd.DataFrame({"user": "u", "item": list("axb"), "score": [3, 2, 1]})
    >>> rbp_interval_note(evaluate(truth, {"als": run}, max_cutoff=3), 3)
    'RBP@3 (p = 0.8) with what unjudged items could add: als 0.2000 to 0.8720.'
    """
    cutoff = min(int(cutoff), results.max_cutoff)
    table = results.summary(["rbp", "rbp_residual"], [cutoff])
    values = {(str(model), str(metric)): float(value) for model, metric, value
              in zip(table["model"], table["metric"], table["value"], strict=True)}
    spans = ", ".join(f"{model} {values[model, 'rbp']:.4f} to "
                      f"{values[model, 'rbp'] + values[model, 'rbp_residual']:.4f}"
                      for model in results.models)
    return (f"RBP@{cutoff} (p = {results.conventions.rbp_persistence:g}) with what unjudged "
            f"items could add: {spans}.")
