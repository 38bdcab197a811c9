"""Links that reopen a view: every setting that changes what a page shows lives in the URL.

The query holds settings and the workspace id, never data. It is written at every run from
the session's state (``write_link``) and read once when a session starts (``read_link``);
the page is the URL's path. A value the app cannot use (a model or user the data does not
have, a K out of range, an unknown metric, a grade table that does not make sense) is
dropped with a notice saying so, and the default stays: a link never breaks the app.

Settings that depend on the data (relevance, cutoffs, models, users, the Significance
page's pair) are checked once the data set is prepared (``apply_data_settings``); those that
depend on its evaluation (the one-segment filter, the Beyond accuracy metrics) once the
sidebar has set it up (``apply_view_settings``); the Playground's list when the session
starts (``dashboard.playground_link``), for the page to open with; the others at once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import pandas as pd
import streamlit as st

from dashboard import keys
from dashboard.budget import BUDGET
from dashboard.bundles import DATASET as SAVED_EVALUATION
from dashboard.cached import beyond as cached_beyond
from dashboard.demos import DEMOS
from dashboard.files import is_shared
from dashboard.playground_link import PARAMS as PLAYGROUND_PARAMS
from dashboard.playground_link import PlaygroundView, read_view, write_view
from dashboard.prepared import Prepared
from dashboard.segment_choice import attributes_spec, offered_segmentations, segment_labels
from dashboard.settings import (
    BOOTSTRAP_SAMPLES,
    CONFIDENCE_LEVELS,
    CUTOFF_LIMIT,
    EDITABLE_RATINGS,
    PERMUTATIONS,
    PRESET_CUSTOM,
    Settings,
    build_mapping,
)
from dashboard.store import DAY, StoreUnavailable, workspace_store
from dashboard.text import literal
from dashboard.uploads import DATASET as UPLOADED
from dashboard.uploads import restore
from rankmetrics.conventions import OPTION_CHOICES, PRESETS
from rankmetrics.explain import STEP_METRICS
from rankmetrics.metrics import ALL_METRICS, CUTOFF_METRICS, MAIN_METRICS, METRICS, higher_says
from rankmetrics.stats import CORRECTIONS, TESTS

WORKSPACE_PARAM = "ws"
WORKSPACE_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
SHOWN_VALUE = 40  # characters of a bad value quoted in a notice
T = TypeVar("T")


class Refused(ValueError):
    """A link's value the app cannot use; the message says why."""


@dataclass(frozen=True)
class Param(Generic[T]):
    """One setting in the URL: its name, the session key it fills, how a text value is read
    (raising :class:`Refused`) and written back."""

    name: str
    key: str
    read: Callable[[str], T]
    write: Callable[[T], str] = str


def choice(options: Sequence, what: str, convert: Callable[[str], object] = str):
    def read(text: str) -> object:
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value not in options:
            raise Refused(f"{what} must be one of {', '.join(map(str, options))}")
        return value
    return read


def metric_list(text: str) -> list[str]:
    chosen = [part for part in text.split(",") if part]
    unknown = [part for part in chosen if part not in CUTOFF_METRICS]
    if unknown:
        raise Refused(f"the metrics are {', '.join(CUTOFF_METRICS)}")
    return chosen


def yes_no(text: str) -> bool:
    return choice(("yes", "no"), "it")(text) == "yes"


def _yes_no(value: object) -> str:
    return "yes" if value else "no"


