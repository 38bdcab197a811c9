"""Playground: one ranked list to edit by hand, and every metric at every K, for a lesson.

The list lives in the session as a :class:`rankmetrics.playground.Playground`; every button
and input changes it through the library's edits (in callbacks, so the page draws the new
list at once) and keeps the list before the change, so the values before and after sit side
by side. Every number comes from ``evaluate`` on the list (through ``dashboard.cached.playground``).
The conventions here are the page's own: the sidebar's stay as they are.
"""

from collections.abc import Callable
from dataclasses import replace

import pandas as pd
import streamlit as st

from dashboard import keys
from dashboard.cached import playground as cached_playground
from dashboard.charts import show_chart
from dashboard.highlight import Highlight, marks, mask
from dashboard.links import write_link
from dashboard.playground_link import PlaygroundView
from dashboard.text import literal
from rankmetrics.conventions import AP_DENOMINATORS, GAINS, IDEALS, TIES
from rankmetrics.explain import MetricArithmetic
from rankmetrics.figures.playground import playground_curves
from rankmetrics.metrics import METRICS
from rankmetrics.playground import (
    COLUMNS,
    LABELS,
    MAX_GRADE,
    MAX_ITEMS,
    Edit,
    Playground,
    Scenario,
    add_item,
    describe_change,
    move,
    remove_item,
    scenarios,
    set_beyond,
    set_grade,
    set_option,
    swap,
)

state = st.session_state
ACTION_WORDS = {"up": "Move up:", "down": "Move down:", "remove": "Remove"}
EXPLAINED = ("precision", "recall", "hit_rate", "mrr", "map", "dcg", "ndcg")
SWITCHES = {
    "gain": ("Gain of a grade g", GAINS,
             {"exponential": "exponential 2^g − 1", "linear": "linear g"}),
    "ideal": ("Ideal list (IDCG) from", IDEALS,
              {"ground_truth": "all relevant items", "retrieved": "the list's own top K"}),
    "ap_denominator": ("AP divides by", AP_DENOMINATORS,
                       {"relevant": "|R|", "min_k_relevant": "min(K, |R|)",
                        "hits": "hits in top K"}),
    "threshold": ("Relevant if grade ≥", tuple(range(1, MAX_GRADE + 1)), {}),
    "ties": ("Equal scores ordered by", TIES,
             {"item_desc": "item id descending (trec_eval)",
              "item_asc": "item id ascending", "input": "the order of the rows"}),
}
#: The list's arrow and remove buttons hold an icon only: without the usual side padding they
#: keep it in sight in narrow columns (an 800 px window with the sidebar open), and the values
#: at K shrink with the window instead of being cut.
COMPACT_STYLE = """
<style>
[class*="st-key-playground_up_"] button, [class*="st-key-playground_down_"] button,
[class*="st-key-playground_remove_"] button {
    padding-left: 0; padding-right: 0; min-width: 1.9rem; width: 100%; }
[data-testid="stMain"] [data-testid="stMetricValue"],
[data-testid="stMain"] [data-testid="stMetricValue"] * { font-size: clamp(1.2rem, 2.2vw, 2.25rem); }
</style>
"""
PRESENTATION_STYLE = """
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"] { display: none !important; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: 3.6rem 2rem 1rem; }
[data-testid="stMain"] p, [data-testid="stMain"] li,
[data-testid="stMain"] label p { font-size: 1.6rem !important; line-height: 1.35; }
[data-testid="stMain"] h1 { font-size: 2.4rem !important; padding: 0; }
[data-testid="stMain"] button p { font-size: 1.6rem !important; }
[data-testid="stMain"] input { font-size: 1.5rem !important; }
[data-testid="stMain"] [data-testid="stMetricValue"],
[data-testid="stMain"] [data-testid="stMetricValue"] * { font-size: 3.4rem !important; }
[data-testid="stMain"] [data-testid="stMetricDelta"],
[data-testid="stMain"] [data-testid="stMetricDelta"] * { font-size: 1.6rem !important; }
[data-testid="stMain"] .katex { font-size: 1.55em !important; }
</style>
"""


