"""Real-browser journeys with headless Chromium (Playwright driving Debian's /usr/bin/chromium).

A new user opens the app, sees the demo curves, uploads two model files and a ground truth
through the file input, sees their curves, changes the threshold and explains a user's NDCG;
a teacher walks through the textbook example; an analyst turns on confidence bands, reads the
Significance page, opens the best pair head-to-head and one user's NDCG from there; a teacher
runs a lesson in the Playground (each move timed) and projects it in presentation mode; a
newcomer loads MovieLens as GroupLens (no header line) and RecBole ship it and sees the
columns found. No exception box, no browser console error.
Screenshots of every page go to artifacts/screenshots/ (ignored by git).

Journeys: ``python -m pytest -m journey`` runs them (the default run leaves them out). Skipped
when no Chromium is found, unless REQUIRE_BROWSER is set (CI sets it): then a missing browser
is a failure.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.processes import stop
from tests.servers import start_app, wait_until_up

ROOT = Path(__file__).resolve().parents[1]
UPLOADS = Path(__file__).resolve().parent / "data" / "app"
IO_FILES = Path(__file__).resolve().parent / "data" / "io"
SHOTS = ROOT / "artifacts" / "screenshots"
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
CONNECTED = '[data-testid="stApp"][data-test-connection-state="CONNECTED"]'
CHART = '[data-testid="stPlotlyChart"] .js-plotly-plot .main-svg'
TIMEOUT = 90_000

pytestmark = [pytest.mark.browser, pytest.mark.journey]

expect.set_options(timeout=TIMEOUT)


@contextmanager
def open_tab(browser, url: str, request, *, width: int = 1400, height: int = 2000,
             color_scheme: str = "light") -> Iterator[Page]:
    """``url`` in a fresh browser context (a new Streamlit session) that fails the test on any
    page error or console error, and keeps a screenshot when the test fails. The window's
    size and the system's colour scheme are the context's."""
    context = browser.new_context(viewport={"width": width, "height": height},
                                  color_scheme=color_scheme)
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT)
    problems: list[str] = []
    tab.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    tab.on("console", lambda message: problems.append(f"console: {message.text}")
           if message.type == "error" and not _server_search(message, url) else None)
    tab.goto(url)
    tab.wait_for_selector(CONNECTED)
    wait_idle(tab)
    yield tab
    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    if failed:
        SHOTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=SHOTS / f"failed_{request.node.name}.png")
    context.close()
    assert not problems, problems


def _server_search(message, url: str) -> bool:
    """Streamlit's frontend, opened on a page's address, first looks for the server under that
    address (``/significance/_stcore/health``) and takes the 404 as "not here"."""
    return (message.text.startswith("Failed to load resource")
            and message.location.get("url", "").startswith(f"{url}/_stcore/"))


@pytest.fixture
def page(browser, server, request):
    """The app's start page in a new session."""
    with open_tab(browser, server, request) as tab:
        yield tab


def wait_idle(tab: Page) -> None:
    tab.wait_for_selector(IDLE)
    tab.wait_for_timeout(300)
    tab.wait_for_selector(IDLE)


def no_exception(tab: Page) -> None:
    expect(tab.locator('[data-testid="stException"]')).to_have_count(0)


def shoot(tab: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    wait_idle(tab)
    tab.wait_for_timeout(800)  # let Plotly finish drawing
    tab.screenshot(path=SHOTS / f"{name}.png")


def go_to(tab: Page, title: str) -> None:
    """Open a page by its link in the sidebar (opening the sidebar first where a narrow window
    started with it collapsed)."""
    if tab.locator('[data-testid="stSidebar"]').get_attribute("data-collapsed") == "true":
        tab.locator('[data-testid="stExpandSidebarButton"]').click()
    tab.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).click()
    expect(tab.locator("h1").first).to_have_text(title)
    wait_idle(tab)


def grid(tab: Page, index: int = 0):
    """The main area's index-th table."""
    return tab.locator('[data-testid="stMain"] [data-testid="stDataFrame"]').nth(index)


def table_text(tab: Page, index: int = 0) -> str:
    """The cells of a table: drawn on a canvas, they are also in a hidden accessible table
    (unformatted values)."""
    return " ".join(grid(tab, index).locator("td").all_text_contents())


def legend(tab: Page) -> list[str]:
    return tab.locator(".js-plotly-plot .legendtext").all_text_contents()


