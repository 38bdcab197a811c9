"""Why two tools give two numbers for "NDCG@10": the same data under every preset, the
settings each pair of presets disagrees on, and how much each setting moves the mean alone.

:func:`compare_presets` evaluates an :class:`~rankmetrics.evaluation.Evaluation`'s models
under every preset of :data:`rankmetrics.conventions.PRESETS` (one evaluation per distinct set
of conventions, shared between presets that agree; the ranked lists are reused, so the
evaluation's own tie rule applies to every preset). For two presets that disagree,
:meth:`PresetComparison.steps` starts from the first and changes one differing setting at a
time to the second's value; the last step, every setting changed, is the second preset's own
value. :meth:`PresetComparison.users_moved` lists the users whose value moves most.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from rankmetrics.checks import check_choice, check_int
from rankmetrics.conventions import (
    CHOICE_WORDS,
    NUMBER_OPTIONS,
    PRESETS,
    Conventions,
    number_words,
)
from rankmetrics.evaluation import Evaluation
from rankmetrics.io import LoadedTable
from rankmetrics.metrics import METRICS

#: Presets that disagree by less than this (relative to the larger mean) agree.
AGREEMENT = 1e-12
#: The step of :meth:`PresetComparison.steps` with every differing setting changed.
ALL_SETTINGS = "all of them"
#: The presets whose library gives every relevant item the same NDCG gain, 1, whatever its
#: grade (under a graded mapping the preset's NDCG uses the grades and the library's does not),
#: and the library's name.
BINARY_NDCG_PRESETS = {"spark_mllib": ("Spark MLlib", "RecBole"),
                       "recommenders": ("Microsoft Recommenders",)}


@dataclass(frozen=True)
class PresetComparison:
    """:func:`compare_presets`' answer: ``values`` (index preset, one column per model: the
    mean under that preset) and each preset's conventions."""

    metric: str
    cutoff: int | None
    values: pd.DataFrame
    conventions: dict[str, Conventions]
    _evaluations: dict[Conventions, Evaluation] = field(repr=False)
    #: Where a preset's library would not compute this metric on these grades, why, in words.
    grades_note: str | None = None
    #: Whether each preset keeps or drops items whose id is the user's id as it says (False:
    #: the lists could not be ranked again, and every preset follows the evaluation's rule).
    identical_ids_as_preset: bool = True
    _tables: Mapping[str, pd.DataFrame | LoadedTable] | None = field(default=None, repr=False)

    @property
    def label(self) -> str:
        """The metric as reports write it (``NDCG@10``)."""
        name = METRICS[self.metric].label
        return f"{name}@{self.cutoff}" if self.cutoff is not None else name

    def disagreeing_pairs(self) -> list[tuple[str, str]]:
        """The pairs of presets that give some model another mean, in the presets' order."""
        return [(a, b) for a, b in combinations(self.values.index, 2)
                if not _same(self.values.loc[a].to_numpy(), self.values.loc[b].to_numpy())]

    def differing_settings(self, preset_a: str, preset_b: str) -> list[str]:
        """The settings on which two presets differ, in the conventions' order."""
        a, b = self._conventions(preset_a).as_dict(), self._conventions(preset_b).as_dict()
        return [option for option in a if a[option] != b[option]]

    def steps(self, preset_a: str, preset_b: str) -> pd.DataFrame:
        """From ``preset_a``, each differing setting changed alone to ``preset_b``'s value,
        then all of them (which is ``preset_b``). Columns: ``setting``, ``from``, ``to`` (in
        words), ``model``, ``value`` (the mean with that change), ``move`` (from
        ``preset_a``'s mean); one row per setting and model."""
        start = self._conventions(preset_a)
        end = self._conventions(preset_b)
        changes = [(option, {option: getattr(end, option)})
                   for option in self.differing_settings(preset_a, preset_b)]
        changes.append((ALL_SETTINGS, {option: getattr(end, option) for option, _ in changes}))
        base = dict(zip(self.values.columns,
                        self.values.loc[preset_a].to_numpy(dtype=float).tolist(), strict=True))
        rows = []
        for setting, change in changes:
            means = self._means(dataclasses.replace(start, **change))
            for model in self.values.columns:
                rows.append({
                    "setting": setting,
                    "from": _words(setting, start) if setting != ALL_SETTINGS else preset_a,
                    "to": _words(setting, end) if setting != ALL_SETTINGS else preset_b,
                    "model": model, "value": means[model],
                    "move": means[model] - base[model]})
        return pd.DataFrame(rows, columns=["setting", "from", "to", "model", "value", "move"])

    def users_moved(self, preset_a: str, preset_b: str, model: str,
                    n: int = 10) -> pd.DataFrame:
        """At most ``n`` users whose value of ``model`` changes from ``preset_a`` to
        ``preset_b``: those counted under both, largest change first, then those counted
        under one preset only (the other value empty), in the users' order. Columns
        ``user``, ``value_a``, ``value_b``, ``move``."""
        n = check_int("n", n)
        if model not in self.values.columns:
            raise ValueError(f"No model {model!r}; the models are "
                             f"{', '.join(map(repr, self.values.columns))}.")
        a = self._evaluation(self._conventions(preset_a)).per_user_at(model, self.metric,
                                                                        self.cutoff)
        b = self._evaluation(self._conventions(preset_b)).per_user_at(model, self.metric,
                                                                        self.cutoff)
        table = pd.DataFrame({"value_a": a, "value_b": b})
        table["move"] = table["value_b"] - table["value_a"]
        both = table.dropna()
        moved = both[both["move"] != 0]
        moved = moved.iloc[np.argsort(-moved["move"].abs().to_numpy(), kind="stable")]
        one_only = table[table["value_a"].isna() != table["value_b"].isna()]
        listed = pd.concat([moved, one_only]).head(n)
        listed.index.name = "user"
        return listed.reset_index()

    # ----- helpers ---------------------------------------------------------------------

    def _conventions(self, preset: str) -> Conventions:
        if preset not in self.conventions:
            raise ValueError(f"No preset {preset!r}; the presets are "
                             f"{', '.join(map(repr, self.conventions))}.")
        return self.conventions[preset]

    def _evaluation(self, conventions: Conventions) -> Evaluation:
        found = self._evaluations.get(conventions)
        if found is None:
            base = list(self._evaluations.values())[0]  # (a copy: other threads add to it)
            found = base.with_conventions(conventions, self._tables)
            self._evaluations[conventions] = found
        return found

    def _means(self, conventions: Conventions) -> dict[str, float]:
        evaluation = self._evaluation(conventions)
        means = evaluation.means([self.metric])
        return {model: float(by_metric[self.metric][(self.cutoff or 1) - 1])
                for model, by_metric in means.items()}


