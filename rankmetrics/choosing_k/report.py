"""The Choosing-K report: every table over K for one metric, and a summary in words.

:func:`k_report` computes what the dashboard's Choosing-K page and ``rankmetrics k-report``
show, of an evaluation or of a saved one: the curves and leaderboard at
every K, the crossovers, Kendall's tau against the chosen K, the paired tests at every K and
the share of pairs they separate, the interval of one pair's difference, the winner over
relevance thresholds and over metrics, the tie bounds and the table at several cutoffs. The
summary sentences are computed from those tables, never written per data set; each names
the panel (``panel``) that shows it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

import numpy as np
import pandas as pd

from rankmetrics.checks import check_int
from rankmetrics.choosing_k.order import (
    crossovers,
    curves,
    leaderboard,
    order_agreement,
    order_at,
    orders_differ,
    same_order_span,
    sampled_cutoffs,
    spans,
)
from rankmetrics.choosing_k.significance import (
    cutoff_table,
    difference_band,
    discriminative_power,
    significance_over_k,
    winner_map,
)
from rankmetrics.choosing_k.ties import tie_bounds, tie_flags
from rankmetrics.evaluation import Evaluation
from rankmetrics.export import to_csv
from rankmetrics.io import LoadedTable
from rankmetrics.metrics import MAIN_METRICS, METRICS
from rankmetrics.relevance import RelevanceMapping
from rankmetrics.results import EvaluationResults
from rankmetrics.stats import CORRECTION_NAMES, TEST_NAMES

#: The panel (page anchor) each kind of sentence links to.
PANELS = {
    "order": "order-over-k",
    "metrics": "metrics-over-k",
    "significance": "separating-models",
    "relevance": "relevance-thresholds",
    "ties": "ties",
}
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
                9: "nine", 10: "ten"}
MOST_LISTED = 3


class PairedTestOptions(TypedDict):
    """The options every paired test of the report runs with."""

    test: str
    correction: str
    confidence: float
    n_permutations: int
    seed: int | None


@dataclass(frozen=True)
class Sentence:
    """One sentence of the summary, the kind of finding and the panel that shows it."""

    kind: str
    text: str

    @property
    def panel(self) -> str:
        return PANELS[self.kind]


def _label(metric: str) -> str:
    return METRICS[metric].label


def _models(count: int) -> str:
    return f"{NUMBER_WORDS.get(count, count)} models"


def _where(cutoffs: Sequence[int], last: int | None = None,
           tested: Sequence[int] | None = None) -> str:
    """Cutoffs in words: "K = 1-3, 7 and 9", or "from K = 12" when they run to ``last``.

    Among ``tested`` cutoffs with gaps (a spread, or a saved evaluation's cutoffs), a run
    is consecutive tested cutoffs, written one by one ("K = 5, 10 and 20"): "5-20" would
    claim the cutoffs between, which were not tested."""
    if tested is not None and list(tested) != list(range(tested[0], tested[-1] + 1)):
        chosen = sorted(cutoffs)
        start = list(tested).index(chosen[0])
        if (last is not None and start > 0 and chosen == list(tested)[start:]):
            return f"from K = {chosen[0]}"
        return f"K = {_listing([str(k) for k in chosen])}"
    runs = spans(cutoffs)
    if last is not None and len(runs) == 1 and runs[0][1] == last and runs[0][0] > 1:
        return f"from K = {runs[0][0]}"
    parts = [str(a) if a == b else f"{a}-{b}" for a, b in runs]
    if len(parts) > MOST_LISTED + 1:
        parts = parts[:MOST_LISTED] + [f"{len(parts) - MOST_LISTED} more ranges"]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"K = {listed}"


def order_sentence(table: pd.DataFrame, metric: str, chosen: int) -> Sentence:
    """Whether the order of the models at the chosen K holds at every K, and where it
    changes (the crossovers nearest the chosen K)."""
    count = table.shape[1]
    if count < 2:
        return Sentence("order", "With one model there is no order to change.")
    low, high = same_order_span(table, chosen)
    first, last = int(table.index[0]), int(table.index[-1])
    name = _label(metric)
    if (low, high) == (first, last):
        return Sentence("order", f"On {name}, the order of the {_models(count)} is the same "
                                 f"at every K from {first} to {last}.")
    found = crossovers(table)
    outside = found.loc[(found["cutoff"] <= low) | (found["cutoff"] > high)]
    outside = outside.iloc[np.argsort(np.abs(outside["cutoff"].to_numpy() - chosen),
                                      kind="stable")]
    listed = [f"{row.ahead} passes {row.behind} at K = {row.cutoff}"
              for row in outside.head(MOST_LISTED).itertuples()]
    more = len(outside) - len(listed)
    tail = f" (and {more} more crossing{'s' if more > 1 else ''})" if more > 0 else ""
    changes = "; ".join(listed) + tail if listed else "models tie at the other cutoffs"
    return Sentence("order", f"On {name}, the order of the {_models(count)} at K = {chosen} "
                             f"holds from K = {low} to {high}; {changes}.")


def agreement_sentence(by_metric: Mapping[str, pd.DataFrame], metric: str) -> Sentence:
    """Where the other metrics order the models differently from ``metric``."""
    reference = by_metric[metric]
    last = int(reference.index[-1])
    agree, differ = [], []
    for other, table in by_metric.items():
        if other == metric:
            continue
        cutoffs = orders_differ(reference, table)
        if cutoffs:
            where = _where(cutoffs, last)
            differ.append((_label(other), where if where.startswith("from") else f"at {where}"))
        else:
            agree.append(_label(other))
    name = _label(metric)
    if not differ:
        return Sentence("metrics", f"Every metric ({', '.join(agree)}) orders the models as "
                                   f"{name} does, at every K.")
    text = f"Compared with {name}, " + ", ".join(
        f"{other} orders the models differently {where}" if position == 0 else
        f"{other} {where}" for position, (other, where) in enumerate(differ))
    if agree:
        text += f"; {_listing(agree)} agree{'s' if len(agree) == 1 else ''} at every K"
    return Sentence("metrics", text + ".")


def _listing(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def significance_sentence(power: pd.DataFrame, metric: str, test: str, correction: str,
                          chosen: int) -> Sentence:
    """Where every pair of models differs significantly on ``metric``, and where some do
    not."""
    pairs = int(power["pairs"].iloc[0])
    tested = power["cutoff"].astype(int).tolist()
    every = power.loc[power["significant_pairs"] == pairs, "cutoff"].astype(int).tolist()
    how = f"({TEST_NAMES[test]}, {CORRECTION_NAMES[correction]} correction)"
    on = f"On {_label(metric)}, "
    if pairs == 1:
        if not every:
            return Sentence("significance", f"{on}the two models do not differ significantly "
                                            f"at any K tested {how}.")
        rest = [k for k in tested if k not in every]
        tail = f"; at {_where(rest, tested=tested)} they do not" if rest else ""
        return Sentence("significance", f"{on}the two models differ significantly at "
                                        f"{_where(every, tested=tested)} {how}{tail}.")
    if every == tested:
        return Sentence("significance", f"{on}every pair of models differs significantly at "
                                        f"every K tested {how}.")
    if every:
        at = chosen if chosen in tested and chosen not in every else \
            next(k for k in tested if k not in every)
        short = pairs - int(power.loc[power["cutoff"] == at, "significant_pairs"].iloc[0])
        verb = "does" if short == 1 else "do"
        return Sentence("significance", f"{on}every pair differs significantly at "
                                        f"{_where(every, tested=tested)} {how}; at K = {at}, "
                                        f"{short} of {pairs} pairs {verb} not.")
    most = int(power["significant_pairs"].max())
    where = power.loc[power["significant_pairs"] == most, "cutoff"].astype(int).tolist()
    return Sentence("significance", f"{on}no K separates every pair of models {how}; the "
                                    f"most, {most} of {pairs} pairs, differ at "
                                    f"{_where(where, tested=tested)}.")


def relevance_sentence(winners: pd.DataFrame, metric: str, chosen: int) -> Sentence:
    """Whether the best model on ``metric`` at the chosen K depends on the relevance
    mapping."""
    tested = sorted(winners["cutoff"].unique())
    at = min(tested, key=lambda k: (abs(k - chosen), k))
    rows = winners.loc[winners["cutoff"] == at]
    best = rows["best"].tolist()
    names = rows["row"].tolist()
    significant = int(rows["significantly_best"].sum())
    if len(set(best)) == 1:
        strength = ("and significantly so under each" if significant == len(rows) else
                    f"significantly so under {significant} of {len(rows)}")
        return Sentence("relevance", f"{best[0]} is best on {_label(metric)} at K = {at} "
                                     f"under every relevance mapping tried "
                                     f"({'; '.join(names)}), {strength}.")
    listed = "; ".join(f"{model} under {name}" for model, name in zip(best, names, strict=True))
    return Sentence("relevance", f"The best model on {_label(metric)} at K = {at} depends on "
                                 f"the relevance mapping: {listed}.")


def ties_sentence(bounds: pd.DataFrame | None, metric: str, chosen: int) -> Sentence:
    """Whether ties in score could change a conclusion at the chosen K."""
    if bounds is None:
        return Sentence("ties", "Ties were not checked: the models' scores are not at hand.")
    of_metric = bounds.loc[bounds["metric"] == metric]
    if not (of_metric["tied_share"] > 0).any():
        return Sentence("ties", "No list has tied scores across a cutoff, so the tie rule "
                                "changes nothing.")
    flags = tie_flags(bounds, metric, chosen)
    label = f"{_label(metric)}@{chosen}"
    flagged = flags.loc[flags["flagged"]]
    if flagged.empty:
        share = of_metric.loc[of_metric["cutoff"] == chosen, "tied_share"].max()
        return Sentence("ties", f"Ties change no conclusion at K = {chosen}: every model's "
                                f"{label} moves less between tie orders than its gap to the "
                                f"nearest model ({share:.1%} of users at most have tied "
                                "items across the cutoff).")
    row = flagged.iloc[0]
    more = len(flagged) - 1
    tail = f" ({more} more model{'s' if more > 1 else ''} too)" if more else ""
    return Sentence("ties", f"Ties could change the order at K = {chosen}: {row['model']}'s "
                            f"{label} lies between {row['low']:.4f} and {row['high']:.4f} "
                            f"depending on the order of tied scores, more than its gap to "
                            f"the nearest model ({row['gap']:.4f}){tail}.")


def said_of(sentence: Sentence, scope: str | None) -> Sentence:
    """The sentence with the part of the data it holds for in front (None: unchanged): a
    saved evaluation's sampled users, or its saved cutoffs.

    >>> said_of(Sentence("ties", "No list has tied scores."), "On the 1,000 sampled users").text
    'On the 1,000 sampled users: No list has tied scores.'
    """
    if scope is None:
        return sentence
    return Sentence(sentence.kind, f"{scope}: {sentence.text}")


def relevance_variants(relevance: RelevanceMapping, ratings: np.ndarray,
                       most: int | None = 5) -> dict[str, RelevanceMapping]:
    """The mapping with its relevance threshold moved over the ratings (binary) or grades
    (graded, identity) found, at most ``most`` of them around the current one (None: all of
    them); named by the threshold ("rating >= 4", "grade >= 2"), the current one included.

    >>> list(relevance_variants(RelevanceMapping.binary(4), np.array([1, 2, 3, 4, 5])))
    ['rating >= 2', 'rating >= 3', 'rating >= 4', 'rating >= 5']
    """
    values = np.unique(np.asarray(ratings, dtype=np.float64))
    values = values[np.isfinite(values)]
    if relevance.kind == "binary":
        current = float(relevance.rating_threshold or 0.0)
        options = [float(v) for v in values[values > values.min()]] if len(values) else []
        make, word = RelevanceMapping.binary, "rating"
    else:
        grades = np.unique(relevance.grades(values)) if len(values) else np.zeros(0)
        current = relevance.threshold
        options = [float(g) for g in grades if g > 0]
        word = "grade"

        def make(threshold: float) -> RelevanceMapping:
            return RelevanceMapping(relevance.kind, threshold, relevance.table)
    options = sorted(set(options) | {current})
    most = len(options) if most is None else check_int("most", most)
    at = options.index(current)
    start = max(0, min(at - most // 2, len(options) - most))
    kept = options[start:start + most]
    return {f"{word} >= {value:g}": make(value) for value in kept}


@dataclass(frozen=True)
class KReport:
    """What the Choosing-K report holds: the summary and every table, by name."""

    metric: str
    cutoff: int
    summary: list[Sentence]
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)

    def summary_text(self) -> str:
        return "\n".join(f"- {sentence.text}" for sentence in self.summary)

    def write_tables(self, folder: str | Path) -> list[Path]:
        """Write every table as ``<name>.csv`` (and the summary as ``summary.csv``) into
        ``folder``, made if needed; returns the paths written."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        sentences = pd.DataFrame({"kind": [s.kind for s in self.summary],
                                  "panel": [s.panel for s in self.summary],
                                  "sentence": [s.text for s in self.summary]})
        for name, table in {"summary": sentences, **self.tables}.items():
            path = folder / f"{name}.csv"
            path.write_text(to_csv(table), encoding="utf-8")
            written.append(path)
        return written