def test_new_users_journey(page: Page):
    # the demo's curves are there from the start
    expect(page.locator(CHART).first).to_be_visible()
    expect(page.locator(".js-plotly-plot .gtitle").first).to_have_text(
        ["Mean over users at K = 1..50; dotted line: K = 10"])
    assert {"popularity", "personalized", "top_heavy", "random"} <= set(legend(page))
    no_exception(page)
    shoot(page, "1_compare_demo")

    # upload two models and a ground truth through the file inputs
    go_to(page, "Data")
    inputs = page.locator('[data-testid="stFileUploader"] input[type="file"]')
    inputs.nth(0).set_input_files([UPLOADS / "als_model.csv", UPLOADS / "popular_items.tsv"])
    expect(page.get_by_text("Model: als_model")).to_be_visible()
    expect(page.get_by_text("No ground truth yet").first).to_be_visible()
    wait_idle(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').nth(1).set_input_files(
        UPLOADS / "ratings.csv")
    expect(page.locator("code", has_text="user_id")).to_be_visible()
    wait_idle(page)
    no_exception(page)
    shoot(page, "2_data_uploaded")

    # their curves
    go_to(page, "Compare models")
    expect(page.locator(".js-plotly-plot .gtitle").first).to_have_text(
        ["Mean over users at K = 1..20; dotted line: K = 10"])
    assert set(legend(page)) == {"als_model", "popular_items"}
    before = table_text(page)
    assert "als_model" in before

    # change the threshold: binary relevance, then one step up the rating slider (Streamlit
    # shows ">=" as "≥")
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("relevant / not").click()
    wait_idle(page)
    expect(sidebar.get_by_text("binary: rating ≥ 4 is relevant").first).to_be_visible()
    sidebar.get_by_role("slider", name="Relevant if rating ≥").press("ArrowRight")
    expect(sidebar.get_by_text("binary: rating ≥ 5 is relevant").first).to_be_visible()
    wait_idle(page)
    assert table_text(page) != before
    no_exception(page)
    shoot(page, "3_compare_uploaded")

    # the NDCG explanation, for a chosen user
    go_to(page, "Metrics explained")
    page.get_by_role("combobox", name="User").click()
    page.keyboard.type("u0001")
    page.get_by_role("option", name="u0001", exact=True).click()
    expect(page.get_by_text("top 10 for user u0001")).to_be_visible()
    expect(page.locator('[data-testid="stMetric"]').nth(2)).to_contain_text("NDCG@10")
    no_exception(page)
    shoot(page, "4_ndcg_uploaded")


def test_movielens_as_grouplens_and_recbole_ship_it(page: Page):
    # a model without a header line and RecBole's ratings, through the file inputs
    go_to(page, "Data")
    inputs = page.locator('[data-testid="stFileUploader"] input[type="file"]')
    inputs.nth(0).set_input_files([IO_FILES / "u_scores.tsv", IO_FILES / "u_ranks.tsv"])
    expect(page.get_by_text("Model: u_scores")).to_be_visible()
    wait_idle(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').nth(1).set_input_files(
        IO_FILES / "ml-100k.inter")
    expect(page.locator("code", has_text="user_id")).to_be_visible()
    wait_idle(page)
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("file ml-100k.inter · format recbole")).to_be_visible()
    expect(main.get_by_text("rank ←")).to_be_visible()  # u_ranks: 1, 2, 3... in each user
    expect(main.locator("code", has_text="field 3").first).to_be_visible()
    expect(main.get_by_text("No header line: the columns are read in the order user, item, "
                            "score.")).to_be_visible()
    expect(main.get_by_text("name them with “Columns in order” in “Choose the columns or the "
                            "format by hand” below (e.g. user, item, rank)")).to_be_visible()
    no_exception(page)
    shoot(page, "movielens_data")

    # the model read by hand in the order the form prefilled: nothing assumed any more
    # (the ground truth's form comes first, then u_scores'; only the opened one is visible)
    main.get_by_text("Choose the columns or the format by hand", exact=True).nth(1).click()
    order = main.get_by_role("textbox", name="Columns in order, for a file without a header "
                             "line")
    expect(order).to_have_value("user, item, score")
    expect(main.get_by_role("radio", name="data: the file has no header line")).to_be_checked()
    # the expander's tables and charts may still be sizing themselves, moving the button: a
    # key press on the focused button does not depend on where it is drawn
    wait_idle(page)
    main.get_by_role("button", name="Read the file again with these choices").press("Enter")
    wait_idle(page)
    expect(main.get_by_text("(e.g. user, item, score)")).to_have_count(0)
    expect(main.get_by_text("(e.g. user, item, rank)")).to_be_visible()
    no_exception(page)

    # both read the same lists: the same curves
    go_to(page, "Compare models")
    assert {"u_scores", "u_ranks"} <= set(legend(page))
    no_exception(page)