# ----- the state and its edits ---------------------------------------------------------------


def all_scenarios() -> dict[str, Scenario]:
    return {"textbook": cached_playground.textbook_scenario(), **scenarios()}


def sync_widgets(playground: Playground) -> None:
    """Every input shows the list as it is now (called after each change, before drawing)."""
    for entry in playground.items:
        state[keys.playground_grade(entry.item)] = entry.grade
    for option in SWITCHES:
        value = (playground.threshold if option == "threshold"
                 else getattr(playground.conventions, option))
        state[keys.playground_option(option)] = value
    state[keys.PLAYGROUND_BEYOND] = len(playground.beyond)
    state[keys.PLAYGROUND_BEYOND_GRADE] = max(playground.beyond, default=1)
    n = len(playground.items)
    state[keys.PLAYGROUND_CUTOFF] = min(int(state.get(keys.PLAYGROUND_CUTOFF, 5)), n)
    for key, default in ((keys.PLAYGROUND_SWAP_A, 1), (keys.PLAYGROUND_SWAP_B, min(2, n))):
        if state.get(key, default) > n:
            state[key] = default


def load(name: str) -> None:
    """Start from a scenario (keeping the conventions and threshold chosen on the page)."""
    scenario = all_scenarios()[name]
    now = state.get(keys.PLAYGROUND)

    def keep(pg: Playground) -> Playground:
        if now is None:
            return pg
        return replace(pg, conventions=now.conventions, threshold=now.threshold)
    state[keys.PLAYGROUND] = keep(scenario.playground)
    state[keys.PLAYGROUND_BEFORE] = keep(scenario.before.playground) if scenario.before else None
    state[keys.PLAYGROUND_WORDS] = scenario.before.words if scenario.before else None
    state[keys.PLAYGROUND_LESSON] = (scenario.title, scenario.lesson)
    state[keys.PLAYGROUND_SCENARIO] = name
    state[keys.PLAYGROUND_CUTOFF] = scenario.cutoff
    sync_widgets(state[keys.PLAYGROUND])


def open_view(view: PlaygroundView) -> None:
    """Start as a link described: its scenario, then its own list (the list before the change
    is the scenario's only while the list is the scenario's), K and formula."""
    load(view.scenario)
    if view.playground is not None and view.playground != state[keys.PLAYGROUND]:
        state[keys.PLAYGROUND] = view.playground
        state[keys.PLAYGROUND_BEFORE] = state[keys.PLAYGROUND_WORDS] = None
    if view.cutoff is not None:
        state[keys.PLAYGROUND_CUTOFF] = view.cutoff
    if view.formula is not None:
        state[keys.PLAYGROUND_METRIC] = view.formula
    state[keys.PLAYGROUND_PRESENT] = view.present
    sync_widgets(state[keys.PLAYGROUND])


def commit(change: Callable[[Playground], Edit]) -> None:
    """Apply an edit to the list, keeping the list before it (a refused edit says why)."""
    now = state[keys.PLAYGROUND]
    try:
        edit = change(now)
    except ValueError as error:
        state[keys.PLAYGROUND_PROBLEM] = str(error)
        sync_widgets(now)
        return
    state[keys.PLAYGROUND_BEFORE] = now
    state[keys.PLAYGROUND] = edit.playground
    state[keys.PLAYGROUND_WORDS] = edit.words
    sync_widgets(edit.playground)


def on_move(from_rank: int, to_rank: int) -> None:
    commit(lambda pg: move(pg, from_rank, to_rank))


def on_remove(rank: int) -> None:
    commit(lambda pg: remove_item(pg, rank))


def on_grade(item: str) -> None:
    commit(lambda pg: set_grade(pg, item, int(state[keys.playground_grade(item)])))


def on_add() -> None:
    commit(lambda pg: add_item(pg, int(state[keys.PLAYGROUND_NEW_GRADE])))


def on_swap() -> None:
    a, b = int(state[keys.PLAYGROUND_SWAP_A]), int(state[keys.PLAYGROUND_SWAP_B])
    if a == b:
        state[keys.PLAYGROUND_PROBLEM] = "Choose two different ranks to swap."
        return
    commit(lambda pg: swap(pg, a, b))


