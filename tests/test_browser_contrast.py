"""Highlighted table cells, as a browser draws them, in the light and the dark theme: on every
page with a highlighted table (the movies demo), in every table of the page, each highlighted
cell's text is at least 4.5:1 from its fill (WCAG AA).

st.dataframe draws its cells on a canvas, so the colours are read from a screenshot of the
table: the highlighted cells are the regions filled with a highlight's colour; in each, the
fill is the most common colour and the text the colour farthest from it (the core of the
glyphs; their anti-aliased edges lie in between).
Screenshots of the tables go to artifacts/screenshots/ (ignored by git).
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from scipy import ndimage

from dashboard.highlight import Highlight
from tests.contrast import AA, contrast_ratio, rgb
from tests.test_browser import SHOTS, expect, no_exception, open_tab, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.journey]

#: page: (its address, the highlights its tables show on the movies demo)
PAGES = {
    "compare": ("", (Highlight.BEST, Highlight.TIED)),  # the start page: best, tied leaders
    "choosing_k": ("choosing-k", (Highlight.BEST,)),  # several cutoffs side by side
    "playground": ("playground", (Highlight.ACTIVE,)),  # conventions side by side
    "explained": ("metrics-explained", (Highlight.ACTIVE,)),  # the user under each convention
    "head_to_head": ("head-to-head", (Highlight.HIT,)),  # the two lists' relevant items
}
TABLES = '[data-testid="stMain"] [data-testid="stDataFrame"]'

#: how far (per channel, 0-255) a drawn pixel may be from a highlight's fill
TOLERANCE = 3
#: the least area (pixels) of a region counted as a highlighted cell, not a stray pixel
CELL_AREA = 150
#: the fewest pixels off the fill that make a text (a blank highlighted cell has none; thin
#: anti-aliased white glyphs on a pale fill still have hundreds)
TEXT_PIXELS = 20
#: each fill a highlight draws (kinds of one colour, bold or not, share it)
FILLS = {rgb(kind.value.background) for kind in Highlight}


def cells(picture: np.ndarray, colour: tuple[int, int, int]) -> list[np.ndarray]:
    """The pixels of each region of a table's picture filled with a highlight's colour (a
    cell, or adjacent highlighted cells the grid draws no line between): the fill and what it
    surrounds (the text), not what lies beyond its edge (the page behind the table's rounded
    corner)."""
    fill = np.array(colour)
    filled = (np.abs(picture.astype(int) - fill) <= TOLERANCE).all(axis=2)
    labels, _ = ndimage.label(filled)
    regions = []
    for number, box in enumerate(ndimage.find_objects(labels), start=1):
        region = labels[box] == number
        if region.sum() >= CELL_AREA:
            regions.append(picture[box][ndimage.binary_fill_holes(region)])
    return regions


def drawn_colours(pixels: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """A cell's fill (its most common colour) and its text (the colour farthest from it;
    None in a blank cell)."""
    pixels = pixels.reshape(-1, 3).astype(int)
    colours, counts = np.unique(pixels, axis=0, return_counts=True)
    fill = colours[counts.argmax()]
    text = colours[np.linalg.norm(colours - fill, axis=1).argmax()]
    blank = ((np.abs(pixels - fill) > TOLERANCE).any(axis=1)).sum() < TEXT_PIXELS
    return tuple(int(c) for c in fill), None if blank else tuple(int(c) for c in text)


def measured(tab, name: str) -> dict[tuple[int, int, int], list[float]]:
    """Each highlight fill's contrast ratios, one per highlighted region with text in the
    page's visible tables."""
    ratios: dict[tuple[int, int, int], list[float]] = {}
    tables = tab.locator(TABLES)
    for index in range(tables.count()):
        table = tables.nth(index)
        if not table.is_visible():  # in a closed expander or another tab
            continue
        table.scroll_into_view_if_needed()
        tab.wait_for_timeout(300)  # let the grid draw the cells scrolled into view
        png = table.screenshot(path=SHOTS / f"contrast_{name}_{index}.png")
        picture = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
        for colour in FILLS:
            for pixels in cells(picture, colour):
                fill, text = drawn_colours(pixels)
                if text is not None:
                    ratios.setdefault(colour, []).append(contrast_ratio(text, fill))
    return ratios


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("page", list(PAGES))
def test_highlighted_cells_are_readable_in_both_themes(browser, server, request, page,
                                                        scheme):
    address, shown = PAGES[page]
    SHOTS.mkdir(parents=True, exist_ok=True)
    with open_tab(browser, f"{server}/{address}".rstrip("/"), request, color_scheme=scheme) as tab:
        background = tab.locator('[data-testid="stApp"]').evaluate(
            "e => getComputedStyle(e).backgroundColor")
        assert (background == "rgb(255, 255, 255)") == (scheme == "light")
        expect(tab.locator(f"{TABLES} canvas").first).to_be_visible()
        wait_idle(tab)
        ratios = measured(tab, f"{page}_{scheme}")
        no_exception(tab)
    print(f"{page} {scheme}: " + ", ".join(
        f"fill rgb{fill}: {len(found)} regions, lowest {min(found):.2f}"
        for fill, found in ratios.items()))
    missing = [kind.name for kind in shown if rgb(kind.value.background) not in ratios]
    assert not missing, f"no {missing} cell with text"
    assert all(ratio >= AA for found in ratios.values() for ratio in found), ratios