def test_teacher_walks_through_the_textbook_example(page: Page):
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_role("combobox", name="Data").click()
    page.get_by_role("option", name="Textbook: liked or not").click()
    wait_idle(page)
    expect(page.locator(".js-plotly-plot .gtitle").first).to_have_text(
        ["Mean over users at K = 1..5; dotted line: K = 5"])
    expect(grid(page)).to_contain_text("recommended")
    assert "0.5087" in table_text(page)
    shoot(page, "5_compare_textbook")

    go_to(page, "Metrics explained")
    page.get_by_role("combobox", name="Model", exact=True).click()
    page.get_by_role("option", name="c_at_position_5", exact=True).click()
    wait_idle(page)
    expect(page.get_by_text("Why a widely copied NDCG tutorial says ~0.88")).to_be_visible()
    page.get_by_text("the model's own top K", exact=True).click()
    wait_idle(page)
    expect(page.locator('[data-testid="stMetric"]').nth(2)).to_contain_text("0.8503")
    # the page's own choice: the sidebar keeps its preset for the other pages
    expect(sidebar.get_by_text("Default conventions")).to_be_visible()
    no_exception(page)
    shoot(page, "6_ndcg_textbook")
    page.get_by_text("Why a widely copied NDCG tutorial says ~0.88").scroll_into_view_if_needed()
    shoot(page, "6b_ndcg_textbook_tutorial_note")

    # one user: nothing to test, and the page says why
    go_to(page, "Significance")
    expect(page.locator('[data-testid="stAlertContentWarning"]')).to_contain_text(
        "Only 1 user is counted by every model")
    no_exception(page)
    shoot(page, "6c_significance_textbook")


def test_worst_served_user_opens_in_the_ndcg_page(page: Page):
    go_to(page, "Users")
    expect(page.locator('[data-testid="stPlotlyChart"]')).to_have_count(2)
    shoot(page, "7_users_demo")
    worst = grid(page, 1)
    worst.scroll_into_view_if_needed()
    user = worst.locator("td").nth(0).text_content().strip()
    box = worst.bounding_box()
    page.mouse.click(box["x"] + 18, box["y"] + 35 + 17)  # the first row's selection box
    wait_idle(page)
    expect(page.locator("h1").first).to_have_text("Users")  # selecting does not navigate
    page.get_by_role("button", name=f"Explain this user: {user}").click()
    expect(page.locator("h1").first).to_have_text("Metrics explained")
    wait_idle(page)
    expect(page.get_by_text(f"top 10 for user {user}")).to_be_visible()
    no_exception(page)
    shoot(page, "8_ndcg_from_users")


def test_significance_then_head_to_head_then_ndcg(page: Page):
    # confidence bands on the Compare page
    page.get_by_text("Show 95% confidence bands").click()
    expect(page.locator(".js-plotly-plot .gtitle").first).to_have_text(
        ["Mean over users at K = 1..50; shaded: 95% confidence band; dotted line: K = 10"])
    wait_idle(page)
    no_exception(page)
    shoot(page, "1b_compare_bands")

    # the Significance page: models table, pairwise matrix, the pair in words
    go_to(page, "Significance")
    expect(page.locator('[data-testid="stPlotlyChart"]')).to_have_count(1)
    expect(page.locator(".js-plotly-plot .gtitle").first).to_contain_text(
        "Ranking quality (NDCG@10): row model minus column model")
    sentence = page.locator('[data-testid="stAlertContentInfo"]')
    expect(sentence).to_contain_text("top_heavy is better than personalized on NDCG@10")
    expect(sentence).to_contain_text("after Holm correction")
    assert "top_heavy" in table_text(page)
    no_exception(page)
    shoot(page, "9_significance_demo")
    page.get_by_role("combobox", name="Correction for testing many pairs").click()
    page.get_by_role("option", name="Bonferroni", exact=True).click()
    expect(sentence).to_contain_text("after Bonferroni correction")
    wait_idle(page)
    no_exception(page)

    # the selected pair, user by user
    page.get_by_role("button", name="See this pair user by user").click()
    expect(page.locator("h1").first).to_have_text("Head-to-head")
    wait_idle(page)
    # who wins, the users' values, and how much the two lists have in common
    expect(page.locator('[data-testid="stPlotlyChart"]')).to_have_count(3)
    expect(page.get_by_text("Where top_heavy beats personalized most")).to_be_visible()
    expect(page.get_by_text("How much personalized's and top_heavy's lists have in common")
           ).to_be_visible()
    no_exception(page)
    shoot(page, "10_head_to_head_demo")
    rated = page.get_by_text("What user")
    rated.scroll_into_view_if_needed()
    user = rated.text_content().removeprefix("What user ").removesuffix(" rated")
    shoot(page, "10b_head_to_head_lists")

    # one of the two lists explained on the NDCG page
    page.get_by_role("button", name="Explain top_heavy's NDCG@10 for this user").click()
    expect(page.locator("h1").first).to_have_text("Metrics explained")
    wait_idle(page)
    expect(page.get_by_text(f"top_heavy's top 10 for user {user}")).to_be_visible()
    no_exception(page)
    shoot(page, "11_ndcg_from_head_to_head")


