"""The session: its starting state, the active data set prepared for the pages, and what
every page does first (its header, and stopping with an explanation when data is missing)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext, suppress

import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

from dashboard import keys
from dashboard.budget import BUDGET
from dashboard.bundles import DATASET as BUNDLE
from dashboard.bundles import bundle_specs, open_from_command_line, opened
from dashboard.cached import inputs as cached_inputs
from dashboard.demos import demo_specs
from dashboard.extras import extra_specs
from dashboard.files import FileSpec, digest
from dashboard.links import read_link
from dashboard.navigation import PAGES
from dashboard.prepared import Prepared
from dashboard.settings import Settings, default_mapping, default_max_cutoff
from dashboard.store import StoreUnavailable, workspace_store
from dashboard.text import literal
from dashboard.uploads import DATASET as UPLOADED
from dashboard.uploads import Uploads, upload_specs
from rankmetrics.conventions import OPTION_HELP, PRESET_HELP, PRESETS, Conventions
from rankmetrics.figures import model_colors
from rankmetrics.io import subject_word
from rankmetrics.prepared import RankedRun


def init_session() -> None:
    """Starting values, set once per session: the movies demo, the default preset, charts
    saved as PNG."""
    state = st.session_state
    state.setdefault(keys.DATASET, "movies")
    state.setdefault(keys.UPLOADS, Uploads())
    if keys.LEASE not in state:
        state[keys.LEASE] = BUDGET.lease(state[keys.UPLOADS], connected(get_script_run_ctx()))
    state.setdefault(keys.UPLOADER_NONCE, 0)
    state.setdefault(keys.PRESET, "default")
    for option, value in PRESETS["default"].as_dict().items():
        state.setdefault(keys.convention(option), value)
    state.setdefault(keys.CHART_FORMAT, "png")
    state.setdefault(keys.SURPRISE_SEED, 0)
    state.setdefault(keys.GRADE_NONCE, 0)
    if keys.LINK_NOTICES not in state:  # the session's first run: the URL's settings
        with suppress(StoreUnavailable):  # a full or damaged disk: the next session sweeps
            workspace_store().sweep()  # workspaces past their days go, opened or not
        read_link()
    open_from_command_line()


def connected(context) -> Callable[[], bool]:
    """Whether this session's browser is still connected to the server (always true where no
    server runs, as in AppTest)."""
    session_id = context.session_id if context is not None else None

    def is_open() -> bool:
        return (session_id is None or not runtime.exists()
                or runtime.get_instance().is_active_session(session_id))

    return is_open


def active_specs() -> tuple[FileSpec | None, list[FileSpec]]:
    """The active data set's ground truth and model files."""
    dataset = st.session_state[keys.DATASET]
    if dataset == UPLOADED:
        return upload_specs()
    if dataset == BUNDLE:
        return bundle_specs()
    return demo_specs(dataset)


def prepare_active(status_area) -> Prepared | str:
    """Read, check and rank the active data set (showing progress when anything is new);
    a message for the pages when there is nothing to show yet."""
    truth_spec, run_specs = active_specs()
    if truth_spec is None:
        return ("No ground truth yet. Upload a ground truth (which items each user liked or "
                "rated) and at least one model's output on the **Data** page to start.")
    ties = st.session_state[keys.convention("ties")]
    identical = st.session_state.get(keys.convention("identical_ids"), "keep")
    seen = st.session_state.setdefault(keys.PREPARED_TOKENS, set())
    todo = {truth_spec.token} | {(spec.token, truth_spec.token, ties, identical)
                                 for spec in run_specs}
    fresh = not todo <= seen
    context = status_area.status("Preparing the data…", expanded=True) if fresh else nullcontext()
    with context as status:
        prepared = _prepare(truth_spec, run_specs, ties, identical, status)
        if status is not None:
            label = (_ready(prepared) if isinstance(prepared, Prepared)
                     else "Files read; see the Data page")
            status.update(label=label, state="complete", expanded=False)
    seen.update(todo)
    return prepared


