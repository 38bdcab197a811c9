"""The sidebar's "Share" section: the link to this view, the charts' image format, and why
parts of an opened link were not used."""

from __future__ import annotations

import streamlit as st

from dashboard import keys
from dashboard.links import dismiss_notices, link, notices, write_link
from dashboard.prepared import Prepared

CHART_FORMATS = {"png": "PNG", "svg": "SVG"}


def share_controls(status_area, prepared: Prepared | None) -> None:
    """Write this view into the URL and offer it to copy; show the link's notices."""
    params = write_link(prepared)
    st.divider()
    st.subheader("Share")
    with st.popover("Copy link", icon=":material/link:", use_container_width=True):
        st.caption("This link reopens this page with these settings and files on this server "
                   "(the copy icon is at the right of the link).")
        st.code(link(params), language=None, wrap_lines=True)
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
