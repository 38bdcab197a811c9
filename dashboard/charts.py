"""Drawing a figure on a page: in the page's theme (light or dark, as the viewer chose in the
settings menu or their system says), with its text alternative for screen readers.

Every page draws its Plotly figures through :func:`show_chart`, so that charts follow the
theme, none lacks words, and every chart's camera icon saves it in the format chosen once for
the session in the sidebar (:func:`chart_format_control`): PNG or SVG.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
import streamlit as st

from dashboard import keys
from dashboard.controls import CHART_FORMATS, CHART_HEIGHT, CHART_WIDTH, chart_config
from rankmetrics.figures.text import recolor, text_alternative


def page_theme() -> str:
    """"light" or "dark": the theme the viewer's browser shows (light until it has said)."""
    return "dark" if st.context.theme.type == "dark" else "light"


def chart_format_control() -> None:
    """The sidebar's choice of the image format every chart's camera icon saves it in."""
    st.segmented_control(
        "Camera icon saves charts as", list(CHART_FORMATS), key=keys.CHART_FORMAT,
        required=True, format_func=CHART_FORMATS.__getitem__, persist_state="session",
        help=f"The camera icon at the top right of every chart saves that chart as an image "
        f"at publication size ({CHART_WIDTH} × {CHART_HEIGHT}): PNG for slides and documents, "
        "SVG to scale without blur in a paper.")


def show_chart(figure: go.Figure, key: str, *, where=st, name: Sequence[object] = ()) -> None:
    """Draw ``figure`` in the page's theme, its gist in words as the chart's text
    alternative; its camera icon saves it as an image named after ``name`` (the words that
    say what it shows; ``key`` when none), in the format chosen in the sidebar.

    ``figure`` is made for this one call: it is recoloured in place (a copy of a figure of
    many points takes longer than drawing it)."""
    alternative = text_alternative(figure)
    recolor(figure, page_theme())
    where.plotly_chart(figure, key=key, theme="streamlit",
                       config=chart_config(st.session_state[keys.CHART_FORMAT],
                                           *(name or (key,))),
                       alt=alternative)