#: Settings checked as soon as the session starts.
SETTINGS = (
    Param("data", keys.DATASET, choice([*DEMOS, UPLOADED], "the data set")),
    Param("preset", keys.PRESET, choice([*PRESETS, PRESET_CUSTOM], "the preset")),
    *(Param(option, keys.convention(option), choice(values, option.replace("_", " ")))
      for option, values in OPTION_CHOICES.items()),
    Param("threshold_gains", keys.convention("threshold_gains"), yes_no, _yes_no),
    Param("confidence", keys.CONFIDENCE, choice(CONFIDENCE_LEVELS, "the confidence level",
                                                float)),
    Param("metrics", keys.COMPARE_METRICS, metric_list, ",".join),
    Param("bands", keys.COMPARE_BANDS, yes_no, _yes_no),
    Param("users_metric", keys.USERS_METRIC, choice(MAIN_METRICS, "the metric")),
    Param("chart", keys.USERS_CHART, choice(("histogram", "box"), "the chart")),
    Param("metric", keys.SIGNIFICANCE_METRIC, choice(MAIN_METRICS, "the metric")),
    Param("test", keys.SIGNIFICANCE_TEST, choice(TESTS, "the test")),
    Param("correction", keys.SIGNIFICANCE_CORRECTION, choice(CORRECTIONS, "the correction")),
    Param("flips", keys.SIGNIFICANCE_PERMUTATIONS, choice(PERMUTATIONS, "the flips", int)),
    Param("resamples", keys.SIGNIFICANCE_BOOTSTRAP,
          choice(BOOTSTRAP_SAMPLES, "the resamples", int)),
    Param("h2h_metric", keys.H2H_METRIC, choice(MAIN_METRICS, "the metric")),
    Param("explain_metric", keys.EXPLAIN_METRIC,
          choice((*MAIN_METRICS, *STEP_METRICS), "the metric")),
    Param("k_metric", keys.CHOOSING_K_METRIC, choice(MAIN_METRICS, "the metric")),
    Param("k_test", keys.CHOOSING_K_TEST, choice(TESTS, "the test")),
    Param("k_correction", keys.CHOOSING_K_CORRECTION, choice(CORRECTIONS, "the correction")),
    Param("segment_metric", keys.SEGMENT_METRIC,
          choice([m for m in METRICS if higher_says(m) is None], "the metric")),
    Param("segment_test", keys.SEGMENT_TEST, choice(TESTS, "the test")),
    Param("segment_correction", keys.SEGMENT_CORRECTION,
          choice(CORRECTIONS, "the correction")),
    Param("buckets", keys.SEGMENT_BUCKETS, choice(range(2, 11), "the buckets", int)),
    Param("tradeoff_accuracy", keys.BEYOND_ACCURACY_METRIC, choice(MAIN_METRICS, "the metric")),
)
#: Settings naming a model of the data set.
MODEL_PARAMS = {"model": keys.USERS_MODEL, "a": keys.H2H_A, "b": keys.H2H_B,
                "explain_model": keys.EXPLAIN_MODEL, "compare_with": keys.EXPLAIN_OTHER,
                "baseline": keys.BASELINE}
#: Settings naming a user of the ground truth.
USER_PARAMS = {"user": keys.H2H_USER, "explain_user": keys.EXPLAIN_USER}
#: The Significance page's pair of models, in words (the better one, the other).
PAIR_PARAMS = ("pair_a", "pair_b")
#: The relevance mapping and the cutoffs.
DATA_PARAMS = ("rel", "grade_min", "kmax", "k", "segment_by", *MODEL_PARAMS, *USER_PARAMS,
               *PAIR_PARAMS)
#: Settings checked against the evaluation (the segments of its users, the beyond-accuracy
#: metrics its files allow).
VIEW_PARAMS = ("users_by", "users_segment", "beyond_metrics", "tradeoff_against")
#: The metric choices that may name any metric with per-user values: one other than the main
#: ones (a per-user beyond-accuracy metric, offered when the data set has the files it needs;
#: an accuracy metric a saved evaluation may not hold) is checked against the evaluation.
PER_USER_PARAMS = {"users_metric": keys.USERS_METRIC, "metric": keys.SIGNIFICANCE_METRIC,
                   "h2h_metric": keys.H2H_METRIC}


#: The longest value a link's setting may hold (a grade table of 100 bands fits); a longer one
#: is left out unread, so that no link makes each click in its tab costly.
LONGEST_LINK_VALUE = 2_000
#: The most bands a link's grade table may have (the sidebar edits up to 20 ratings).
MOST_GRADE_BANDS = 100

# ----- reading a link ------------------------------------------------------------------------


def read_link() -> None:
    """Take the settings of the page's URL into the session (once, when it starts)."""
    state = st.session_state
    params = st.query_params.to_dict()
    state[keys.LINK_NOTICES] = []
    workspace = params.pop(WORKSPACE_PARAM, None)
    if workspace is not None:
        saved = _open_workspace(workspace)
        params = params or saved  # a bare workspace link reopens its last view
        params.pop(WORKSPACE_PARAM, None)
        if state.get(keys.WORKSPACE) and "data" not in params:
            params["data"] = UPLOADED
        elif not state.get(keys.WORKSPACE) and params.get("data") == UPLOADED:
            params.pop("data")  # no files came with it: the demo data, as the notice says
    for name in [name for name, value in params.items() if len(value) > LONGEST_LINK_VALUE]:
        notice(f"the link's setting {_quoted(name)} was left out: its value is "
               f"{len(params.pop(name)):,} characters long, more than the "
               f"{LONGEST_LINK_VALUE:,} a setting may hold")
    later = {name: params.pop(name) for name in PER_USER_PARAMS
             if params.get(name) in ALL_METRICS and params[name] not in MAIN_METRICS}
    for param in SETTINGS:
        if param.name in params:
            _take(param, params.pop(param.name))
    if state[keys.PRESET] in PRESETS:  # a named preset sets every option
        for option, value in PRESETS[state[keys.PRESET]].as_dict().items():
            state[keys.convention(option)] = value
    if state.get(keys.CONFIDENCE) is not None:
        state[keys.CONFIDENCE_CHOICE] = state[keys.CONFIDENCE]
    state[keys.LINK_PENDING] = {name: params.pop(name) for name in DATA_PARAMS
                                if name in params}
    state[keys.LINK_VIEW_PENDING] = {**later, **{name: params.pop(name) for name in VIEW_PARAMS
                                                 if name in params}}
    _take_playground({name: params.pop(name) for name in PLAYGROUND_PARAMS if name in params})
    for name, value in params.items():
        notice(f"the link's setting {_quoted(name)} = {_quoted(value)} is unknown; "
               "it was left out")


