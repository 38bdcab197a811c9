"""A shared result in a real browser: upload files, set up a view, reload (nothing lost), copy
the link, restart the server, open the link in a new browser context and see the same view
on the same data; a second context without the link sees none of it; the per-user CSV and the
report download with the right contents, and the report opens offline with its charts drawn.

This journey restarts its server, so it has a server of its own (on a fixed port, so that the
link still points at it), with a temporary workspace folder.
"""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from tests.processes import stop
from tests.servers import free_port, start_app, wait_until_up
from tests.test_browser import (
    CONNECTED,
    SHOTS,
    UPLOADS,
    expect,
    go_to,
    legend,
    wait_idle,
)

pytestmark = [pytest.mark.browser, pytest.mark.journey]
CHART = ".js-plotly-plot .main-svg"


class RestartableServer:
    """The app on one port, with its workspaces in ``folder``; ``restart`` stops it and
    starts it again on the same port and folder."""

    def __init__(self, folder: Path, log: Path) -> None:
        self.folder, self.log, self.port = folder, log, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process, _ = start_app(self.log, port=self.port,
                                    env={"RANKMETRICS_WORKSPACES": str(self.folder)})
        wait_until_up(self.process, self.url, self.log)

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture(scope="module")
def own_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shared_workspaces")
    server = RestartableServer(folder, folder / "streamlit.log")
    try:
        server.start()
        yield server
    finally:
        server.stop()


def new_tab(browser, url: str, problems: list[str], *, clipboard: bool = True):
    """A new browser context on ``url``; it may use the clipboard, or it refuses it (then
    "Copy link" falls back to a selected text field)."""
    context = browser.new_context(viewport={"width": 1400, "height": 2000},
                                  accept_downloads=True)
    if clipboard:
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url_origin(url))
    else:
        context.add_init_script("navigator.clipboard.writeText = () => "
                                "Promise.reject(new DOMException('refused', 'NotAllowedError'));")
    tab = context.new_page()
    tab.set_default_timeout(90_000)
    tab.on("pageerror", lambda error: problems.append(str(error)))
    tab.goto(url)
    tab.wait_for_selector(CONNECTED)
    wait_idle(tab)
    return context, tab


def url_origin(url: str) -> str:
    return "/".join(url.split("/")[:3])


def copied_link(tab) -> str:
    """Click "Copy link" and read what it put on the clipboard."""
    tab.get_by_role("button", name="Copy link").click()
    expect(tab.locator("#rm-copy-link-status")).to_have_text("Link copied")
    return tab.evaluate("navigator.clipboard.readText()")


def downloaded_text(tab, button) -> tuple[str, str]:
    with tab.expect_download() as info:
        button.click()
    download = info.value
    return download.suggested_filename, Path(download.path()).read_text()