def parse_cutoffs(text: str, max_cutoff: int) -> tuple[int, ...]:
    """Cutoffs written as ``"1,5,10"``, sorted, each a whole number in [1, max_cutoff].

    >>> parse_cutoffs("10, 1,5", 50)
    (1, 5, 10)
    """
    values = set()
    for part in text.split(","):
        if not part.strip():
            continue
        try:
            value = int(part)
        except ValueError:
            value = 0
        if not 1 <= value <= max_cutoff:
            raise ValueError(f"Cutoffs are whole numbers from 1 to {max_cutoff}, separated by "
                             f"commas (such as 1,5,10). Got {part.strip()!r}.")
        values.add(value)
    if not values:
        raise ValueError("Give at least one cutoff, such as 1,5,10.")
    return tuple(sorted(values))


def cutoffs_tested(ev: EvaluationResults, test: str, chosen: int) -> list[int]:
    """The cutoffs the tests run at: every K for the t-test and Wilcoxon, a spread
    (:func:`~rankmetrics.choosing_k.order.sampled_cutoffs`) for the randomization and the
    randomized Tukey tests; where
    per-user values exist at a few cutoffs only (a saved evaluation), every one of them."""
    return _where_tested(ev, chosen, spread=test in ("randomization", "tukey"))


def map_cutoffs(ev: EvaluationResults, test: str, chosen: int) -> list[int]:
    """The cutoffs of the winner maps: every K for the t-test, a spread for the others
    (each map row runs the tests again); a saved evaluation's saved cutoffs."""
    return _where_tested(ev, chosen, spread=test != "t")


