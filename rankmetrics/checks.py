"""Argument checks with one message style, used by every public function.

A bad argument raises ValueError naming the argument, what is accepted and the value given,
in the manner of scikit-learn::

    The 'cutoff' argument must be an integer in the range [1, 100]. Got 0 instead.

Each check returns the value as a plain Python object (``np.int64(5)`` becomes ``5``), so
callers keep what the check returns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Integral, Real
from typing import NoReturn, TypeVar

import numpy as np

T = TypeVar("T")


def check_int(name: str, value: object, *, low: int = 1, high: int | None = None) -> int:
    """An integer in the range [low, high] (no upper bound when ``high`` is None).

    >>> check_int("cutoff", np.int64(5), high=10)
    5
    >>> check_int("cutoff", 0, high=100)
    Traceback (most recent call last):
    ...
    ValueError: The 'cutoff' argument must be an integer in the range [1, 100]. Got 0 instead.
    """
    if isinstance(value, Integral) and not isinstance(value, bool) and _in_range(
            int(value), low, high):
        return int(value)
    _fail(name, _int_range(low, high), value)


def check_optional_int(name: str, value: object, *, low: int = 0) -> int | None:
    """None, or an integer of at least ``low`` (a random seed, for instance).

    >>> check_optional_int("seed", None) is None
    True
    >>> check_optional_int("seed", -1)
    Traceback (most recent call last):
    ...
    ValueError: The 'seed' argument must be an integer in the range [0, inf) or None. \
Got -1 instead.
    """
    if value is None:
        return None
    if isinstance(value, Integral) and not isinstance(value, bool) and _in_range(
            int(value), low, None):
        return int(value)
    _fail(name, _int_range(low, None) + " or None", value)


def check_choice(name: str, value: object, choices: Sequence[str]) -> str:
    """One of the given names.

    >>> check_choice("method", "sidak", ("holm", "bh"))
    Traceback (most recent call last):
    ...
    ValueError: The 'method' argument must be one of 'holm', 'bh'. Got 'sidak' instead.
    """
    if not isinstance(value, str) or value not in choices:
        _fail(name, f"one of {', '.join(map(repr, choices))}", value)
    return value


def check_bool(name: str, value: object) -> bool:
    """True or False (not 0 or 1, not a string).

    >>> check_bool("threshold_gains", "yes")
    Traceback (most recent call last):
    ...
    ValueError: The 'threshold_gains' argument must be True or False. Got 'yes' instead.
    """
    if not isinstance(value, bool):
        _fail(name, "True or False", value)
    return bool(value)


def check_probability(name: str, value: object) -> float:
    """A number strictly between 0 and 1 (a confidence level, a significance level).

    >>> check_probability("confidence", 95)
    Traceback (most recent call last):
    ...
    ValueError: The 'confidence' argument must be a number in the range (0, 1), such as 0.95. \
Got 95 instead.
    """
    if isinstance(value, Real) and not isinstance(value, bool) and 0.0 < float(value) < 1.0:
        return float(value)
    _fail(name, "a number in the range (0, 1), such as 0.95", value)


def check_finite(name: str, value: object) -> float:
    """A finite number.

    >>> check_finite("threshold", float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: The 'threshold' argument must be a finite number. Got nan instead.
    """
    if isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    _fail(name, "a finite number", value)


def check_instance(name: str, value: object, kind: type, *, hint: str = "") -> None:
    """An object of one class; anything else is a TypeError naming what was given.

    >>> check_instance("relevance", 4, dict, hint="Build one with dict(...).")
    Traceback (most recent call last):
    ...
    TypeError: The 'relevance' argument must be a dict. Got int instead. Build one with dict(...).
    """
    if not isinstance(value, kind):
        message = (f"The '{name}' argument must be a {kind.__name__}. "
                   f"Got {type(value).__name__} instead.")
        raise TypeError(f"{message} {hint}".rstrip())


def needed(value: T | None, message: str) -> T:
    """``value``, which the caller needs; when it is None, ValueError with ``message`` (what
    is missing and what to give).

    >>> needed(3, "unused")
    3
    >>> needed(None, "Exposure by category needs item attributes with categories.")
    Traceback (most recent call last):
    ...
    ValueError: Exposure by category needs item attributes with categories.
    """
    if value is None:
        raise ValueError(message)
    return value


def plain(value: object) -> object:
    """A NumPy scalar as the Python scalar it holds, so messages show 5, not np.int64(5)."""
    return value.item() if isinstance(value, np.generic) else value


def _in_range(value: int, low: int, high: int | None) -> bool:
    return value >= low and (high is None or value <= high)


def _int_range(low: int, high: int | None) -> str:
    return f"an integer in the range [{low}, {'inf)' if high is None else f'{high}]'}"


def _fail(name: str, accepted: str, value: object) -> NoReturn:
    raise ValueError(f"The '{name}' argument must be {accepted}. Got {plain(value)!r} instead.")
