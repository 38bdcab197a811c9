"""Screenshots of every dashboard page for the documentation's gallery.

Starts ``streamlit run app.py`` (the movies demo) on a free loopback port and opens each page
in headless Chromium (Playwright) three ways: light and dark colour schemes at 1440 px wide,
and light at 800 px (a narrow window; the sidebar collapses there). Each page is shot once its
run is over and every chart is drawn, as JPEG, into ``docs/dashboard/gallery/``, named
``<page>-<light|dark|800>.jpg``; ``docs/dashboard/gallery.md`` shows them. The first screen of
the Compare page at 1440x900 goes to ``docs/compare.png``, the README's picture.

    python docs/make_gallery.py

Needs Playwright and Chromium (``/usr/bin/chromium`` or ``$CHROMIUM``).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "dashboard" / "gallery"
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# The address of each page (as app.py declares them) and the file name of its screenshots.
PAGES = {
    "data": "data-files", "compare": "", "users": "per-user", "significance": "significance",
    "head-to-head": "head-to-head", "segments": "segments", "beyond": "beyond-accuracy",
    "explained": "metrics-explained", "playground": "playground", "choosing-k": "choosing-k",
}
# name: (width, height of the window, colour scheme)
VIEWS = {"light": (1440, 2200, "light"), "dark": (1440, 2200, "dark"),
         "800": (800, 2400, "light")}
DONE = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
  if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (!document.querySelector('h1')) return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  if (document.querySelector('[data-testid="stSkeleton"]')) return false;
  for (const chart of document.querySelectorAll('[data-testid="stPlotlyChart"]')) {
    if (!chart.querySelector('.main-svg')) return false;
  }
  return true;
}"""


def main() -> None:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch, served(Path(scratch) / "log") as url, \
            sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                             args=["--no-sandbox", "--disable-gpu"])
        for view, (width, height, scheme) in VIEWS.items():
            context = browser.new_context(viewport={"width": width, "height": height},
                                          color_scheme=scheme)
            page = context.new_page()
            page.set_default_timeout(180_000)
            for name, path in PAGES.items():
                page.goto(f"{url}/{path}")
                page.wait_for_function(DONE, polling=200)
                page.wait_for_timeout(1500)  # a second run may follow the first
                page.wait_for_function(DONE, polling=200)
                target = OUT / f"{name}-{view}.jpg"
                page.screenshot(path=str(target), type="jpeg", quality=70)
                print(target.relative_to(ROOT), flush=True)
            context.close()
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        page = context.new_page()
        page.set_default_timeout(180_000)
        page.goto(url)
        page.wait_for_function(DONE, polling=200)
        page.wait_for_timeout(1500)
        page.wait_for_function(DONE, polling=200)
        page.screenshot(path=str(ROOT / "docs" / "compare.png"))
        print("docs/compare.png", flush=True)
        context.close()
        browser.close()


class served:
    """The app on a free loopback port for the length of a ``with`` block."""

    def __init__(self, log: Path) -> None:
        self.log = log

    def __enter__(self) -> str:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        with open(self.log, "w") as output:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless",
                 "true", "--server.port", str(port), "--server.address", "127.0.0.1",
                 "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"],
                cwd=ROOT, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                    if answer.read() == b"ok":
                        return url
            except OSError:
                time.sleep(0.3)
        self.__exit__()
        raise RuntimeError(f"the Streamlit server did not start:\n{self.log.read_text()}")

    def __exit__(self, *exc_info: object) -> None:
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


if __name__ == "__main__":
    main()
