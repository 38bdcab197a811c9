"""Benchmark: several people uploading to one dashboard server, one after another and at once.

Starts ``streamlit run app.py`` headless on a free loopback port, writes one generated upload
per session (a ground truth and three model files as Parquet; every session its own seed, so
no two share a cached table unless ``--same-files``), then drives real browser sessions
(headless Chromium through Playwright): each opens the app, goes to the Data page, uploads the
ground truth and the model files, opens Compare models and waits until every model's curve is
drawn. First the sessions run one after another, then all at once (on the same server, after
the first round's browsers closed; the concurrent round uses fresh files so nothing is cached
from the first round).

Printed: each session's seconds from its upload to its curves; each round's total (one after
another: the sum of the sessions' times; all at once: from the first upload to the last
curves, every session uploading as soon as all are on the Data page); the ratio concurrent /
sequential; the server's resident memory (idle: started and one visit to the demo, then its
peak, and after every browser closed: at each of ``--after-close`` seconds, with whether it
came back to within 100 MiB of idle). The targets: a ratio of at most 1.5, and memory back
within 100 MiB of idle once Streamlit has forgotten the closed sessions (two minutes) and the
server has dropped what they held (a minute later).

Each session's models carry its own names (``strong-s3``); every session checks that its Data
page and its curves show its own models and nobody else's.

    python bench/bench_server.py                        # 5 sessions, 2,000 users (200k rows)
    python bench/bench_server.py --users 10000          # 1M-row model files
    python bench/bench_server.py --sessions 10 --users 10000 --after-close 60,200,300
    python bench/bench_server.py --keep /tmp/uploads    # keep (and reuse) the generated files

Needs Playwright and Chromium (``/usr/bin/chromium`` or ``$CHROMIUM``). Everything stays on
127.0.0.1; each browser step times out after ``--timeout`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from common import MODELS, ROOT, print_table, write_upload

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
CONNECTED = '[data-testid="stApp"][data-test-connection-state="CONNECTED"]'
UPLOADER = '[data-testid="stFileUploader"] input[type="file"]'
LEGEND = ".js-plotly-plot .legendtext"
TARGET_RATIO = 1.5
MIB = 2**20
RETURN_TARGET = 100 * MIB  # memory back within this of idle
SHOTS = ROOT / "artifacts" / "screenshots"


def main() -> None:
    options = parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(options.keep or scratch)
        print(f"Writing {2 * options.sessions} uploads of {options.users:,} users "
              f"({options.users * 100:,} rows per model file) into {folder}…", flush=True)
        rounds = {name: [upload_files(folder, options, first + i)
                         for i in range(options.sessions)]
                  for name, first in (("one after another", 0), ("all at once", 1000))}
        with Server(Path(options.app_dir), Path(scratch) / "streamlit.log") as server:
            idle, results = asyncio.run(run_rounds(server, rounds, options))
            memory = memory_after_close(server, options.after_close)
            peak = server.peak_rss()
    report(results, idle, memory, peak)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=5, choices=range(1, 11),
                        metavar="1..10", help="browser sessions in each round (default 5)")
    parser.add_argument("--users", type=int, default=2000,
                        help="users per upload: each model file has 100 rows a user "
                             "(default 2000; 10000 gives 1M-row files)")
    parser.add_argument("--same-files", action="store_true",
                        help="every session of a round uploads the same files")
    parser.add_argument("--after-close", default="10,200",
                        help="seconds after the browsers closed at which to read the server's "
                             "memory, comma-separated (default 10,200)")
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds each browser step may take (default 600)")
    parser.add_argument("--keep", help="folder for the generated files (kept and reused)")
    parser.add_argument("--app-dir", default=str(ROOT),
                        help="the checkout whose app.py is served (default this one)")
    return parser.parse_args()


def upload_files(folder: Path, options: argparse.Namespace, seed: int) -> dict[str, Path]:
    """One session's files: a ground truth and the models of ``MODELS``, named for the
    session (``strong-s3``) unless every session uploads the same files."""
    if options.same_files:
        seed = seed - seed % 1000
        models = MODELS
    else:
        models = {f"{name}-s{seed}": weight for name, weight in MODELS.items()}
    return write_upload(folder / f"users{options.users}_seed{seed}", options.users, seed=seed,
                        models=models)


def model_names(files: dict[str, Path]) -> list[str]:
    """The model names of one session's files."""
    return [name for name in files if name != "truth"]


