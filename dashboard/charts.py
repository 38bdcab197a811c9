"""Drawing a figure on a page: in the page's theme (light or dark, as the viewer chose in the
settings menu or their system says), with its text alternative for screen readers.

Every page draws its Plotly figures through :func:`show_chart`, so that charts follow the
theme and none lacks words.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
import streamlit as st

from dashboard.controls import chart_config
from rankmetrics.figures_text import recolored, text_alternative


def page_theme() -> str:
    """"light" or "dark": the theme the viewer's browser shows (light until it has said)."""
    return "dark" if st.context.theme.type == "dark" else "light"


def show_chart(figure: go.Figure, key: str, *, where=st, name: Sequence[object] = ()) -> None:
    """Draw ``figure`` in the page's theme, its gist in words as the chart's text
    alternative; its camera icon saves it as an image named after ``name`` (the words that
    say what it shows; ``key`` when none)."""
    where.plotly_chart(recolored(figure, page_theme()), key=key, theme="streamlit",
                       config=chart_config(*(name or (key,))), alt=text_alternative(figure))