def _take_playground(params: dict[str, str]) -> None:
    if not params:
        return
    view, problems = read_view(params)
    st.session_state[keys.PLAYGROUND_FROM_LINK] = view
    for bad in problems:
        _refuse(bad.name, bad.value, bad.why)


def _take(param: Param, text: str) -> None:
    try:
        st.session_state[param.key] = param.read(text)
    except Refused as refused:
        _refuse(param.name, text, str(refused))


def _refuse(name: str, text: str, why: str) -> None:
    notice(f"the link's {name} = {_quoted(text)} was not used: {literal(why)}; the default is "
           "shown")


def _open_workspace(workspace: str) -> dict[str, str]:
    """Open the link's workspace: its files into the session, and its saved settings."""
    store = workspace_store()
    try:
        if not WORKSPACE_ID.fullmatch(workspace) or not store.open(workspace):
            days = store.limits.expiry_seconds / DAY
            notice(f"the link's workspace does not exist on this server: it was deleted, or "
                   f"not used for {days:g} days. The demo data is shown")
            return {}
        files, settings = store.files(workspace), store.settings(workspace)
        # files no open tab holds yet are read into memory: they pass the server's budget
        unread = [stored for stored in files if not is_shared(stored.digest)]
        refusal = BUDGET.admit(store.size(workspace)) if unread else None
    except StoreUnavailable as unavailable:
        notice(f"the link's workspace could not be opened. {literal(str(unavailable))} The "
               "demo data is shown")
        return {}
    if refusal:
        notice(f"the link's workspace was not opened, and is kept as it is. {literal(refusal)} "
               "The demo data is shown")
        return {}
    st.session_state[keys.WORKSPACE] = workspace
    restore(files, lambda content: store.content(workspace, content))
    return settings


def apply_data_settings(prepared: Prepared, ratings: Sequence[float]) -> None:
    """Take the link's relevance, cutoffs, models and users, now that the data is known
    (called right after the sidebar set the data set's defaults)."""
    state = st.session_state
    pending = state.pop(keys.LINK_PENDING, None) or {}
    if "rel" in pending:
        _take_relevance(pending["rel"], pending.get("grade_min"), ratings)
    if "kmax" in pending:
        _take(Param("kmax", keys.MAX_CUTOFF, whole_number(CUTOFF_LIMIT)), pending["kmax"])
    if "k" in pending:
        _take(Param("k", keys.CUTOFF, whole_number(int(state[keys.MAX_CUTOFF]))), pending["k"])
    for name, key in MODEL_PARAMS.items():
        if name in pending:
            _take(Param(name, key, _known(prepared.models, "a model of this data set")),
                  pending[name])
    if "segment_by" in pending:
        _take(Param("segment_by", keys.SEGMENT_BY,
                    _known(offered_segmentations(prepared, attributes_spec()),
                           "a column to split by")),
              pending["segment_by"])
    if any(name in pending for name in PAIR_PARAMS):
        _take_pair(pending.get("pair_a", ""), pending.get("pair_b", ""), prepared.models)
    users = prepared.ground_truth.users
    for name, key in USER_PARAMS.items():
        if name in pending:
            _take(Param(name, key, _known(users, "a user of this ground truth")),
                  pending[name])


def _take_pair(first: str, second: str, models: Sequence[str]) -> None:
    for name, model in zip(PAIR_PARAMS, (first, second), strict=True):
        if model not in models:
            _refuse(name, model, "it is not a model of this data set")
            return
    if first == second:
        _refuse("pair_b", second, "a pair is two different models")
        return
    st.session_state[keys.SIGNIFICANCE_PAIR] = (first, second)


