"""Helpers for the dashboard's AppTest modules: open the app on a demo and go to a page the
way the sidebar does, check a run showed no exception, find a chart or a table, upload files.
A test module imports these from here, never from another test module."""

from __future__ import annotations

import json
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
UPLOADS = Path(__file__).resolve().parent / "data" / "app"
PAGES = ("app_pages/data.py", "app_pages/compare.py", "app_pages/users.py",
         "app_pages/significance.py", "app_pages/head_to_head.py", "app_pages/explained.py",
         "app_pages/segments.py")
DEMOS = ("movies", "textbook", "textbook_graded")
MOVIE_MODELS = ["popularity", "personalized", "top_heavy", "random"]


def start(dataset: str = "movies", page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["dataset"] = dataset
    at.run()
    if page:
        go(at, page)
    ok(at)
    return at


def go(at: AppTest, page: str) -> None:
    """Open ``page`` the way the sidebar's navigation does: the entrypoint runs and routes."""
    at.switch_page(page).run()
    ok(at)


def ok(at: AppTest) -> None:
    """No exception, no raw HTML, and the page ran inside the entrypoint (its sidebar is there):
    a page run on its own would not show what a person sees."""
    assert not at.exception, [e.value for e in at.exception]
    assert [box.key for box in at.sidebar.selectbox if box.key == "dataset"], "no sidebar"
    for element in at.markdown:
        assert not element.proto.allow_html


def plain(text: str) -> str:
    """Markdown as a person reads it (the app escapes text taken from files)."""
    return re.sub(r"\\(.)", r"\1", text)


def figure(at: AppTest, key: str) -> dict:
    charts = [c for c in at.get("plotly_chart") if c.proto.id.endswith(f"-{key}")]
    assert charts, f"no chart {key}"
    return json.loads(charts[0].proto.spec)


def curves(at: AppTest, role: str = "curve") -> dict[tuple[str, str], dict]:
    data = figure(at, "compare_chart")["data"]
    return {(t["name"], t["meta"]["metric"]): t for t in data if t["meta"]["role"] == role}


# Tables without selection carry no key in AppTest: they are found by a column of theirs.
TABLE_COLUMNS = {
    "compare_table": "Users averaged",
    "users_summary": "Share at 0",
    "ranked_rows": "running_dcg",
    "ideal_rows": "running_idcg",
    "step_rows": "running",
    "variants": "ideal from all ground-truth items",
    "significance_models": "Group",
    "significance_pairs": "p_corrected",
    "h2h_truth": "rank_a",
    "runs_table": "Runs",
    "runs_models": "SD across runs",
    "runs_pairs": "runs_p_corrected",
    "conventions_means": "Reproduces",
    "conventions_steps": "Change",
    "conventions_users": "Move",
}


def frame(at: AppTest, key: str):
    column = TABLE_COLUMNS.get(key)
    found = [d.value for d in at.main.dataframe
             if d.key == key or (column is not None and column in d.value.columns)]
    assert found, f"no table {key}"
    return found[0]


def keyed_block(at: AppTest, key: str):
    """The container made with ``key`` (None when the page drew none)."""
    def find(block):
        for child in block.children.values():
            if not hasattr(child, "children"):
                continue
            if str(getattr(child.proto, "id", "")).endswith(f"-{key}"):
                return child
            found = find(child)
            if found is not None:
                return found
        return None
    return find(at.main)


def upload(at: AppTest, index: int, *names: str, content: dict[str, bytes] | None = None):
    content = content or {}
    files = [(name, content[name] if name in content else (UPLOADS / name).read_bytes(),
              "application/octet-stream") for name in names]
    at.file_uploader[index].set_value(files if index == 0 else files[0]).run()
    ok(at)
    return at


def errors(at: AppTest) -> list[str]:
    return [plain(e.value) for e in at.error]


def warnings(at: AppTest) -> list[str]:
    return [plain(w.value) for w in at.warning]


def texts(elements) -> list[str]:
    return [plain(element.value) for element in elements]


def opened(params: dict[str, str], page: str | None = None) -> AppTest:
    """A new session opening a link with ``params`` (on ``page``)."""
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params.update(params)
    at.run()
    if page:
        go(at, page)
    ok(at)
    return at


def uploader(at: AppTest, label: str):
    """The file uploader whose label starts with ``label``."""
    return next(u for u in at.file_uploader if u.label.startswith(label))