def test_a_link_reopens_the_same_view_after_a_restart(browser, own_server, tmp_path):
    problems: list[str] = []
    shots = SHOTS / "sharing"
    shots.mkdir(parents=True, exist_ok=True)
    first, tab = new_tab(browser, own_server.url, problems)

    go_to(tab, "Data")  # upload two models and a ground truth
    files = tab.locator('[data-testid="stFileUploader"] input[type="file"]')
    files.nth(0).set_input_files([UPLOADS / "als_model.csv", UPLOADS / "popular_items.tsv"])
    expect(tab.get_by_text("Model: als_model")).to_be_visible()
    wait_idle(tab)
    tab.locator('[data-testid="stFileUploader"] input[type="file"]').nth(1).set_input_files(
        UPLOADS / "ratings.csv")
    expect(tab.get_by_text("Your workspace")).to_be_visible()
    wait_idle(tab)
    tab.screenshot(path=shots / "0_data_workspace.png")

    go_to(tab, "Users")  # the view: MAP@10 on the Users page
    tab.get_by_role("combobox", name="Metric").click()
    tab.get_by_role("option", name="How early the hits come (MAP@10)", exact=True).click()
    expect(tab.locator(".js-plotly-plot .gtitle").first).to_contain_text(
        "How early the hits come (MAP@10)")
    wait_idle(tab)
    assert "users_metric=map" in tab.url and "ws=" in tab.url

    tab.reload()  # nothing lost
    tab.wait_for_selector(CONNECTED)
    expect(tab.locator(".js-plotly-plot .gtitle").first).to_contain_text(
        "How early the hits come (MAP@10)")
    assert set(legend(tab)) >= {"als_model", "popular_items"}

    # the downloads: every user's MAP@10 for both models, and the report
    name, text = downloaded_text(tab, tab.get_by_role(
        "button", name="Download every user's value (all models) as CSV"))
    values = pd.read_csv(io.StringIO(text))
    assert name == "per_user_map_at_10_every_model.csv"
    assert list(values.columns) == ["user", "als_model", "popular_items"]
    assert len(values) > 10 and values[["als_model", "popular_items"]].max().max() <= 1
    name, report = downloaded_text(tab, tab.get_by_role("button", name="Download report"))
    assert name == "rankmetrics_report_uploads_K_10.html"
    assert "<h2>The decision</h2>" in report and "On MAP@10," in report
    assert "ratings.csv" in report and "als_model.csv" in report
    (tmp_path / "report.html").write_text(report)

    # the image format, chosen once in the sidebar: every chart's camera icon saves SVG
    tab.locator('[data-testid="stSidebar"] [data-testid="stButtonGroup"]').get_by_text(
        "SVG", exact=True).click()
    camera = '.modebar-btn[data-title^="Download plot"]'
    first_chart, second_chart = (tab.locator('[data-testid="stPlotlyChart"]').nth(i)
                                 for i in (0, 1))
    expect(first_chart.locator('.modebar-btn[data-title="Download plot"]')).to_have_count(1)
    wait_idle(tab)
    first_chart.hover()
    with tab.expect_download() as info:
        first_chart.locator(camera).click()
    assert info.value.suggested_filename == "distribution_MAP_10.svg"
    assert Path(info.value.path()).read_text().startswith("<svg")
    second_chart.hover()
    with tab.expect_download() as info:
        second_chart.locator(camera).click()
    assert info.value.suggested_filename.endswith(".svg")
    assert Path(info.value.path()).read_text().startswith("<svg")

    link = copied_link(tab)  # one click: the page's address, settings and workspace
    assert link == tab.url and "users_metric=map" in link
    tab.screenshot(path=shots / "1_users_view.png")
    first.close()

    own_server.restart()
    second, tab = new_tab(browser, link, problems)  # a new browser, the link
    expect(tab.locator(".js-plotly-plot .gtitle").first).to_contain_text(
        "How early the hits come (MAP@10)")
    assert set(legend(tab)) >= {"als_model", "popular_items"}
    assert tab.url == link
    tab.screenshot(path=shots / "2_same_view_after_restart.png")
    second.close()

    third, tab = new_tab(browser, own_server.url, problems,
                         clipboard=False)  # without the link: the demo
    expect(tab.locator(CHART).first).to_be_visible()
    assert "als_model" not in legend(tab) and "ws=" not in tab.url
    tab.get_by_role("button", name="Copy link").click()  # the clipboard refused: by hand
    field = tab.get_by_role("textbox", name="The link to this view")
    expect(field).to_have_value(tab.url)
    assert tab.evaluate("document.activeElement.selectionEnd") == len(tab.url)
    expect(tab.locator("#rm-copy-link-status")).not_to_be_empty()
    third.close()

    offline = browser.new_context(offline=True, viewport={"width": 1300, "height": 3000})
    sheet = offline.new_page()
    sheet.on("pageerror", lambda error: problems.append(str(error)))
    sheet.goto((tmp_path / "report.html").as_uri())
    expect(sheet.locator(".js-plotly-plot .main-svg").first).to_be_visible()
    assert sheet.locator(".js-plotly-plot").count() == 4
    sheet.screenshot(path=shots / "3_report_offline.png", full_page=True)
    offline.close()
    assert not problems, problems