#: Models whose lists :func:`_ranked` ranks at once (threads: the sorts run without the
#: interpreter lock, so a second core shares them).
RANKED_AT_ONCE = 2


def _ranked(specs: list[FileSpec], truth_spec: FileSpec, ties: str, identical: str
            ) -> list[RankedRun | str]:
    """Each readable model's file ranked and matched with the ground truth (or why not),
    two models at a time. The threads run in this session's context, so what they make is
    kept in the server's budget for this session as it would be from the page."""
    cached_inputs.ground_truth(truth_spec)  # once, before the models that need it
    if len(specs) < 2:
        return [cached_inputs.ranked_run(spec, truth_spec, ties, identical) for spec in specs]
    context = get_script_run_ctx()

    def rank(spec: FileSpec) -> RankedRun | str:
        add_script_run_ctx(threading.current_thread(), context)
        return cached_inputs.ranked_run(spec, truth_spec, ties, identical)

    with ThreadPoolExecutor(max_workers=RANKED_AT_ONCE) as pool:
        return list(pool.map(rank, specs))


def _prepare(truth_spec: FileSpec, run_specs: list[FileSpec], ties: str, identical: str,
             status) -> Prepared | str:
    def say(text: str) -> None:
        if status is not None:
            status.write(text)

    say(f"Reading the ground truth {literal(truth_spec.file_name)}…")
    truth = cached_inputs.read_file(truth_spec)
    if truth.table is None:
        return ("The ground truth could not be read; see the message next to it on the "
                "**Data** page.")
    problems: dict[str, str] = {}
    readable = []
    for spec in run_specs:
        say(f"Reading {literal(spec.file_name)}…")
        loaded = cached_inputs.read_file(spec)
        if loaded.table is None:
            problems[spec.name] = loaded.error or "could not be read"
        else:
            readable.append(spec)
    if readable:
        say(f"Ranking the lists of {', '.join(literal(spec.name) for spec in readable)} and "
            "matching them with the ground truth…")
    runs = {}
    for spec, ranked in zip(readable, _ranked(readable, truth_spec, ties, identical),
                            strict=True):
        if isinstance(ranked, str):
            problems[spec.name] = ranked
        else:
            runs[spec.name] = ranked
    defaults = cached_inputs.relevance_defaults(truth_spec)
    longest = max((int(run.lengths.max(initial=0)) for run in runs.values()), default=0)
    say("Checking the model files against the ground truth…")
    mapping, check_cutoff = default_mapping(defaults), default_max_cutoff(longest)
    for spec in [spec for spec in run_specs if spec.name in runs]:
        _, error = cached_inputs.cross_check(spec, truth_spec, mapping, check_cutoff)
        if error:
            problems[spec.name] = error
            del runs[spec.name]
    if not runs:
        if not run_specs:
            return ("The ground truth is loaded. Now upload at least one model's output (a "
                    "file with user, item and score or rank columns) on the **Data** page.")
        return ("None of the model files can be evaluated; see the messages next to them on "
                "the **Data** page.")
    extras = extra_specs()
    key = digest("\n".join([truth_spec.token, ties, identical]
                           + [f"{spec.name}={spec.token}" for spec in run_specs
                              if spec.name in runs]
                           + [spec.token for spec in extras.values()]).encode())
    return Prepared(
        key=key,
        source=st.session_state[keys.DATASET],
        truth_spec=truth_spec,
        truth=truth.table,
        ground_truth=cached_inputs.ground_truth(truth_spec),
        specs={spec.name: spec for spec in run_specs},
        runs=runs,
        problems={spec.name: problems[spec.name] for spec in run_specs if spec.name in problems},
        colors=model_colors([spec.name for spec in run_specs]),
        relevance_defaults=defaults,
        longest_list=longest,
        extras=extras,
        formats=(truth.table.format, *(cached_inputs.table_of(spec).format
                                      for spec in run_specs if spec.name in runs)),
    )


