"""NDCG explained: one user's NDCG@K worked out rank by rank."""

from dataclasses import replace

import pandas as pd
import streamlit as st

from pages import _state
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

_state.header(
    "NDCG explained",
    "Pick a user and follow their NDCG@K: each recommended item's gain, divided by a discount "
    "that grows with its rank, summed into DCG, then divided by the best possible DCG (IDCG).",
)
prepared, settings = _state.require_data()
state = st.session_state
k = settings.cutoff
models = prepared.models
users = prepared.ground_truth.users


def pick_random(prepared: _state.Prepared, settings: _state.Settings) -> None:
    state.surprise_seed += 1
    chosen = _state.random_user(prepared, settings, state.explain_model, state.surprise_seed)
    if chosen is not None:
        state.explain_user = chosen
        state.pop("_disagreement", None)


def pick_disagreement(prepared: _state.Prepared, settings: _state.Settings) -> None:
    found = _state.disagreement(prepared, settings, state.explain_model, state.explain_other)
    state["_disagreement"] = (state.explain_model, state.explain_other, found)
    if found is not None:
        state.explain_user = found.user


def follow_sidebar(option: str) -> None:
    """Gain / ideal radios on this page set the sidebar's conventions."""
    state[f"conv_{option}"] = state[f"ndcg_{option}"]
    _state.sync_preset()


_state.ensure_choice("explain_model", models)
model_column, user_column = st.columns(2)
model_column.selectbox("Model", models, key="explain_model", persist_state="session")
if len(users) > _state.USER_LIST_LIMIT:
    search = user_column.text_input("Find a user", key="explain_search", persist_state="session",
                                    placeholder="type part of a user id")
    matches = users[users.str.contains(search, regex=False)] if search else users
    options = list(matches[:MATCHES_SHOWN])
else:
    options = list(users)
if state.get("explain_user") in users and state.explain_user not in options:
    options.insert(0, state.explain_user)
_state.ensure_choice("explain_user", options)
if not options:
    user_column.warning("No user id contains that text.")
    st.stop()
user_column.selectbox("User", options, key="explain_user", persist_state="session",
                      help="Type to search.")

surprise, other_column, disagree = st.columns([1, 1, 1], vertical_alignment="bottom")
surprise.button("Surprise me", icon=":material/casino:", on_click=pick_random,
                args=(prepared, settings), help="A random user (the same sequence every time).")
others = [m for m in models if m != state.explain_model]
if others:
    _state.ensure_choice("explain_other", others)
    other_column.selectbox("Compare with", others, key="explain_other", persist_state="session")
    disagree.button("Largest disagreement", icon=":material/compare_arrows:",
                    on_click=pick_disagreement, args=(prepared, settings),
                    help=f"The user whose NDCG@{k} differs most between the two models.")
found = state.get("_disagreement")
if found and found[2] is not None and found[2].user == state.explain_user:
    first, second, gap = found
    st.info(f"Largest disagreement at NDCG@{k}: user **{_state.md(gap.user)}** gets "
            f"{gap.value_a:.4f} from {_state.md(first)} and {gap.value_b:.4f} from "
            f"{_state.md(second)}.")
elif found and found[2] is None:
    st.info("The two models share no counted user.")

model, user = state.explain_model, state.explain_user
state.ndcg_gain, state.ndcg_ideal = state.conv_gain, state.conv_ideal
gain_column, ideal_column = st.columns(2)
gain_column.radio("Gain of a grade g", list(GAINS), key="ndcg_gain", horizontal=True,
                  format_func=GAIN_WORDS.get, on_change=follow_sidebar, args=("gain",))
ideal_column.radio("Ideal list (IDCG) from", list(IDEALS), key="ndcg_ideal", horizontal=True,
                   format_func=IDEAL_WORDS.get, on_change=follow_sidebar, args=("ideal",))

b = _state.breakdown(prepared, settings, model, user)
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
if not _state.counted(prepared, settings, model, user):
    notes.append("Under the active conventions this user is left out of the model's mean.")
for note in notes:
    st.info(_state.md(note))



def shown(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows as displayed: an item without ground truth has no rating (shown as a dash)."""
    return rows.assign(rating=[UNRATED if pd.isna(v) else f"{v:g}" for v in rows["rating"]])


st.markdown(f"**{_state.md(model)}'s top {k} for user {_state.md(user)}**")
st.dataframe(shown(b.ranked), hide_index=True, column_config=ROW_COLUMNS, key="ranked_rows")
st.markdown(f"**The ideal list: {IDEAL_WORDS[b.conventions.ideal]}, sorted by gain**")
st.dataframe(shown(b.ideal), hide_index=True, column_config=ROW_COLUMNS, key="ideal_rows")
st.caption("Items without gain add nothing to IDCG and are left out of the ideal list.")
if b.idcg > 0 or b.dcg > 0:
    st.plotly_chart(ndcg_contributions(b, prepared.colors[model], model), key="ndcg_bars",
                    config={"displaylogo": False})

st.subheader("The same user under each convention")
variants = _state.convention_variants(prepared, settings, model, user)
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
st.caption(f"NDCG@{k} of this user; green: the conventions in use. Libraries differ here: "
           "trec_eval uses linear gain and the ground-truth ideal; scikit-learn's ndcg_score "
           "fed the recommended rows uses the retrieved ideal.")

claim = getattr(_state.DEMOS.get(prepared.source), "seed_claim", None)
if claim is not None and model == claim.model and user == claim.user:
    retrieved = replace(settings, cutoff=claim.cutoff,
                        conventions=replace(settings.conventions, ideal="retrieved"))
    seed_view = _state.breakdown(prepared, retrieved, model, user)
    slip = slipped_discount(seed_view, claim.rank)
    full = variants.set_index(["gain", "ideal"]).loc[(settings.conventions.gain, "ground_truth")]
    with st.container(border=True):
        st.markdown(f"**Why the seed document says {claim.claimed}**")
        st.markdown(f"> {claim.quote}")
        st.markdown(
            f"Position {claim.rank} is discounted by 1 / log2({claim.rank} + 1) = "
            f"{slip.correct_discount:.4f}, so DCG@{claim.cutoff} = {seed_view.dcg:.4f} and, "
            f"with the ideal list of the retrieved items (IDCG@{claim.cutoff} = "
            f"{seed_view.idcg:.4f}), NDCG@{claim.cutoff} = {seed_view.dcg:.4f} / "
            f"{seed_view.idcg:.4f} = **{seed_view.ndcg:.4f}**."
        )
        st.markdown(
            f"The seed's 0.43 is 1 / log2({claim.rank}) = {slip.slipped_discount:.4f}, the "
            f"discount of position {claim.rank - 1}: with it DCG would be {slip.dcg:.4f} and "
            f"{slip.dcg:.4f} / {seed_view.idcg:.4f} = {slip.ndcg:.4f} ≈ 0.88, an arithmetic "
            f"slip. With the ideal from every liked item (the ground-truth ideal), the same "
            f"list scores {full['ndcg']:.4f}."
        )
