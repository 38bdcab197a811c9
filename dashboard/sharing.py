"""The sidebar's "Share" section: the link to this view, the report of the comparison, the
charts' image format, and why parts of an opened link were not used."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from dashboard import cached, keys
from dashboard.controls import file_name
from dashboard.demos import DEMOS
from dashboard.files import FileSpec
from dashboard.links import apply_view_settings, dismiss_notices, link, notices, write_link
from dashboard.prepared import Prepared
from dashboard.settings import Settings
from dashboard.verdict import significance_choice
from rankmetrics.report import build_report, fingerprint

CHART_FORMATS = {"png": "PNG", "svg": "SVG"}


def share_controls(status_area, prepared: Prepared | None) -> None:
    """Write this view into the URL and offer it to copy; show the link's notices."""
    settings = st.session_state.get(keys.SETTINGS)
    if prepared is not None and settings is not None:
        apply_view_settings(prepared, settings)
    params = write_link(prepared)
    st.divider()
    st.subheader("Share")
    with st.popover("Copy link", icon=":material/link:", use_container_width=True):
        st.caption("This link reopens this page with these settings and files on this server "
                   "(the copy icon is at the right of the link).")
        st.code(link(params), language=None, wrap_lines=True)
    if (prepared is not None and settings is not None and len(prepared.models) > 1
            and cached.paired_users(prepared, settings, "ndcg") > 1):
        report_button(prepared, settings)
    st.session_state.setdefault(keys.CHART_FORMAT, "png")
    st.radio("Charts download as", list(CHART_FORMATS), key=keys.CHART_FORMAT, horizontal=True,
             format_func=CHART_FORMATS.get, persist_state="session",
             help="The camera icon above a chart saves it as an image of publication size.")
    shown = notices()
    if shown:
        with status_area.container(border=True):
            for text in shown:
                st.warning(text, icon=":material/link_off:")
            st.button("Dismiss", key="dismiss_link_notices", on_click=dismiss_notices)


def report_button(prepared: Prepared, settings: Settings) -> None:
    """"Download report": the HTML report of this comparison, written when clicked."""
    choice = significance_choice()
    metric = st.session_state.get(keys.SIGNIFICANCE_METRIC, "ndcg")
    evaluation = cached.report_evaluation(prepared, settings)
    specs = {"ground truth": prepared.truth_spec,
             **{model: prepared.specs[model] for model in prepared.models}}
    counts = {role: cached.counts(spec) for role, spec in specs.items()}
    source = DEMOS[prepared.source].label if prepared.source in DEMOS else "your files"
    title = f"Model comparison: {source}"

    def write() -> str:
        inputs = [fingerprint(role, spec.file_name, _content(spec), counts[role][0],
                              counts[role][1]) for role, spec in specs.items()]
        return build_report(evaluation, inputs, cutoff=settings.cutoff, metric=metric,
                            test=choice.test, correction=choice.correction,
                            confidence=choice.confidence, n_permutations=choice.n_permutations,
                            n_bootstrap=choice.n_bootstrap, title=title,
                            colors=prepared.colors)

    st.download_button(
        "Download report", write, mime="text/html", key="report_html", on_click="ignore",
        file_name=file_name("rankmetrics report", prepared.source, "K", settings.cutoff,
                            suffix=".html"),
        icon=":material/description:", use_container_width=True,
        help="One HTML file that opens offline: the decision in words, the curves, the table "
        "at K, the distributions, the significance matrix, the conventions, each file's "
        "fingerprint and the command line that computes the same numbers.")


def _content(spec: FileSpec) -> bytes:
    return spec.data if spec.data is not None else Path(spec.path or "").read_bytes()