# ----- the server ---------------------------------------------------------------------------


class Server:
    """``streamlit run app.py`` on a free loopback port, in its own process group, with its
    resident memory sampled every 0.2 s."""

    def __init__(self, app_dir: Path, log: Path) -> None:
        self.app_dir, self.log = app_dir, log
        self.url = ""
        self._peak = 0
        self._stop = threading.Event()

    def __enter__(self) -> Server:
        port = free_port()
        command = [
            sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
            "--server.port", str(port), "--server.address", "127.0.0.1",
            "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false",
            "--server.maxUploadSize", "2000",
        ]
        with open(self.log, "w") as output:
            self.process = subprocess.Popen(command, cwd=self.app_dir, stdout=output,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        self.url = f"http://127.0.0.1:{port}"
        self._wait_healthy()
        threading.Thread(target=self._sample, daemon=True).start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as answer:
                    if answer.read() == b"ok":
                        return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"the Streamlit server did not start:\n{self.log.read_text()}")

    def rss(self) -> int:
        """The server's resident memory now, in bytes."""
        return self._status_kib("VmRSS") * 1024

    def peak_rss(self) -> int:
        """The highest resident memory sampled (and the kernel's own high-water mark)."""
        return max(self._peak, self._status_kib("VmHWM") * 1024)

    def _status_kib(self, field: str) -> int:
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        return 0

    def _sample(self) -> None:
        while not self._stop.wait(0.2):
            try:
                self._peak = max(self._peak, self.rss())
            except OSError:
                return


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# ----- the browser sessions -----------------------------------------------------------------


async def run_rounds(server: Server, rounds: dict[str, list[dict[str, Path]]],
                     options: argparse.Namespace
                     ) -> tuple[int, dict[str, tuple[float, list[float]]]]:
    """The server's idle memory in bytes, and round name -> (wall seconds, each session's
    seconds)."""
    from playwright.async_api import async_playwright

    results = {}
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        await visit_demo(browser, server.url, options.timeout)
        await asyncio.sleep(5)
        idle = server.rss()
        print(f"Idle (started, the demo visited once): {idle / MIB:,.0f} MiB", flush=True)
        await one_session(browser, server.url, rounds["one after another"][0], options.timeout)
        print("Warmed up (the first session's imports); timing now.", flush=True)
        for name, uploads in rounds.items():
            if name == "one after another":
                spans = [await one_session(browser, server.url, files, options.timeout)
                         for files in uploads]
                total = sum(end - start for start, end in spans)
            else:
                ready = asyncio.Barrier(len(uploads))
                spans = list(await asyncio.gather(*[
                    one_session(browser, server.url, files, options.timeout, ready)
                    for files in uploads]))
                total = max(end for _, end in spans) - min(start for start, _ in spans)
            results[name] = (total, [end - start for start, end in spans])
            print(f"{name}: {results[name][0]:.1f} s", flush=True)
        await browser.close()
    return idle, results


async def new_tab(browser, timeout: float):
    """A fresh browser context (a session of its own) and its page."""
    context = await browser.new_context(viewport={"width": 1400, "height": 1400})
    page = await context.new_page()
    page.set_default_timeout(timeout * 1000)
    return context, page


async def open_app(page, url: str) -> None:
    """Open the app and wait until it is connected and idle."""
    await page.goto(url)
    await page.wait_for_selector(CONNECTED)
    await wait_idle(page)


async def visit_demo(browser, url: str, timeout: float) -> None:
    """Open the app on its demo data and Compare models once, then close the tab."""
    context, page = await new_tab(browser, timeout)
    try:
        await open_app(page, url)
        await go_to(page, "Compare models")
        await page.locator(LEGEND).first.wait_for()
    finally:
        await context.close()


