"""The optional files of a data set: training interactions and item attributes.

They enable the beyond-accuracy metrics (popularity, novelty, diversity); a demo brings its
own, and the uploaded data set takes one of each from the Data page. Kept apart from the
model files and the ground truth, which every page needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

import streamlit as st

from dashboard import keys
from dashboard.budget import BUDGET
from dashboard.demos import DEMOS, demo_extra_specs
from dashboard.files import FileSpec, digest
from dashboard.uploads import DATASET as UPLOADED
from dashboard.uploads import save_in_workspace, set_optional_file
from rankmetrics.io import file_stem


@dataclass(frozen=True)
class ExtraKind:
    """What one optional file is, for the Data page."""

    title: str
    holds: str
    enables: str


EXTRA_KINDS = {
    "interactions": ExtraKind(
        "Training interactions",
        "which items each user interacted with before: user and item columns, a rating or "
        "timestamp column may be there, a pair may repeat",
        "ARP, APLT, ACLT, novelty, the long tail and recall and NDCG on long-tail items; "
        "the catalogue becomes the items trained on",
    ),
    "attributes": ExtraKind(
        "Item attributes",
        "an item column, then categories such as genres (one, or several separated by | or ;) "
        "or numeric features",
        "intra-list diversity (ILD) and the number of categories in the top K",
    ),
}


def extra_specs() -> dict[str, FileSpec]:
    """The active data set's optional files by kind: a demo's own, or the uploaded ones."""
    dataset = st.session_state[keys.DATASET]
    if dataset == UPLOADED:
        return dict(st.session_state.get(keys.BEYOND_FILES, {}))
    return demo_extra_specs(dataset) if dataset in DEMOS else {}  # a saved evaluation: none


def uploader_key(kind: str) -> str:
    return keys.upload_extra(kind, st.session_state[keys.UPLOADER_NONCE])


def take_extra(kind: str) -> None:
    """Uploader callback: keep the file as the uploaded data set's ``kind`` file (replacing
    the one before), unless the server's memory cannot take it."""
    state = st.session_state
    uploaded = state.get(uploader_key(kind))
    if uploaded is None:
        return
    data = uploaded.getvalue()
    state[keys.UPLOADER_NONCE] += 1
    refusal = BUDGET.admit(len(data))
    if refusal:
        state[keys.UPLOAD_REFUSED] = refusal
        return
    state.pop(keys.UPLOAD_REFUSED, None)
    file_name = PurePath(uploaded.name).name
    set_optional_file(kind, FileSpec(id=f"extra/{kind}", kind=kind, file_name=file_name,
                                     name=file_stem(file_name), digest=digest(data),
                                     data=data))
    save_in_workspace()  # in the session's workspace, with the other uploads


def remove_extra(kind: str) -> None:
    set_optional_file(kind, None)
    save_in_workspace()