def test_choosing_k_summary_links_to_its_panels_and_follows_the_metric(page: Page):
    go_to(page, "Choosing K")
    summary = page.locator('[data-testid="stMarkdownContainer"] li')
    expect(summary.first).to_contain_text(
        "On NDCG, the order of the four models is the same at every K from 1 to 50.")
    expect(summary).to_have_count(5)
    expect(page.locator(".js-plotly-plot .gtitle").first).to_have_text(
        ["NDCG over K, with the cutoffs where two models cross"])
    no_exception(page)
    shoot(page, "13_choosing_k_demo")

    # a sentence's link scrolls to its panel
    summary.nth(4).get_by_role("link", name="Ties ↓").click()
    expect(page.get_by_role("heading", name="Ties")).to_be_in_viewport()
    shoot(page, "13b_choosing_k_ties")

    # another metric: the summary and the curves follow
    wait_idle(page)
    metric = page.get_by_role("combobox", name="Metric", exact=True)
    metric.scroll_into_view_if_needed()
    metric.click()
    page.keyboard.type("Recall")
    page.keyboard.press("Enter")
    expect(summary.first).to_contain_text("personalized passes top_heavy at K = 11")
    expect(page.locator(".js-plotly-plot .gtitle").first).to_have_text(
        ["Recall over K, with the cutoffs where two models cross"])
    wait_idle(page)
    no_exception(page)
    page.get_by_role("heading", name="Where the order changes").scroll_into_view_if_needed()
    shoot(page, "13c_choosing_k_recall")
    page.get_by_role("heading", name="Which metric, which K").scroll_into_view_if_needed()
    shoot(page, "13d_choosing_k_maps")


def test_beyond_accuracy_journey(page: Page):
    # the movies demo has training views and genres: every view is drawn at once
    go_to(page, "Beyond accuracy")
    titles = page.locator(".js-plotly-plot .gtitle")
    expect(titles.first).to_contain_text("one value for all users")
    expect(titles.nth(1)).to_have_text(
        ["Ranking quality (NDCG@10) against share of long-tail items (APLT@10)"])
    expect(titles.nth(2)).to_contain_text("popularity")
    assert {"popularity", "personalized", "top_heavy", "random", "ground truth"} <= set(
        legend(page))
    no_exception(page)
    shoot(page, "13_beyond_accuracy")

    # another beyond-accuracy metric for the trade-off
    page.get_by_role("combobox", name="Against").click()
    page.get_by_role("option", name="Share of the catalogue recommended (Coverage@10)",
                     exact=True).click()
    expect(page.locator(".js-plotly-plot .gtitle").nth(1)).to_have_text(
        ["Ranking quality (NDCG@10) against share of the catalogue recommended (Coverage@10)"])
    no_exception(page)
    wait_idle(page)
    page.locator('[data-testid="stPlotlyChart"]').nth(2).scroll_into_view_if_needed()
    shoot(page, "14_beyond_tradeoff_coverage")

    # the Data page says which optional file enables which metric
    go_to(page, "Data")
    expect(page.get_by_text("Optional: for the beyond-accuracy metrics")).to_be_visible()
    expect(page.get_by_text("70,062 interactions")).to_be_visible()
    page.get_by_text("Optional: for the beyond-accuracy metrics").scroll_into_view_if_needed()
    no_exception(page)
    shoot(page, "15_data_optional_files")

    # Head-to-head on ARP says what a higher value means, never "better"
    go_to(page, "Head-to-head")
    page.get_by_role("combobox", name="Metric").click()
    page.get_by_role("option", name="Average popularity of recommended items (ARP@10)",
                     exact=True).click()
    expect(page.locator(".js-plotly-plot .gtitle").first).to_contain_text(
        "Who recommends more popular items to each user, at ARP@10")
    expect(page.get_by_text("A higher ARP@10 is not better in itself")).to_be_visible()
    no_exception(page)
    shoot(page, "16_head_to_head_arp")


