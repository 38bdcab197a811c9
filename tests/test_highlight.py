"""The dashboard's highlighted cells: every kind sets its fill and its text colour, the two
at least 4.5:1 apart (WCAG AA), so a cell reads in the light and the dark theme."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.highlight import Highlight, marks, mask
from tests.contrast import AA, contrast_ratio, rgb


def test_the_contrast_ratio_is_wcags():
    assert contrast_ratio(rgb("#000000"), rgb("#ffffff")) == pytest.approx(21)
    assert contrast_ratio(rgb("#777777"), rgb("#ffffff")) == pytest.approx(4.48, abs=0.01)
    assert contrast_ratio(rgb("#d6f5d6"), rgb("#ffffff")) < 1.2  # white text on pale green


@pytest.mark.parametrize("kind", list(Highlight), ids=lambda kind: kind.name)
def test_each_highlight_has_readable_text_on_its_fill(kind):
    look = kind.value
    assert contrast_ratio(rgb(look.text), rgb(look.background)) >= AA
    style = dict(part.split(": ") for part in kind.css.split("; "))
    assert style["background-color"] == look.background and style["color"] == look.text
    assert (style.get("font-weight") == "bold") == look.bold


def test_every_meaning_is_its_own_kind():
    # an Enum makes members with equal values aliases of one another
    assert [kind.name for kind in Highlight] == ["BEST", "TIED", "ACTIVE", "CHANGED", "HIT",
                                                 "FADED"]


def test_marks_style_the_marked_cells_only():
    assert marks([True, False], Highlight.BEST) == [Highlight.BEST.css, ""]
    styles = mask(pd.DataFrame({"a": [True, False], "b": [False, True]}), Highlight.HIT)
    assert styles.to_dict("list") == {"a": [Highlight.HIT.css, ""], "b": ["", Highlight.HIT.css]}
