"""NDCG explained: one user's NDCG@K worked out rank by rank."""

from dataclasses import replace

import pandas as pd
import streamlit as st

from dashboard import cached, keys
from dashboard.controls import download_table, ensure_choice
from dashboard.demos import DEMOS
from dashboard.prepared import Prepared
from dashboard.session import header, require_data
from dashboard.settings import USER_LIST_LIMIT, Settings
from dashboard.sidebar import set_convention
from dashboard.text import md
from rankmetrics.conventions import GAINS, IDEALS
from rankmetrics.explain import slipped_discount
from rankmetrics.figures import ndcg_contributions

UNRATED = "–"
MATCHES_SHOWN = 500
GAIN_WORDS = {"exponential": "exponential: 2^g − 1", "linear": "linear: g"}
IDEAL_WORDS = {"ground_truth": "all ground-truth items", "retrieved": "the model's own top K"}
ROW_COLUMNS = {
    "rank": st.column_config.NumberColumn("Rank", format="%d"),
    "item": st.column_config.TextColumn("Item"),
    "rating": st.column_config.TextColumn("Rating", help="– : the item has no ground truth."),
    "grade": st.column_config.NumberColumn("Grade", format="%g"),
    "gain": st.column_config.NumberColumn("Gain", format="%.4g"),
    "discount": st.column_config.NumberColumn("Discount 1/log2(rank+1)", format="%.4f"),
    "contribution": st.column_config.NumberColumn("Contribution", format="%.4f"),
    "running_dcg": st.column_config.NumberColumn("Running DCG", format="%.4f"),
    "running_idcg": st.column_config.NumberColumn("Running IDCG", format="%.4f"),
}

header(
    "NDCG explained",
    "Pick a user and follow their NDCG@K: each recommended item's gain, divided by a discount "
    "that grows with its rank, summed into DCG, then divided by the best possible DCG (IDCG).",
)
prepared, settings = require_data()
state = st.session_state
k = settings.cutoff
models = prepared.models
users = prepared.ground_truth.users


def pick_random(prepared: Prepared, settings: Settings) -> None:
    state[keys.SURPRISE_SEED] += 1
    chosen = cached.random_user(prepared, settings, state[keys.EXPLAIN_MODEL],
                                state[keys.SURPRISE_SEED])
    if chosen is not None:
        state[keys.EXPLAIN_USER] = chosen
        state.pop(keys.DISAGREEMENT, None)


def pick_disagreement(prepared: Prepared, settings: Settings) -> None:
    model, other = state[keys.EXPLAIN_MODEL], state[keys.EXPLAIN_OTHER]
    found = cached.disagreement(prepared, settings, model, other)
    state[keys.DISAGREEMENT] = (model, other, found)
    if found is not None:
        state[keys.EXPLAIN_USER] = found.user


def apply_everywhere() -> None:
    """The page's gain and ideal become the conventions of every page (the sidebar's)."""
    for option in ("gain", "ideal"):
        set_convention(option, state[keys.ndcg_convention(option)])


ensure_choice(keys.EXPLAIN_MODEL, models)
model_column, user_column = st.columns(2)
model_column.selectbox("Model", models, key=keys.EXPLAIN_MODEL, persist_state="session")
if len(users) > USER_LIST_LIMIT:
    search = user_column.text_input("Find a user", key=keys.EXPLAIN_SEARCH,
                                    persist_state="session",
                                    placeholder="type part of a user id")
    options = cached.users_containing(prepared, search, MATCHES_SHOWN)
else:
    options = list(users)
if state.get(keys.EXPLAIN_USER) in users and state[keys.EXPLAIN_USER] not in options:
    options.insert(0, state[keys.EXPLAIN_USER])
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
    st.info(f"Largest disagreement at NDCG@{k}: user **{md(gap.user)}** gets "
            f"{gap.value_a:.4f} from {md(first)} and {gap.value_b:.4f} from "
            f"{md(second)}.")
elif found and found[2] is None:
    st.info("The two models share no counted user.")

model, user = state[keys.EXPLAIN_MODEL], state[keys.EXPLAIN_USER]
for option in ("gain", "ideal"):
    state.setdefault(keys.ndcg_convention(option), state[keys.convention(option)])
gain_column, ideal_column = st.columns(2)
gain_column.radio("Gain of a grade g", list(GAINS), key=keys.ndcg_convention("gain"),
                  horizontal=True, format_func=GAIN_WORDS.get,
                  help="What if: changes this page only.")
ideal_column.radio("Ideal list (IDCG) from", list(IDEALS), key=keys.ndcg_convention("ideal"),
                   horizontal=True, format_func=IDEAL_WORDS.get,
                   help="What if: changes this page only.")