# ----- a link to a page as the first request a new server gets ---------------------------

# Every page's address, as people bookmark it, and its title (the default page's is the root).
LINKS = {
    "data-files": "Data",
    "": "Compare models",
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
# Addresses that moved, and the page they lead to (bookmarks and shared links keep working).
MOVED = {"ndcg-explained": "Metrics explained"}


@pytest.fixture(scope="module")
def unvisited_servers(tmp_path_factory):
    """One new server per page, started together and not visited yet: a link is only put to
    the test by being the first request after a (re)start."""
    logs = tmp_path_factory.mktemp("unvisited")
    started = {}
    try:
        for path in [*LINKS, *MOVED]:
            log = logs / f"{path}.log"
            started[path] = (*start_app(log), log)
        for process, url, log in started.values():
            wait_until_up(process, url, log)
        yield started
    finally:
        for process, _, _ in started.values():
            stop(process)


@pytest.fixture(params=[*LINKS, *MOVED], ids=lambda path: path or "root")
def linked_page(request, browser, unvisited_servers):
    """A page opened from its link as the first request to its own new server."""
    process, url, _ = unvisited_servers[request.param]
    with open_tab(browser, f"{url}/{request.param}", request) as tab:
        yield tab, request.param
    stop(process)


def navigation_titles(tab: Page, which: str = "") -> list[str]:
    """The titles of the sidebar's page links (``which``: only those matching this)."""
    links = tab.locator(f'[data-testid="stSidebarNavLink"]{which}')
    return links.locator('[data-testid="stMarkdownContainer"]').all_text_contents()


def test_a_link_to_any_page_works_as_the_first_request_to_a_new_server(linked_page):
    tab, path = linked_page
    title = {**LINKS, **MOVED}[path]
    expect(tab.locator("h1").first).to_have_text(title)
    wait_idle(tab)
    assert navigation_titles(tab, '[aria-current="page"]') == [title]
    if path in MOVED:  # the old NDCG page's address opens the NDCG explanation
        expect(tab.locator('[data-testid="stMetric"]').nth(2)).to_contain_text("NDCG@")
    sidebar = tab.locator('[data-testid="stSidebar"]')
    assert sidebar.get_by_role("combobox", name="Data").count() == 1
    assert tab.get_by_text("Page not found").count() == 0
    assert tab.locator('[role="dialog"]').count() == 0
    no_exception(tab)
    assert navigation_titles(tab) == list(LINKS.values())
    shoot(tab, f"12_first_request_{path or 'root'}")

    go_to(tab, "Compare models" if path == "data-files" else "Data")
    no_exception(tab)


def test_segments_show_who_each_model_serves_and_the_paradox(page: Page):
    # movies by plan: the overall winner loses for premium users
    go_to(page, "Segments")
    expect(page.locator('[data-testid="stPlotlyChart"]')).to_have_count(2)
    expect(page.locator(CHART).first).to_be_visible()
    expect(page.locator('[data-testid="stAlertContentWarning"]')).to_contain_text(
        "top_heavy is best overall, but personalized is best for plan = premium")
    expect(grid(page)).to_contain_text("premium")
    no_exception(page)
    shoot(page, "9_segments_movies")
    page.locator(".js-plotly-plot").nth(1).scroll_into_view_if_needed()
    shoot(page, "9b_segments_movies_curves")

    # the teaching example: Simpson's paradox, with its convention set by the data choice
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_role("combobox", name="Data").click()
    page.get_by_role("option", name="Simpson's paradox", exact=True).click()
    wait_idle(page)
    expect(page.locator('[data-testid="stAlertContentError"]')).to_contain_text(
        "Simpson's paradox: cautious has the highest NDCG@10 over all users")
    no_exception(page)
    shoot(page, "10_segments_simpson")

    # the Significance page narrowed to the new users
    go_to(page, "Significance")
    page.get_by_role("combobox", name="Users").click()
    page.get_by_role("option", name="user_type = new (300 users)").click()
    wait_idle(page)
    expect(grid(page)).to_contain_text("thorough")
    expect(grid(page)).to_contain_text("40")  # the new users both models count
    no_exception(page)
    shoot(page, "11_significance_new_users")
# ----- an 800 px window, the dark theme, readable text ------------------------------------

CONTRAST = """element => {
    const rgb = text => text.match(/[\\d.]+/g).slice(0, 4).map(Number);
    const lum = ([r, g, b]) => [r, g, b].map(c => c / 255)
        .map(c => c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)
        .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
    let back = element, fill = 'rgba(0, 0, 0, 0)';
    while (back && (fill = getComputedStyle(back).backgroundColor).endsWith(', 0)')) {
        back = back.parentElement;
    }
    let [r, g, b, a = 1] = rgb(getComputedStyle(element).color);
    for (let node = element; node; node = node.parentElement) {
        a *= Number(getComputedStyle(node).opacity);
    }
    const under = rgb(fill);
    const seen = [r, g, b].map((c, i) => c * a + under[i] * (1 - a));
    const [hi, lo] = [lum(seen), lum(under)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
}"""


# A tick label is SVG text: its colour is its fill, over the page's background.
TICK_CONTRAST = CONTRAST.replace("getComputedStyle(element).color",
                                 "getComputedStyle(element).fill")


def overlaps(one: dict, other: dict) -> bool:
    return not (one["x"] + one["width"] <= other["x"] or other["x"] + other["width"] <= one["x"]
                or one["y"] + one["height"] <= other["y"]
                or other["y"] + other["height"] <= one["y"])


def cut(locator) -> bool:
    """Whether a label's text is cut short (an ellipsis instead of its end)."""
    return locator.evaluate("e => e.scrollWidth > e.clientWidth + 1")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_verdict_fits_800_px_in_both_themes(browser, server, request, scheme):
    with open_tab(browser, server, request, width=800, height=900, color_scheme=scheme) as page:
        chart = page.locator('[data-testid="stPlotlyChart"]').first
        expect(chart.locator(".main-svg").first).to_be_visible()
        sidebar = page.locator('[data-testid="stSidebar"]').bounding_box()
        assert sidebar["width"] <= 260
        toggle = page.get_by_text("Show 95% confidence bands")
        assert not cut(toggle)
        expect(page.get_by_role("button", name="Deploy")).to_have_count(0)
        # the legend under the panels covers no panel title
        legend_box = chart.locator(".legend").bounding_box()
        titles = chart.locator(".annotation-text")
        assert all(not overlaps(legend_box, titles.nth(i).bounding_box())
                   for i in range(titles.count()))
        # the page and the charts are in the chosen theme, with readable text
        background = page.locator('[data-testid="stApp"]').evaluate(
            "e => getComputedStyle(e).backgroundColor")
        assert (background == "rgb(255, 255, 255)") == (scheme == "light")
        title_fill = chart.locator(".gtitle").evaluate("e => getComputedStyle(e).fill")
        assert (title_fill == "rgb(17, 18, 23)") == (scheme == "light")
        # captions (drawn at 60% opacity) and tick labels: at least 4.5:1
        caption = page.locator('[data-testid="stCaptionContainer"] p').first
        assert caption.evaluate(CONTRAST) >= 4.5
        assert all(text.evaluate(TICK_CONTRAST) >= 4.5
                   for text in [*chart.locator(".xtick text").all()[:3],
                                *chart.locator(".annotation-text").all()[:2],
                                *chart.locator(".legendtext").all()[:2],
                                chart.locator('text[class^="x"][class$="title"]').first])
        # one hover box at a K, each model once
        drag = chart.locator(".nsewdrag").first
        drag.scroll_into_view_if_needed()
        box = drag.bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.2, box["y"] + box["height"] / 2)
        hover = chart.locator(".hovertext")
        expect(hover).to_have_count(1)
        text = hover.text_content()
        assert all(text.count(f"{model}:") == 1
                   for model in ("popularity", "personalized", "top_heavy", "random"))
        no_exception(page)
        shoot(page, f"verdict_800_{scheme}_compare")
        page.locator('[data-testid="stMain"]').evaluate("e => e.scrollBy(0, 1300)")
        shoot(page, f"verdict_800_{scheme}_table")
        go_to(page, "Significance")
        button = page.get_by_role("button", name="See this pair user by user")
        button.scroll_into_view_if_needed()
        assert not cut(button.locator("p").first)
        no_exception(page)
        shoot(page, f"verdict_800_{scheme}_significance")
        if scheme == "light":  # the viewer chooses another theme: the charts follow at once
            page.locator('[data-testid="stMainMenu"]').click()
            menu = page.locator('[data-testid="stMainMenuList"]')
            expect(menu).to_contain_text("System")
            menu.get_by_text("Dark").click()
            expect(page.locator('[data-testid="stApp"]')).not_to_have_css(
                "background-color", "rgb(255, 255, 255)")
            expect(page.locator(".js-plotly-plot .gtitle").first).not_to_have_css(
                "fill", "rgb(17, 18, 23)")


