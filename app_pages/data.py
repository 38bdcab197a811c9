"""Data: the files being compared, what was read from them, and uploads of your own."""

import streamlit as st

from dashboard import bundles, keys, runs, uploads
from dashboard.cached import inputs as cached_inputs
from dashboard.controls import download_table, file_name
from dashboard.demos import DEMOS
from dashboard.extras import EXTRA_KINDS, extra_specs, remove_extra, take_extra, uploader_key
from dashboard.files import FileSpec
from dashboard.messages import in_app
from dashboard.segment_choice import attributes_section
from dashboard.session import active_specs, current_settings, header, prepared_data
from dashboard.settings import DEFAULT_MAX_CUTOFF, default_mapping
from dashboard.store import MB, workspace_store
from dashboard.text import code, literal
from rankmetrics.io import FORMATS, Attributes, LoadedTable, subject_word

FILE_FORMATS = (None, *(name for name in FORMATS if name != "dataframe"))
READABLE = (
    "CSV or TSV (also .gz or .zip), with or without a header line, Parquet, JSON Lines, TREC "
    "runs and qrels, RecBole's atomic files (.inter, .user, .item), or one row per user with "
    "a list of items. Columns are found by their usual names (user / user_id / query, item / "
    "item_id / doc, score / prediction or rank, rating / relevance / label); without a header "
    "line, by their order (user, item, then the score, rank or rating)."
)
#: The choice of what a file's first line holds, in the form that reads it again.
FIRST_LINE = {"names": "column names", "data": "data: the file has no header line"}
RANKING = {"score": "ordered by score (higher is better)",
           "rank": "ordered by rank (1 is best; shown as score = −rank)",
           "list_position": "ordered by list position (shown as score = −position)"}

state = st.session_state
truth_spec, run_specs = active_specs()
prepared, settings = prepared_data(), current_settings()
uploaded = uploads.uploads()
# "queries" where every file read is a TREC file, as on the other pages
read_tables = [cached_inputs.read_file(spec).table for spec in [truth_spec, *run_specs]
               if spec is not None]
read_formats = [table.format for table in read_tables if table is not None]
subject, subjects = subject_word(read_formats), subject_word(read_formats, plural=True)
header(
    "Data",
    f"The ground truth says which items each {subject} liked; each model file says what the "
    f"model recommended to each {subject}. Upload your own files here, or look at what the "
    "demo holds.",
)


def file_card(spec: FileSpec, *, editable: bool, problem: str | None = None,
              checks: list[str] | None = None) -> None:
    """One file: its name, counts, detected columns, warnings or error, preview, and (for
    uploads) renaming, removal and the column override."""
    loaded = cached_inputs.read_file(spec)
    with st.container(border=True):
        title = f"Model: {literal(spec.name)}" if spec.kind == "run" else "Ground truth"
        st.markdown(f"#### {title}")
        table = loaded.table
        details = [f"file {literal(spec.file_name)}"]
        if table is not None:
            details.append(f"format {table.format}")
            if table.ranking:
                details.append(RANKING[table.ranking])
        st.caption(" · ".join(details))
        message = loaded.error or problem
        if message:
            st.error(literal(in_app(message)), icon=":material/error:")
        if table is not None:
            describe(spec, table, checks or [])
        if editable:
            edit_controls(spec, table)


def describe(spec: FileSpec, table: LoadedTable, checks: list[str]) -> None:
    with st.spinner(f"Counting the users and items of {literal(table.source)}…"):
        n_rows, n_users, n_items = cached_inputs.counts(spec)
    rows, users, items = st.columns(3)
    rows.metric("Rows", f"{n_rows:,}")
    users.metric(subjects.capitalize(), f"{n_users:,}")
    items.metric("Items", f"{n_items:,}")
    found = " · ".join(f"{role} ← {code(column)}" for role, column in table.columns.items())
    st.markdown(f"**Columns found:** {found}")
    if table.column_order is not None:
        st.caption(f"No header line: the columns are read in the order "
                   f"{literal(', '.join(table.column_order))}.")
    for warning in [*table.warnings, *checks]:
        st.warning(literal(in_app(warning)), icon=":material/warning:")
    with st.expander("Preview: the first 10 rows as read"):
        st.dataframe(table.head(10), hide_index=True)
        download_table(table.head(10), file_name("first 10 rows of", spec.file_name,
                                                 suffix=".csv"), f"preview_csv_{spec.id}")


