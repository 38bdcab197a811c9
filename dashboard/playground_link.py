"""The Playground's state in the page's link: the list as edited, the scenario it started from,
its switches, K and the formula shown.

The list is written item by item (``item:grade:score``, best first as scored) so a link
reopens the very list a teacher built, ties included; the relevant items it misses are
their grades. Reading checks every value through the library's own ``Playground`` (at most
30 items, grades 0 to 10, each item once), so a hand-edited link cannot build a list the
page could not have.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeVar

from rankmetrics.conventions import AP_DENOMINATORS, GAINS, IDEALS, TIES, Conventions
from rankmetrics.playground import (
    COLUMNS,
    MAX_GRADE,
    MAX_ITEMS,
    ListItem,
    Playground,
    scenarios,
)

#: The switches of the page, as the link names them, and their choices.
SWITCH_CHOICES = {"pg_gain": ("gain", GAINS), "pg_ideal": ("ideal", IDEALS),
                  "pg_ap": ("ap_denominator", AP_DENOMINATORS), "pg_ties": ("ties", TIES)}
FORMULAS = tuple(m for m in COLUMNS if m != "idcg")
#: Every value of the link the Playground reads.
PARAMS = ("pg_scenario", "pg_list", "pg_missing", "pg_threshold", *SWITCH_CHOICES, "pg_k",
          "pg_formula", "pg_present")
ITEM = re.compile(r"[^,:]{1,40}")  # an item id as the list writes it
T = TypeVar("T")


class BadValue(ValueError):
    """A value of the link the playground cannot use: its name, the value and why."""

    def __init__(self, name: str, value: str, why: str) -> None:
        super().__init__(why)
        self.name, self.value, self.why = name, value, why


@dataclass(frozen=True)
class PlaygroundView:
    """What a link says of the Playground; ``playground`` None: the scenario's own list."""

    scenario: str = "textbook"
    playground: Playground | None = None
    cutoff: int | None = None
    formula: str | None = None
    present: bool = False


def read_view(params: dict[str, str]) -> tuple[PlaygroundView, list[BadValue]]:
    """The view the link's ``pg_*`` values describe, and the values not used (each bad value
    is left out, the rest kept)."""
    problems: list[BadValue] = []
    view = PlaygroundView()
    names = ("textbook", *scenarios())
    if "pg_scenario" in params:
        if params["pg_scenario"] in names:
            view = replace(view, scenario=params["pg_scenario"])
        else:
            problems.append(BadValue("pg_scenario", params["pg_scenario"],
                                     f"the scenarios are {', '.join(names)}"))
    if "pg_list" in params:
        try:
            view = replace(view, playground=_playground(params))
        except BadValue as bad:
            problems.append(bad)

    def checked(name: str, read: Callable[[str], T], default: T) -> T:
        """The link's value of ``name`` as ``read`` reads it; ``default`` when the link has
        none, or a bad one (then noted in ``problems``)."""
        if name not in params:
            return default
        try:
            return read(params[name])
        except ValueError as bad:
            problems.append(BadValue(name, params[name], str(bad)))
            return default

    view = replace(view, cutoff=checked("pg_k", _cutoff, view.cutoff),
                   formula=checked("pg_formula", _formula, view.formula),
                   present=checked("pg_present", _yes, view.present))
    return view, problems


def write_view(view: PlaygroundView) -> dict[str, str]:
    """The link's ``pg_*`` values of ``view``."""
    params = {"pg_scenario": view.scenario}
    if view.playground is not None:
        pg = view.playground
        params["pg_list"] = ",".join(f"{entry.item}:{entry.grade}:{entry.score!r}"
                                     for entry in pg.items)
        if pg.beyond:
            params["pg_missing"] = ",".join(map(str, pg.beyond))
        params["pg_threshold"] = str(pg.threshold)
        for name, (option, _) in SWITCH_CHOICES.items():
            params[name] = str(getattr(pg.conventions, option))
    if view.cutoff is not None:
        params["pg_k"] = str(view.cutoff)
    if view.formula is not None:
        params["pg_formula"] = view.formula
    if view.present:
        params["pg_present"] = "yes"
    return params


def _playground(params: dict[str, str]) -> Playground:
    text = params["pg_list"]
    items = []
    for part in text.split(","):
        name, _, rest = part.partition(":")
        grade, _, score = rest.partition(":")
        if not ITEM.fullmatch(name):
            raise BadValue("pg_list", text, "each item reads ITEM:GRADE:SCORE, separated by "
                           "commas")
        items.append(ListItem(name, _grade("pg_list", text, grade),
                              _score("pg_list", text, score)))
    missing = params.get("pg_missing", "")
    beyond = tuple(_grade("pg_missing", missing, g) for g in missing.split(",") if g)
    switches = {}
    for name, (option, choices) in SWITCH_CHOICES.items():
        if name in params:
            if params[name] not in choices:
                raise BadValue(name, params[name], f"the choices are {', '.join(choices)}")
            switches[option] = params[name]
    threshold_text = params.get("pg_threshold", "1")
    threshold = _grade("pg_threshold", threshold_text, threshold_text)
    try:
        return Playground(tuple(items), beyond, threshold,
                          Conventions.preset("default", **switches))
    except (ValueError, TypeError) as error:
        raise BadValue("pg_list", text, str(error).rstrip(".")) from None


def _grade(name: str, text: str, value: str) -> int:
    if not value.isdigit() or int(value) > MAX_GRADE:
        raise BadValue(name, text, f"a grade is a whole number from 0 to {MAX_GRADE}")
    return int(value)


def _score(name: str, text: str, value: str) -> float:
    try:
        score = float(value)
    except ValueError:
        score = math.nan
    if not math.isfinite(score):
        raise BadValue(name, text, "a score is a finite number")
    return score


def _cutoff(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_ITEMS:
        raise ValueError(f"K is a whole number from 1 to {MAX_ITEMS}")
    return int(text)


def _formula(text: str) -> str:
    if text not in FORMULAS:
        raise ValueError(f"the formulas are {', '.join(FORMULAS)}")
    return text


def _yes(text: str) -> bool:
    if text not in ("yes", "no"):
        raise ValueError("it must be yes or no")
    return text == "yes"

