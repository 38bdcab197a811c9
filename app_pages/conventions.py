"""Why do they differ? The loaded data under every library's preset, the settings two presets
disagree on, what each one moves, and the users it moves most."""

import pandas as pd
import streamlit as st

from dashboard import bundles, keys
from dashboard.cached import beyond as cached_beyond
from dashboard.cached import conventions as cached_conventions
from dashboard.cached import evaluation as cached_evaluation
from dashboard.controls import download_table, ensure_choice, every_row
from dashboard.navigation import explain_user, explained_metric
from dashboard.session import header, require_data, subject
from dashboard.text import literal
from rankmetrics.choosing_k.ties import tie_flags
from rankmetrics.conventions import (
    LIBRARY_TIES,
    OPTION_LABELS,
    PRESET_HELP,
    PRESET_NAMES,
    PRESETS,
)
from rankmetrics.disagreement import AGREEMENT, ALL_SETTINGS
from rankmetrics.figures import metric_label, metric_title
from rankmetrics.metrics import MAIN_METRICS

USERS_SHOWN = 10


def equal_scores() -> None:
    """How much the order of equal scores moves the metric, and how each library orders them."""
    st.subheader("Equal scores")
    bounds = (cached_conventions.tie_bounds_of(prepared, settings, metric)
              if metric in MAIN_METRICS else None)
    ties = settings.conventions.ties
    if metric not in MAIN_METRICS:
        st.caption(f"How far the order of equal scores can move {label} is worked out for "
                   "Precision, Recall, HitRate, MRR, MAP and NDCG.")
    elif bounds is None:
        st.caption(f"The {many}' scores are not at hand here (a saved evaluation keeps ranked "
                   "lists), so how far the order of equal scores can move the value is not "
                   "known.")
    else:
        at = bounds.loc[(bounds["metric"] == metric) & (bounds["cutoff"] == k)]
        if not (at["tied_share"] > 0).any():
            st.caption(f"No list has equal scores across K = {k}: every library puts the same "
                       f"items in the top {k}, so ties explain none of the differences above.")
        else:
            flags = tie_flags(bounds, metric, k).set_index("model")
            shares = at.set_index("model")["tied_share"]
            table = pd.DataFrame({
                "Lowest": flags["low"], f"In force ({ties})": flags["active"],
                "Highest": flags["high"], f"{one.capitalize()}s with ties across K":
                shares.reindex(flags.index)})
            table.index.name = "Model"
            st.dataframe(table, key="conventions_ties", column_config={
                **{name: st.column_config.NumberColumn(name, format="%.4f")
                   for name in table.columns[:3]},
                str(table.columns[3]): st.column_config.NumberColumn(
                    str(table.columns[3]), format="percent")})
            widest = str(flags["range"].idxmax())
            low, high = flags.loc[widest, ["low", "high"]].to_numpy(float)
            st.markdown(
                f"Equal scores decide part of the top {k}: {literal(widest)}'s {label} lies "
                f"between {low:.4f} and {high:.4f} "
                "depending on their order, under every preset alike. "
                + ("That is more than its gap to the nearest model, so the tie rule could "
                   "change the order of the models." if flags.at[widest, "flagged"] else
                   "That is less than its gap to the nearest model: the order of the models "
                   "stands."))
    libraries = pd.DataFrame(
        [(library, order, rule or "none") for library, order, rule in LIBRARY_TIES],
        columns=["Library", "Orders equal scores", "Tie rule that matches"])
    st.dataframe(libraries, hide_index=True, key="conventions_library_ties",
                 height=every_row(libraries))
    st.caption("Where no tie rule matches, the library's value lies between the lowest and "
               "highest above. The tie rule is in the sidebar, under Advanced.")


one, many = subject(), subject(plural=True)
header(
    "Why do they differ?",
    "Two libraries can give two numbers for the same NDCG@10 because each makes its own "
    "choices: the gain of a grade, the ideal list, which users count. Here are your models "
    "under each library's preset, and what each choice moves.",
)
prepared, settings = require_data()
state = st.session_state
k = settings.cutoff

offered = [m for m in cached_evaluation.per_user_accuracy_metrics(prepared)
           if m in cached_beyond.per_user_metrics(prepared, settings)]
ensure_choice(keys.CONVENTIONS_METRIC, offered, default="ndcg")
st.selectbox("Metric", offered, key=keys.CONVENTIONS_METRIC,
             format_func=lambda m: metric_title(m, k), persist_state="session",
             help="The cutoff K comes from the sidebar.")
metric = state[keys.CONVENTIONS_METRIC]
label = metric_label(metric, k)
if bundles.full_evaluation(prepared) is not None:
    st.info(f"A saved evaluation keeps one set of conventions: below, the {many} whose lists "
            "it keeps are evaluated again under each preset.", icon=":material/info:")

with st.spinner(f"Evaluating every model under {len(PRESETS)} presets…"):
    means, pairs = cached_conventions.means(prepared, settings, metric)

st.subheader(f"{label} under each preset")
in_force = state.get(keys.PRESET)
table = means.copy()
table["Reproduces"] = [PRESET_HELP[name] for name in table.index]
table.index = [PRESET_NAMES[name] + (" (in the sidebar)" if name == in_force else "")
               for name in table.index]
