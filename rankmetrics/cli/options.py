"""The options several commands take, each group declared once, and their readers.

A command adds a group with its own words where its help says more or less than another's
(``report`` says "as for evaluate"); the flags, types, choices and defaults are the same
everywhere. The readers turn the parsed options into what the library takes, and a problem
ends as a ``ValueError`` naming the option, which :func:`rankmetrics.cli.main` prints on one
line.
"""

from __future__ import annotations

import argparse
import math
import re
import shlex
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from rankmetrics.conventions import (
    NUMBER_OPTIONS,
    OPTION_CHOICES,
    OPTION_HELP,
    PRESET_HELP,
    PRESETS,
    Conventions,
)
from rankmetrics.errors import printable
from rankmetrics.evaluation import MAX_CUTOFF
from rankmetrics.io import LoadedTable, file_stem, parse_size, read_run, read_truth
from rankmetrics.relevance import RelevanceMapping, parse_grade_table, suggest_mapping
from rankmetrics.stats import CORRECTIONS, TESTS

#: The command line's commands, where each command module adds its parser.
Commands = argparse._SubParsersAction


class Options(Protocol):
    """Where options are added: a command's parser or one of its argument groups."""

    def add_argument(self, *names: str, **settings: Any) -> argparse.Action: ...


# --- conventions ----------------------------------------------------------------------------

def add_conventions_options(options: Options, *, preset_separator: str = " ") -> None:
    """``--preset``, then one option per convention (``--gain``, ``--ideal``, ...) and
    ``--threshold-gains``, each overriding the preset. ``preset_separator`` joins the presets'
    descriptions in the help of ``--preset``."""
    options.add_argument("--preset", choices=list(PRESETS), default="default",
                         help=preset_separator.join(f"{name}: {text}"
                                                    for name, text in PRESET_HELP.items()))
    for option, choices in OPTION_CHOICES.items():
        options.add_argument(f"--{option.replace('_', '-')}", choices=choices,
                             help=OPTION_HELP[option] + " Overrides the preset.")
    options.add_argument("--threshold-gains", choices=("yes", "no"),
                         help=OPTION_HELP["threshold_gains"] + " Overrides the preset.")
    options.add_argument("--rbp-persistence", metavar="P", type=_number("--rbp-persistence"),
                         help=OPTION_HELP["rbp_persistence"])
    options.add_argument("--max-grade", metavar="G", type=_number("--max-grade"),
                         help=OPTION_HELP["max_grade"])


def _number(option: str):
    """An argparse type reading a number for ``option`` (argparse names the option in its
    error)."""
    def read(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a number is needed, such as 0.8. "
                                             f"Got {text!r}.") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"a finite number is needed. Got {text!r}.")
        return value
    return read


def read_conventions(args: argparse.Namespace) -> Conventions:
    """The preset with the conventions given on the command line."""
    overrides: dict[str, object] = {
        option: getattr(args, option)
        for option in OPTION_CHOICES
        if getattr(args, option) is not None
    }
    if args.threshold_gains is not None:
        overrides["threshold_gains"] = args.threshold_gains == "yes"
    for option in NUMBER_OPTIONS:
        if getattr(args, option) is not None:
            overrides[option] = getattr(args, option)
    try:
        return Conventions.preset(args.preset, **overrides)
    except ValueError as error:  # name the option as typed, not the library's argument
        text = str(error)
        for option in NUMBER_OPTIONS:
            text = text.replace(option, f"--{option.replace('_', '-')}", 1)
        raise ValueError(text.replace(", or None for", ", or left out for")) from None


# --- relevance ------------------------------------------------------------------------------

#: How ``evaluate`` describes the relevance options.
RELEVANCE_HELP = {
    "threshold": "a grade >= T is relevant (trec_eval -l); ratings are the grades unless "
    "--grades is given",
    "grades": 'graded mapping such as "5=3,4=2,3=1": ratings at or above each value get its '
    "grade, lower ratings grade 0",
    "binary": "binary relevance: rating >= R is relevant (grade 1)",
}


