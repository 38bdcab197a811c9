"""The code's layout: app_pages/ holds page scripts only (and nothing is named pages/ next to
the entrypoint), and imports point one way, app.py -> app_pages/ -> dashboard/ ->
rankmetrics/, without cycles inside dashboard/."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, by its full dotted name."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def top_level(names: set[str]) -> set[str]:
    return {name.split(".")[0] for name in names}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_app_pages_holds_the_page_scripts_and_nothing_else():
    from dashboard.navigation import PAGES

    files = {path.relative_to(ROOT).as_posix() for path in (ROOT / "app_pages").iterdir()
             if path.name != "__pycache__"}
    assert files == set(PAGES.values())


def test_nothing_is_named_pages_next_to_the_entrypoint():
    # Streamlit would serve it as old-style pages, run without app.py, until some session has
    # run st.navigation: a bookmark opened first after a restart would bypass the entrypoint.
    assert not (ROOT / "pages").exists()


def test_rankmetrics_never_imports_the_app_or_streamlit():
    for path in (ROOT / "rankmetrics").rglob("*.py"):
        assert not top_level(imported(path)) & {"streamlit", "dashboard", "app_pages", "app"}, path


def test_dashboard_never_imports_pages_or_the_entrypoint():
    for path in (ROOT / "dashboard").rglob("*.py"):
        assert not top_level(imported(path)) & {"app_pages", "app"}, path


def test_pages_import_no_other_page():
    for path in [ROOT / "app.py", *(ROOT / "app_pages").glob("*.py")]:
        assert "app_pages" not in top_level(imported(path)), path


def test_the_app_uses_the_library_through_its_public_modules():
    app = [ROOT / "app.py", *(ROOT / "app_pages").glob("*.py"), *(ROOT / "dashboard").rglob("*.py")]
    for path in app:
        names = imported(path)
        private = [name for name in names
                   if name.startswith("rankmetrics.")
                   and any(part.startswith("_") for part in name.split(".")[1:])]
        assert not private, (path, private)


def dashboard_graph() -> dict[str, set[str]]:
    graph = {}
    for path in (ROOT / "dashboard").rglob("*.py"):
        name = module_name(path)
        graph[name] = {module for module in imported(path)
                       if module.startswith("dashboard.") and module != name}
    modules = set(graph)
    # "from dashboard import keys" names the module dashboard.keys
    return {name: {m for m in deps if m in modules} for name, deps in graph.items()}


def test_dashboard_modules_import_each_other_without_cycles():
    graph = dashboard_graph()
    assert {"dashboard.keys", "dashboard.cached.inputs"} <= graph["dashboard.session"]
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as error:
        pytest.fail(f"import cycle in dashboard/: {error.args[1]}")