#: Sets of conventions :func:`compare_presets` evaluates at once (threads).
COMPARED_AT_ONCE = 2


def compare_presets(evaluation: Evaluation, metric: str, cutoff: int | None,
                    presets: Sequence[str] | None = None, *,
                    tables: Mapping[str, pd.DataFrame | LoadedTable] | None = None,
                    ) -> PresetComparison:
    """The mean of ``metric`` at ``cutoff`` for every model under each preset (every preset
    when ``presets`` is None), as :class:`PresetComparison`.

    ``evaluation`` is a :class:`~rankmetrics.evaluation.Evaluation` (its ranked lists and
    relevance are reused; each preset is applied with the evaluation's own tie rule, since the
    lists were ranked with it). ``cutoff`` is None for a metric without one (R-Precision).
    A preset that keeps or drops items whose id is the user's id (``identical_ids``) other
    than the evaluation ranks the lists of the models that hold one again, from ``tables``
    (each model's output) or from the tables the evaluation was given; where neither is at
    hand, every preset follows the evaluation's rule (``identical_ids_as_preset`` False).
    """
    metric = check_choice("metric", metric, list(METRICS))
    cutoff = evaluation.check_cutoff(cutoff) if METRICS[metric].has_cutoff else None
    names = list(presets) if presets is not None else list(PRESETS)
    for name in names:
        check_choice("presets", name, list(PRESETS))
    ties = evaluation.conventions.ties
    as_preset = evaluation.can_rank_again(tables)
    conventions = {name: dataclasses.replace(
        PRESETS[name], ties=ties, identical_ids=PRESETS[name].identical_ids if as_preset
        else evaluation.conventions.identical_ids) for name in names}
    evaluations: dict[Conventions, Evaluation] = {evaluation.conventions: evaluation}
    comparison = PresetComparison(metric, cutoff, pd.DataFrame(), conventions, evaluations,
                                  identical_ids_as_preset=as_preset, _tables=tables)
    # one evaluation per distinct set of conventions, two at a time: their sums are mostly
    # NumPy work that runs without the interpreter lock, so a second core shares it
    distinct = list(dict.fromkeys(conventions.values()))
    with ThreadPoolExecutor(max_workers=COMPARED_AT_ONCE) as pool:
        found = dict(zip(distinct, pool.map(comparison._means, distinct), strict=True))
    rows = {name: found[chosen] for name, chosen in conventions.items()}
    values = pd.DataFrame.from_dict(rows, orient="index")[evaluation.models]
    values.index.name = "preset"
    return dataclasses.replace(comparison, values=values,
                               grades_note=_grades_note(evaluation, metric, names))


def _grades_note(evaluation: Evaluation, metric: str, names: Sequence[str]) -> str | None:
    """Words for the presets whose library's NDCG ignores grades, when the grades matter."""
    binary = [library for name in names for library in BINARY_NDCG_PRESETS.get(name, ())]
    if metric != "ndcg" or evaluation.relevance.kind == "binary" or not binary:
        return None
    libraries = ", ".join(binary[:-1]) + " and " + binary[-1] if len(binary) > 1 else binary[0]
    return (f"{libraries} give every relevant item an NDCG gain of 1, whatever its "
            "grade. Their rows here use the grades, as every other row does: for those "
            "libraries' own NDCG, make the ratings relevant / not.")


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    scale = max(float(np.nanmax(np.abs(np.concatenate([a, b])), initial=0.0)), 1e-300)
    return bool(np.all((np.abs(a - b) <= AGREEMENT * scale) | (np.isnan(a) & np.isnan(b))))


def _words(option: str, conventions: Conventions) -> str:
    value = getattr(conventions, option)
    return (number_words(option, value) if option in NUMBER_OPTIONS
            else CHOICE_WORDS[option][value])