def add_relevance_options(parser: argparse.ArgumentParser, texts: Mapping[str, str], *,
                          description: str | None = None) -> None:
    """``--threshold``, ``--grades`` and ``--binary``, described by ``texts``; in a group
    "relevance" when a ``description`` is given."""
    options: Options = (parser if description is None
                        else parser.add_argument_group("relevance", description))
    options.add_argument("--threshold", type=float, metavar="T", help=texts["threshold"])
    options.add_argument("--grades", metavar="TABLE", help=texts["grades"])
    options.add_argument("--binary", type=float, metavar="R", help=texts["binary"])


def relevance_mapping(args: argparse.Namespace, ratings) -> RelevanceMapping:
    """The mapping the relevance options give, or the one suggested from ``ratings``; both
    said on stderr."""
    if args.binary is not None:
        if args.grades is not None or args.threshold is not None:
            raise ValueError("--binary cannot be combined with --grades or --threshold.")
        mapping = RelevanceMapping.binary(args.binary)
    elif args.grades is not None:
        try:
            table = parse_grade_table(args.grades)
            mapping = RelevanceMapping.graded(table, threshold=args.threshold or 1.0)
        except ValueError as error:
            raise ValueError(f"--grades {args.grades}: {error}") from None
    elif args.threshold is not None:
        mapping = RelevanceMapping.identity(args.threshold)
    else:
        suggestion = suggest_mapping(ratings)
        mapping = suggestion.recommended
        print(f"rankmetrics: relevance: {suggestion.reason} (change it with --threshold, "
              "--grades or --binary)", file=sys.stderr)
    print(f"rankmetrics: relevance: {mapping.describe()}", file=sys.stderr)
    return mapping


# --- significance ---------------------------------------------------------------------------

def add_significance_options(options: Options, texts: Mapping[str, str], *,
                             test_default: str = "randomization") -> None:
    """``--test`` (the paired test) and ``--correction`` (over many tests), described by
    ``texts``."""
    options.add_argument("--test", choices=TESTS, default=test_default, help=texts["test"])
    options.add_argument("--correction", choices=CORRECTIONS, default="holm",
                         help=texts["correction"])


def add_confidence_option(options: Options,
                          text: str = "confidence level; 1 - LEVEL is the significance level "
                          "(default: %(default)s)",
                          metavar: str | None = "LEVEL") -> None:
    """``--confidence``: the level of the tests and intervals (0.95)."""
    options.add_argument("--confidence", type=float, default=0.95, metavar=metavar, help=text)


# --- columns --------------------------------------------------------------------------------

COLUMN_ROLES = ("user", "item", "score", "rank", "rating")
#: What ``--columns`` says, for its help.
COLUMNS_HELP = ("the columns of one file by role (user, item, rating, score, rank), such as "
                "truth:user=customer,item=sku; or, for a file without a header line, their "
                "order: truth:order=user,item,rating,timestamp")
_NAMED = re.compile(r"columns=\{'(\w+)': '((?:[^'\\]|\\.)*)'\}")


def add_column_options(parser: argparse.ArgumentParser) -> None:
    """``--user-column``, ``--item-column``, ...: one per role, for every file; and
    ``--columns WHICH:...`` for one file."""
    columns = parser.add_argument_group(
        "columns", "Column names, when they are not found automatically. WHICH is truth, "
        "run:NAME or interactions."
    )
    for role in COLUMN_ROLES:
        columns.add_argument(f"--{role}-column", metavar="NAME",
                             help=f"the column holding the {role}")
    add_columns_option(columns)


def add_columns_option(options: Options) -> None:
    """``--columns WHICH:ROLE=COLUMN,...`` or ``--columns WHICH:order=ROLE,ROLE,...``."""
    options.add_argument("--columns", action="append", default=[],
                         metavar="WHICH:ROLE=COLUMN,...", help=COLUMNS_HELP)


