"""The sidebar every page shares: the data set, relevance, conventions and cutoffs.

It prepares the active data set and leaves it, with the settings, in the session for the
pages (``session.require_data``). Each page's sidebar shows the settings that page depends on
(``PAGE_PARTS``); the others stay in force, as last chosen, for the pages that show them.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard import keys
from dashboard.bundles import DATASET as BUNDLE
from dashboard.bundles import bundle_settings
from dashboard.bundles import opened as opened_bundle
from dashboard.charts import chart_format_control
from dashboard.demos import DEMOS
from dashboard.links import apply_data_settings
from dashboard.prepared import Prepared
from dashboard.session import prepare_active
from dashboard.settings import (
    CUTOFF_LIMIT,
    DEFAULT_CUTOFF,
    EDITABLE_RATINGS,
    PRESET_CUSTOM,
    RelevanceDefaults,
    Settings,
    beyond_lists_note,
    build_mapping,
    default_mapping,
    default_max_cutoff,
    mapping_caption,
)
from dashboard.sharing import saved_share_controls, share_controls
from dashboard.text import literal, number
from dashboard.uploads import DATASET as UPLOADED
from dashboard.verdict import baseline_control
from rankmetrics.conventions import (
    OPTION_CHOICES,
    OPTION_HELP,
    OPTION_LABELS,
    PRESET_HELP,
    PRESETS,
    Conventions,
)
from rankmetrics.relevance import RelevanceMapping

#: Every part of the sidebar a page can depend on, beside the data set and the link (on every
#: page): "charts" is the format the charts' camera icon saves them in.
EVERY_PART = frozenset({"relevance", "conventions", "cutoff", "baseline", "charts"})
#: The parts each page (named as in ``PAGES``) shows. The Data page checks the files against the
#: relevance and the largest K, and draws no chart; the baseline is the model the tables of
#: differences start from; the Playground's list, grades, K and conventions are its own.
PAGE_PARTS = {
    "data": frozenset({"relevance", "cutoff"}),
    "compare": EVERY_PART,
    "users": EVERY_PART,
    "significance": EVERY_PART,
    "segments": EVERY_PART,
    "head_to_head": EVERY_PART - {"baseline"},
    "beyond": EVERY_PART - {"baseline"},
    "explained": EVERY_PART - {"baseline"},
    "choosing_k": EVERY_PART - {"baseline"},
    "playground": frozenset({"charts"}),
}


def sidebar(status_area, page: str | None = None) -> None:
    """Data, relevance, conventions and cutoff controls, those ``page`` (a key of ``PAGES``;
    None: every control) depends on shown; prepares the active data set and stores it with
    the settings for the pages."""
    state = st.session_state
    parts = PAGE_PARTS.get(page, EVERY_PART) if page is not None else EVERY_PART
    # The grade editor restarts from the last edit when it was not on screen in the previous
    # run, or lost its state (Streamlit resets widgets when st.switch_page interrupts a run).
    editor_was_live = (state.pop(keys.GRADE_EDITOR_LIVE, False)
                       and keys.grade_editor(state[keys.GRADE_NONCE]) in state)
    bundle = opened_bundle()
    st.selectbox(
        "Data", [*DEMOS, UPLOADED, *([BUNDLE] if bundle else [])], key=keys.DATASET,
        format_func=lambda key: DEMOS[key].label if key in DEMOS else (
            f"Saved evaluation: {bundle.name}" if key == BUNDLE and bundle
            else "Your uploaded files"),
        help="A bundled demo data set, or the files you upload on the Data page.",
        persist_state="session",
    )
    if page == "playground":
        st.caption("This page's list, grades, K and conventions are its own: the other "
                   "pages' settings stay as they are.")
    prepared = prepare_active(status_area)
    state[keys.PREPARED] = prepared if isinstance(prepared, Prepared) else None
    state[keys.PROBLEM] = prepared if isinstance(prepared, str) else None
    if isinstance(prepared, Prepared) and prepared.source == BUNDLE:
        state[keys.SETTINGS] = bundle_settings(
            prepared, shown=bool(parts & {"relevance", "conventions", "cutoff"}))
        if "baseline" in parts:
            baseline_control(prepared)
        if "charts" in parts:
            _chart_controls()
        saved_share_controls(prepared, state[keys.SETTINGS])
        return
    relevance = None
    if isinstance(prepared, Prepared):
        if _reset_on_new_truth(prepared):
            editor_was_live = False
            apply_data_settings(prepared, prepared.relevance_defaults.ratings)
        relevance = (_relevance_controls(prepared, editor_was_live) if "relevance" in parts
                     else _mapping_in_force(prepared.relevance_defaults,
                                            _grade_rows(state[keys.GRADE_TABLE]))[0])
    conventions = _convention_controls() if "conventions" in parts else current_conventions()
    state[keys.SETTINGS] = None
    if isinstance(prepared, Prepared) and relevance is not None:
        cutoff, max_cutoff = (_cutoff_controls(prepared.longest_list) if "cutoff" in parts
                              else _cutoffs_in_force())
        if "baseline" in parts:
            baseline_control(prepared)
        state[keys.SETTINGS] = Settings(relevance, conventions, cutoff, max_cutoff)
        if "relevance" in parts:
            st.divider()
            st.caption(f"**Relevance:** {relevance.describe()}")
    if "conventions" in parts:
        st.caption(f"**Conventions:** {conventions.summary()}")
    if "charts" in parts:
        _chart_controls()
    share_controls(status_area, prepared if isinstance(prepared, Prepared) else None)


def _chart_controls() -> None:
    st.divider()
    st.subheader("Charts")
    chart_format_control()


def _reset_on_new_truth(prepared: Prepared) -> bool:
    """A new ground truth (or data set) starts from its suggested relevance and cutoffs;
    True when that happened."""
    state = st.session_state
    scope = prepared.truth_spec.token
    if state.get(keys.SETTINGS_SCOPE) == scope:
        return False
    state[keys.SETTINGS_SCOPE] = scope
    defaults = prepared.relevance_defaults
    state[keys.REL_KIND] = defaults.kind
    state[keys.REL_THRESHOLD] = defaults.threshold
    state[keys.REL_GRADE_THRESHOLD] = defaults.grade_threshold
    state.pop(keys.VALID_MAPPING, None)
    state[keys.GRADE_TABLE] = pd.DataFrame(defaults.table, columns=["rating", "grade"])
    state[keys.GRADE_NONCE] += 1
    state[keys.MAX_CUTOFF] = default_max_cutoff(prepared.longest_list)
    state[keys.CUTOFF] = min(DEFAULT_CUTOFF, state[keys.MAX_CUTOFF])
    _demo_conventions(prepared.source)
    return True


def _demo_conventions(source: str) -> None:
    """A demo about a convention starts with it in force; the next data set starts with the
    default preset's value again."""
    state = st.session_state
    for option in state.pop(keys.DEMO_CONVENTIONS, ()):
        set_convention(option, getattr(PRESETS["default"], option))
    wanted = DEMOS[source].conventions if source in DEMOS else ()
    for option, value in wanted:
        set_convention(option, value)
    state[keys.DEMO_CONVENTIONS] = tuple(option for option, _ in wanted)


