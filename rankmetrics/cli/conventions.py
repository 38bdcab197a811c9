"""``rankmetrics conventions``: why two tools give two numbers for the same metric.

The models' mean of one metric at one K under every preset (each reproduces a library:
:data:`rankmetrics.conventions.PRESETS`), then, for each pair of presets that disagree, the
settings they differ on, how much each setting moves the mean on its own, and the users it
moves most (:func:`rankmetrics.disagreement.compare_presets`). In words, or as CSV with
``--csv`` (the means, a blank line, then every step of every pair).
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from rankmetrics.choosing_k.ties import tie_bounds, tie_flags
from rankmetrics.cli.options import Commands, add_reading_options
from rankmetrics.cli.paired_inputs import (
    add_paired_inputs,
    print_tables,
    read_evaluation_and_runs,
)
from rankmetrics.conventions import LIBRARY_TIES, PRESET_HELP, PRESETS
from rankmetrics.disagreement import AGREEMENT, ALL_SETTINGS, compare_presets
from rankmetrics.evaluation import Evaluation
from rankmetrics.io import LoadedTable
from rankmetrics.metrics import MAIN_METRICS

DEFAULT_USERS = 3


def add_conventions_parser(commands: Commands) -> None:
    """The ``conventions`` command's options."""
    conventions = commands.add_parser(
        "conventions",
        help="why two tools give two numbers: the metric under every library's preset, "
        "and what each setting moves",
        description="The models' mean of one metric at one K under every preset (each "
        f"reproduces a library: {', '.join(PRESETS)}); for each pair of presets that "
        "disagree, the settings they differ on, how much each one moves the mean when "
        "changed alone (all of them together give the other preset's value), and the users "
        "moved most. The lists are ranked once, with the --ties given (and again, for a "
        "preset that drops items whose id is the user's id, where a list holds one).",
    )
    add_paired_inputs(conventions, "a model's output (repeat for several models)",
                      bundle=False)
    conventions.add_argument("--presets", metavar="LIST",
                             help=f"the presets to compare, such as trec_eval,ranx_burges "
                             f"(default: all of {','.join(PRESETS)})")
    conventions.add_argument("--users", type=int, default=DEFAULT_USERS, metavar="N",
                             help="users moved most to list for each pair and model "
                             "(default: %(default)s; 0 for none)")
    conventions.add_argument("--csv", action="store_true",
                             help="print the means and the steps as CSV instead of sentences")
    add_reading_options(conventions)


def run_conventions(args: argparse.Namespace) -> int:
    """Read the files, evaluate under every preset and print what differs."""
    presets = _presets(args.presets)
    if args.users < 0:
        raise ValueError(f"--users must be 0 or more; got {args.users}.")
    evaluation, runs, metric_cutoff = read_evaluation_and_runs(args, "conventions", fewest=1)
    if not isinstance(evaluation, Evaluation):  # pragma: no cover - --bundle is not offered
        raise ValueError("conventions needs the files: a saved evaluation keeps one set of "
                         "conventions.")
    compared = compare_presets(evaluation, args.metric, metric_cutoff, presets)
    pairs = compared.disagreeing_pairs()
    if args.csv:
        every = [compared.steps(a, b).assign(preset_a=a, preset_b=b) for a, b in pairs]
        columns = ["preset_a", "preset_b", "setting", "from", "to", "model", "value", "move"]
        table = (pd.concat(every, ignore_index=True)[columns] if every
                 else pd.DataFrame(columns=columns))
        print_tables(compared.values.reset_index(), table)
        return 0
    print(f"{compared.label} under each preset ({len(evaluation.users):,} users in the ground "
          f"truth; equal scores ordered as --ties {evaluation.conventions.ties}):")
    width = max(len(name) for name in compared.values.index)
    for name, row in compared.values.iterrows():
        values = ", ".join(f"{model} {value:.4f}" for model, value in row.items())
        print(f"  {str(name):<{width}}  {values}")
    if not pairs:
        print("Every preset gives the same means here: the settings they differ on do not "
              f"change {compared.label} on this data.")
    for a, b in pairs:
        settings = compared.differing_settings(a, b)
        print(f"{a} vs {b}: they differ on {', '.join(settings)}.")
        steps = compared.steps(a, b)
        for setting in [*settings, ALL_SETTINGS]:
            rows = steps[steps["setting"] == setting]
            moves = (", ".join(f"{row.model} {row.move:+.4f}" for row in rows.itertuples())
                     if (rows["move"].abs() > AGREEMENT * rows["value"].abs().max()).any()
                     else "no change on this data")
            what = (f"{setting} alone ({rows['from'].iloc[0]} -> {rows['to'].iloc[0]})"
                    if setting != ALL_SETTINGS else "all of them")
            print(f"  {what}: {moves}")
        for model in compared.values.columns if args.users else []:
            moved = compared.users_moved(a, b, str(model), args.users)
            listed = "; ".join(
                f"{user} {_value(a)} -> {_value(b)}" for user, a, b in zip(
                    moved["user"], moved["value_a"].to_numpy(float),
                    moved["value_b"].to_numpy(float), strict=True))
            print(f"  users moved most ({model}): {listed}")
    if compared.grades_note:
        print(compared.grades_note)
    if args.metric in MAIN_METRICS and metric_cutoff is not None:
        print(_equal_scores(evaluation, runs, args.metric, metric_cutoff, compared.label))
    print("The presets: " + " ".join(f"{name}: {PRESET_HELP[name]}" for name in presets))
    return 0


def _equal_scores(evaluation: Evaluation, runs: dict[str, LoadedTable], metric: str, k: int,
                  label: str) -> str:
    """How far the order of equal scores moves each model's mean, and how each library
    orders them."""
    bounds = tie_bounds(evaluation, runs, [metric])
    at = bounds.loc[(bounds["metric"] == metric) & (bounds["cutoff"] == k)]
    libraries = "; ".join(f"{library}: {order}" for library, order, _ in LIBRARY_TIES)
    if not (at["tied_share"] > 0).any():
        return (f"Equal scores: no list has equal scores across K = {k}, so every library puts "
                f"the same items in the top {k} and ties explain none of the differences.")
    shares = dict(zip(at["model"].astype(str), at["tied_share"].astype(float), strict=True))
    lines = [f"Equal scores decide part of the top {k}. {label} over every order of the tied "
             f"items (the same under every preset), with --ties {evaluation.conventions.ties} "
             "in force:"]
    for row in tie_flags(bounds, metric, k).itertuples():
        share = shares[str(row.model)]
        if share == 0:
            lines.append(f"  {row.model}: {row.active:.4f}, no equal scores across K")
            continue
        lines.append(f"  {row.model}: {row.low:.4f} to {row.high:.4f} (in force {row.active:.4f}; "
                     f"{share:.0%} of users with ties across K)"
                     + ("; wider than its gap to the nearest model, so the tie rule could "
                        "change the order of the models" if row.flagged else ""))
    lines.append("How each library orders equal scores: " + libraries + ". A library that "
                 "fixes no order, or averages over the orders, lands between the two values.")
    return "\n".join(lines)


def _presets(text: str | None) -> list[str]:
    if text is None:
        return list(PRESETS)
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in PRESETS]
    if unknown or not names:
        raise ValueError(f"--presets: {', '.join(unknown) or 'none given'} is not a preset; "
                         f"choose from {', '.join(PRESETS)}.")
    return names


def _value(value: float) -> str:
    return "not counted" if np.isnan(value) else f"{value:.4f}"