def edit_controls(spec: FileSpec, table: LoadedTable | None) -> None:
    if spec.kind == "run":
        name_column, remove_column = st.columns([3, 1], vertical_alignment="bottom")
        state.setdefault(keys.rename(spec.id), spec.name)
        name_column.text_input("Model name", key=keys.rename(spec.id),
                               on_change=uploads.rename_run, args=(spec.id,))
        remove_column.button("Remove", key=keys.remove(spec.id), icon=":material/delete:",
                             on_click=uploads.remove_run, args=(spec.id,))
        problem = state.get(keys.rename_problem(spec.id))
        if problem:
            st.error(literal(problem))
    detected = table.columns if table is not None else dict(spec.columns)
    with (st.expander("Choose the columns or the format by hand"),
          st.form(keys.read_options_form(spec.id))):
        st.caption("Leave a field empty to let rankmetrics find the column by its name.")
        user, item, third = st.columns(3)
        for role, column in (("user", user), ("item", item)):
            state.setdefault(keys.column(spec.id, role), detected.get(role, ""))
            column.text_input(f"{role.capitalize()} column", key=keys.column(spec.id, role))
        if spec.kind == "run":
            ordering = "rank" if "rank" in detected else "score"
            state.setdefault(keys.column(spec.id, "order"), detected.get(ordering, ""))
            state.setdefault(keys.column(spec.id, "order_kind"), ordering)
            third.text_input("Score or rank column", key=keys.column(spec.id, "order"))
            third.radio("That column is a", ["score", "rank"],
                        key=keys.column(spec.id, "order_kind"), horizontal=True,
                        format_func={"score": "score (higher is better)",
                                     "rank": "rank (1 is best)"}.get)
        else:
            state.setdefault(keys.column(spec.id, "rating"), detected.get("rating", ""))
            third.text_input("Rating column", key=keys.column(spec.id, "rating"),
                             help="Empty and none found: every listed item counts as liked.")
        order = (table.column_order if table is not None and table.column_order is not None
                 else tuple(word.strip() for word in
                            dict(spec.columns).get("order", "").split(",")))
        headerless = any(order) or (table is not None and table.format.startswith("trec"))
        state.setdefault(keys.column(spec.id, "first_line"), "data" if headerless else "names")
        state.setdefault(keys.column(spec.id, "column_order"), ", ".join(filter(None, order)))
        line_column, order_column = st.columns([1, 2])
        line_column.radio("The first line holds", list(FIRST_LINE),
                          key=keys.column(spec.id, "first_line"), format_func=FIRST_LINE.get)
        order_column.text_input(
            "Columns in order, for a file without a header line",
            key=keys.column(spec.id, "column_order"),
            placeholder="user, item, score" if spec.kind == "run" else "user, item, rating",
            help="One word per column, from the first: user, item, then "
            + ("score or rank" if spec.kind == "run" else "rating")
            + "; other words (timestamp) are columns left unread. Empty: the order is told "
            "by the number and types of the columns. The column fields above are not used "
            "then.")
        state.setdefault(keys.file_format(spec.id), spec.format)
        st.selectbox("Format", FILE_FORMATS, key=keys.file_format(spec.id),
                     format_func=lambda f: "detect from the file" if f is None else f)
        st.form_submit_button("Read the file again with these choices",
                              on_click=uploads.set_read_options, args=(spec.id, spec.kind))


def workspace_box() -> None:
    """Where the uploads are kept, the server's limits, and deleting them."""
    store = workspace_store()
    limits = f"This server keeps {store.limits.describe()}."
    if state.get(keys.WORKSPACE_NOTE):
        st.warning(literal(state[keys.WORKSPACE_NOTE]), icon=":material/cloud_off:")
    if state.get(keys.WORKSPACE_MERGED):
        st.info(literal(state[keys.WORKSPACE_MERGED]), icon=":material/merge:")
    for problem in state.get(keys.WORKSPACE_DAMAGED) or []:
        st.error(literal(problem), icon=":material/broken_image:")
    if not state.get(keys.WORKSPACE):
        st.caption(f"Files you upload are kept on this server in a workspace of your own, "
                   f"which this page's link reopens. {limits}")
        return
    with st.container(border=True):
        used = store.size(state[keys.WORKSPACE])
        size = f"{used / MB:,.1f} MB" if used >= MB / 10 else f"{used / 1000:,.0f} kB"
        text_column, button_column = st.columns([3, 1], vertical_alignment="center")
        text_column.markdown(
            f"**Your workspace** holds {size} of files on this server. Anyone with "
            f"this page's link (sidebar › Share) can open it, change its files and delete "
            f"it; nobody can find it without the link. {limits}")
        button_column.button("Delete this workspace", icon=":material/delete_forever:",
                             key="delete_workspace", on_click=uploads.delete_workspace,
                             help="Removes your uploaded files and their settings from the "
                             "server. The demo data comes back.")


