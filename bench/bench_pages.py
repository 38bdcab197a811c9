"""Benchmark: page switches of the dashboard in a real browser, beside a bare Streamlit app.

Starts ``streamlit run app.py`` (the dashboard, on the bundled movies demo) and
``streamlit run app.py`` in ``bench/bare_app/`` (ten pages of a table and six Plotly charts,
nothing else) the same way, one after the other, and drives each with headless Chromium
(Playwright) at 1440x900:

- the first chart: from opening the address in a new browser session to the first chart
  drawn, on a server just started (its imports included) and then in further new sessions;
- page switches: a click on each page's link in the sidebar, in the sidebar's order, for
  ``--rounds`` rounds, each timed from the click to the page done (its title shown, the run
  over, nothing stale left, every chart drawn).

Printed: per page the median switch of each app and their ratio; the median over every switch
and the slowest page; the server's CPU seconds over the switches (on a busy machine the
clock's seconds grow with the others' load, CPU seconds much less). Targets: the median switch
within 1.5x the bare app's, the slowest page within 2.5x the bare app's slowest.

    python bench/bench_pages.py              # 3 rounds
    python bench/bench_pages.py --rounds 5

Needs Playwright and Chromium (``/usr/bin/chromium`` or ``$CHROMIUM``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench_server import Server
from common import ROOT, print_table

BARE_APP = Path(__file__).resolve().parent / "bare_app"
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
VIEWPORT = {"width": 1440, "height": 900}
MEDIAN_TARGET = 1.5
SLOWEST_TARGET = 2.5
FIRST_SESSIONS = 3
CHART = '[data-testid="stPlotlyChart"] .js-plotly-plot .main-svg'
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

# The page is done: the title asked for, the script's run over, nothing left over from the
# page before (Streamlit marks such elements stale) and every chart on it drawn.
DONE = """(title) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const heading = document.querySelector('h1');
  if (!heading || heading.innerText.trim() !== title) return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  for (const chart of document.querySelectorAll('[data-testid="stPlotlyChart"]')) {
    if (!chart.querySelector('.main-svg')) return false;
  }
  return true;
}"""


@dataclass
class Timings:
    first_cold: float = 0.0
    first_warm: list[float] = field(default_factory=list)
    switches: dict[str, list[float]] = field(default_factory=dict)
    server_cpu: float = 0.0


def main() -> None:
    options = parse_args()
    from playwright.sync_api import sync_playwright

    results: dict[str, Timings] = {}
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                             args=["--no-sandbox", "--disable-gpu"])
        for name, folder in (("dashboard", ROOT), ("bare app", BARE_APP)):
            print(f"{name}: starting its server", flush=True)
            with Server(folder, Path(scratch) / f"{name}.log") as server:
                results[name] = measure(browser, server, options.rounds,
                                        options.timeout * 1000)
        browser.close()
    report(results)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds through every page (the median per page is reported)")
    parser.add_argument("--timeout", type=float, default=120,
                        help="seconds each browser step may take")
    return parser.parse_args()


def measure(browser, server: Server, rounds: int, timeout_ms: float) -> Timings:
    timings = Timings()
    timings.first_cold = first_chart(browser, server.url, timeout_ms)
    timings.first_warm = [first_chart(browser, server.url, timeout_ms)
                          for _ in range(FIRST_SESSIONS)]
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    page.goto(server.url)
    page.wait_for_selector(CHART)
    links = page.locator('[data-testid="stSidebarNav"] a')
    # A link's text starts with its icon's name ("upload_file"): the title is its last line.
    titles = [links.nth(i).inner_text().strip().splitlines()[-1].strip()
              for i in range(links.count())]
    # One visit to each page before timing: the title each page shows, and its cached tables.
    shown = {}
    for title in titles:
        shown[title] = go_to(page, title, None)
    cpu_before = server_cpu_seconds(server)
    for _ in range(rounds):
        for title in titles:
            started = time.perf_counter()
            go_to(page, title, shown[title])
            timings.switches.setdefault(title, []).append(time.perf_counter() - started)
    timings.server_cpu = server_cpu_seconds(server) - cpu_before
    context.close()
    return timings


def first_chart(browser, url: str, timeout_ms: float) -> float:
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    started = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(CHART)
    seconds = time.perf_counter() - started
    context.close()
    return seconds


def go_to(page, link: str, title: str | None) -> str:
    """Click the sidebar's link to a page and wait until it is done; the title it shows."""
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=link).click()
    if title is None:  # the first visit: wait for the run to start and end, then read it
        page.wait_for_timeout(500)
        page.wait_for_selector(IDLE)
        page.wait_for_timeout(500)
        page.wait_for_selector(IDLE)
        title = page.locator("h1").first.inner_text().strip()
    page.wait_for_function(DONE, arg=title, polling="raf")
    return title


def server_cpu_seconds(server: Server) -> float:
    with open(f"/proc/{server.process.pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def report(results: dict[str, Timings]) -> None:
    app, bare = results["dashboard"], results["bare app"]
    print()
    print_table(["first chart", "dashboard s", "bare app s", "ratio"], [
        ("new server", f"{app.first_cold:.2f}", f"{bare.first_cold:.2f}",
         f"{app.first_cold / bare.first_cold:.2f}"),
        (f"new session (median of {FIRST_SESSIONS})", f"{statistics.median(app.first_warm):.2f}",
         f"{statistics.median(bare.first_warm):.2f}",
         f"{statistics.median(app.first_warm) / statistics.median(bare.first_warm):.2f}"),
    ])
    print()
    bare_by_position = list(bare.switches.values())
    rows = []
    for position, (title, seconds) in enumerate(app.switches.items()):
        theirs = statistics.median(bare_by_position[position % len(bare_by_position)])
        rows.append((title, f"{statistics.median(seconds):.2f}", f"{theirs:.2f}",
                     f"{statistics.median(seconds) / theirs:.2f}"))
    print_table(["switch to", "dashboard s", "bare app s (same place)", "ratio"], rows)
    app_median = statistics.median(s for seconds in app.switches.values() for s in seconds)
    bare_median = statistics.median(s for seconds in bare.switches.values() for s in seconds)
    app_slowest = max(statistics.median(seconds) for seconds in app.switches.values())
    bare_slowest = max(statistics.median(seconds) for seconds in bare.switches.values())
    median_ratio, slowest_ratio = app_median / bare_median, app_slowest / bare_slowest
    print()
    print_table(["page switches", "dashboard", "bare app", "ratio", "target"], [
        ("median s", f"{app_median:.2f}", f"{bare_median:.2f}", f"{median_ratio:.2f}",
         f"<= {MEDIAN_TARGET}: {'yes' if median_ratio <= MEDIAN_TARGET else 'NO'}"),
        ("slowest page s", f"{app_slowest:.2f}", f"{bare_slowest:.2f}", f"{slowest_ratio:.2f}",
         f"<= {SLOWEST_TARGET}: {'yes' if slowest_ratio <= SLOWEST_TARGET else 'NO'}"),
        ("server CPU s, all switches", f"{app.server_cpu:.1f}", f"{bare.server_cpu:.1f}",
         f"{app.server_cpu / max(bare.server_cpu, 1e-9):.2f}", ""),
    ])


if __name__ == "__main__":
    sys.exit(main())
