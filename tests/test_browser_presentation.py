"""The Playground projected: at 1280x720 in presentation mode the ranked list and the chosen
metric's value are on the first screen, without scrolling (the formula comes after them)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.test_browser import no_exception, open_tab, shoot, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.journey]

WIDTH, HEIGHT = 1280, 720
LIST_ROWS = '[data-testid="stMain"] [class*="st-key-playground_remove_"]'
VALUE = '[data-testid="stMain"] .st-key-playground_answer [data-testid="stMetric"]'


def inside_the_screen(tab: Page, selector: str) -> list[dict]:
    """The bounding boxes of ``selector``'s elements that are not wholly on the screen."""
    outside = []
    for element in tab.locator(selector).all():
        box = element.bounding_box()
        assert box is not None, selector
        if (box["x"] < 0 or box["y"] < 0 or box["x"] + box["width"] > WIDTH
                or box["y"] + box["height"] > HEIGHT):
            outside.append(box)
    return outside


def test_the_list_and_its_value_fill_the_first_screen_of_a_projector(browser, server, request):
    with open_tab(browser, f"{server}/playground", request, width=WIDTH,
                  height=HEIGHT) as tab:
        tab.get_by_text("Presentation mode").click()
        expect(tab.locator('[data-testid="stSidebar"]')).to_be_hidden()
        wait_idle(tab)
        expect(tab.locator(VALUE)).to_have_count(1)
        expect(tab.locator(VALUE)).to_contain_text("NDCG@5")
        expect(tab.locator(VALUE)).to_contain_text("0.5087")
        size = tab.locator(VALUE).locator('[data-testid="stMetricValue"]').evaluate(
            "e => parseFloat(getComputedStyle(e).fontSize)")
        assert size >= 48, size  # px: the big tile, read from the back of the room
        assert tab.locator(LIST_ROWS).count() >= 5  # every item of the textbook list
        scrolled = tab.locator('[data-testid="stMain"]').evaluate("e => e.scrollTop")
        assert scrolled == 0
        assert inside_the_screen(tab, LIST_ROWS) == []
        assert inside_the_screen(tab, VALUE) == []
        shoot(tab, "15_playground_presentation_first_screen_1280x720")

        # after a move the sentence saying what it changed comes above the value: still in view
        tab.locator(".st-key-playground_down_A button").first.click()
        expect(tab.locator('[data-testid="stAlertContentSuccess"]')).to_contain_text(
            "Moving A from rank 1 to rank 2")
        wait_idle(tab)
        expect(tab.locator(VALUE)).not_to_contain_text("0.5087")
        assert inside_the_screen(tab, LIST_ROWS) == []
        assert inside_the_screen(tab, VALUE) == []
        no_exception(tab)
        shoot(tab, "15b_playground_presentation_after_a_move_1280x720")