def column_overrides(args: argparse.Namespace) -> dict[str, str]:
    """The column names given, by role."""
    return {
        role: getattr(args, f"{role}_column")
        for role in COLUMN_ROLES
        if getattr(args, f"{role}_column")
    }


def columns_for(overrides: dict[str, str], roles: tuple[str, ...],
                chosen: dict[str, str] | None = None) -> dict[str, str] | None:
    """The overrides of the roles one file has, with the columns ``--columns`` chose for it
    (``chosen``), which win; an order given for it replaces them (None: it has none)."""
    if chosen and "order" in chosen:
        return chosen
    picked = {role: name for role, name in overrides.items() if role in roles} | (chosen or {})
    return picked or None


def parse_columns(specs: list[str], known: list[str]) -> dict[str, dict[str, str]]:
    """Each file's columns given with ``--columns``, by WHICH (one of ``known``).

    ``truth:user=customer,item=sku`` names columns by role; ``truth:order=user,item,rating``
    gives the roles of a file without a header line in order (the words after ``order=``
    up to the next ``ROLE=COLUMN``).
    """
    columns: dict[str, dict[str, str]] = {}
    for spec in specs:
        which, chosen = which_file(spec, "--columns", known)
        pairs: list[list[str]] = []
        for part in chosen.split(","):
            role, sep, column = part.partition("=")
            if not sep and pairs and pairs[-1][0].strip() == "order" and part.strip():
                pairs[-1][1] += "," + part
            elif part:
                pairs.append([role if sep else "", column])
        if not pairs or any(not role.strip() or not column for role, column in pairs):
            raise ValueError(f"--columns {spec}: write the columns as ROLE=COLUMN separated "
                             "by commas, such as truth:user=customer,item=sku, or their order "
                             "as order=ROLE,ROLE,..., such as truth:order=user,item,rating.")
        columns[which] = {role.strip(): column for role, column in pairs}
    return columns


def which_file(spec: str, option: str, known: list[str]) -> tuple[str, str]:
    """The file an option's ``WHICH:...`` names (one of ``known``), and what follows."""
    for which in sorted(known, key=len, reverse=True):
        if spec.startswith(which + ":"):
            return which, spec[len(which) + 1:]
    raise ValueError(f"{option} {spec}: it should start with one of "
                     f"{', '.join(known)}, then a colon.")


def told_for_cli(message: str, which: str | None) -> str:
    """A library message with each ``columns={'role': 'name'}`` told as the option
    ``--columns WHICH:role=name`` (as it is without a WHICH)."""
    if which is None:
        return message
    return _NAMED.sub(lambda match: "--columns " + shlex.quote(
        f"{which}:{match.group(1)}={match.group(2)}"), message)


# --- cutoffs --------------------------------------------------------------------------------

DEFAULT_CUTOFFS = (1, 3, 5, 10, 20, 50, 100)
#: Largest K of ``--max-cutoff``: the whole curve prints K rows per model and metric.
MAX_CURVE_CUTOFF = 100_000


def add_cutoffs_options(parser: argparse.ArgumentParser) -> None:
    """``--cutoffs`` or ``--max-cutoff`` (the whole curve), not both."""
    cut = parser.add_mutually_exclusive_group()
    cut.add_argument("--cutoffs", help="comma-separated cutoffs K from 1 to "
                     f"{MAX_CUTOFF:,} (default: {','.join(map(str, DEFAULT_CUTOFFS))}); "
                     "cutoffs beyond the longest list cost nothing more")
    cut.add_argument("--max-cutoff", metavar="K",
                     help=f"every cutoff from 1 to K, at most {MAX_CURVE_CUTOFF:,} "
                     "(the whole curve)")


