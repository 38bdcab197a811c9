"""Metrics explained: one user's metric at K worked out rank by rank, for every metric."""

from dataclasses import replace

import pandas as pd
import streamlit as st

from dashboard import bundles, keys
from dashboard.cached import explained as cached_explained
from dashboard.charts import show_chart
from dashboard.controls import download_table, ensure_choice, file_name
from dashboard.demos import DEMOS
from dashboard.highlight import Highlight, mask
from dashboard.prepared import Prepared
from dashboard.session import header, require_data
from dashboard.settings import USER_LIST_LIMIT, Settings
from dashboard.sidebar import set_convention
from dashboard.text import literal
from rankmetrics.conventions import (
    AP_DENOMINATORS,
    DISCOUNTS,
    GAINS,
    IDEALS,
    PRECISION_DENOMINATORS,
    RECALL_DENOMINATORS,
)
from rankmetrics.explain import HISTORY_METRICS, STEP_COLUMNS, STEP_METRICS, slipped_discount
from rankmetrics.figures import metric_label, ndcg_contributions
from rankmetrics.metrics import MAIN_METRICS, plain_label

UNRATED = "–"
MATCHES_SHOWN = 500
GAIN_WORDS = {"exponential": "exponential: 2^g − 1", "linear": "linear: g"}
IDEAL_WORDS = {"ground_truth": "all ground-truth items", "retrieved": "the model's own top K"}
DENOMINATOR_WORDS = {"relevant": "|R| (all relevant items)", "min_k_relevant": "min(K, |R|)",
                     "hits": "the hits in the top K",
                     "min_shown_relevant": "min(|R|, items in the top K)"}
DISCOUNT_WORDS = {"shifted": "1/log2(i + 1)", "clipped": "1/log2(max(i, 2))"}
RECALL_WORDS = {"relevant": "|R| (all relevant items)", "min_k_relevant": "min(K, |R|)"}
PRECISION_WORDS = {"cutoff": "K", "list_length": "min(K, list length)"}
#: The conventions this page lets you change for itself, by metric.
LOCAL_OPTIONS = {"ndcg": ("gain", "ideal", "discount"), "map": ("ap_denominator",),
                 "recall": ("recall_denominator",), "precision": ("precision_denominator",)}