async def one_session(browser, url: str, files: dict[str, Path], timeout: float,
                      ready: asyncio.Barrier | None = None) -> tuple[float, float]:
    """When the upload on the Data page started and when every model's curve was drawn on
    Compare models (after every session of ``ready`` reached the Data page)."""
    context, page = await new_tab(browser, timeout)
    try:
        await open_app(page, url)
        await go_to(page, "Data")
        if ready is not None:
            await ready.wait()
        started = time.perf_counter()
        names = model_names(files)
        await page.locator(UPLOADER).nth(0).set_input_files([files[name] for name in names])
        for name in names:
            await page.get_by_text(f"Model: {name}").wait_for()
        await wait_idle(page)
        await page.locator(UPLOADER).nth(1).set_input_files(files["truth"])
        await page.get_by_text("Suggested relevance").wait_for()
        await wait_idle(page)
        await go_to(page, "Compare models")
        await page.wait_for_function(
            "names => { const shown = [...document.querySelectorAll('.js-plotly-plot "
            ".legendtext')].map(e => e.textContent); "
            "return names.every(n => shown.includes(n)); }", arg=names)
        finished = time.perf_counter()
        if await page.locator('[data-testid="stException"]').count():
            raise RuntimeError("the app showed an exception")
        shown = set(await page.locator(LEGEND).all_text_contents())
        foreign = sorted(name for name in shown if name not in names and "-s" in name)
        if foreign:
            raise RuntimeError(f"a session saw another session's models: {foreign}")
        return started, finished
    except Exception:
        await page.screenshot(path=str(SHOTS / "bench_server_failed.png"))
        raise
    finally:
        await context.close()


async def go_to(page, title: str) -> None:
    await page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).click()
    await page.locator("h1", has_text=title).first.wait_for()
    await wait_idle(page)


async def wait_idle(page) -> None:
    """Wait until the app has finished its run (twice: a run can start right after)."""
    await page.wait_for_selector(IDLE)
    await page.wait_for_timeout(300)
    await page.wait_for_selector(IDLE)


# ----- memory and the report ----------------------------------------------------------------


def memory_after_close(server: Server, after: str) -> list[tuple[str, int]]:
    """The server's resident memory at each of the given seconds after the browsers closed."""
    closed = time.monotonic()
    readings = []
    for seconds in sorted(float(value) for value in after.split(",") if value.strip()):
        time.sleep(max(0.0, closed + seconds - time.monotonic()))
        readings.append((f"{seconds:g} s after every browser closed", server.rss()))
    return readings


def report(results: dict[str, tuple[float, list[float]]], idle: int,
           memory: list[tuple[str, int]], peak: int) -> None:
    print()
    print_table(["round", "total s", *[f"session {i + 1} s" for i in
                                      range(len(next(iter(results.values()))[1]))]],
                [(name, wall, *times) for name, (wall, times) in results.items()])
    sequential = results["one after another"][0]
    concurrent = results["all at once"][0]
    ratio = concurrent / sequential
    print(f"\nall at once / one after another: {ratio:.2f} "
          f"(target <= {TARGET_RATIO}: {'yes' if ratio <= TARGET_RATIO else 'NO'})")
    print()
    print_table(["server memory", "MiB", "above idle (MiB)"],
                [("idle", f"{idle / MIB:,.0f}", ""),
                 ("peak", f"{peak / MIB:,.0f}", f"{(peak - idle) / MIB:,.0f}"),
                 *[(label, f"{rss / MIB:,.0f}", f"{(rss - idle) / MIB:,.0f}")
                   for label, rss in memory]])
    if memory:
        label, last = memory[-1]
        back = last - idle <= RETURN_TARGET
        print(f"\nmemory {label}: {(last - idle) / MIB:,.0f} MiB above idle (target <= "
              f"{RETURN_TARGET / MIB:.0f} MiB: {'yes' if back else 'NO'})")
    print("no session saw another's models")


if __name__ == "__main__":
    main()