def on_beyond() -> None:
    commit(lambda pg: set_beyond(pg, int(state[keys.PLAYGROUND_BEYOND]),
                                 int(state[keys.PLAYGROUND_BEYOND_GRADE])))


def on_switch(option: str) -> None:
    commit(lambda pg: set_option(pg, option, state[keys.playground_option(option)]))


if keys.PLAYGROUND not in state:
    open_view(state.pop(keys.PLAYGROUND_FROM_LINK, None) or PlaygroundView())
    state[keys.PLAYGROUND_SWAP_A], state[keys.PLAYGROUND_SWAP_B] = 1, 2
# Inputs not drawn in the last run (presentation mode, another page) lost their state.
sync_widgets(state[keys.PLAYGROUND])
present = bool(state.get(keys.PLAYGROUND_PRESENT, False))
st.html(COMPACT_STYLE)
if present:
    st.html(PRESENTATION_STYLE)


# ----- drawing -----------------------------------------------------------------------------


def scenario_buttons() -> None:
    every = list(all_scenarios().items())
    for start in range(0, len(every), 2):  # two a row: the titles are read in full
        for column, (name, scenario) in zip(st.columns(2), every[start:start + 2],
                                            strict=False):
            column.button(scenario.title, key=keys.playground_scenario(name), on_click=load,
                          args=(name,), use_container_width=True)


def list_editor(pg: Playground) -> None:
    ranked = pg.ranked()
    n = len(ranked)
    st.markdown("**The ranked list** (grade 0: not relevant)")
    for rank, entry in enumerate(ranked, start=1):
        relevant = entry.grade >= pg.threshold
        # narrow gaps leave the arrow buttons room for their icons from 800 px wide windows up
        row = st.columns([0.4, 0.9, 1.2, 0.7, 0.7, 0.7], vertical_alignment="center",
                         gap="xxsmall")
        row[0].markdown(f"**{rank}**")
        name = literal(entry.item)
        row[1].markdown(f":green[**{name}** ✓]" if relevant else name)
        row[2].number_input(f"Grade of {entry.item}", min_value=0, max_value=MAX_GRADE,
                            step=1, key=keys.playground_grade(entry.item),
                            label_visibility="collapsed", on_change=on_grade,
                            args=(entry.item,))
        for column, (action, icon, to, disabled) in zip(row[3:], (
                ("up", ":material/arrow_upward:", rank - 1, rank == 1),
                ("down", ":material/arrow_downward:", rank + 1, rank == n),
                ("remove", ":material/close:", None, n == 1)), strict=True):
            column.button(icon, key=keys.playground_action(action, entry.item),
                          disabled=disabled, help=f"{ACTION_WORDS[action]} {entry.item}",
                          on_click=on_remove if to is None else on_move,
                          args=(rank,) if to is None else (rank, to))
    if pg.has_ties():
        st.caption("Some items share a score: the tie rule orders them. A move gives the list "
                   "an explicit order.")


def more_controls(pg: Playground) -> None:
    n = len(pg.items)
    ranks = list(range(1, n + 1))
    # each button under its choices: beside them, a narrow window's column would cut its text
    swap_a, swap_b = st.columns(2)
    swap_a.selectbox("Swap rank", ranks, key=keys.PLAYGROUND_SWAP_A)
    swap_b.selectbox("with rank", ranks, key=keys.PLAYGROUND_SWAP_B)
    st.button("Swap", key=keys.PLAYGROUND_SWAP, on_click=on_swap, disabled=n == 1,
              width="stretch")
    state.setdefault(keys.PLAYGROUND_NEW_GRADE, 1)
    st.number_input("Grade of a new item", min_value=0, max_value=MAX_GRADE, step=1,
                    key=keys.PLAYGROUND_NEW_GRADE)
    st.button("Add at the end", key=keys.PLAYGROUND_ADD, on_click=on_add,
              disabled=n >= MAX_ITEMS, width="stretch")
    count, grade = st.columns(2)
    count.number_input("Relevant items not in the list", min_value=0, max_value=MAX_ITEMS * 10,
                       step=1, key=keys.PLAYGROUND_BEYOND, on_change=on_beyond,
                       help="They count in Recall's |R| and in the ideal list of IDCG.")
    grade.number_input("Their grade", min_value=1, max_value=MAX_GRADE, step=1,
                       key=keys.PLAYGROUND_BEYOND_GRADE, on_change=on_beyond)