def read_cutoffs(args: argparse.Namespace) -> list[int]:
    """The cutoffs of ``--cutoffs`` (sorted, each once) or ``--max-cutoff``, else the
    default ones."""
    if args.max_cutoff is not None:
        return list(range(1, cutoff("--max-cutoff", args.max_cutoff, MAX_CURVE_CUTOFF) + 1))
    if args.cutoffs is None:
        return list(DEFAULT_CUTOFFS)
    values = sorted({cutoff("--cutoffs", part, MAX_CUTOFF)
                     for part in args.cutoffs.split(",") if part.strip()})
    if not values:
        raise ValueError(f"--cutoffs must be whole numbers in the range [1, {MAX_CUTOFF}], "
                         f"such as 1,5,10. Got {args.cutoffs!r}.")
    return values


def cutoff(option: str, text: str, highest: int) -> int:
    """One cutoff given on the command line: a whole number in [1, highest]."""
    try:
        value = int(text.strip())
    except ValueError:
        value = None
    if value is None or not 1 <= value <= highest:
        raise ValueError(f"{option}: a cutoff must be a whole number in the range "
                         f"[1, {highest}]. Got {text.strip()!r}.")
    return value


# --- input files ----------------------------------------------------------------------------

def add_decompressed_size_option(options: Options, text: str) -> None:
    """``--max-decompressed-size``: the most a compressed input may expand to."""
    options.add_argument("--max-decompressed-size", metavar="SIZE", help=text)


#: The relevance options' help of a command that describes them briefly.
SHORT_RELEVANCE_HELP = {"threshold": "grade >= T is relevant",
                        "grades": 'graded mapping such as "5=3,4=2"',
                        "binary": "rating >= R is relevant"}


def add_reading_options(parser: argparse.ArgumentParser) -> None:
    """The conventions, the relevance (briefly described) and ``--max-decompressed-size``:
    the options of a command that reads a ground truth and models' files."""
    add_conventions_options(parser)
    add_relevance_options(parser, SHORT_RELEVANCE_HELP)
    add_decompressed_size_option(parser,
                                 "the most a .gz or .zip input may hold once decompressed")


def decompressed_size(args: argparse.Namespace) -> int | None:
    """The bytes of ``--max-decompressed-size`` (None: the default limit)."""
    if args.max_decompressed_size is None:
        return None
    return parse_size(args.max_decompressed_size, "--max-decompressed-size")


@contextmanager
def reading(option: str, path: str, *, after: str = "", which: str | None = None
            ) -> Iterator[None]:
    """Reading the file an option names: a problem with it names the option too, and says
    ``--columns WHICH:...`` where the library says ``columns=``."""
    if not path.strip():
        where = f" after {after!r}" if after else ""
        raise ValueError(f"{option}: no file given{where}.")
    try:
        yield
    except (ValueError, OSError) as error:  # a DataError, or columns the file cannot take
        raise ValueError(f"{option}: {told_for_cli(str(error), which)}") from None


def read_truth_and_runs(args: argparse.Namespace, limit: int | None
                        ) -> tuple[LoadedTable, dict[str, LoadedTable]]:
    """``--truth`` and every ``--run`` read as given, each file's warnings printed, two runs
    of one name refused (for the commands that read files without column choices)."""
    with reading(f"--truth {args.truth}", args.truth):
        truth = read_truth(args.truth, max_decompressed_size=limit)
    warn(truth.warnings)
    runs = {}
    for spec in args.run:
        name, path = run_name_and_path(spec)
        if name in runs:
            raise ValueError(f"Two runs are named {name!r}: name them with NAME=FILE.")
        with reading(f"--run {spec}", path):
            runs[name] = read_run(path, name=name, max_decompressed_size=limit)
        warn(runs[name].warnings)
    return truth, runs