def cutoffs_scope(ev: EvaluationResults) -> str | None:
    """What a sentence on the tests holds for, as its start: None where per-user values exist
    at every K; "At the saved cutoffs 1, 3, 5, ..." for a saved evaluation."""
    if len(ev.per_user_cutoffs) == ev.max_cutoff:
        return None
    return f"At the saved cutoffs {', '.join(map(str, ev.per_user_cutoffs))}"


def _where_tested(ev: EvaluationResults, chosen: int, *, spread: bool) -> list[int]:
    if len(ev.per_user_cutoffs) < ev.max_cutoff:
        return list(ev.per_user_cutoffs)
    if spread:
        return sampled_cutoffs(ev.max_cutoff, keep=[chosen])
    return list(range(1, ev.max_cutoff + 1))


def k_report(
    ev: EvaluationResults,
    *,
    metric: str = "ndcg",
    cutoff: int = 10,
    runs: Mapping[str, pd.DataFrame | LoadedTable] | None = None,
    relevance_mappings: Mapping[str, RelevanceMapping] | None = None,
    table_cutoffs: Iterable[int] = (1, 5, 10),
    test: str = "t",
    correction: str = "holm",
    confidence: float = 0.95,
    n_permutations: int = 1_000,
    seed: int | None = 0,
) -> KReport:
    """Every Choosing-K table for ``metric`` with the chosen ``cutoff``, and the summary.

    ``runs`` (each model's output with its scores) enables the tie bounds (a saved
    evaluation's sampled rows are used when not given); ``relevance_mappings`` (name ->
    mapping; default :func:`relevance_variants` of the evaluation's mapping) the winner map
    over relevance. Tables: ``curves``, ``leaderboard``, ``crossovers``, ``kendall_tau``,
    ``pairs_over_k``, ``discriminative_power``, ``difference_band`` (best two models at the
    chosen K), ``winners_by_relevance``, ``winners_by_metric``, ``tie_bounds``, ``tie_flags``
    and ``cutoff_table``.

    Of a saved evaluation: the curves, leaderboard, crossovers, Kendall's tau and the values
    of the cutoff table come from the means at every K; the paired tests, the share of pairs
    told apart, the difference band, the winners by metric and the significance marks of the
    cutoff table need every user's values, so they are at the saved cutoffs; the winners by
    relevance threshold and the tie bounds need the lists themselves, so they are those of
    the sampled users. Each sentence of the summary says which part it holds for.
    """
    cutoff = check_int("cutoff", cutoff, high=ev.max_cutoff)
    table, tables, summary = _order_over_k(ev, metric, cutoff)
    options = PairedTestOptions(test=test, correction=correction, confidence=confidence,
                                n_permutations=n_permutations, seed=seed)
    lists = ev.lists_at_hand()
    some_cutoffs = cutoffs_scope(ev)
    if len(ev.models) >= 2:
        tested = cutoffs_tested(ev, test, cutoff)
        pairs = significance_over_k(ev, metric, cutoffs=tested, **options)
        power = discriminative_power(pairs)
        tables["pairs_over_k"], tables["discriminative_power"] = pairs, power
        summary.append(said_of(significance_sentence(power, metric, test, correction, cutoff),
                               some_cutoffs))
        model_a, model_b = _best_two(table, cutoff)
        band = difference_band(ev, metric, model_a, model_b, confidence=confidence)
        tables["difference_band"] = band.assign(model_a=model_a, model_b=model_b)
        by_relevance = _winners_by_relevance(lists.evaluation, metric, cutoff,
                                             relevance_mappings, options)
        tables["winners_by_relevance"] = by_relevance
        summary.append(said_of(relevance_sentence(by_relevance, metric, cutoff), lists.scope))
        tables["winners_by_metric"] = winner_map(
            {_label(name): ev for name in MAIN_METRICS},
            {_label(name): name for name in MAIN_METRICS},
            cutoffs=map_cutoffs(ev, test, cutoff), **options)
        tables["cutoff_table"] = cutoff_table(ev, MAIN_METRICS, table_cutoffs, **options)
    summary.append(said_of(_ties(lists.evaluation, runs if runs is not None else lists.runs,
                                 metric, cutoff, tables), lists.scope))
    return KReport(metric, cutoff, summary, _flat(tables))