def apply_view_settings(prepared: Prepared, settings: Settings) -> None:
    """Take the link's one-segment filter and Beyond accuracy metrics, now that the
    evaluation's settings are known (called by the sidebar once it has set them)."""
    pending = st.session_state.pop(keys.LINK_VIEW_PENDING, None) or {}
    if "users_by" in pending or "users_segment" in pending:
        _take_segment(pending.get("users_by", ""), pending.get("users_segment", ""), prepared,
                      settings)
    for name, key in PER_USER_PARAMS.items():
        if name in pending:
            _take(Param(name, key, _known(cached_beyond.per_user_metrics(prepared, settings),
                                          "a metric of this data set")), pending[name])
    if "beyond_metrics" in pending or "tradeoff_against" in pending:
        beyond = cached_beyond.beyond_metrics(prepared, settings)
        if "beyond_metrics" in pending:
            _take(Param("beyond_metrics", keys.BEYOND_METRICS, _metrics_of(beyond)),
                  pending["beyond_metrics"])
        if "tradeoff_against" in pending:
            _take(Param("tradeoff_against", keys.BEYOND_TRADEOFF_METRIC,
                        _known(beyond, "a beyond-accuracy metric of this data set")),
                  pending["tradeoff_against"])


def _take_segment(by: str, label: str, prepared: Prepared, settings: Settings) -> None:
    spec = attributes_spec()
    if by not in offered_segmentations(prepared, spec):
        _refuse("users_by", by, "it is not a column to split by")
        return
    if label not in segment_labels(prepared, settings, spec, by):
        _refuse("users_segment", label, f"it is not a segment of {by}")
        return
    st.session_state[keys.SEGMENT_FILTER] = (by, label)


def _metrics_of(offered: Sequence[str]) -> Callable[[str], list[str]]:
    def read(text: str) -> list[str]:
        chosen = [part for part in text.split(",") if part]
        if any(metric not in offered for metric in chosen):
            raise Refused(f"this data set offers {', '.join(offered) or 'none'}")
        return chosen
    return read


