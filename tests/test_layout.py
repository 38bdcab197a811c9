"""The code's layout: app_pages/ holds page scripts only (and nothing is named pages/ next to
the entrypoint); imports point one way, app.py -> app_pages/ -> dashboard/ -> rankmetrics/,
without cycles inside dashboard/ or inside rankmetrics/; inside the library no module imports a
private name (``_x``) from another module, and a private module (``io/_readers.py``) is
imported only by the modules of its own package.

Imports made only for type annotations (under ``if TYPE_CHECKING:``) are never run, so they
are not edges of the import graph; every other import is, at the top of a module or inside a
function alike."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run_imports(path: Path) -> list[ast.Import | ast.ImportFrom]:
    """The import statements of ``path`` that run: all but those under ``if TYPE_CHECKING``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.If) and isinstance(node.test, ast.Name)
                and node.test.id == "TYPE_CHECKING"):
            skipped.update(id(inner) for child in node.body for inner in ast.walk(child))
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in skipped]


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, by its full dotted name (and, for ``from m import n``,
    ``m.n`` too, which is a module when ``n`` is one)."""
    found = set()
    for node in _run_imports(path):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif node.level == 0 and node.module:
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


def library_modules() -> dict[str, Path]:
    return {module_name(path): path for path in (ROOT / "rankmetrics").rglob("*.py")}


def library_graph() -> dict[str, set[str]]:
    """Module -> the library modules it imports (``from rankmetrics.a import b`` names the
    module ``rankmetrics.a.b`` when there is one, else ``rankmetrics.a``)."""
    modules = library_modules()
    graph = {}
    for name, path in modules.items():
        edges = set()
        for node in _run_imports(path):
            if isinstance(node, ast.Import):
                edges.update(alias.name for alias in node.names if alias.name in modules)
            elif node.level == 0 and node.module in modules:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    edges.add(full if full in modules else node.module)
        graph[name] = edges - {name}
    return graph


def test_the_library_has_no_import_circle():
    graph = library_graph()
    assert "rankmetrics.evaluation._evaluation" in graph  # the graph is read
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as error:
        pytest.fail(f"import circle in rankmetrics/: {' -> '.join(error.args[1])}")


def test_a_circle_would_be_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}}
    with pytest.raises(CycleError):
        tuple(TopologicalSorter(graph).static_order())


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def test_no_private_name_is_imported_across_library_modules():
    modules = library_modules()
    found = []
    for name, path in modules.items():
        for node in _run_imports(path):
            if isinstance(node, ast.ImportFrom) and node.module and node.module != name:
                found += [(name, node.module, alias.name) for alias in node.names
                          if _private(alias.name) and f"{node.module}.{alias.name}" not in modules]
    assert not found


def test_private_modules_are_imported_only_within_their_package():
    modules = library_modules()
    found = []
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for target in imported(path):
            if target not in modules:
                continue
            parts = target.split(".")
            for depth, part in enumerate(parts):
                owner = ".".join(parts[:depth])
                if _private(part) and not (package == owner or package.startswith(owner + ".")):
                    found.append((name, target))
    assert not found



LONGEST = 600  # lines of a module, unless its docstring says why one concept needs more


def test_a_long_module_says_in_its_docstring_why_it_is_one_concept():
    long = {}
    for path in [*ROOT.joinpath("rankmetrics").rglob("*.py"),
                 *ROOT.joinpath("dashboard").rglob("*.py"),
                 *ROOT.joinpath("app_pages").glob("*.py")]:
        lines = path.read_text().count("\n")
        if lines > LONGEST:
            docstring = ast.get_docstring(ast.parse(path.read_text())) or ""
            if "longer than" not in docstring:
                long[str(path.relative_to(ROOT))] = lines
    assert not long, f"modules over {LONGEST} lines without a reason in their docstring: {long}"
