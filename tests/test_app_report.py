"""The report downloaded from the dashboard names everything its numbers depend on, so that
its command, run where the files are, writes the same tables: files read with columns and a
format chosen by hand, user attributes and the column the Segments page splits by, training
interactions and item attributes (the beyond-accuracy metrics)."""

from __future__ import annotations

import html
import re
import shlex

import pytest

from rankmetrics.cli import main
from tests.apptest import UPLOADS, go, ok, opened, upload, uploader
from tests.helpers import MOVIES

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def read_by_hand(at, spec_id: str, columns: dict[str, str], file_format: str) -> None:
    for role, column in columns.items():
        at.text_input(key=f"col_{spec_id}_{role}").input(column)
    at.selectbox(key=f"format_{spec_id}").set_value(file_format)
    [b for b in at.button if b.form_id == f"options_{spec_id}"][0].click().run()
    ok(at)


def section(text: str, heading: str) -> str:
    """A section's table (the part of the report the numbers are in)."""
    start = text.index(f"<h2>{heading}")
    return text[start:text.index("</table>", start)]


def test_the_reports_command_writes_the_tables_the_dashboard_showed(downloaded, tmp_path,
                                                                   monkeypatch):
    files = {name: (UPLOADS / name).read_bytes()
             for name in ("ratings.csv", "als_model.csv", "unknown_columns.csv", "train.csv",
                          "genres.csv")}
    files["people.csv"] = (MOVIES / "users.csv").read_bytes()
    at = opened({}, "app_pages/data.py")
    upload(at, 1, "ratings.csv")
    upload(at, 0, "als_model.csv", "unknown_columns.csv")
    runs = {spec.file_name: spec.id for spec in at.session_state["uploads"].runs}
    read_by_hand(at, runs["unknown_columns.csv"], {"user": "query", "item": "title",
                                                   "order": "points"}, "csv")
    read_by_hand(at, runs["als_model.csv"], {}, "csv")
    for label, name in (("User attributes", "people.csv"), ("Training interactions",
                                                            "train.csv"),
                        ("Item attributes", "genres.csv")):
        uploader(at, label).set_value((name, files[name], "text/csv")).run()
        ok(at)
    go(at, "app_pages/segments.py")
    at.selectbox(key="segment_by").set_value("plan").run()
    at.slider(key="cutoff").set_value(5).run()
    ok(at)
    shown = downloaded(at, "report_html")

    command = html.unescape(re.search(r"<pre><code>(.*?)</code></pre>", shown, re.S).group(1))
    words = shlex.split(command)
    for option, value in (("--columns", "run:unknown_columns:item=title,score=points,"
                                        "user=query"),
                          ("--file-format", "run:als_model:csv"), ("--segments", "people.csv"),
                          ("--segment-by", "plan"), ("--interactions", "train.csv"),
                          ("--item-attributes", "genres.csv"), ("--cutoff", "5")):
        assert value in [words[i + 1] for i, word in enumerate(words) if word == option], (
            option, command)
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    monkeypatch.chdir(tmp_path)
    assert main(words[1:]) == 0
    again = (tmp_path / "report.html").read_text()
    for heading in ("Every metric at K = 5", "NDCG@5 by segment: plan",
                    "Beyond accuracy at K = 5", "Inputs"):
        assert section(again, heading) == section(shown, heading), heading
    assert "premium" in section(shown, "NDCG@5 by segment: plan")
    assert "Novelty@5" in section(shown, "Beyond accuracy at K = 5")
    for name in files:
        assert name in section(shown, "Inputs")


@pytest.mark.parametrize(("page", "column"), [("app_pages/users.py", "Share at 0"),
                                              ("app_pages/significance.py", "Group")])
def test_the_baselines_interval_cells_show_a_dash(page, column):
    at = opened({}, page)
    table = [d for d in at.main.dataframe if column in d.value.columns][0]
    baseline = table.value.set_index(table.value.columns[0]).loc["popularity"] \
        if "Model" in table.value.columns else table.value.loc["popularity"]
    assert baseline[["Difference: low", "Difference: high"]].isna().all()  # no interval
    assert table.proto.placeholder == "–"  # shown as a dash, not "None"


def test_a_report_on_a_beyond_accuracy_metric_tests_ndcg_and_says_so(downloaded):
    at = opened({}, "app_pages/significance.py")
    at.selectbox(key="significance_metric").set_value("novelty").run()
    ok(at)
    shown = downloaded(at, "report_html")
    assert "<h2>How NDCG@10 is spread over users</h2>" in shown
    assert "Novelty@10" in section(shown, "Beyond accuracy at K = 10")
    button = [b for b in at.get("download_button") if b.proto.id.endswith("-report_html")][0]
    assert "Its distributions and tests are on NDCG" in button.proto.help