# ----- the playground: a lesson's moves ------------------------------------------------------
# How fast a move shows is measured by bench/bench_playground.py; here the timings are printed.

SENTENCE = '[data-testid="stAlertContentSuccess"]'


def timed_change(tab: Page, act, words: str) -> tuple[float, float]:
    """Seconds from an action to the sentence describing its change on screen, and to the
    end of the page's run (every table and chart redrawn)."""
    started = time.perf_counter()
    act()
    tab.wait_for_function(
        "([selector, words]) => [...document.querySelectorAll(selector)]"
        ".some(e => e.innerText.startsWith(words))",
        arg=[SENTENCE, words], polling="raf")
    shown = time.perf_counter() - started
    tab.wait_for_selector(IDLE)
    return shown, time.perf_counter() - started


def button_of(tab: Page, key: str):
    return tab.locator(f".st-key-{key} button").first


def grade_of(tab: Page, item: str, grade: str) -> None:
    field = tab.locator(f".st-key-playground_grade_{item} input")
    field.fill(grade)
    field.press("Enter")


def test_a_lesson_in_the_playground_says_what_each_move_changed(page: Page, request):
    go_to(page, "Playground")
    expect(page.locator('[data-testid="stMetric"]').nth(7)).to_contain_text("0.5087")
    steps = [
        (lambda: button_of(page, "playground_down_A").click(),
         "Moving A from rank 1 to rank 2 lowers RR@5 by 0.5000"),
        (lambda: button_of(page, "playground_up_A").click(),
         "Moving A from rank 2 to rank 1 raises RR@5 by 0.5000"),
        (lambda: button_of(page, "playground_down_C").click(),
         "Moving C from rank 3 to rank 4 lowers AP@5"),
        (lambda: button_of(page, "playground_swap").click(),
         "Swapping A (rank 1) and B (rank 2)"),
        (lambda: grade_of(page, "E", "1"), "Changing E's grade from 0 to 1 raises"),
        (lambda: button_of(page, "playground_remove_D").click(), "Removing D from rank 3"),
    ]
    times = [timed_change(page, act, words) for act, words in steps]
    no_exception(page)
    shown = [sentence for sentence, _ in times]
    finished = [run for _, run in times]
    print(f"playground moves: sentence shown after {[round(t, 3) for t in shown]} s, page run "
          f"finished after {[round(t, 3) for t in finished]} s")
    expect(page.locator('[data-testid="stMetric"]').nth(0)).to_contain_text("P@4")
    shoot(page, "13_playground_after_a_lesson")


def test_playground_presentation_mode_reads_from_the_back_of_the_room(browser, server, request):
    with open_tab(browser, f"{server}/playground", request) as tab:
        tab.set_viewport_size({"width": 1280, "height": 720})
        tab.get_by_text("Presentation mode").click()
        expect(tab.locator('[data-testid="stSidebar"]')).to_be_hidden()
        wait_idle(tab)
        button_of(tab, "playground_down_A").click()
        expect(tab.locator(SENTENCE)).to_contain_text("Moving A from rank 1 to rank 2")
        wait_idle(tab)
        size = tab.locator(SENTENCE).evaluate(
            "e => parseFloat(getComputedStyle(e.querySelector('p')).fontSize)")
        assert size >= 24, size  # px: about twice the usual type
        no_exception(tab)
        tab.mouse.move(640, 400)
        tab.mouse.wheel(0, -3000)
        shoot(tab, "14_playground_presentation_1280x720")
