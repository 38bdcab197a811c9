"""Segments in the app: where the user attributes come from, the segmentations on offer, and
the small control that narrows the Users, Significance and Head-to-head pages to one segment.

Narrowing builds the data set of the segment's users alone (its ground truth and each model's
rows for those users), so every number those pages show is the number of evaluating that
segment by itself; it is kept in the server's memory budget like any prepared data set.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import streamlit as st

from dashboard import keys
from dashboard.budget import BUDGET
from dashboard.bundles import DATASET as BUNDLE
from dashboard.bundles import full_evaluation
from dashboard.bundles import opened as opened_bundle
from dashboard.cached import inputs as cached_inputs
from dashboard.cached import segments as cached_segments
from dashboard.cached import shared
from dashboard.controls import ensure_choice
from dashboard.demos import DEMOS, demo_attributes_spec
from dashboard.files import FileSpec, digest
from dashboard.prepared import Prepared
from dashboard.settings import Settings
from dashboard.text import code, literal
from dashboard.uploads import save_in_workspace, set_optional_file
from rankmetrics import GroundTruth, RankedRun
from rankmetrics.io import (
    HashedIds,
    LoadedTable,
    file_stem,
    run_codes,
    run_from_dataframe,
    truth_codes,
    truth_from_dataframe,
)
from rankmetrics.segments import N_BUCKETS, segmentation_names

ALL_USERS = None
#: The selector's option for all users: a widget whose value is None shows no choice at all
#: ("Choose an option") in the browser, so the selector holds this instead of ALL_USERS.
ALL_USERS_OPTION = ("", "")


def attributes_spec() -> FileSpec | None:
    """The user-attributes file in use: the one uploaded, else the demo's (if it has one) or
    the one saved with the opened evaluation."""
    uploaded = st.session_state.get(keys.USER_ATTRIBUTES)
    if uploaded is not None:
        return uploaded
    dataset = st.session_state[keys.DATASET]
    bundle = opened_bundle()
    if dataset == BUNDLE and bundle is not None:
        return bundle.attributes
    return demo_attributes_spec(dataset) if dataset in DEMOS else None


def attributes_section() -> None:
    """The Data page's optional upload of user attributes, and what was read from the file in
    use."""
    state = st.session_state
    state.setdefault(keys.USER_ATTRIBUTES_NONCE, 0)
    st.file_uploader(
        "User attributes (optional): one file", key=_uploader_key(),
        on_change=_take_attributes,
        help="One row per user: a user column and any others, such as country, plan or age. "
        "They split the users into segments on the Segments page.",
    )
    spec = attributes_spec()
    if spec is None:
        st.caption("No user attributes: the Segments page offers the automatic segments only.")
        return
    attributes, problem = cached_segments.user_attributes(spec)
    with st.container(border=True):
        st.markdown("#### User attributes")
        st.caption(f"file {literal(spec.file_name)}"
                   + (" · used for every data set until removed"
                      if spec is state.get(keys.USER_ATTRIBUTES) else ""))
        if problem:
            st.error(literal(problem), icon=":material/error:")
        if attributes is not None:
            kinds = " · ".join(f"{code(name)}: {KIND_WORDS[kind]}"
                               for name, kind in attributes.kinds.items())
            st.markdown(f"**{len(attributes.table):,} users**, user ← "
                        f"{code(attributes.key_column)}; {kinds or 'no other column'}")
            for warning in attributes.warnings:
                st.warning(literal(warning), icon=":material/warning:")
            with st.expander("Preview: the first 10 rows as read"):
                st.dataframe(attributes.table.head(10), hide_index=True)
        if spec is state.get(keys.USER_ATTRIBUTES):
            st.button("Remove", key="remove_user_attributes", icon=":material/delete:",
                      on_click=_remove_attributes)


KIND_WORDS = {"category": "categories", "categories": "several categories per user",
              "number": "a number (cut into quantile buckets)"}


def _uploader_key() -> str:
    return keys.upload_user_attributes(st.session_state[keys.USER_ATTRIBUTES_NONCE])


def _take_attributes() -> None:
    """Uploader callback: keep the file (when the server's memory can take it)."""
    state = st.session_state
    uploaded = state.get(_uploader_key())
    state[keys.USER_ATTRIBUTES_NONCE] += 1
    if uploaded is None:
        return
    data = uploaded.getvalue()
    refusal = BUDGET.admit(len(data))
    if refusal:
        state[keys.UPLOAD_REFUSED] = refusal
        return
    set_optional_file("user_attributes", FileSpec(
        id="upload/user_attributes", kind="user_attributes", file_name=uploaded.name,
        name=file_stem(uploaded.name), digest=digest(data), data=data))
    save_in_workspace()  # in the session's workspace, with the other uploads


def _remove_attributes() -> None:
    set_optional_file("user_attributes", None)
    save_in_workspace()


def offered_segmentations(prepared: Prepared, spec: FileSpec | None) -> list[str]:
    """The attribute columns of the file (when it reads), then the automatic segmentations
    (activity and cold start when the data set has training interactions)."""
    attributes = None if spec is None else cached_segments.user_attributes(spec)[0]
    return segmentation_names(attributes, cached_segments.training_counts(prepared),
                              has_ground_truth=full_evaluation(prepared) is None)


def segment_labels(prepared: Prepared, settings: Settings, spec: FileSpec | None,
                   by: str) -> list[str]:
    """The segments of the users split by ``by`` (numbers cut into the chosen buckets)."""
    split = cached_segments.segmentation(prepared, settings, spec, by, _buckets())
    return [str(label) for label in split.sizes().index]


def segment_filter(prepared: Prepared, settings: Settings) -> Prepared:
    """A selector "Users: all, or one segment"; the data set of the chosen segment's users
    (or ``prepared`` itself for all users; always, for a saved evaluation)."""
    if full_evaluation(prepared) is not None:
        return prepared
    spec = attributes_spec()
    buckets = _buckets()
    options: list[tuple[str, str] | None] = [ALL_USERS]
    sizes: dict[tuple[str, str], int] = {}
    for by in offered_segmentations(prepared, spec):
        split = cached_segments.segmentation(prepared, settings, spec, by, buckets)
        for label, size in split.sizes().items():
            sizes[(by, str(label))] = int(size)
            options.append((by, str(label)))
    # Each page's selector is its own widget; the choice lives in SEGMENT_FILTER, which each
    # selector starts from (as the confidence level does, see dashboard.controls).
    state = st.session_state
    state.setdefault(keys.SEGMENT_FILTER, ALL_USERS)
    ensure_choice(keys.SEGMENT_FILTER, options)
    chosen = state[keys.SEGMENT_FILTER]
    state[keys.SEGMENT_FILTER_CHOICE] = ALL_USERS_OPTION if chosen is None else chosen
    st.selectbox(
        "Users", [ALL_USERS_OPTION if option is None else option for option in options],
        key=keys.SEGMENT_FILTER_CHOICE, on_change=_keep_filter,
        format_func=lambda choice: ("All users" if choice == ALL_USERS_OPTION else
                                    f"{choice[0]} = {choice[1]} ({sizes[choice]:,} users)"),
        help="Look at one segment of users only (the user attributes come from the Data "
        "page; the Segments page compares the models in every segment). Numbers are then "
        "those of these users alone.",
    )
    choice = state[keys.SEGMENT_FILTER]
    if choice is None:
        return prepared
    by, label = choice
    with st.spinner(f"Preparing the users of {literal(by)} = {literal(label)}…"):
        narrowed = shared(
            ("segment", prepared.key, spec.token if spec else None, by, buckets, label,
             settings.conventions.ties),
            lambda: _segment_data(prepared, settings, spec, by, buckets, label))
    for name, problem in narrowed.problems.items():
        if name not in prepared.problems:
            st.warning(f"**{literal(name)}** is left out here: {literal(problem)}.")
    return narrowed


def _buckets() -> int:
    """Numbers are cut into as many buckets as the Segments page last chose."""
    return int(st.session_state.get(keys.SEGMENT_BUCKETS, N_BUCKETS))


def _keep_filter() -> None:
    choice = st.session_state[keys.SEGMENT_FILTER_CHOICE]
    st.session_state[keys.SEGMENT_FILTER] = (ALL_USERS if choice in (None, ALL_USERS_OPTION)
                                             else tuple(choice))


def _segment_data(prepared: Prepared, settings: Settings, spec: FileSpec | None, by: str,
                  buckets: int, label: str) -> Prepared:
    split = cached_segments.segmentation(prepared, settings, spec, by, buckets)
    members = split.users_of(label, prepared.ground_truth.users.to_numpy())
    users = pa.array(members.tolist(), pa.string())
    truth = truth_from_dataframe(_rows_of(prepared.truth, users), name=prepared.truth.source)
    ground_truth = GroundTruth.from_loaded(truth)
    runs, problems = {}, dict(prepared.problems)
    for name in prepared.runs:
        kept = _rows_of(cached_inputs.table_of(prepared.specs[name]), users)
        if kept.empty:
            problems[name] = f"it recommends nothing to the users of {by} = {label}"
            continue
        run = run_from_dataframe(kept, name=name)
        runs[name] = RankedRun.from_loaded(run, ground_truth, ties=settings.conventions.ties,
                                           identical_ids=settings.conventions.identical_ids)
    key = digest(f"{prepared.key}|{spec.token if spec else ''}|{by}|{buckets}|{label}".encode())
    return replace(prepared, key=key, truth=truth, ground_truth=ground_truth, runs=runs,
                   problems=problems)


def _rows_of(table: LoadedTable, users: pa.Array) -> pd.DataFrame:
    """The rows of a read run or ground truth whose user is one of ``users``, found by the
    codes made while reading (a file's pandas table is never built for this)."""
    user_ids, item_ids, table = (truth_codes if table.kind == "truth" else run_codes)(table)
    wanted = pc.fill_null(pc.is_in(user_ids.values, value_set=users), False)
    rows = np.flatnonzero(np.append(wanted.to_numpy(zero_copy_only=False), False)[
        user_ids.codes])  # code -1 (a missing id) takes the last entry
    items = (item_ids.rows(rows) if isinstance(item_ids, HashedIds)
             else item_ids.values.take(pa.array(item_ids.codes[rows])))
    return pd.DataFrame({
        "user": user_ids.values.take(pa.array(user_ids.codes[rows])).to_pandas(),
        "item": items.to_pandas(),
        "score" if table.kind == "run" else "rating": table.numbers()[rows],
    })
