"""Every page of the movies demo fits a 1440x900 window and an 800x1000 one: no button or
label cut short, every table inside the page (wide tables scroll inside their frame), and at
800 px the sidebar starts collapsed and the Compare table opens on the model and the headline
metric (NDCG@10) and keeps the model in view however far it is scrolled.

Journeys: ``python -m pytest -m journey`` runs them. Screenshots go to artifacts/screenshots/.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.test_browser import grid, no_exception, open_tab, shoot, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.journey]

#: Every page reachable from the navigation: its address and its title.
PAGES = {
    "data-files": "Data",
    "": "Compare models",  # the default page, at the root
    "per-user": "Users",
    "significance": "Significance",
    "head-to-head": "Head-to-head",
    "segments": "Segments",
    "beyond-accuracy": "Beyond accuracy",
    "metrics-explained": "Metrics explained",
    "playground": "Playground",
    "choosing-k": "Choosing K",
    "why-they-differ": "Why do they differ?",
}

#: What is cut short in an area of the page: a button whose text is wider than the button (or
#: than the element holding it) and clipped there, any text drawn with an ellipsis because it
#: does not fit (widget labels), and a value wider than its field (a select box's). Tables are
#: drawn on a canvas and checked apart.
CUT_TEXTS = """area => {
    const shown = e => e.getClientRects().length > 0
        && getComputedStyle(e).visibility !== 'hidden';
    const text = e => (e.innerText || e.textContent || '').trim().replace(/\\s+/g, ' ');
    const wider = e => e.scrollWidth > e.clientWidth + 1;
    const clipped = e => wider(e) && getComputedStyle(e).overflowX !== 'visible';
    const cut = [];
    for (const button of area.querySelectorAll('button')) {
        if (!shown(button) || button.closest('[data-testid="stDataFrame"]')) continue;
        if ([button, ...button.querySelectorAll('*')].some(e => shown(e) && clipped(e))) {
            cut.push('button: ' + text(button));
        }
    }
    for (const e of area.querySelectorAll('*')) {
        if (!shown(e) || e.closest('[data-testid="stDataFrame"]')) continue;
        if (getComputedStyle(e).textOverflow === 'ellipsis' && wider(e) && text(e)) {
            cut.push('ellipsized: ' + text(e));
        }
    }
    for (const input of area.querySelectorAll('input')) {  // a select box shows its value so
        if (shown(input) && input.value && wider(input)) cut.push('value cut: ' + input.value);
    }
    return [...new Set(cut)];
}"""

#: The tables whose frame reaches past the right edge of the page's content (a table wider
#: than its columns' room scrolls inside its frame).
TABLES_PAST_THE_PAGE = """main => {
    const block = main.querySelector('[data-testid="stMainBlockContainer"]');
    const right = block.getBoundingClientRect().right
        - parseFloat(getComputedStyle(block).paddingRight);
    return [...main.querySelectorAll('[data-testid="stDataFrame"]')]
        .filter(frame => frame.getClientRects().length > 0)
        .map(frame => frame.getBoundingClientRect().right)
        .filter(edge => edge > right + 1)
        .map(edge => `a table ends at ${Math.round(edge)} px, the page at ${Math.round(right)}`);
}"""

SIZES = {"1440x900": (1440, 900), "800x1000": (800, 1000)}


def cut_on_page(tab: Page, *, wide: bool) -> list[str]:
    """What does not fit on the page shown: cut texts and buttons, tables past the page's
    edge, and in a ``wide`` window (its sidebar open) what is cut in the sidebar. The page is
    scrolled through, so that every table has been drawn."""
    main = tab.locator('[data-testid="stMain"]')
    main.evaluate("e => e.scrollTo(0, e.scrollHeight)")
    tab.wait_for_timeout(300)
    main.evaluate("e => e.scrollTo(0, 0)")
    found = [*main.evaluate(CUT_TEXTS), *main.evaluate(TABLES_PAST_THE_PAGE)]
    if wide:
        found += tab.locator('[data-testid="stSidebar"]').evaluate(CUT_TEXTS)
    return found


def sidebar_expanded(tab: Page) -> bool:
    return tab.locator('[data-testid="stSidebar"]').get_attribute("data-collapsed") == "false"


@pytest.mark.parametrize("size", list(SIZES))
def test_every_page_fits_the_window(browser, server, request, size):
    width, height = SIZES[size]
    narrow = width < 1000
    cut: dict[str, list[str]] = {}
    for path, title in PAGES.items():  # each page as a link opens it, in a new session
        with open_tab(browser, f"{server}/{path}", request, width=width, height=height) as tab:
            expect(tab.locator("h1").first).to_have_text(title)
            wait_idle(tab)
            no_exception(tab)
            found = cut_on_page(tab, wide=not narrow)
            if sidebar_expanded(tab) is narrow:
                found.append("the sidebar is " + ("open" if narrow else "collapsed"))
            if found:
                cut[title] = found
            shoot(tab, f"fit_{size}_{path or 'compare'}")
    assert not cut, "\n".join(f"{title}: {found}" for title, found in cut.items())


def visible_headers(tab: Page) -> list[str]:
    """The column headers the Compare table draws in its frame (its accessible copy holds the
    columns in view only)."""
    return [text.strip() for text in grid(tab).locator("th").all_text_contents()]


def test_compare_table_keeps_model_and_headline_in_view_at_800_px(browser, server, request):
    with open_tab(browser, server, request, width=800, height=1000) as tab:
        expect(tab.locator('[data-testid="stSidebar"]')).to_have_attribute(
            "data-collapsed", "true")  # folded once the first run has drawn the page
        table = grid(tab)
        table.scroll_into_view_if_needed()
        expect(table.locator("th").first).to_be_attached()
        scroller = table.locator(".dvn-scroller")
        # the grid lays its columns out after the frame appears (and again when the sidebar
        # folds): wait until it is wider than its frame; a table that fits times out here
        tab.wait_for_function("e => e.scrollWidth > e.clientWidth",
                              arg=scroller.element_handle(), timeout=30_000)
        # as it opens: the model and the headline metric first; scrolled to the end, the model
        for where, first in (("0", ["Model", "NDCG@10"]), ("e.scrollWidth", ["Model"])):
            scroller.evaluate(f"e => e.scrollTo({where}, 0)")
            tab.wait_for_timeout(300)
            headers = visible_headers(tab)
            assert headers[:len(first)] == first, (where, headers)
        shoot(tab, "fit_800_compare_table_scrolled")
        no_exception(tab)