def prepared_data() -> Prepared | None:
    """The active data set as the sidebar prepared it in this run (None: nothing to show)."""
    return st.session_state.get(keys.PREPARED)


def subject(*, plural: bool = False) -> str:
    """Whom the active data set ranks for, in the pages' words: "user", or "query" where every
    input is a TREC file (plural: "users", "queries")."""
    prepared = prepared_data()
    return subject_word(prepared.formats if prepared is not None else (), plural=plural)


def current_settings() -> Settings | None:
    """The sidebar's settings in this run (None until a data set is prepared)."""
    return st.session_state.get(keys.SETTINGS)


def header(title: str, intro: str) -> None:
    """A page's title, its one-sentence explanation and the active settings in one line: K,
    the relevance, and the conventions in a few words, which open to each choice and what it
    means."""
    st.title(title)
    st.markdown(intro)
    settings = current_settings()
    if settings is not None:
        line = st.container(horizontal=True, vertical_alignment="center", gap="small",
                            key="page_settings")
        line.caption(f"K = {settings.cutoff} (curves to {settings.max_cutoff}) · "
                     f"{settings.relevance.describe()} ·", width="content")
        with line.popover(settings.conventions.summary(), type="tertiary",
                          icon=":material/rule:", key="conventions_detail",
                          help="Each convention in force and what it means"):
            conventions_detail(settings.conventions)


def conventions_detail(conventions: Conventions) -> None:
    """Every convention in force in words, with what the option means, and where to change
    them."""
    # Markdown in grey rather than captions: the page's own captions stay the page's.
    preset = conventions.preset_name()
    about = f"  \n:gray[{literal(PRESET_HELP[preset])}]" if preset is not None else ""
    st.markdown(f"**{literal(conventions.summary())}**{about}")
    for option, words in conventions.in_words().items():
        st.markdown(f"**{literal(words[0].upper() + words[1:])}**  \n"
                    f":gray[{literal(OPTION_HELP[option])}]")
    st.markdown(":gray[These are the saved evaluation's conventions: evaluate the data again "
                "to change them.]" if st.session_state.get(keys.DATASET) == BUNDLE
                else ":gray[Change them in the sidebar, under Conventions, on a page whose "
                "numbers they change.]")


def require_data() -> tuple[Prepared, Settings]:
    """The prepared data set and settings, or an explanation of what is missing (then the
    page stops)."""
    prepared, settings = prepared_data(), current_settings()
    if prepared is None or settings is None:
        st.info(st.session_state.get(keys.PROBLEM) or "Choose a data set in the sidebar.")
        st.page_link(PAGES["data"], label="Go to the Data page", icon=":material/upload:")
        st.stop()
    if prepared.problems:
        # The message itself is on the Data page, next to the file: once is enough.
        names = ", ".join(f"**{literal(name)}**" for name in prepared.problems)
        st.warning(f"Left out: {names}: a problem in the file. The Data page says what it is "
                   "and how to fix it.")
        st.page_link(PAGES["data"], label="Go to the Data page", icon=":material/upload:")
    return prepared, settings


def _ready(prepared: Prepared) -> str:
    """What is ready, in users the numbers cover (for a saved evaluation, all of its users,
    not only the sampled ones whose lists it keeps)."""
    models = f"{len(prepared.runs)} model(s)"
    bundle = opened() if prepared.source == BUNDLE else None
    if bundle is None:
        subjects = subject_word(prepared.formats, plural=True)
        return f"Data ready: {models}, {prepared.ground_truth.n_users:,} {subjects}"
    truth = bundle.saved.inputs.get("ground_truth")
    users = f"{truth.users:,} users in the ground truth" if truth else "its users"
    return (f"Saved evaluation ready: {models}, {users} (lists kept for "
            f"{prepared.ground_truth.n_users:,} sampled users)")