def at_cutoff(values: pd.DataFrame, k: int) -> pd.Series:
    """The list's metrics at K, from its table of values at K = 1, 2, ... (one row each)."""
    return values.iloc[k - 1]


def metric_tiles(now: pd.Series, before: pd.Series | None, k: int, per_row: int,
                 only: tuple[str, ...] = COLUMNS) -> None:
    """Each metric at K, with its change since the list before (none when unchanged)."""
    for start in range(0, len(only), per_row):
        row_metrics = only[start:start + per_row]
        for column, metric in zip(st.columns(per_row), row_metrics, strict=False):
            change = None if before is None else now[metric] - before[metric]
            moved = change is not None and abs(change) > 1e-12
            column.metric(f"{LABELS[metric]}@{k}", f"{now[metric]:.4f}",
                          delta=f"{change:+.4f}" if moved else
                          ("unchanged" if change is not None else None),
                          delta_color="normal" if moved else "off",
                          delta_arrow="auto" if moved else "off")


def at_k_table(now: pd.Series, before: pd.Series | None, k: int) -> None:
    table = pd.DataFrame({"now": now[list(COLUMNS)]})
    if before is not None:
        table.insert(0, "before", before[list(COLUMNS)])
        table["change"] = table["now"] - table["before"]
    table.index = [f"{LABELS[m]}@{k}" for m in COLUMNS]
    moved = (table["change"].abs() > 1e-12) if before is not None else None
    styled = table.style.format("{:+.4f}", subset=["change"] if before is not None else [])
    styled = styled.format("{:.4f}", subset=[c for c in table.columns if c != "change"])
    if moved is not None:
        styled = styled.apply(lambda row: marks([moved[row.name]] * len(row),
                                                Highlight.CHANGED), axis=1)
    st.dataframe(styled, key="playground_at_k")


def every_k_table(now: pd.DataFrame, before: pd.DataFrame | None) -> None:
    table = now.rename(columns=LABELS)
    styled = table.style.format("{:.4f}")
    if before is not None:
        old = before.loc[now.index].rename(columns=LABELS)
        changed = mask((table - old).abs() > 1e-12, Highlight.CHANGED)
        styled = styled.apply(lambda _: changed, axis=None)
    st.dataframe(styled, key="playground_table")


def switches(pg: Playground, k: int) -> None:
    st.subheader(f"Conventions side by side, at K = {k}")
    columns = st.columns(len(SWITCHES))
    grades = sorted({e.grade for e in pg.items} | set(pg.beyond) | {1, pg.threshold})
    for column, (option, (label, choices, words)) in zip(columns, SWITCHES.items(),
                                                         strict=True):
        shown = [g for g in grades if g >= 1] if option == "threshold" else list(choices)
        column.radio(label, shown, key=keys.playground_option(option), on_change=on_switch,
                     args=(option,), format_func=lambda v, w=words: w.get(v, str(v)))
    table = cached_playground.playground_switches(pg, k)
    wide = table.pivot_table(index=["option", "choice"], columns="metric", values="value",
                             sort=False)
    wide = wide[[m for m in COLUMNS if m in wide.columns]].rename(columns=LABELS)
    active = table.groupby(["option", "choice"], sort=False)["active"].first()
    wide.index = [f"{SWITCHES[o][0]} {SWITCHES[o][2].get(c, c)}" for o, c in wide.index]
    in_use = mask(pd.DataFrame({column: active.to_numpy() for column in wide.columns},
                               index=wide.index), Highlight.ACTIVE)
    written = wide.map(lambda value: "" if pd.isna(value) else f"{value:.4f}")
    st.dataframe(written.style.apply(lambda _: in_use, axis=None), key="playground_switches")
    st.caption("Each row: the list's values at K under one choice, the other conventions as "
               "chosen above; green: the choices in use. Blank: that choice cannot change the "
               "metric. The tie rule has rows when two items share a score.")