def _relevance_controls(prepared: Prepared, editor_was_live: bool) -> RelevanceMapping:
    state = st.session_state
    defaults = prepared.relevance_defaults
    st.subheader("Relevance")
    st.radio(
        "Ratings become", ["binary", "graded"], key=keys.REL_KIND, horizontal=True,
        format_func={"binary": "relevant / not", "graded": "grades"}.get, persist_state="session",
        help="Binary: a rating at or above the threshold is relevant (grade 1). Graded: each "
        "rating gets a grade (NDCG uses the grades; the other metrics count grades at or "
        "above a threshold as relevant).",
    )
    reason_area = st.empty()  # filled once the mapping in force is known
    table: list[tuple[float, float]] = []
    if state[keys.REL_KIND] == "binary":
        _threshold_control(defaults.ratings, defaults.threshold)
        problem_area = st.empty()
    else:
        table = _grade_table_editor(editor_was_live)
        problem_area = st.empty()  # right under the editor
        _grade_threshold_control(table, defaults.grade_threshold)
    mapping, problem = _mapping_in_force(defaults, table)
    if problem is not None:
        problem_area.error(f"{literal(problem)} Still in force: {literal(mapping.describe())}.")
    reason_area.caption(literal(mapping_caption(mapping, defaults)))
    return mapping


def _mapping_in_force(defaults: RelevanceDefaults, table: list[tuple[float, float]]
                      ) -> tuple[RelevanceMapping, str | None]:
    """The mapping the relevance settings give (the last valid one while they are invalid),
    and what is wrong with them (None when nothing is)."""
    state = st.session_state
    try:
        mapping = build_mapping(state[keys.REL_KIND],
                                state.get(keys.REL_THRESHOLD, defaults.threshold), table,
                                state.get(keys.REL_GRADE_THRESHOLD, defaults.grade_threshold))
    except ValueError as error:
        return state.get(keys.VALID_MAPPING) or default_mapping(defaults), str(error)
    state[keys.VALID_MAPPING] = mapping
    return mapping, None


def _threshold_control(ratings: tuple[float, ...], suggested: float) -> None:
    state = st.session_state
    if len(ratings) == 1:
        st.caption(f"Every rating is {number(ratings[0])}: every rated item is relevant.")
        state[keys.REL_THRESHOLD] = ratings[0]
    elif len(ratings) <= EDITABLE_RATINGS * 5:
        if state.get(keys.REL_THRESHOLD) not in ratings:
            state[keys.REL_THRESHOLD] = suggested
        st.select_slider("Relevant if rating ≥", options=list(ratings), key=keys.REL_THRESHOLD,
                         format_func=number, persist_state="session")
    else:
        st.slider("Relevant if rating ≥", min_value=ratings[0], max_value=ratings[-1],
                  key=keys.REL_THRESHOLD, persist_state="session")


