"""A saved evaluation (bundle) opened in the dashboard: from an uploaded archive, or from a
folder on the server (``streamlit run app.py -- --bundle DIR``).

The pages cannot tell a bundle from data evaluated here, except where they need raw lists:
the means, user counts and per-user values come from the bundle (:func:`full_evaluation`),
while the NDCG breakdown, the side-by-side lists and the user pickers work on the sampled
users whose raw rows the bundle holds. Those rows become the active data set's files (Parquet
in memory), so the usual reading and ranking prepare them. The relevance mapping, the
conventions and the per-user cutoffs are the bundle's: the sidebar shows them instead of its
controls, and K is chosen among the saved cutoffs.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from dashboard import keys
from dashboard.budget import BUDGET
from dashboard.files import FileSpec, digest
from dashboard.prepared import Prepared
from dashboard.settings import Settings
from dashboard.text import literal
from rankmetrics.bundle import Fingerprint, bundle_read_memory, content_sha256
from rankmetrics.errors import DataError
from rankmetrics.evaluation import SavedEvaluation, load_bundle
from rankmetrics.io import file_stem
from rankmetrics.metrics import MAIN_METRICS, METRICS

DATASET = "bundle"  # the data selector's choice for an opened bundle


@dataclass(frozen=True)
class OpenedBundle:
    """A bundle read for this session, and its sampled users' rows as files."""

    name: str
    token: str
    saved: SavedEvaluation
    truth: FileSpec
    runs: tuple[FileSpec, ...]
    #: The user-attributes file saved with the evaluation (None: none was).
    attributes: FileSpec | None = None
    #: The SHA-256 of the bundle's content (a report names it).
    sha256: str = ""


def open_bundle(source: str | bytes, name: str) -> str | None:
    """Read a bundle (a folder or archive path on the server, or an archive's bytes) and
    make it the active data set; the message saying why not, if it cannot be read."""
    try:
        # what reading it takes, from what its tables declare, must fit beside the sessions'
        refusal = BUDGET.admit(bundle_read_memory(source), expansion=0)
        if refusal:
            return f"{name}: {refusal}"
        saved = load_bundle(source, max_memory=BUDGET.limit_bytes)
    except DataError as error:
        return str(error)
    missing = [METRICS[metric].label for metric in MAIN_METRICS if metric not in saved.metrics]
    if missing:  # every page draws the main metrics' curves
        return (f"{name}: this saved evaluation holds {', '.join(saved.metrics)} only; the "
                f"dashboard also needs {', '.join(missing)}. Save it again with every main "
                "metric (without --metrics, or with --metrics "
                f"{','.join(MAIN_METRICS)} and any others).")
    token = digest(source if isinstance(source, bytes) else str(source).encode())
    truth = _spec("truth", "sampled ground truth", saved.sample_truth, token)
    runs = tuple(
        _spec("run", model, saved.sample_runs[saved.sample_runs["model"] == model]
              .drop(columns="model"), token)
        for model in saved.models
    )
    attributes = None
    if saved.user_attributes is not None:
        file_name, data = saved.user_attributes
        attributes = FileSpec(id=f"bundle/{token[:12]}/user_attributes", kind="user_attributes",
                              file_name=file_name, name=file_stem(file_name),
                              digest=digest(data), data=data)
    state = st.session_state
    state[keys.BUNDLE] = OpenedBundle(name, token, saved, truth, runs, attributes,
                                      content_sha256(source))
    state[keys.DATASET] = DATASET
    return None


def _spec(kind: str, name: str, rows: pd.DataFrame, token: str) -> FileSpec:
    buffer = io.BytesIO()
    rows.reset_index(drop=True).to_parquet(buffer, index=False)
    data = buffer.getvalue()
    return FileSpec(id=f"bundle/{token[:12]}/{kind}/{name}", kind=kind,
                    file_name=f"{name}.parquet", name=name, digest=digest(data), data=data)


def opened() -> OpenedBundle | None:
    """The bundle this session opened (None: none)."""
    return st.session_state.get(keys.BUNDLE)


def bundle_specs() -> tuple[FileSpec | None, list[FileSpec]]:
    """The sampled users' ground truth and model rows, as the active data set's files."""
    bundle = opened()
    if bundle is None:
        return None, []
    return bundle.truth, list(bundle.runs)


