"""Multiple-comparison corrections: Holm, Bonferroni and Benjamini-Hochberg adjusted p-values."""

from __future__ import annotations

import numpy as np

from rankmetrics.checks import check_choice

CORRECTIONS = ("holm", "bonferroni", "bh")
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg"}
#: What each multiple-comparison correction guards against, in one sentence.
CORRECTION_HELP = {
    "holm": "Keeps the chance of calling any pair significant by mistake below the "
    "significance level, and finds more real differences than Bonferroni.",
    "bonferroni": "Multiplies each p-value by the number of pairs: the simplest and most "
    "cautious.",
    "bh": "Keeps the expected share of mistaken \"significant\" pairs below the significance "
    "level: finds the most differences when there are many pairs.",
}


def correct_pvalues(p: object, method: str = "holm") -> np.ndarray:
    r"""Adjust p-values for multiple comparisons.

    All the p-values given are one family of ``m`` hypotheses. With the raw p-values sorted
    ascending, :math:`p_{(1)} \le \dots \le p_{(m)}`, the adjusted values are

    - Bonferroni: :math:`\tilde p_i = \min(1, m\,p_i)`;
    - Holm (step-down): :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1)\,p_{(j)})`;
    - Benjamini-Hochberg (step-up, controls the false discovery rate, valid for independent
      or positively dependent tests): :math:`\tilde p_{(i)} = \min_{j \ge i}
      \min(1, m\,p_{(j)} / j)`.

    The running maximum / minimum makes the adjusted values keep the order of the raw ones.
    Adjusted values are never below the raw ones and never above 1; Holm's are never above
    Bonferroni's. Rejecting the hypotheses with :math:`\tilde p < \alpha` controls the
    family-wise error rate (Holm, Bonferroni) or the false discovery rate (BH) at
    :math:`\alpha`.

    Parameters
    ----------
    p : array_like of float
        Raw p-values in [0, 1], any shape; all of them form one family.
    method : {"holm", "bonferroni", "bh"}
        The correction.

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, in the shape and order of ``p``.

    Examples
    --------
    >>> correct_pvalues([0.01, 0.04, 0.03], "holm").tolist()  # 3*0.01, max(2*0.03, .03), ...
    [0.03, 0.06, 0.06]
    >>> correct_pvalues([0.01, 0.04, 0.03], "bonferroni").round(2).tolist()
    [0.03, 0.12, 0.09]
    >>> correct_pvalues([0.01, 0.04, 0.03], "bh").round(2).tolist()  # 3*.01/1, 3*.04/3, ...
    [0.03, 0.04, 0.04]
    """
    check_choice("method", method, CORRECTIONS)
    try:
        raw = np.asarray(p, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"The 'p' argument must be numbers. Got {p!r} instead.") from exc
    flat = raw.ravel()
    if np.isnan(flat).any() or ((flat < 0) | (flat > 1)).any():
        bad = flat[np.isnan(flat) | (flat < 0) | (flat > 1)][0]
        raise ValueError(
            f"The 'p' argument must hold p-values in [0, 1]. Got {float(bad)!r} in it."
        )
    m = flat.size
    if m == 0:
        return raw.copy()
    if method == "bonferroni":
        return np.minimum(1.0, m * raw)
    order = np.argsort(flat, kind="stable")
    ranked = flat[order]
    rank = np.arange(1, m + 1)
    if method == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, (m - rank + 1) * ranked))
    else:  # bh
        adjusted = np.minimum.accumulate(np.minimum(1.0, m * ranked / rank)[::-1])[::-1]
        # m * p / m can round to just below p; the exact value is never below p.
        adjusted = np.maximum(adjusted, ranked)
    out = np.empty(m)
    out[order] = adjusted
    return out.reshape(raw.shape)