OPTION_CONTROLS = {
    "gain": ("Gain of a grade g", GAINS, GAIN_WORDS),
    "ideal": ("Ideal list (IDCG) from", IDEALS, IDEAL_WORDS),
    "discount": ("Discount of rank i", DISCOUNTS, DISCOUNT_WORDS),
    "ap_denominator": ("AP divides by", AP_DENOMINATORS, DENOMINATOR_WORDS),
    "recall_denominator": ("Recall divides by", RECALL_DENOMINATORS, RECALL_WORDS),
    "precision_denominator": ("Precision divides by", PRECISION_DENOMINATORS,
                              PRECISION_WORDS),
}
ROW_COLUMNS = {
    "rank": st.column_config.NumberColumn("Rank", format="%d"),
    "item": st.column_config.TextColumn("Item"),
    "rating": st.column_config.TextColumn("Rating", help="– : the item has no ground truth."),
    "grade": st.column_config.NumberColumn("Grade", format="%g"),
    "gain_linear": st.column_config.NumberColumn("Gain, linear g", format="%.4g"),
    "gain_exponential": st.column_config.NumberColumn("Gain, exponential 2^g − 1",
                                                      format="%.4g"),
    "gain": st.column_config.NumberColumn("Gain used", format="%.4g"),
    "discount": st.column_config.NumberColumn("× discount 1/log2(rank+1)", format="%.4f"),
    "contribution": st.column_config.NumberColumn("= contribution", format="%.4f"),
    "running_dcg": st.column_config.NumberColumn("Running DCG", format="%.4f"),
    "running_idcg": st.column_config.NumberColumn("Running IDCG", format="%.4f"),
    "relevant": st.column_config.CheckboxColumn("Relevant"),
    "hits": st.column_config.NumberColumn("Hits so far", format="%d"),
    "precision": st.column_config.NumberColumn("Precision at this rank", format="%.4f"),
}
#: The columns of the rank-by-rank table of ERR, RBP, bpref and Judged, by metric.
STEP_ROW_COLUMNS = {
    "judged": st.column_config.CheckboxColumn("Judged", help="The item has a judgment in the "
                                              "user's ground truth (relevant or not)."),
    "stop": st.column_config.NumberColumn("Stop here: (2^g − 1) / 2^g_max", format="%.4f"),
    "reached": st.column_config.NumberColumn("Reached: no stop before", format="%.4f"),
    "weight": st.column_config.NumberColumn("Weight (1 − p) p^(rank − 1)", format="%.4f"),
    "unknown": st.column_config.NumberColumn("Weight of an unjudged rank", format="%.4f"),
    "nonrelevant_above": st.column_config.NumberColumn("Judged non-relevant above",
                                                       format="%d"),
    "judged_so_far": st.column_config.NumberColumn("Judged so far", format="%d"),
}
STEP_PARTS = {
    "err": ("= reached × stop / rank", "Running ERR"),
    "rbp": ("= weight if relevant", "Running RBP"),
    "bpref": ("= term / |R|", "Running bpref"),
    "judged": ("", "Share judged so far"),
}
#: The columns of serendipity's and miscalibration's tables.
HISTORY_ROW_COLUMNS = {
    "similarity": st.column_config.NumberColumn(
        "Mean similarity to the history", format="%.4f",
        help="The item's similarity to each item the user has seen, averaged."),
    "popularity_rank": st.column_config.NumberColumn(
        "Popularity rank", format="%d", help="1: the most popular item of the catalogue; "
        "0: outside the catalogue."),
    "unexpected": st.column_config.NumberColumn("Unexpected", format="%.4f"),
    "part": st.column_config.NumberColumn("= part if relevant", format="%.4f"),
    "running": st.column_config.NumberColumn("Parts so far", format="%.4f"),
    "categories": st.column_config.TextColumn("Categories"),
    "category": st.column_config.TextColumn("Category"),
    "history": st.column_config.NumberColumn("Share of the history (p)", format="%.4f"),
    "top_k": st.column_config.NumberColumn("Share of the top K (q)", format="%.4f"),
    "smoothed": st.column_config.NumberColumn("Smoothed (1 − α) q + α p", format="%.4f"),
    "term": st.column_config.NumberColumn("Term p ln(p / smoothed)", format="%.4f"),
}
#: What changes ERR, RBP, bpref and Judged, in words.
STEP_NOTES = {
    "err": "g_max is the same for every user: by default the highest grade of the relevance "
    "mapping (with ratings as grades, the highest grade in the ground truth). gdeval, which "
    "ir_measures runs for ERR@k, uses 4: every stop probability is then smaller.",
    "rbp": "The persistence p is how patient the reader is: 0.5 looks at about two items, "
    "0.95 at about twenty. The interval's top is RBP were every unjudged item and every rank "
    "after K relevant. RBP counts relevance at the threshold (0/1), as ranx does.",
    "bpref": "bpref skips unjudged items: only judged non-relevant items above a relevant "
    "one cost it anything. What counts as relevant moves items between R and N.",
}
#: What the conventions do to each binary metric, in words.
CONVENTION_NOTES = {
    "precision": "Precision divides by K even when the list is shorter than K (as trec_eval "
    "does): a list of 3 items scores at most 3/K. Only what counts as relevant changes it.",
    "recall": "|R| counts every relevant item of the user's ground truth, found or not: the "
    "relevance threshold changes both the hits and |R|.",
    "hit_rate": "1 as soon as one relevant item is in the top K: how many, and where, does not "
    "matter. Only what counts as relevant changes it.",
    "mrr": "Only the first relevant item counts, through its rank: 1 at rank 1, 1/2 at rank 2, "
    "0 when none is in the top K. MRR is the mean of this value over users.",
    "map": "The precision at each hit is summed and divided by the denominator: trec_eval, ranx "
    "and pytrec_eval divide by |R|; RecBole and Microsoft Recommenders by min(K, |R|); "
    "torchmetrics by the hits in the top K (then a list with one hit at rank 1 scores 1).",
}