table.index.name = "Preset"
st.dataframe(table, key="conventions_means", height=every_row(table), column_config={
    "Reproduces": st.column_config.TextColumn("What it reproduces", width="large"),
    **{model: st.column_config.NumberColumn(model, format="%.4f") for model in means.columns}})
download_table(means.reset_index(), f"presets_{metric}_at_{k}.csv", "conventions_means_csv")
spread = (means.max() - means.min()).sort_values(ascending=False)
widest = spread.index[0]
st.caption(f"Equal scores are ordered as the sidebar says ({settings.conventions.ties}) under "
           f"every preset; the relevance is the sidebar's. {literal(widest)}'s {label} goes "
           f"from {means[widest].min():.4f} to {means[widest].max():.4f} across the presets.")
if not cached_conventions.identical_ids_as_preset(prepared, settings, metric):
    kept = settings.conventions.identical_ids == "keep"
    st.caption(f"Items whose id is the {one}'s id are {'kept' if kept else 'dropped'} under "
               f"every preset, as the sidebar says: the {many}' files are not at hand to rank "
               "their lists again.")
if means_note := cached_conventions.grades_note(prepared, settings, metric):
    st.info(means_note, icon=":material/info:")

if not pairs:
    st.success(f"Every preset gives the same {label} here: the choices they differ on do not "
               "matter for this data and metric.", icon=":material/check_circle:")
    equal_scores()
    st.stop()

st.subheader("What moves the number")
pair_names = [f"{a} → {b}" for a, b in pairs]
ensure_choice(keys.CONVENTIONS_PAIR, pair_names, default=pair_names[0])
st.selectbox("From one preset to another", pair_names, key=keys.CONVENTIONS_PAIR,
             persist_state="session",
             help="Only the pairs of presets that give some model another value are listed.")
preset_a, preset_b = pairs[pair_names.index(state[keys.CONVENTIONS_PAIR])]
steps = cached_conventions.steps(prepared, settings, metric, preset_a, preset_b)
settings_moved = [s for s in dict.fromkeys(steps["setting"]) if s != ALL_SETTINGS]
wide = steps.pivot(index="setting", columns="model", values="move").loc[
    [*settings_moved, ALL_SETTINGS], list(means.columns)]
changes = {str(row[0]): f"{row[1]} → {row[2]}"  # setting, from, to
           for row in steps.drop_duplicates("setting").itertuples(index=False)}
changes[ALL_SETTINGS] = f"every one of them: {preset_a} → {preset_b}"
wide.insert(0, "Change", [changes[str(s)] for s in wide.index])
wide.index = [OPTION_LABELS.get(str(s), str(s).capitalize()) for s in wide.index]
wide.index.name = "Setting"
st.dataframe(wide, key="conventions_steps", column_config={
    "Change": st.column_config.TextColumn("Change", width="large"),
    **{model: st.column_config.NumberColumn(f"{model}: move", format="%+.4f")
       for model in means.columns}})
download_table(steps, f"presets_{preset_a}_to_{preset_b}_{metric}_at_{k}.csv",
               "conventions_steps_csv")
moves = wide.iloc[:-1][list(means.columns)].abs()  # every row but "all of them"
scale = float(means.abs().to_numpy().max()) or 1.0
largest = moves.max(axis=1)
idle = [str(s).lower() for s in moves.index if largest[s] <= AGREEMENT * scale]
biggest = str(largest.idxmax()).lower()
sentence = (f"From {preset_a} to {preset_b}, {biggest} moves {label} most on its own "
            f"(up to {float(largest.max()):.4f}).")
if idle:
    sentence += (f" {', '.join(idle).capitalize()} {'changes' if len(idle) == 1 else 'change'}"
                 " nothing here.")
st.markdown(sentence)
st.caption("Each row changes one setting alone, starting from the first preset; the last row "
           "changes them all, which gives the second preset's value. The moves of single "
           "settings need not add up to it: settings can act together.")

st.subheader(f"The {many} it moves most")
model = st.selectbox("Model", list(means.columns), key=keys.CONVENTIONS_MODEL,
                     persist_state="session")
moved = cached_conventions.users_moved(prepared, settings, metric, preset_a, preset_b,
                                       model, USERS_SHOWN)
if moved.empty:
    st.info(f"No {one}'s {label} changes from {preset_a} to {preset_b} for {literal(model)}.")
else:
    shown = pd.DataFrame({one.capitalize(): moved["user"], preset_a: moved["value_a"],
                          preset_b: moved["value_b"], "Move": moved["move"]})
    picked = st.dataframe(
        shown, hide_index=True, key="conventions_users", on_select="rerun",
        selection_mode="single-row", column_config={
            preset_a: st.column_config.NumberColumn(preset_a, format="%.4f"),
            preset_b: st.column_config.NumberColumn(preset_b, format="%.4f"),
            "Move": st.column_config.NumberColumn("Move", format="%+.4f")})
    st.caption(f"Largest change first; a {one} only one preset counts comes last, with the "
               "other value empty. Pick a row, then see the arithmetic.")
    rows = picked.selection.rows if picked is not None else []
    user = str(moved["user"].iloc[rows[0] if rows else 0])
    if st.button(f"Explain {literal(user)}'s {metric_label(explained_metric(metric), k)}",
                 icon=":material/calculate:", key="conventions_explain"):
        explain_user(model, user, metric)

equal_scores()
