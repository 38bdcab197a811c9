"""What ``evaluation.json`` must hold, checked as a whole when a bundle is read.

Each field is declared once (:data:`FIELDS`): its name, what it holds in words, and a check of
its value. A field a newer rankmetrics added (of the same format version) is ignored, and so
are keys it added inside the conventions and the input fingerprints; a missing or damaged
field is named, with what it should hold. Every failure is one :class:`DataError` naming the
bundle.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from rankmetrics.bundle._format import METADATA
from rankmetrics.conventions import Conventions
from rankmetrics.errors import DataError
from rankmetrics.results import Fingerprint


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _whole(value: Any, low: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(name, str) for name in value)


def _cutoffs(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(_whole(k, 1) for k in value)


def _mapping(value: Any) -> bool:
    return isinstance(value, dict)


def _user_counts(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(row, dict) and _text(row.get("model")) and _whole(row.get("users"))
        for row in value)


def _grade(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value >= 0)


#: Each field of ``evaluation.json``: whether it must be there, what it holds, its check.
FIELDS: dict[str, tuple[bool, str, Callable[[Any], bool]]] = {
    "engine": (True, "the engine that computed it, as text", _text),
    "models": (True, "the models' names, a list of at least one", lambda v: _names(v) and v),
    "metrics": (True, "the metrics' names, a list", _names),
    "relevance": (True, "how ratings became relevance, an object", _mapping),
    "conventions": (True, "the conventions, an object", _mapping),
    "max_cutoff": (True, "the largest K, a whole number from 1", lambda v: _whole(v, 1)),
    "per_user_cutoffs": (True, "the cutoffs every user's values were saved at, a list of "
                         "whole numbers from 1", _cutoffs),
    "user_counts": (True, "each model's users averaged, a list of objects with a model and "
                    "its users", _user_counts),
    "sample_users": (True, "how many users' rows were sampled, a whole number", _whole),
    "inputs": (True, "a fingerprint of each input, an object", _mapping),
    "beyond": (False, "the beyond-accuracy results, an object", _mapping),
    "max_grade": (False, "ERR's highest grade, a number of 0 or more", _grade),
    "parts": (False, "the SHA-256 of each file of the bundle, an object", _mapping),
}

CONVENTION_KEYS = frozenset(field.name for field in dataclasses.fields(Conventions))
FINGERPRINT_KEYS = frozenset(field.name for field in dataclasses.fields(Fingerprint))


def checked_metadata(info: dict, name: str) -> dict:
    """``info`` checked field by field (see the module docstring), with what this version
    does not read left out of the conventions and fingerprints."""
    for field, (required, holds, check) in FIELDS.items():
        if field not in info:
            if required:
                raise DataError(f"{METADATA} has no '{field}' ({holds}): the bundle is "
                                "damaged. Save the evaluation again.", file=name)
            continue
        if not check(info[field]):
            raise DataError(f"{METADATA}'s '{field}' should be {holds}; it is "
                            f"{_shown(info[field])}. The bundle is damaged: save the "
                            "evaluation again.", file=name)
    cleaned = dict(info)
    cleaned["conventions"] = {key: value for key, value in info["conventions"].items()
                              if key in CONVENTION_KEYS}
    inputs = {}
    for role, print_ in info["inputs"].items():
        if not isinstance(print_, dict) or not _whole(print_.get("rows")):
            raise DataError(f"{METADATA}'s fingerprint of the input '{role}' should be an "
                            "object with its rows; the bundle is damaged: save the "
                            "evaluation again.", file=name)
        inputs[role] = {key: value for key, value in print_.items() if key in FINGERPRINT_KEYS}
    cleaned["inputs"] = inputs
    counted = [row["model"] for row in info["user_counts"]]
    if sorted(counted) != sorted(info["models"]):
        raise DataError(f"{METADATA}'s user counts are for {', '.join(counted) or 'no model'}, "
                        f"its models are {', '.join(info['models'])}: the bundle is damaged. "
                        "Save the evaluation again.", file=name)
    beyond_cutoffs = [k for k in info["per_user_cutoffs"] if k > info["max_cutoff"]]
    if beyond_cutoffs:
        raise DataError(f"{METADATA}'s per-user cutoffs {beyond_cutoffs} are above its largest "
                        f"K, {info['max_cutoff']}: the bundle is damaged. Save the evaluation "
                        "again.", file=name)
    return cleaned


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