header(
    "Metrics explained",
    "Pick a metric, a model and a user: the user's ranked list, the metric's formula and its "
    "arithmetic at K with the user's own numbers, and what each convention would change.",
)
prepared, settings = require_data()
bundles.sample_note(prepared)
state = st.session_state
k = settings.cutoff
models = prepared.models
users = prepared.ground_truth.users


def pick_random(prepared: Prepared, settings: Settings) -> None:
    state[keys.SURPRISE_SEED] += 1
    chosen = cached_explained.random_user(prepared, settings, state[keys.EXPLAIN_MODEL],
                                          state[keys.SURPRISE_SEED])
    if chosen is not None:
        state[keys.EXPLAIN_USER] = chosen
        state.pop(keys.DISAGREEMENT, None)


def pick_disagreement(prepared: Prepared, settings: Settings) -> None:
    model, other = state[keys.EXPLAIN_MODEL], state[keys.EXPLAIN_OTHER]
    found = cached_explained.disagreement(prepared, settings, model, other)
    state[keys.DISAGREEMENT] = (model, other, found)
    if found is not None:
        state[keys.EXPLAIN_USER] = found.user


def apply_everywhere(metric: str) -> None:
    """The page's own choices become the conventions of every page (the sidebar's)."""
    for option in LOCAL_OPTIONS.get(metric, ()):
        set_convention(option, state[keys.explained_convention(option)])


def page_conventions(settings: Settings, metric: str) -> Settings:
    """The settings with this page's own choices of the metric's conventions: each starts
    from the sidebar's (and starts again when the sidebar's changes); none changes it."""
    chosen = {}
    for option in LOCAL_OPTIONS.get(metric, ()):
        sidebar_value = state[keys.convention(option)]
        if (state.get(keys.explained_followed(option)) != sidebar_value
                or keys.explained_convention(option) not in state):
            state[keys.explained_convention(option)] = sidebar_value
            state[keys.explained_followed(option)] = sidebar_value
        chosen[option] = state[keys.explained_convention(option)]
    return replace(settings, conventions=replace(settings.conventions, **chosen))


def what_if(mine: Settings, settings: Settings, options: tuple[str, ...]) -> str:
    """The page's own choices that differ from the sidebar's, in words."""
    words = []
    for option in options:
        value = getattr(mine.conventions, option)
        if value != getattr(settings.conventions, option):
            label, _, names = OPTION_CONTROLS[option]
            words.append(f"{label.lower()} {names[value]}")
    return "; ".join(words)


EXPLAINED = (*MAIN_METRICS, *STEP_METRICS,
             *cached_explained.history_metrics(prepared, settings))
ensure_choice(keys.EXPLAIN_METRIC, EXPLAINED, "ndcg")
metric_column, model_column, user_column = st.columns(3)
metric_column.selectbox("Metric", EXPLAINED, key=keys.EXPLAIN_METRIC,
                        format_func=plain_label, persist_state="session")
metric = state[keys.EXPLAIN_METRIC]
ensure_choice(keys.EXPLAIN_MODEL, models)
model_column.selectbox("Model", models, key=keys.EXPLAIN_MODEL, persist_state="session")
if len(users) > USER_LIST_LIMIT:
    search = user_column.text_input("Find a user", key=keys.EXPLAIN_SEARCH,
                                    persist_state="session",
                                    placeholder="type part of a user id")
    options = cached_explained.users_containing(prepared, search, MATCHES_SHOWN)
else:
    options = list(users)
if state.get(keys.EXPLAIN_USER) in users and state[keys.EXPLAIN_USER] not in options:
    options.insert(0, state[keys.EXPLAIN_USER])
asked = state.get(keys.EXPLAIN_USER)
if (bundles.full_evaluation(prepared) is not None and asked is not None
        and asked not in set(users)):
    st.info(f"User **{literal(str(asked))}** is not among the {len(users):,} sampled users whose "
            "lists this saved evaluation holds, so their list cannot be shown: showing a "
            "sampled user instead.", icon=":material/info:")
