"""Drawing a figure on a page: in the page's theme (light or dark, as the viewer chose in the
settings menu or their system says), with its text alternative for screen readers.

Every page draws its Plotly figures through :func:`show_chart`, so that charts follow the
theme, none lacks words, and each chart's camera icon saves it as PNG or SVG, as the small
control under that chart says (Plotly's image button takes one format per chart, and a
chart in a paper wants SVG where the same chart in a slide wants PNG).
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
import streamlit as st

from dashboard import keys
from dashboard.controls import CHART_FORMATS, chart_config
from rankmetrics.figures.text import recolor, text_alternative


def page_theme() -> str:
    """"light" or "dark": the theme the viewer's browser shows (light until it has said)."""
    return "dark" if st.context.theme.type == "dark" else "light"


def show_chart(figure: go.Figure, key: str, *, where=st, name: Sequence[object] = ()) -> None:
    """Draw ``figure`` in the page's theme, its gist in words as the chart's text
    alternative; its camera icon saves it as an image named after ``name`` (the words that
    say what it shows; ``key`` when none), in the format chosen under the chart.

    ``figure`` is made for this one call: it is recoloured in place (a copy of a figure of
    many points takes longer than drawing it)."""
    image_format = keys.chart_format(key)
    st.session_state.setdefault(image_format, "png")
    chart_area = where.container()
    where.segmented_control(
        "Camera icon saves", list(CHART_FORMATS), key=image_format, required=True,
        format_func=CHART_FORMATS.get, persist_state="session",
        help="The camera icon at the top right of the chart saves it at publication size: "
        "PNG for slides and documents, SVG to scale without blur in a paper.")
    alternative = text_alternative(figure)
    recolor(figure, page_theme())
    chart_area.plotly_chart(figure, key=key, theme="streamlit",
                            config=chart_config(st.session_state[image_format],
                                                *(name or (key,))),
                            alt=alternative)