def open_from_command_line(arguments: list[str] | None = None) -> None:
    """Open the bundle named by ``--bundle DIR`` after ``streamlit run app.py --``, once per
    session (a problem is shown on the Data page)."""
    arguments = sys.argv[1:] if arguments is None else arguments
    state = st.session_state
    if "--bundle" not in arguments or keys.BUNDLE_FROM_COMMAND_LINE in state:
        return
    position = arguments.index("--bundle") + 1
    path = arguments[position] if position < len(arguments) else ""
    state[keys.BUNDLE_FROM_COMMAND_LINE] = path
    state[keys.BUNDLE_PROBLEM] = open_bundle(path, path) if path else (
        "--bundle needs a folder or archive: streamlit run app.py -- --bundle DIR")


def full_evaluation(prepared: Prepared) -> SavedEvaluation | None:
    """The bundle's evaluation of every user when ``prepared`` is a bundle's sample."""
    bundle = opened()
    if prepared.source != DATASET or bundle is None:
        return None
    return bundle.saved


def bundle_settings(prepared: Prepared, *, shown: bool = True) -> Settings:
    """The sidebar for a bundle: what it was saved with, and K among its saved cutoffs (where
    not ``shown``, as last chosen)."""
    bundle = opened()
    if bundle is None:
        raise ValueError("No saved evaluation is open.")
    saved = bundle.saved
    state = st.session_state
    for option, value in saved.conventions.as_dict().items():
        state[keys.convention(option)] = value  # the NDCG page's radios show them
    cutoffs = [cutoff for cutoff in saved.cutoffs if cutoff <= saved.max_cutoff]
    if state.get(keys.BUNDLE_CUTOFF) not in cutoffs:
        state[keys.BUNDLE_CUTOFF] = 10 if 10 in cutoffs else cutoffs[-1]
    if shown:
        st.subheader("Saved evaluation")
        where = "one machine" if saved.engine == "single machine" else literal(saved.engine)
        st.caption(f"**{literal(bundle.name)}**, computed by rankmetrics "
                   f"{literal(str(saved.info.get('rankmetrics_version')))} on {where}. "
                   "Its relevance and conventions are fixed: evaluate again to change them.")
        st.select_slider("K for tables and distributions", options=cutoffs,
                         key=keys.BUNDLE_CUTOFF, persist_state="session",
                         help="The bundle holds per-user values at these cutoffs; the curves "
                         f"show every K up to {saved.max_cutoff}.")
        st.divider()
        st.caption(f"**Relevance:** {saved.relevance.describe()}")
        st.caption(f"**Conventions:** {saved.conventions.summary()}")
    return Settings(saved.relevance, saved.conventions, int(state[keys.BUNDLE_CUTOFF]),
                    saved.max_cutoff)


def sample_note(prepared: Prepared) -> None:
    """On pages showing raw lists: say they are those of the bundle's sampled users."""
    if full_evaluation(prepared) is not None:
        st.info(f"This is a saved evaluation: the lists here are those of the "
                f"{prepared.ground_truth.n_users:,} sampled users whose rows it holds "
                "(every other number covers all users).", icon=":material/info:")


def upload_control() -> None:
    """The Data page's upload of a saved evaluation (a .zip archive), and why the last one
    could not be opened."""
    st.file_uploader(
        "Saved evaluation: one .zip archive", type=["zip"], key=keys.BUNDLE_UPLOAD,
        on_change=_take_upload,
        help="An archive written by Evaluation.save('name.zip') or `rankmetrics evaluate "
        "--save name.zip` (also with --engine spark).",
    )
    problem = st.session_state.get(keys.BUNDLE_PROBLEM)
    if problem:
        st.error(literal(problem), icon=":material/error:")


def _take_upload() -> None:
    uploaded = st.session_state.get(keys.BUNDLE_UPLOAD)
    if uploaded is not None:
        st.session_state[keys.BUNDLE_PROBLEM] = open_bundle(uploaded.getvalue(), uploaded.name)


def describe_opened() -> None:
    """What the opened bundle holds, for the Data page."""
    bundle = opened()
    if bundle is None:
        return
    saved = bundle.saved
    st.subheader(f"Saved evaluation: {literal(bundle.name)}")
    st.markdown(
        f"Computed by rankmetrics {literal(str(saved.info.get('rankmetrics_version')))} on "
        f"{literal(saved.engine)}: {len(saved.models)} model(s), means at every K up to "
        f"{saved.max_cutoff}, per-user values at K = {', '.join(map(str, saved.cutoffs))}, "
        f"and the raw lists of {len(saved.sampled_users):,} sampled users (the files below)."
        + (" It also holds the beyond-accuracy metrics computed when it was saved (see the "
           "Beyond accuracy page)." if saved.beyond is not None else ""))
    beyond_inputs = saved.beyond.inputs_read if saved.beyond is not None else {}
    st.dataframe(inputs_table(saved.inputs, beyond_inputs), hide_index=True,
                 key="bundle_inputs")


