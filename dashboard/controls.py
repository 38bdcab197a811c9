"""Small widgets several pages share, and keeping a remembered choice valid.

Tables are taken away through ``download_table`` only: Streamlit's own CSV export writes
ids from the user's files as they are, and a spreadsheet runs an id such as
``=HYPERLINK(...)`` as a formula, so that export is turned off (``.streamlit/config.toml``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial

import pandas as pd
import streamlit as st

from dashboard import keys
from dashboard.settings import CONFIDENCE_LEVELS, DEFAULT_CONFIDENCE
from rankmetrics.export import to_csv


def confidence_level() -> float:
    """The confidence level of every interval and band (the last one chosen)."""
    return float(st.session_state.get(keys.CONFIDENCE, DEFAULT_CONFIDENCE))


def confidence_control(where=st) -> float:
    """The confidence level selector, shared by the pages that show intervals.

    Each page's selector is its own widget, and a widget forgets a value another widget set,
    so the level lives in ``keys.CONFIDENCE`` and each selector starts from it."""
    state = st.session_state
    state.setdefault(keys.CONFIDENCE, DEFAULT_CONFIDENCE)
    state[keys.CONFIDENCE_CHOICE] = state[keys.CONFIDENCE]
    where.selectbox(
        "Confidence level", CONFIDENCE_LEVELS, key=keys.CONFIDENCE_CHOICE,
        format_func="{:.0%}".format, on_change=_keep_confidence,
        help="How sure the intervals are to contain the true mean (the mean over many more "
        "users like these). 1 − this level is the significance level of the tests.",
    )
    return confidence_level()


def _keep_confidence() -> None:
    st.session_state[keys.CONFIDENCE] = st.session_state[keys.CONFIDENCE_CHOICE]


def ensure_choice(key: str, options: Sequence, default=None) -> None:
    """Make a remembered selection valid for the options shown now."""
    if not options:
        return
    if st.session_state.get(key) not in options:
        st.session_state[key] = default if default in options else options[0]


#: Tables longer than this are written as CSV when their button is clicked, not on every
#: run of the page (100,000 users' values take a fifth of a second to write).
WRITTEN_ON_CLICK_ROWS = 10_000


def download_table(frame: pd.DataFrame, file_name: str, key: str, *, where=st,
                   label: str = "Download as CSV") -> None:
    """A button that saves the table as CSV: every value unrounded, text cells a spreadsheet
    would run as formulas quoted (as the command line's ``--per-user`` output does)."""
    data = (partial(table_csv, frame) if len(frame) > WRITTEN_ON_CLICK_ROWS
            else table_csv(frame))
    where.download_button(label, data, file_name=file_name, mime="text/csv",
                          key=key, icon=":material/download:", on_click="ignore")


#: Pixels of a table row (and of its header) as Streamlit draws st.dataframe.
ROW_PIXELS = 35


def every_row(frame: pd.DataFrame) -> int:
    """The height that shows every row of ``frame`` in st.dataframe without scrolling (for
    short tables whose last row must not hide below the fold)."""
    return (len(frame) + 1) * ROW_PIXELS + 3


def table_csv(frame: pd.DataFrame) -> str:
    """The table as CSV for people; a named index (such as the model) becomes a column."""
    if any(name is not None for name in frame.index.names):
        frame = frame.reset_index()
    return to_csv(frame, formulas="quoted")


#: Charts saved from the browser (the camera icon) at a size for a paper or a slide.
CHART_WIDTH, CHART_HEIGHT, PNG_SCALE = 1200, 700, 2
CHART_FORMATS = {"png": "PNG", "svg": "SVG"}


def file_name(*parts: object, suffix: str = "") -> str:
    """A download's file name from the words that say what it holds (model names and user
    ids included): letters, digits, ``.``, ``-`` and ``_`` only, at most 120 characters.

    >>> file_name("top", 10, "of", "ALS v2", "for user", "<b>7</b>", suffix=".csv")
    'top_10_of_ALS_v2_for_user_b_7_b.csv'
    """
    words = [re.sub(r"[^A-Za-z0-9.-]+", "_", str(part)).strip("_.") for part in parts]
    return "_".join(word for word in words if word)[:120] + suffix


def chart_config(image_format: str, *name: object) -> dict:
    """A chart's Plotly settings: its camera icon saves it, named after ``name``, as
    ``image_format`` (one of CHART_FORMATS) at publication size, drawn by the browser."""
    return {
        "displaylogo": False,
        "toImageButtonOptions": {
            "format": image_format, "filename": file_name(*name),
            "width": CHART_WIDTH, "height": CHART_HEIGHT,
            "scale": PNG_SCALE if image_format == "png" else 1,
        },
    }
