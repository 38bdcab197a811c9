"""Data: the files being compared, what was read from them, and uploads of your own."""

import streamlit as st

from pages import _state
from rankmetrics.io import LoadedTable

FORMATS = (
    "CSV or TSV (also .gz or .zip), Parquet, JSON Lines, TREC runs and qrels, or one row per "
    "user with a list of items. Columns are found by their usual names (user / user_id / "
    "query, item / item_id / doc, score / prediction or rank, rating / relevance / label)."
)
RANKING = {"score": "ordered by score (higher is better)",
           "rank": "ordered by rank (1 is best; shown as score = −rank)",
           "list_position": "ordered by list position (shown as score = −position)"}

_state.header(
    "Data",
    "The ground truth says which items each user liked; each model file says what the model "
    "recommended to each user. Upload your own files here, or look at what the demo holds.",
)
state = st.session_state
truth_spec, run_specs = _state.active_specs()
prepared = state.get("_prepared")
settings = state.get("_settings")


def file_card(spec: _state.FileSpec, *, editable: bool, problem: str | None = None,
              checks: list[str] | None = None) -> None:
    """One file: its name, counts, detected columns, warnings or error, preview, and (for
    uploads) renaming, removal and the column override."""
    loaded = _state.read_file(spec)
    with st.container(border=True):
        title = f"Model: {_state.md(spec.name)}" if spec.kind == "run" else "Ground truth"
        st.markdown(f"#### {title}")
        table = loaded.table
        details = [f"file {_state.md(spec.file_name)}"]
        if table is not None:
            details.append(f"format {table.format}")
            if table.ranking:
                details.append(RANKING[table.ranking])
        st.caption(" · ".join(details))
        if loaded.error:
            st.error(_state.md(loaded.error), icon=":material/error:")
        elif problem:
            st.error(_state.md(problem), icon=":material/error:")
        if table is not None:
            _describe(table, checks or [])
        if editable:
            _edit_controls(spec, table)


def _describe(table: LoadedTable, checks: list[str]) -> None:
    with st.spinner(f"Counting the users and items of {_state.md(table.source)}…"):
        counts = (table.n_rows, table.n_users, table.n_items)
    rows, users, items = st.columns(3)
    rows.metric("Rows", f"{counts[0]:,}")
    users.metric("Users", f"{counts[1]:,}")
    items.metric("Items", f"{counts[2]:,}")
    found = " · ".join(f"{role} ← {_state.code(column)}" for role, column in table.columns.items())
    st.markdown(f"**Columns found:** {found}")
    for warning in [*table.warnings, *checks]:
        st.warning(_state.md(warning), icon=":material/warning:")
    with st.expander("Preview: the first 10 rows as read"):
        st.dataframe(table.table.head(10), hide_index=True)


def _edit_controls(spec: _state.FileSpec, table: LoadedTable | None) -> None:
    if spec.kind == "run":
        name_column, remove_column = st.columns([3, 1], vertical_alignment="bottom")
        state.setdefault(f"rename_{spec.id}", spec.name)
        name_column.text_input("Model name", key=f"rename_{spec.id}",
                               on_change=_state.rename_run, args=(spec.id,))
        remove_column.button("Remove", key=f"remove_{spec.id}", icon=":material/delete:",
                             on_click=_state.remove_run, args=(spec.id,))
        problem = state.get(f"rename_problem_{spec.id}")
        if problem:
            st.error(_state.md(problem))
    detected = table.columns if table is not None else dict(spec.columns)
    with st.expander("Choose the columns or the format by hand"), st.form(f"options_{spec.id}"):
        st.caption("Leave a field empty to let rankmetrics find the column by its name.")
        user, item, third = st.columns(3)
        state.setdefault(f"col_{spec.id}_user", detected.get("user", ""))
        state.setdefault(f"col_{spec.id}_item", detected.get("item", ""))
        user.text_input("User column", key=f"col_{spec.id}_user")
        item.text_input("Item column", key=f"col_{spec.id}_item")
        if spec.kind == "run":
            ordering = "rank" if "rank" in detected else "score"
            state.setdefault(f"col_{spec.id}_order", detected.get(ordering, ""))
            state.setdefault(f"col_{spec.id}_order_kind", ordering)
            third.text_input("Score or rank column", key=f"col_{spec.id}_order")
            third.radio("That column is a", ["score", "rank"], key=f"col_{spec.id}_order_kind",
                        horizontal=True,
                        format_func={"score": "score (higher is better)",
                                     "rank": "rank (1 is best)"}.get)
        else:
            state.setdefault(f"col_{spec.id}_rating", detected.get("rating", ""))
            third.text_input("Rating column", key=f"col_{spec.id}_rating",
                             help="Empty and none found: every listed item counts as liked.")
        state.setdefault(f"format_{spec.id}", spec.format)
        st.selectbox("Format", _state.FORMAT_CHOICES, key=f"format_{spec.id}",
                     format_func=lambda f: "detect from the file" if f is None else f)
        st.form_submit_button("Read the file again with these choices",
                              on_click=_state.set_read_options, args=(spec.id, spec.kind))