ensure_choice(keys.EXPLAIN_USER, options)
if not options:
    user_column.warning("No user id contains that text.")
    st.stop()
user_column.selectbox("User", options, key=keys.EXPLAIN_USER, persist_state="session",
                      help="Type to search.")

surprise, other_column, disagree = st.columns([1, 1, 1], vertical_alignment="bottom")
surprise.button("Surprise me", icon=":material/casino:", on_click=pick_random,
                args=(prepared, settings), help="A random user (the same sequence every time).")
others = [m for m in models if m != state[keys.EXPLAIN_MODEL]]
if others:
    ensure_choice(keys.EXPLAIN_OTHER, others)
    other_column.selectbox("Compare with", others, key=keys.EXPLAIN_OTHER, persist_state="session")
    disagree.button("Largest disagreement", icon=":material/compare_arrows:",
                    on_click=pick_disagreement, args=(prepared, settings),
                    help=f"The user whose NDCG@{k} differs most between the two models.")
found = state.get(keys.DISAGREEMENT)
if found and found[2] is not None and found[2].user == state[keys.EXPLAIN_USER]:
    first, second, gap = found
    st.info(f"Largest disagreement at NDCG@{k}: user **{literal(gap.user)}** gets "
            f"{gap.value_a:.4f} from {literal(first)} and {gap.value_b:.4f} from "
            f"{literal(second)}.")
elif found and found[2] is None:
    st.info("The two models share no counted user.")

model, user = state[keys.EXPLAIN_MODEL], state[keys.EXPLAIN_USER]
local = LOCAL_OPTIONS.get(metric, ())
if bundles.full_evaluation(prepared) is not None:  # a saved evaluation's conventions are fixed
    mine = settings
    if local:
        st.caption("**Conventions of this saved evaluation** (fixed when it was saved; "
                   "evaluate the data again to change them): " + "; ".join(
                       f"{OPTION_CONTROLS[option][0].lower()}: "
                       f"{OPTION_CONTROLS[option][2][getattr(settings.conventions, option)]}"
                       for option in local) + ".")
else:
    mine = page_conventions(settings, metric)  # before the radios: it gives them their start
    for column, option in zip(st.columns(max(len(local), 1)), local, strict=False):
        label, choices, words = OPTION_CONTROLS[option]
        column.radio(label, list(choices), key=keys.explained_convention(option),
                     horizontal=True, format_func=words.get,
                     help="What if: changes this page only.")
    if mine.conventions != settings.conventions:
        note, apply = st.columns([3, 1], vertical_alignment="center")
        note.info(f"What if: this page uses {what_if(mine, settings, local)}; every other page "
                  "keeps the sidebar's conventions.")
        apply.button("Use these on every page", on_click=apply_everywhere, args=(metric,),
                     icon=":material/done_all:")


#: Under relevant_items="in_list" only the relevant items of the model's list count.
IN_LIST = settings.conventions.relevant_items == "in_list"
RELEVANT_LABEL = "Relevant items in the list (|R|)" if IN_LIST else "Relevant items in all (|R|)"


def notes(list_length: int, n_relevant: int) -> None:
    said = []
    if list_length == 0:
        said.append(f"{model} recommended nothing to this user: every rank is empty.")
    elif list_length < k:
        said.append(f"{model} recommended only {list_length} items: ranks beyond add nothing.")
    if n_relevant == 0:
        said.append("This user has no relevant item in the model's list under the relevance "
                    "mapping." if IN_LIST else
                    "This user has no relevant item under the relevance mapping.")
    if not cached_explained.counted(prepared, settings, model, user):
        said.append("Under the active conventions this user is left out of the model's mean.")
    for note in said:
        st.info(literal(note))