st.subheader("Upload your files")
left, right = st.columns(2)
left.file_uploader(
    "Model outputs: one file per model, several at once", accept_multiple_files=True,
    key=uploads.runs_uploader_key(), on_change=uploads.take_uploads,
    help="Each model is named after its file; rename it below. " + runs.NAMING_HELP,
)
right.file_uploader(
    "Ground truth: one file", key=uploads.truth_uploader_key(), on_change=uploads.take_uploads,
    help="Which items each user rated or found relevant, with the rating if there is one.",
)
st.caption(f"Readable: {READABLE}")
if uploads.refusal():
    st.error(uploads.refusal(), icon=":material/memory:")
workspace_box()

st.subheader("Open a saved evaluation")
bundles.upload_control()
bundles.describe_opened()

showing_uploads = state[keys.DATASET] == uploads.DATASET
if state[keys.DATASET] in DEMOS:
    demo = DEMOS[state[keys.DATASET]]
    st.subheader(f"Demo data set: {demo.label}")
    st.markdown(demo.description)
    if uploaded.runs or uploaded.truth:
        st.info("Your uploaded files are kept: choose *Your uploaded files* under Data in the "
                "sidebar to compare them.")

check_results: dict[str, tuple[list[str], str | None]] = {}
shared: list[str] = []
if truth_spec is not None and cached_inputs.read_file(truth_spec).table is not None:
    with st.spinner("Checking the model files against the ground truth…"):
        check_results, shared = cached_inputs.checks_against_truth(
            truth_spec, run_specs,
            settings.relevance if settings else default_mapping(
                cached_inputs.relevance_defaults(truth_spec)),
            settings.max_cutoff if settings else DEFAULT_MAX_CUTOFF,
            prepared.problems if prepared is not None else {},
        )

st.subheader("Ground truth")
candidate = uploaded.truth_candidate if showing_uploads else None
if candidate is not None:
    file_card(candidate, editable=True)
    if truth_spec is not None:
        st.caption("The ground truth below stays in use until the new file can be read.")
    st.button("Dismiss this file", key=keys.DISMISS_TRUTH,
              on_click=uploads.dismiss_truth_candidate)
if truth_spec is not None:
    file_card(truth_spec, editable=showing_uploads, checks=shared)
    if prepared is not None:
        st.caption(f"Suggested relevance: {literal(prepared.relevance_defaults.reason)} "
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
    file_card(spec, editable=showing_uploads, problem=problem,
              checks=[w for w in warnings if w not in shared])
runs.data_note(prepared)


def extra_card(kind: str, spec: FileSpec, *, removable: bool) -> None:
    """One optional file: what was read from it (or why it could not be), and its removal."""
    loaded = (cached_inputs.read_item_attributes(spec) if kind == "attributes"
              else cached_inputs.read_file(spec))
    with st.container(border=True):
        st.markdown(f"#### {EXTRA_KINDS[kind].title}")
        st.caption(f"file {literal(spec.file_name)}")
        if loaded.error:
            st.error(literal(loaded.error), icon=":material/error:")
        table = loaded.table
        if table is not None:
            if isinstance(table, Attributes):
                found = " · ".join(f"{code(name)}: {what}" for name, what in table.kinds.items())
                st.markdown(f"**{len(table.table):,} items** · item ← {code(table.key_column)}"
                            f" · {found}")
                preview = table.table.head(10)
            else:
                found = " · ".join(f"{role} ← {code(column)}"
                                   for role, column in table.columns.items())
                st.markdown(f"**{table.n_rows:,} interactions** · **Columns found:** {found}")
                preview = table.head(10)
            for warning in table.warnings:
                st.warning(literal(warning), icon=":material/warning:")
            with st.expander("Preview: the first 10 rows as read"):
                st.dataframe(preview, hide_index=True)
        if removable:
            st.button("Remove", key=keys.remove_extra(kind), icon=":material/delete:",
                      on_click=remove_extra, args=(kind,))


st.subheader("Optional: for the beyond-accuracy metrics")
st.markdown("Coverage, Gini, entropy and personalization need nothing more. "
            + " ".join(f"**{extra.title}** ({extra.holds}) enable {extra.enables}."
                       for extra in EXTRA_KINDS.values()))
extras = extra_specs()
if showing_uploads:
    columns = dict(zip(EXTRA_KINDS, st.columns(len(EXTRA_KINDS)), strict=True))
    for kind, extra in EXTRA_KINDS.items():
        columns[kind].file_uploader(f"{extra.title}: one file", key=uploader_key(kind),
                                    on_change=take_extra, args=(kind,), help=extra.holds)
elif not extras:
    st.caption("This demo has none.")
for kind, spec in extras.items():
    extra_card(kind, spec, removable=showing_uploads)
st.subheader("User attributes")
attributes_section()