# Page-local "what if": the other pages keep the sidebar's conventions unless asked.
local = replace(settings, conventions=replace(
    settings.conventions, gain=state[keys.ndcg_convention("gain")],
    ideal=state[keys.ndcg_convention("ideal")]))
if local != settings:
    note, apply = st.columns([3, 1], vertical_alignment="center")
    note.info(f"What if: this page uses {GAIN_WORDS[local.conventions.gain]} gain and the ideal "
              f"from {IDEAL_WORDS[local.conventions.ideal]}; every other page keeps the "
              "sidebar's conventions.")
    apply.button("Use these on every page", on_click=apply_everywhere,
                 icon=":material/done_all:")

b = cached.breakdown(prepared, local, model, user)
dcg, idcg, ndcg = st.columns(3)
dcg.metric(f"DCG@{k}", f"{b.dcg:.4f}")
idcg.metric(f"IDCG@{k}", f"{b.idcg:.4f}")
ndcg.metric(f"NDCG@{k}", f"{b.ndcg:.4f}")
for line in b.latex():
    st.latex(line)

notes = []
if b.list_length == 0:
    notes.append(f"{model} recommended nothing to this user: every rank is empty.")
elif b.list_length < k:
    notes.append(f"{model} recommended only {b.list_length} items: ranks beyond add nothing.")
if b.n_relevant == 0:
    notes.append("This user has no relevant item under the relevance mapping.")
if not cached.counted(prepared, settings, model, user):
    notes.append("Under the active conventions this user is left out of the model's mean.")
for note in notes:
    st.info(md(note))



def shown(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows as displayed: an item without ground truth has no rating (shown as a dash)."""
    return rows.assign(rating=[UNRATED if pd.isna(v) else f"{v:g}" for v in rows["rating"]])


st.markdown(f"**{md(model)}'s top {k} for user {md(user)}**")
st.dataframe(shown(b.ranked), hide_index=True, column_config=ROW_COLUMNS, key="ranked_rows")
download_table(b.ranked, f"ndcg_at_{k}_of_one_user.csv", "ranked_rows_csv")
st.markdown(f"**The ideal list: {IDEAL_WORDS[b.conventions.ideal]}, sorted by gain**")
st.dataframe(shown(b.ideal), hide_index=True, column_config=ROW_COLUMNS, key="ideal_rows")
download_table(b.ideal, f"ideal_list_at_{k}_of_one_user.csv", "ideal_rows_csv")
st.caption("Items without gain add nothing to IDCG and are left out of the ideal list.")
if b.idcg > 0 or b.dcg > 0:
    st.plotly_chart(ndcg_contributions(b, prepared.colors[model], model), key="ndcg_bars",
                    config={"displaylogo": False})

st.subheader("The same user under each convention")
variants = cached.convention_variants(prepared, local, model, user)
side_by_side = variants.pivot(index="gain", columns="ideal", values="ndcg")
side_by_side = side_by_side.loc[list(GAINS), list(IDEALS)]
side_by_side.index = [f"gain {GAIN_WORDS[g]}" for g in side_by_side.index]
side_by_side.columns = [f"ideal from {IDEAL_WORDS[i]}" for i in side_by_side.columns]
active = variants.set_index(["gain", "ideal"])["active"]
mask = pd.DataFrame(
    [[("background-color: #d6f5d6; font-weight: bold" if active[(g, i)] else "")
      for i in IDEALS] for g in GAINS],
    index=side_by_side.index, columns=side_by_side.columns,
)
st.dataframe(side_by_side.style.format("{:.4f}").apply(lambda _: mask, axis=None),
             key="variants")
download_table(side_by_side, f"ndcg_at_{k}_under_each_convention.csv", "variants_csv")
st.caption(f"NDCG@{k} of this user; green: the conventions in use. Libraries differ here: "
           "trec_eval uses linear gain and the ground-truth ideal; scikit-learn's ndcg_score "
           "fed the recommended rows uses the retrieved ideal.")

slip_note = getattr(DEMOS.get(prepared.source), "tutorial_slip", None)
if slip_note is not None and model == slip_note.model and user == slip_note.user:
    rank, cutoff = slip_note.rank, slip_note.cutoff
    retrieved = replace(settings, cutoff=cutoff,
                        conventions=replace(settings.conventions, ideal="retrieved"))
    worked = cached.breakdown(prepared, retrieved, model, user)
    slip = slipped_discount(worked, rank)
    full = variants.set_index(["gain", "ideal"]).loc[(settings.conventions.gain, "ground_truth")]
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
            f"list scores {full['ndcg']:.4f}."
        )