def formula(pg: Playground, k: int) -> None:
    state.setdefault(keys.PLAYGROUND_METRIC, "ndcg")
    st.selectbox("Formula of", EXPLAINED, key=keys.PLAYGROUND_METRIC,
                 format_func=lambda m: LABELS[m], persist_state="session")
    metric = state[keys.PLAYGROUND_METRIC]
    shown = cached_playground.playground_arithmetic(pg, metric, k)
    lines = shown.latex()
    if metric == "dcg" and not isinstance(shown, MetricArithmetic):
        lines = [METRICS["dcg"].formula, lines[1]]
    for line in lines:
        st.latex(line)


@st.fragment
def lesson_area(present: bool) -> None:
    """The list, its values and everything they change: a fragment, so that a move reruns
    this part of the page only (the sidebar and the scenarios stay as they are), which
    writes the list into the page's link itself."""
    write_link(state.get(keys.PREPARED))
    pg: Playground = state[keys.PLAYGROUND]
    before: Playground | None = state.get(keys.PLAYGROUND_BEFORE)
    n = len(pg.items)
    width = max(n, len(before.items) if before is not None else 0)
    now_values = cached_playground.playground_values(pg, width)
    before_values = (cached_playground.playground_values(before, width)
                     if before is not None else None)
    problem = state.pop(keys.PLAYGROUND_PROBLEM, None)
    if problem:
        st.warning(literal(problem))
    left, right = st.columns([5, 6], gap="large")
    with left:
        list_editor(pg)
        if not present:
            more_controls(pg)
    with right:
        if n > 1:
            st.slider("K", min_value=1, max_value=n, key=keys.PLAYGROUND_CUTOFF,
                      persist_state="session")
        k = min(int(state.get(keys.PLAYGROUND_CUTOFF, n)), n)
        words = state.get(keys.PLAYGROUND_WORDS)
        if before_values is not None and words:
            st.success(describe_change(before_values, now_values, k, words))
        at_k = at_cutoff(now_values, k)
        at_k_before = at_cutoff(before_values, k) if before_values is not None else None
        if present:  # the answer first, beside the list on a projector's screen
            state.setdefault(keys.PLAYGROUND_METRIC, "ndcg")
            with st.container(key="playground_answer"):
                metric_tiles(at_k, at_k_before, k, 1, only=(state[keys.PLAYGROUND_METRIC],))
            formula(pg, k)
        metric_tiles(at_k, at_k_before, k, 3)  # values in full from 800 px up
        if not present:
            at_k_table(at_k, at_k_before, k)
    if present:
        return
    show_chart(playground_curves(now_values.loc[1:n], before_values, k), "playground_curves",
               name=("playground", "K", k))
    st.subheader("Every K")
    every_k_table(now_values.loc[1:n], before_values)
    st.caption("Yellow: a value the last change moved.")
    switches(pg, k)
    st.subheader(f"The formula and its arithmetic at K = {k}")
    formula(pg, k)


# ----- the page ----------------------------------------------------------------------------

title, toggle = st.columns([2, 1], vertical_alignment="bottom")
title.title("Playground")
toggle.toggle("Presentation mode", key=keys.PLAYGROUND_PRESENT, persist_state="session",
              help="Larger type, no sidebar, the chosen metric's formula large.")
if not present:
    st.markdown("Build one user's ranked list, move items, change grades and conventions, and "
                "watch every metric at every K. Every number is the library's own evaluation "
                "of this list; the conventions here are this page's own.")
    scenario_buttons()
lesson = state.get(keys.PLAYGROUND_LESSON)
if lesson:
    st.info(f"**{lesson[0]}.** {lesson[1]}")
lesson_area(present)
if present:
    with st.expander("Scenarios"):
        scenario_buttons()