def whole_number(highest: int) -> Callable[[str], int]:
    def read(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            value = 0
        if not 1 <= value <= highest:
            raise Refused(f"K is a whole number from 1 to {highest}")
        return value
    return read


def _known(values, what: str) -> Callable[[str], str]:
    def read(text: str) -> str:
        if text not in values:
            raise Refused(f"it is not {what}")
        return text
    return read


def _take_relevance(text: str, grade_text: str | None, ratings: Sequence[float]) -> None:
    state = st.session_state
    try:
        kind, threshold, table, grade_threshold = _relevance(text, grade_text, ratings)
        build_mapping(kind, threshold, table, grade_threshold)
        if kind == "graded" and grade_threshold not in {g for _, g in table if g > 0}:
            raise ValueError(f"no rating has the grade {grade_threshold:g}.")
    except ValueError as error:
        notice(f"the link's relevance {_quoted(text)} was not used: {error} The suggested "
               "mapping is shown")
        return
    state[keys.REL_KIND] = kind
    if kind == "binary":
        state[keys.REL_THRESHOLD] = threshold
    else:
        state[keys.GRADE_TABLE] = pd.DataFrame(table, columns=["rating", "grade"])
        state[keys.REL_GRADE_THRESHOLD] = grade_threshold
    state[keys.GRADE_NONCE] += 1


def _relevance(text: str, grade_text: str | None, ratings: Sequence[float]
               ) -> tuple[str, float, list[tuple[float, float]], float]:
    """The sidebar's relevance controls a link's ``rel`` and ``grade_min`` describe."""
    kind, _, rest = text.partition(":")
    if kind not in ("binary", "graded"):
        raise ValueError("it should start with binary: or graded:.")
    try:
        if kind == "binary":
            threshold, table, grade_threshold = float(rest), [], 1.0
        else:
            threshold, grade_threshold = 0.0, float(grade_text or 1)
            table = [(float(r), float(g)) for r, _, g in
                     (band.partition("=") for band in rest.split(","))]
    except ValueError:
        raise ValueError("it should read binary:RATING or graded:RATING=GRADE,... with "
                         "numbers.") from None
    if len(table) > MOST_GRADE_BANDS:
        raise ValueError(f"its grade table has {len(table):,} bands, more than the "
                         f"{MOST_GRADE_BANDS} a grade table may have.")
    numbers = [threshold, grade_threshold, *(x for band in table for x in band)]
    if not all(math.isfinite(x) for x in numbers):
        raise ValueError("every number must be finite.")
    if kind == "binary" and len(ratings) <= EDITABLE_RATINGS * 5 and threshold not in ratings:
        raise ValueError(f"no rating is {threshold:g}.")
    return kind, threshold, table, grade_threshold


def notice(text: str) -> None:
    st.session_state.setdefault(keys.LINK_NOTICES, []).append(text[0].upper() + text[1:] + ".")


def notices() -> list[str]:
    """Why parts of the link were not used (Markdown, user text escaped)."""
    return list(st.session_state.get(keys.LINK_NOTICES) or [])


def dismiss_notices() -> None:
    st.session_state[keys.LINK_NOTICES] = []


def _quoted(text: object) -> str:
    value = str(text)
    if len(value) > SHOWN_VALUE:
        value = value[:SHOWN_VALUE] + "…"
    return f"“{literal(value)}”"


# ----- writing the link ---------------------------------------------------------------------


def current_params(prepared: Prepared | None) -> dict[str, str]:
    """The session's settings as the URL's query."""
    state = st.session_state
    params: dict[str, str] = {}
    if state.get(keys.WORKSPACE):
        params[WORKSPACE_PARAM] = state[keys.WORKSPACE]
    for param in SETTINGS:
        if state.get(param.key) is not None:
            params[param.name] = param.write(state[param.key])
    if state.get(keys.PRESET) in PRESETS:
        for option in [*OPTION_CHOICES, "threshold_gains"]:
            params.pop(option, None)
    if prepared is not None:
        params.update(_relevance_params())
        params["kmax"], params["k"] = str(state[keys.MAX_CUTOFF]), str(state[keys.CUTOFF])
        for name, key in {**MODEL_PARAMS, **USER_PARAMS, "segment_by": keys.SEGMENT_BY,
                          "tradeoff_against": keys.BEYOND_TRADEOFF_METRIC}.items():
            if state.get(key) is not None:
                params[name] = str(state[key])
        params.update(_view_params())
    params.update(_playground_params())
    return params


def _view_params() -> dict[str, str]:
    """The Significance page's pair, the one-segment filter, the Beyond accuracy metrics."""
    state = st.session_state
    params: dict[str, str] = {}
    if state.get(keys.SIGNIFICANCE_PAIR):
        params.update(zip(PAIR_PARAMS, map(str, state[keys.SIGNIFICANCE_PAIR]), strict=True))
    if state.get(keys.SEGMENT_FILTER):
        params.update(zip(("users_by", "users_segment"), state[keys.SEGMENT_FILTER],
                          strict=True))
    if state.get(keys.BEYOND_METRICS) is not None:
        params["beyond_metrics"] = ",".join(state[keys.BEYOND_METRICS])
    return params


def _playground_params() -> dict[str, str]:
    """The Playground's list, switches and K (as the link said, until the page opens)."""
    state = st.session_state
    if keys.PLAYGROUND not in state:
        pending = state.get(keys.PLAYGROUND_FROM_LINK)
        return write_view(pending) if pending is not None else {}
    return write_view(PlaygroundView(
        scenario=state.get(keys.PLAYGROUND_SCENARIO, "textbook"),
        playground=state[keys.PLAYGROUND], cutoff=state.get(keys.PLAYGROUND_CUTOFF),
        formula=state.get(keys.PLAYGROUND_METRIC),
        present=bool(state.get(keys.PLAYGROUND_PRESENT))))


def _relevance_params() -> dict[str, str]:
    state = st.session_state
    if state.get(keys.REL_KIND) == "binary":
        return {"rel": f"binary:{float(state[keys.REL_THRESHOLD]):g}"}
    rows = state[keys.GRADE_TABLE].dropna()
    bands = ",".join(f"{float(r):g}={float(g):g}"
                     for r, g in zip(rows["rating"], rows["grade"], strict=True))
    return {"rel": f"graded:{bands}",
            "grade_min": f"{float(state.get(keys.REL_GRADE_THRESHOLD, 1)):g}"}


def write_link(prepared: Prepared | None) -> dict[str, str]:
    """Put the session's settings into the URL (and the workspace's saved view). A saved
    evaluation's settings are its own: nothing is written for it."""
    if prepared is not None and prepared.source == SAVED_EVALUATION:
        return {}
    state = st.session_state
    params = current_params(prepared)
    params.update(state.get(keys.LINK_PENDING) or {})  # still to be read: kept in the link
    params.update(state.get(keys.LINK_VIEW_PENDING) or {})
    if params != st.query_params.to_dict():
        st.query_params.from_dict(params)
        if state.get(keys.WORKSPACE):
            store = workspace_store()
            try:
                if store.open(state[keys.WORKSPACE]):
                    store.save_settings(state[keys.WORKSPACE], params)
            except StoreUnavailable:
                pass  # a full or damaged disk: the link itself still holds the settings
    return params