def run_name_and_path(spec: str) -> tuple[str, str]:
    """The model name and the file of ``--run [NAME=]FILE``: NAME defaults to the file name
    without its extensions, as :func:`rankmetrics.io.file_stem` says."""
    name, sep, path = spec.partition("=")
    if sep and name and not Path(spec).exists():
        return name.strip(), path
    return file_stem(Path(spec).name), spec


def warn(messages: list[str], said: set[str] | None = None, *,
         which: str | None = None) -> None:
    """Print each warning once: one about the ground truth comes with every model file
    (``said`` holds the warnings printed so far). ``which`` names the file the warnings are
    about (truth, run:NAME...), for :func:`told_for_cli`."""
    said = set() if said is None else said
    for message in messages:
        if message not in said:
            said.add(message)
            print(f"rankmetrics: warning: {printable(told_for_cli(message, which))}",
                  file=sys.stderr)


# --- saved evaluations ----------------------------------------------------------------------

def refuse_with_bundle(args: argparse.Namespace, *more: tuple[str, object]) -> None:
    """A saved evaluation keeps its files, relevance, conventions and largest K: refuse the
    options that would change them (and ``more`` (option, value) pairs), naming them."""
    given = [option for option, value in (
        ("--truth", args.truth), ("--run", args.run), ("--max-cutoff", args.max_cutoff),
        ("--threshold", args.threshold), ("--grades", args.grades), ("--binary", args.binary),
        ("--threshold-gains", args.threshold_gains),
        *((f"--{option.replace('_', '-')}", getattr(args, option))
          for option in NUMBER_OPTIONS),
        ("--preset", None if args.preset == "default" else args.preset),
        *((f"--{option.replace('_', '-')}", getattr(args, option))
          for option in OPTION_CHOICES), *more) if value is not None]
    if given:
        raise ValueError(f"--bundle: a saved evaluation keeps its files, relevance, "
                         f"conventions and largest K; leave out {', '.join(given)} (or "
                         "evaluate the files again with --truth and --run).")


#: The options naming a file (or folder) a command reads, and what each holds.
INPUT_OPTIONS = (("truth", "--truth", "the ground truth"), ("run", "--run", "a model's output"),
                 ("bundle", "--bundle", "the saved evaluation"),
                 ("interactions", "--interactions", "the training interactions"),
                 ("item_attributes", "--item-attributes", "the item attributes"),
                 ("catalogue", "--catalogue", "the catalogue"),
                 ("segments", "--segments", "the user attributes"))
#: The options naming what a command writes.
OUTPUT_OPTIONS = (("output", "--output"), ("save", "--save"), ("output_dir", "--output-dir"))
#: What --catalogue takes besides a file.
CATALOGUE_WORDS = ("auto", "interactions", "all")


def refuse_own_inputs(args: argparse.Namespace) -> None:
    """Refuse an output (``--output``, ``--save``) that is one of the command's inputs, or
    a folder holding one: writing it would replace what is being read."""
    inputs: list[tuple[str, str, str]] = []
    for attribute, flag, holds in INPUT_OPTIONS:
        given = getattr(args, attribute, None)
        if not given or (attribute == "catalogue" and given in CATALOGUE_WORDS):
            continue
        paths = ([run_name_and_path(spec)[1] for spec in given] if attribute == "run"
                 else [given])
        inputs.extend((path, flag, holds) for path in paths)
    for attribute, flag in OUTPUT_OPTIONS:
        target = getattr(args, attribute, None)
        if not target:
            continue
        out = Path(target)
        for path, input_flag, holds in inputs:
            source = Path(path)
            if not source.exists():
                continue
            if out.exists() and out.samefile(source):
                raise ValueError(f"{flag} {target} is the {input_flag} file, {holds}: writing "
                                 "there would replace it. Choose another file to write.")
            if out.is_dir() and source.resolve().is_relative_to(out.resolve()):
                raise ValueError(f"{flag} {target} is a folder holding the {input_flag} file "
                                 f"{path} ({holds}): writing there could replace it. Choose "
                                 "another folder.")