st.subheader("Upload your files")
left, right = st.columns(2)
left.file_uploader(
    "Model outputs: one file per model, several at once", accept_multiple_files=True,
    key=_state.upload_runs_key(), on_change=_state.take_uploads,
    help="Each model is named after its file; rename it below.",
)
right.file_uploader(
    "Ground truth: one file", key=_state.upload_truth_key(), on_change=_state.take_uploads,
    help="Which items each user rated or found relevant, with the rating if there is one.",
)
st.caption(f"Readable: {FORMATS}")

uploads = state.dataset == _state.UPLOADS
if not uploads:
    demo = _state.DEMOS[state.dataset]
    st.subheader(f"Demo data set: {demo.label}")
    st.markdown(demo.description)
    if _state.registry()["runs"] or _state.registry()["truth"]:
        st.info("Your uploaded files are kept: choose *Your uploaded files* under Data in the "
                "sidebar to compare them.")



def run_checks() -> tuple[dict[str, tuple[list[str], str | None]], list[str]]:
    """Each model file checked against the ground truth (with the sidebar's settings), and
    the warnings every model shares (they are about the ground truth)."""
    if truth_spec is None or _state.read_file(truth_spec).table is None:
        return {}, []
    relevance = settings.relevance if settings else _state.default_mapping(
        _state.relevance_defaults(truth_spec))
    max_cutoff = settings.max_cutoff if settings else _state.DEFAULT_MAX_CUTOFF
    results = {}
    for spec in run_specs:
        known = prepared.problems.get(spec.name) if prepared is not None else None
        if known is None and _state.read_file(spec).table is not None:
            with st.spinner(f"Checking {_state.md(spec.file_name)} against the ground truth…"):
                results[spec.name] = _state.cross_check(spec, truth_spec, relevance, max_cutoff)
        else:
            results[spec.name] = ([], known)
    lists = [warnings for warnings, error in results.values() if error is None]
    shared = [w for w in lists[0] if all(w in other for other in lists)] if lists else []
    return results, shared


check_results, shared = run_checks()
st.subheader("Ground truth")
candidate = _state.registry()["truth_candidate"] if uploads else None
if candidate is not None:
    file_card(candidate, editable=True)
    if truth_spec is not None:
        st.caption("The ground truth below stays in use until the new file can be read.")
    st.button("Dismiss this file", key="dismiss_truth", on_click=_state.dismiss_truth_candidate)
if truth_spec is not None:
    file_card(truth_spec, editable=uploads, checks=shared)
    if prepared is not None:
        st.caption(f"Suggested relevance: {_state.md(prepared.relevance_defaults.reason)} "
                   "Change it in the sidebar.")
elif candidate is None:
    st.info("No ground truth yet: upload the file saying which items each user liked.")

st.subheader("Models")
if not run_specs:
    st.info("No model file yet: upload one file per model (user, item and score or rank).")
elif truth_spec is None:
    st.caption("The models are checked against the ground truth once there is one.")
for spec in run_specs:
    warnings, problem = check_results.get(spec.name, ([], None))
    if problem is None and prepared is not None:
        problem = prepared.problems.get(spec.name)
    file_card(spec, editable=uploads, problem=problem,
              checks=[w for w in warnings if w not in shared])