def shown(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows as displayed: an item without ground truth has no rating (shown as a dash)."""
    return rows.assign(rating=[UNRATED if pd.isna(v) else f"{v:g}" for v in rows["rating"]])


def highlighted(table: pd.DataFrame, active: pd.DataFrame):
    """The table with the cells of the conventions in use in green, values to 4 decimals."""
    in_use = mask(active, Highlight.ACTIVE)
    return table.style.format("{:.4f}").apply(lambda _: in_use, axis=None)


def explain_ndcg_page(settings: Settings) -> None:
    clipped = settings.conventions.discount == "clipped"
    discount = "1/log2(max(rank, 2))" if clipped else "1/log2(rank + 1)"
    ROW_COLUMNS["discount"] = st.column_config.NumberColumn(f"× discount {discount}",
                                                            format="%.4f")
    breakdown = cached_explained.breakdown(prepared, settings, model, user)
    dcg, idcg, ndcg = st.columns(3)
    dcg.metric(f"DCG@{k}", f"{breakdown.dcg:.4f}")
    idcg.metric(f"IDCG@{k}", f"{breakdown.idcg:.4f}")
    ndcg.metric(f"NDCG@{k}", f"{breakdown.ndcg:.4f}")
    for line in breakdown.latex():
        st.latex(line)
    notes(breakdown.list_length, breakdown.n_relevant)
    st.markdown(
        f"**{literal(model)}'s top {k} for user {literal(user)}**: each item's gain is "
        f"multiplied by its rank's discount {discount}, which shrinks down the list "
        f"({'1, 1, 0.63, 0.5' if clipped else '1, 0.63, 0.5, 0.43'}, …); the products add up "
        "to DCG."
    )
    st.dataframe(shown(breakdown.ranked), hide_index=True, column_config=ROW_COLUMNS,
                 key="ranked_rows")
    download_table(breakdown.ranked,
                   file_name("ndcg_at", k, "of", model, "for user", user, suffix=".csv"),
                   "ranked_rows_csv")
    st.caption(
        "Both gains side by side: 2^g − 1 about doubles with each grade (grades 1, 2, 3 give "
        "1, 3, 7), so exponential gain favours highly relevant items: one item of grade 3 is "
        "worth seven of grade 1, against three with the linear gain g. On 0/1 relevance both "
        "give 0 and 1, so they are equal."
    )
    st.markdown(f"**The ideal list: {IDEAL_WORDS[breakdown.conventions.ideal]}, sorted by "
                "gain**")
    st.dataframe(shown(breakdown.ideal), hide_index=True, column_config=ROW_COLUMNS,
                 key="ideal_rows")
    download_table(breakdown.ideal,
                   file_name("ideal_list_at", k, "for user", user, suffix=".csv"),
                   "ideal_rows_csv")
    st.caption("Items without gain add nothing to IDCG and are left out of the ideal list.")
    if breakdown.idcg > 0 or breakdown.dcg > 0:
        show_chart(ndcg_contributions(breakdown, prepared.colors[model], model), "ndcg_bars",
                   name=("ndcg_at", k, "of", model, "for user", user))

    st.subheader("The same user under each convention")
    variants = cached_explained.convention_variants(prepared, settings, model, user)
    side_by_side = variants.pivot(index="gain", columns="ideal", values="ndcg")
    side_by_side = side_by_side.loc[list(GAINS), list(IDEALS)]
    active = variants.pivot(index="gain", columns="ideal", values="active")
    active = active.loc[list(GAINS), list(IDEALS)]
    for table in (side_by_side, active):
        table.index = [f"gain {GAIN_WORDS[g]}" for g in GAINS]
        table.columns = [f"ideal from {IDEAL_WORDS[i]}" for i in IDEALS]
    st.dataframe(highlighted(side_by_side, active), key="variants")
    download_table(side_by_side, file_name("ndcg_at", k, "of", model, "for user", user,
                                            "under each convention", suffix=".csv"),
                   "variants_csv")
    st.caption(f"NDCG@{k} of this user; green: the conventions in use. Libraries differ here: "
               "trec_eval uses linear gain and the ground-truth ideal; scikit-learn's "
               "ndcg_score fed the recommended rows uses the retrieved ideal.")
    tutorial_note(settings, variants)


def tutorial_note(settings: Settings, variants: pd.DataFrame) -> None:
    slip_note = getattr(DEMOS.get(prepared.source), "tutorial_slip", None)
    if (slip_note is None or model != slip_note.model or user != slip_note.user
            or settings.conventions.discount != "shifted"):  # the slip is of log2(rank + 1)
        return
    rank, cutoff = slip_note.rank, slip_note.cutoff
    retrieved = replace(settings, cutoff=cutoff,
                        conventions=replace(settings.conventions, ideal="retrieved"))
    worked = cached_explained.breakdown(prepared, retrieved, model, user)
    slip = slipped_discount(worked, rank)
    by_convention = variants.set_index(["gain", "ideal"])["ndcg"]
    full_ndcg = by_convention.loc[(settings.conventions.gain, "ground_truth")]
    with st.container(border=True):
        st.markdown(f"**Why a widely copied NDCG tutorial says {slip_note.claimed}**")
        st.markdown("A tutorial example of NDCG, copied into many blog posts and course notes, "
                    "works out this user's list and says:")
        st.markdown(f"> {slip_note.quote}")
        st.markdown(
            f"Position {rank} is discounted by 1 / log2({rank} + 1) = "
            f"{slip.correct_discount:.4f}, so DCG@{cutoff} = {worked.dcg:.4f} and, "
            f"with the ideal list of the retrieved items (IDCG@{cutoff} = "
            f"{worked.idcg:.4f}), NDCG@{cutoff} = {worked.dcg:.4f} / "
            f"{worked.idcg:.4f} = **{worked.ndcg:.4f}**."
        )
        st.markdown(
            f"The tutorial's 0.43 is 1 / log2({rank}) = {slip.slipped_discount:.4f}, the "
            f"discount of position {rank - 1}: with it DCG would be {slip.dcg:.4f} and "
            f"{slip.dcg:.4f} / {worked.idcg:.4f} = {slip.ndcg:.4f} ≈ 0.88, an arithmetic "
            f"slip. With the ideal from every liked item (the ground-truth ideal), the same "
            f"list scores {full_ndcg:.4f}."
        )


def explain_binary_page(settings: Settings) -> None:
    arithmetic = cached_explained.arithmetic(prepared, settings, model, user, metric)
    label = metric_label(metric, k)
    value, hits, relevant = st.columns(3)
    value.metric(label, f"{arithmetic.value:.4f}")
    hits.metric(f"Relevant items in the top {k}", len(arithmetic.hit_ranks))
    relevant.metric(RELEVANT_LABEL, arithmetic.n_relevant)
    for line in arithmetic.latex():
        st.latex(line)
    words = arithmetic.denominator_words()
    if words:
        st.caption(f"Divided by {words}.")
    notes(arithmetic.list_length, arithmetic.n_relevant)
    st.markdown(f"**{literal(model)}'s top {k} for user {literal(user)}**")
    columns = ["rank", "item", "rating", "grade", "relevant", "hits"]
    if metric == "map":
        columns.append("precision")
    st.dataframe(shown(arithmetic.ranked[columns]), hide_index=True, column_config=ROW_COLUMNS,
                 key="metric_rows")
    download_table(arithmetic.ranked[columns],
                   file_name(metric, "at", k, "of", model, "for user", user, suffix=".csv"),
                   "metric_rows_csv")
    st.subheader("The same user under each convention")
    st.markdown(CONVENTION_NOTES[metric])
    variants = cached_explained.metric_choices(prepared, settings, model, user, metric)
    variants = variants.assign(choice=[DENOMINATOR_WORDS.get(c, c) for c in variants["choice"]])
    table = variants.set_index(["option", "choice"])[["value"]]
    table.columns = [label]
    active = variants.set_index(["option", "choice"])[["active"]]
    active.columns = [label]
    st.dataframe(highlighted(table, active), key="metric_variants")
    download_table(table, file_name(metric, "at", k, "of", model, "for user", user,
                                     "under each convention", suffix=".csv"),
                   "metric_variants_csv")
    st.caption(f"{label} of this user; green: the settings in use (the relevance threshold is "
               "set in the sidebar).")


def explain_history_page(settings: Settings) -> None:
    worked = cached_explained.history_steps(prepared, settings, model, user, metric)
    value, second, third = st.columns(3)
    value.metric(metric_label(metric, k), f"{worked.value:.4f}")
    second.metric("Items the user has seen", len(worked.history))
    if metric == "serendipity":
        third.metric(f"Relevant in the top {k}", int(worked.ranked["relevant"].sum()))
    else:
        third.metric("Smoothing α", f"{worked.alpha:g}")
    for line in worked.latex():
        st.latex(line)
    st.caption(literal(worked.words()))
    st.markdown(f"**{literal(model)}'s top {k} for user {literal(user)}**")
    config = {**ROW_COLUMNS, **HISTORY_ROW_COLUMNS}
    st.dataframe(shown(worked.ranked), hide_index=True, column_config=config,
                 key="history_rows")
    download_table(worked.ranked, file_name(metric, "at", k, "of", model, "for user", user,
                                            suffix=".csv"), "history_rows_csv")
    if worked.categories is not None:
        st.markdown(f"**The categories of user {literal(user)}'s history**")
        st.dataframe(worked.categories, hide_index=True, column_config=config,
                     key="history_categories")
    with st.expander(f"The {len(worked.history)} items user {literal(user)} has seen"):
        st.write(literal(", ".join(worked.history)) or "None.")


def explain_steps_page(settings: Settings) -> None:
    steps = cached_explained.steps(prepared, settings, model, user, metric)
    label = metric_label(metric, k)
    value, second, third = st.columns(3)
    value.metric(label, f"{steps.value:.4f}")
    if metric == "rbp":
        second.metric("With what unjudged items could add",
                      f"{steps.value:.4f} to {steps.value + steps.residual:.4f}")
        third.metric("Persistence p", f"{steps.persistence:g}")
    elif metric == "err":
        second.metric("g_max", f"{steps.max_grade:g}")
        third.metric(RELEVANT_LABEL, steps.n_relevant)
    elif metric == "bpref":
        second.metric(RELEVANT_LABEL, steps.n_relevant)
        third.metric("Judged non-relevant in all (|N|)", steps.n_nonrelevant)
    else:
        second.metric(f"Judged in the top {k}", int(steps.ranked["judged"].sum()))
        third.metric(f"Items in the top {k}", min(k, steps.list_length))
    for line in steps.latex():
        st.latex(line)
    st.caption(literal(steps.words()))
    notes(steps.list_length, steps.n_relevant)
    st.markdown(f"**{literal(model)}'s top {k} for user {literal(user)}**")
    columns = ["rank", "item", "rating", "grade", "judged", "relevant", *STEP_COLUMNS[metric]]
    part, running = STEP_PARTS[metric]
    config = {**ROW_COLUMNS, **STEP_ROW_COLUMNS,
              "part": st.column_config.NumberColumn(part, format="%.4f"),
              "running": st.column_config.NumberColumn(running, format="%.4f")}
    st.dataframe(shown(steps.ranked[columns]), hide_index=True, column_config=config,
                 key="step_rows")
    download_table(steps.ranked[columns],
                   file_name(metric, "at", k, "of", model, "for user", user, suffix=".csv"),
                   "step_rows_csv")
    if metric not in STEP_NOTES:
        return
    st.subheader("The same user under each choice")
    st.markdown(STEP_NOTES[metric])
    variants = cached_explained.step_choices(prepared, settings, model, user, metric)
    table = variants.set_index(["option", "choice"]).drop(columns="active")
    table.columns = [label, *(["Up to"] if metric == "rbp" else [])]
    active = variants.set_index(["option", "choice"])[["active"] * len(table.columns)]
    active.columns = table.columns
    st.dataframe(highlighted(table, active), key="step_variants")
    download_table(table, file_name(metric, "at", k, "of", model, "for user", user,
                                     "under each choice", suffix=".csv"), "step_variants_csv")
    st.caption(f"{label} of this user; green: the setting in use (set under Conventions in "
               "the sidebar, the relevance threshold above them).")


if metric == "ndcg":
    explain_ndcg_page(mine)
elif metric in HISTORY_METRICS:
    explain_history_page(mine)
elif metric in STEP_METRICS:
    explain_steps_page(mine)
else:
    explain_binary_page(mine)
