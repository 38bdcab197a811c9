"""How the dashboard's tables highlight a cell: one kind per meaning, each a pale fill with
dark text, so a highlighted cell reads the same in the light and the dark theme.

A table cell's style sets its fill and its text colour together: a fill alone leaves the text
in the theme's colour (white in the dark theme, unreadable on a pale fill). Every pair here
has a contrast ratio of at least 4.5:1 (WCAG AA for normal text), checked by
tests/test_highlight.py and, as drawn in a browser in both themes, by
tests/test_browser_contrast.py. The same pair serves both themes: the browser reports its
theme to the app only after the first run (``st.context.theme.type`` is None until then), and
a pale cell is as readable on a dark page as on a light one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

import pandas as pd


@dataclass(frozen=True)
class Look:
    """A highlight's colours (CSS hex) and weight."""

    background: str
    text: str
    bold: bool

    @property
    def css(self) -> str:
        """The cell's style, as a pandas Styler takes it."""
        weight = "; font-weight: bold" if self.bold else ""
        return f"background-color: {self.background}; color: {self.text}{weight}"


class Highlight(Enum):
    """What a highlighted cell means; the pages' captions name the colour (green, yellow,
    grey)."""

    #: green: the significantly best model (Compare), the winner of a column (Choosing K)
    BEST = Look("#c6efce", "#0b3d17", bold=True)
    #: yellow: leaders the data cannot tell apart
    TIED = Look("#fff2b3", "#3d3000", bold=False)
    #: green: the convention or choice in use (Playground, Metrics explained)
    ACTIVE = Look("#d6f5d6", "#0b3d17", bold=True)
    #: yellow: a value the last edit changed (Playground)
    CHANGED = Look("#fff2b3", "#3d3000", bold=True)
    #: green: a relevant item in a list (Head-to-head)
    HIT = Look("#d6f5d6", "#0b3d17", bold=False)
    #: grey: a row shown but not tested (a segment with too few users)
    FADED = Look("#ececec", "#595959", bold=False)

    @property
    def css(self) -> str:
        return self.value.css


def marks(marked: Iterable[bool], kind: Highlight) -> list[str]:
    """One style per cell: ``kind``'s where marked, none elsewhere (for ``Styler.apply``
    along rows or columns)."""
    return [kind.css if on else "" for on in marked]


def mask(marked: pd.DataFrame, kind: Highlight) -> pd.DataFrame:
    """A table's cell styles: ``kind``'s where ``marked`` is true (for
    ``Styler.apply(..., axis=None)``)."""
    return marked.map(lambda on: kind.css if on else "")