def inputs_table(inputs: Mapping[str, Fingerprint],
                 beyond_inputs: Mapping[str, Fingerprint] | None = None) -> pd.DataFrame:
    """One row per input (the evaluated ones, then the beyond-accuracy ones): rows, users
    ("–" for an input whose rows are items) and content hash. How the hashes were computed
    heads their column when every input's was computed the same way, else has a column of
    its own; inputs saved without hashes have neither column."""
    prints = [*inputs.items(), *(beyond_inputs or {}).items()]
    table = pd.DataFrame([{"input": name, "rows": f"{fingerprint.rows:,}",
                           "users": "–" if fingerprint.users is None
                           else f"{fingerprint.users:,}",
                           "content hash": fingerprint.content_hash or "–",
                           "hash": fingerprint.hash_kind or "–"}
                          for name, fingerprint in prints])
    kinds = {fingerprint.hash_kind for _, fingerprint in prints}
    if not any(fingerprint.content_hash for _, fingerprint in prints):
        return table.drop(columns=["content hash", "hash"])
    if len(kinds) == 1 and None not in kinds:
        return table.drop(columns="hash").rename(
            columns={"content hash": f"content hash ({kinds.pop()})"})
    return table


def users_with_lists(prepared: Prepared, users: list[str]) -> list[str]:
    """``users`` without repeats, and for a saved evaluation only its sampled users (the
    ones whose lists it holds)."""
    unique = list(dict.fromkeys(users))
    if full_evaluation(prepared) is None:
        return unique
    sampled = set(prepared.ground_truth.users)
    return [user for user in unique if user in sampled]


def saved_beyond(prepared: Prepared) -> bool:
    """Whether ``prepared`` is a saved evaluation holding beyond-accuracy results."""
    saved = full_evaluation(prepared)
    return saved is not None and saved.beyond is not None


def beyond_from_saved(prepared: Prepared) -> bool:
    """On the Beyond accuracy page: say that a saved evaluation's numbers were computed when
    it was saved, and with what (True: it is a saved evaluation); without them, say what
    they would need and stop the page."""
    saved = full_evaluation(prepared)
    if saved is None:
        return False
    if saved.beyond is None:
        st.info("This saved evaluation holds the accuracy metrics only: it was saved without "
                "training interactions, item attributes or a catalogue. Coverage, popularity "
                "bias, novelty, diversity and personalization need every user's whole list at "
                "each K (and, for popularity and novelty, the training interactions; for "
                "diversity, the item attributes), which it does not keep. Save it again with "
                "them (`rankmetrics evaluate ... --interactions FILE --item-attributes FILE "
                "--save DIR`, or `Evaluation.save` after `evaluate(..., interactions=...)`), "
                "or evaluate the models' files here: choose or upload them on the Data page, "
                "with the training interactions and item attributes.",
                icon=":material/info:")
        st.stop()
    st.info(saved_beyond_note(saved), icon=":material/info:")
    return True


def saved_beyond_note(saved: SavedEvaluation) -> str:
    """Where a saved evaluation's beyond-accuracy numbers come from, as Markdown."""
    beyond = saved.beyond
    if beyond is None:
        return ""
    names = {"interactions": "the training interactions",
             "item_attributes": "the item attributes", "catalogue": "the catalogue"}
    inputs = [f"{names.get(name, literal(name))} ({fingerprint.rows:,} rows"
              + (f", {fingerprint.users:,} users)" if fingerprint.users is not None else ")")
              for name, fingerprint in beyond.inputs_read.items()]
    options = beyond.options
    return (
        "These numbers were computed from every user's whole lists **when the evaluation "
        f"was saved** (rankmetrics {literal(str(saved.info.get('rankmetrics_version')))}), "
        f"from {' and '.join(inputs) or 'the models’ lists alone'}, with the options "
        f"popularity = {options.popularity}, long tail = {options.long_tail} "
        f"(share {options.long_tail_share:g}), distribution = {options.distribution}; "
        "evaluate the files again to change them. Per-user values and the popularity "
        f"deciles are kept at K = {', '.join(map(str, saved.cutoffs))}; the trade-off has "
        "no interval for coverage, Gini, entropy or personalization, whose resampling "
        "needs every user's list."
    )