def _grade_threshold_control(table: list[tuple[float, float]], suggested: float) -> None:
    state = st.session_state
    grades = sorted({grade for _, grade in table if grade > 0})
    if not grades:
        st.warning("No rating has a grade above 0: nothing is relevant.")
        return
    if state.get(keys.REL_GRADE_THRESHOLD) not in grades:
        state[keys.REL_GRADE_THRESHOLD] = min(grades, key=lambda g: abs(g - suggested))
    st.select_slider(
        "Relevant for the binary metrics if grade ≥", options=grades,
        key=keys.REL_GRADE_THRESHOLD, format_func=number, persist_state="session",
        help="Precision, recall, hit rate, MRR and MAP need relevant / not relevant.",
    )


def _grade_table_editor(was_live: bool) -> list[tuple[float, float]]:
    """The editable rating -> grade table; edits survive page changes and kind switches
    (when the editor was not on screen in the previous run, it restarts from the last edit)."""
    state = st.session_state
    if not was_live:
        state[keys.GRADE_NONCE] += 1
        state[keys.GRADE_BASE] = state[keys.GRADE_TABLE]
    edited = st.data_editor(
        state[keys.GRADE_BASE], key=keys.grade_editor(state[keys.GRADE_NONCE]),
        hide_index=True, num_rows="dynamic",
        column_config={
            # widths in px: the header "Rating ≥" whole, both columns in the 250 px sidebar
            "rating": st.column_config.NumberColumn("Rating ≥", required=True, width=86,
                                                    help="The lowest rating of the band."),
            "grade": st.column_config.NumberColumn("Grade", required=True, width=68,
                                                   help="The grade NDCG uses for the band."),
        },
    )
    state[keys.GRADE_TABLE] = edited
    state[keys.GRADE_EDITOR_LIVE] = True
    return _grade_rows(edited)


def _grade_rows(table: pd.DataFrame) -> list[tuple[float, float]]:
    """The rating -> grade bands of the grade table (rows left incomplete left out)."""
    rows = table.dropna()
    return [(float(r), float(g)) for r, g in zip(rows["rating"], rows["grade"], strict=True)]


def _convention_controls() -> Conventions:
    state = st.session_state
    st.subheader("Conventions")
    st.selectbox(
        "Preset", [*PRESETS, PRESET_CUSTOM], key=keys.PRESET, on_change=_apply_preset,
        persist_state="session",
        help=" ".join(f"**{name}**: {text}" for name, text in PRESET_HELP.items()),
    )
    if state[keys.PRESET] in PRESET_HELP:
        st.caption(PRESET_HELP[state[keys.PRESET]])
    with st.expander("Advanced: each option"):
        for option, choices in OPTION_CHOICES.items():
            st.selectbox(OPTION_LABELS[option], choices,
                         key=keys.convention(option), help=OPTION_HELP[option],
                         on_change=_name_preset, persist_state="session")
        st.toggle("Threshold applies to NDCG gains", key=keys.convention("threshold_gains"),
                  help=OPTION_HELP["threshold_gains"], on_change=_name_preset,
                  persist_state="session")
    return current_conventions()


def current_conventions() -> Conventions:
    state = st.session_state
    return Conventions(**{option: state[keys.convention(option)]
                          for option in PRESETS["default"].as_dict()})


def set_convention(option: str, value: str | bool) -> None:
    """Change one convention from a page (the sidebar follows, naming its preset)."""
    st.session_state[keys.convention(option)] = value
    _name_preset()


def _apply_preset() -> None:
    state = st.session_state
    if state[keys.PRESET] in PRESETS:
        for option, value in PRESETS[state[keys.PRESET]].as_dict().items():
            state[keys.convention(option)] = value


def _name_preset() -> None:
    """After an option changed: name the preset the options now equal, or "custom"."""
    st.session_state[keys.PRESET] = current_conventions().preset_name() or PRESET_CUSTOM


def _cutoff_controls(longest_list: int) -> tuple[int, int]:
    state = st.session_state
    st.subheader("Cutoff")
    st.number_input(
        "Largest K for curves", min_value=1, max_value=CUTOFF_LIMIT, step=1,
        key=keys.MAX_CUTOFF, on_change=_clamp_cutoff, persist_state="session",
        help="Curves show every K from 1 to this value.",
    )
    if state[keys.MAX_CUTOFF] > longest_list:
        st.caption(beyond_lists_note(longest_list))
    _clamp_cutoff()
    if state[keys.MAX_CUTOFF] > 1:
        st.slider("K for tables and distributions", min_value=1,
                  max_value=int(state[keys.MAX_CUTOFF]), key=keys.CUTOFF,
                  persist_state="session",
                  help="The list length the summary table, the distributions and the NDCG "
                  "breakdown use; marked on every curve.")
    return int(state[keys.CUTOFF]), int(state[keys.MAX_CUTOFF])


def _cutoffs_in_force() -> tuple[int, int]:
    """K and the largest K as last chosen, where the page does not show them."""
    _clamp_cutoff()
    state = st.session_state
    return int(state[keys.CUTOFF]), int(state[keys.MAX_CUTOFF])


def _clamp_cutoff() -> None:
    state = st.session_state
    state[keys.CUTOFF] = min(int(state[keys.CUTOFF]), int(state[keys.MAX_CUTOFF]))
