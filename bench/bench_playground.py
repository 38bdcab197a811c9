"""Benchmark: how quickly the Playground shows the result of a move, in a real browser.

Starts ``streamlit run app.py`` headless on a free loopback port and drives one browser
session (headless Chromium through Playwright) through a lesson on the textbook list: move
an item down and up, move another, swap two ranks, change a grade, remove an item; the
lesson is repeated ``--rounds`` times from the textbook scenario. For each action it measures
the seconds from the click to the sentence that describes the change on screen, and to the
end of the page's run (every table and chart redrawn). The target is a median of at most
0.3 s to the sentence. The machine's load average is printed with the figures: on a busy
machine they say more about the machine than about the page.

    python bench/bench_playground.py
    python bench/bench_playground.py --rounds 5

Needs Playwright and Chromium (``/usr/bin/chromium`` or ``$CHROMIUM``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_server import CHROMIUM, CONNECTED, IDLE, LAUNCH_ARGS, Server
from common import ROOT, print_table

TARGET_SECONDS = 0.3
SENTENCE = '[data-testid="stAlertContentSuccess"]'


def lesson(page) -> list[tuple[str, Callable[[], None], str]]:
    def button(key: str):
        return lambda: page.locator(f".st-key-{key} button").first.click()

    def grade(item: str, value: str):
        def act() -> None:
            field = page.locator(f".st-key-playground_grade_{item} input")
            field.fill(value)
            field.press("Enter")
        return act

    return [
        ("move A down", button("playground_down_A"), "Moving A from rank 1 to rank 2"),
        ("move A up", button("playground_up_A"), "Moving A from rank 2 to rank 1"),
        ("move C down", button("playground_down_C"), "Moving C from rank 3 to rank 4"),
        ("swap ranks 1 and 2", button("playground_swap"), "Swapping A (rank 1) and B (rank 2)"),
        ("grade E 0 -> 1", grade("E", "1"), "Changing E's grade from 0 to 1"),
        ("remove D", button("playground_remove_D"), "Removing D from rank 3"),
    ]


def timed(page, act, words: str) -> tuple[float, float]:
    started = time.perf_counter()
    act()
    page.wait_for_function(
        "([selector, words]) => [...document.querySelectorAll(selector)]"
        ".some(e => e.innerText.startsWith(words))",
        arg=[SENTENCE, words], polling="raf")
    shown = time.perf_counter() - started
    page.wait_for_selector(IDLE)
    return shown, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="lessons in a row (default 3)")
    options = parser.parse_args()
    from playwright.sync_api import sync_playwright

    rows, shown_all = [], []
    with tempfile.TemporaryDirectory() as scratch, \
            Server(ROOT, Path(scratch) / "streamlit.log") as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 2000})
        page.goto(f"{server.url}/playground")
        page.wait_for_selector(CONNECTED)
        page.wait_for_selector(IDLE)
        for number in range(1, options.rounds + 1):
            page.locator(".st-key-playground_scenario_textbook button").first.click()
            page.wait_for_timeout(500)
            page.wait_for_selector(IDLE)
            for name, act, words in lesson(page):
                shown, finished = timed(page, act, words)
                shown_all.append(shown)
                rows.append((number, name, f"{shown:.3f}", f"{finished:.3f}"))
        browser.close()
    print_table(["round", "action", "sentence shown (s)", "run finished (s)"], rows, left=2)
    median = statistics.median(shown_all)
    load = os.getloadavg()
    print(f"\nmedian to the sentence: {median:.3f} s (target {TARGET_SECONDS} s: "
          f"{'met' if median <= TARGET_SECONDS else 'missed'}); load average "
          f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