def _order_over_k(source: EvaluationResults, metric: str, cutoff: int) -> tuple[
        pd.DataFrame, dict[str, pd.DataFrame], list[Sentence]]:
    """The curves of ``metric`` (from the means at every K), the tables made from them and
    the first sentences: the order over K and the agreement of the metrics."""
    by_metric = {name: curves(source, name) for name in MAIN_METRICS}
    if metric not in by_metric:
        by_metric[metric] = curves(source, metric)
    table = by_metric[metric]
    tables: dict[str, pd.DataFrame] = {
        "curves": table.reset_index(),
        "leaderboard": leaderboard(table),
        "crossovers": crossovers(table),
        "kendall_tau": order_agreement(table, cutoff),
    }
    return table, tables, [order_sentence(table, metric, cutoff),
                           agreement_sentence(by_metric, metric)]


def _best_two(table: pd.DataFrame, cutoff: int) -> tuple[str, str]:
    """The second and the first model at ``cutoff`` (the difference band's A and B)."""
    at_chosen = pd.Series(table.loc[cutoff].to_numpy(), index=table.columns)
    top = [str(model) for model in order_at(at_chosen)[:2]]
    return top[1], top[0]


def _winners_by_relevance(ev: Evaluation, metric: str, cutoff: int,
                          relevance_mappings: Mapping[str, RelevanceMapping] | None,
                          options: PairedTestOptions) -> pd.DataFrame:
    """The winner map of ``metric`` over the relevance mappings (default: the evaluation's
    with its threshold moved over the ratings found)."""
    mappings = relevance_mappings or relevance_variants(ev.relevance, ev.truth.ratings)
    evaluations = {name: ev.with_relevance(mapping) for name, mapping in mappings.items()}
    for name, under in evaluations.items():
        if (counted := len(under.paired(metric, cutoff))) < 2:
            users = "1 user is" if counted == 1 else f"{counted} users are"
            raise ValueError(
                f"Under the relevance mapping {name}, {users} counted by every model, and "
                "paired tests need at least 2: leave that threshold out, or choose one at "
                "which users have relevant items.")
    return winner_map(evaluations, dict.fromkeys(evaluations, metric),
                      cutoffs=map_cutoffs(ev, options["test"], cutoff), **options)


def _ties(ev: Evaluation, runs: Mapping[str, pd.DataFrame | LoadedTable] | None,
          metric: str, cutoff: int, tables: dict[str, pd.DataFrame]) -> Sentence:
    """The tie bounds and flags (added to ``tables``) and the sentence on ties."""
    if runs is None:
        return ties_sentence(None, metric, cutoff)
    bounds = tie_bounds(ev, runs, [metric])
    tables["tie_bounds"] = bounds
    tables["tie_flags"] = tie_flags(bounds, metric, cutoff)
    return ties_sentence(bounds, metric, cutoff)


def _flat(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Tables with list cells (the leaders) written as text, for CSV files."""
    out = {}
    for name, table in tables.items():
        if "leaders" in table.columns:
            table = table.assign(leaders=table["leaders"].map(
                lambda models: " ".join(map(str, models))))
        out[name] = table
    return out
