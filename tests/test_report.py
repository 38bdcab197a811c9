"""The HTML report: every section, a page that works offline, user text escaped, and the
command line that writes it."""

from __future__ import annotations

import hashlib
import html
import re
import shlex

import pytest

from rankmetrics.cli import main
from rankmetrics.report.html import build_report, fingerprint
from tests.helpers import MOVIES
from tests.test_decision import USERS, evaluated

HOSTILE = "<script>alert('x')</script>"


@pytest.fixture(scope="module")
def hostile_report() -> str:
    ev = evaluated(**{HOSTILE: dict.fromkeys(USERS, 1), "<b>bold</b>": {u: 2 for u in USERS}})
    inputs = [fingerprint("ground truth", "<img src=x onerror=alert(1)>.csv", b"t", 40, 40),
              fingerprint(HOSTILE, "run.csv", b"r1", 400, 40),
              fingerprint("<b>bold</b>", "run&2.csv", b"r2", 400, 40)]
    return build_report(ev, inputs, cutoff=1, test="t", n_bootstrap=200,
                        title="Q3 <i>review</i>")


def test_every_string_from_a_users_file_is_escaped(hostile_report):
    text = hostile_report
    for raw in (HOSTILE, "<b>bold</b>", "<img src=x", "<i>review</i>"):
        assert raw not in text
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in text  # in the table
    assert "&lt;img src=x onerror=alert(1)&gt;.csv" in text and "run&amp;2.csv" in text
    assert "<title>Q3 &lt;i&gt;review&lt;/i&gt;</title>" in text
    # the figures' JSON cannot end its script element
    for script in re.findall(r"<script>\(function \(\) \{(.*?)\}\)\(\);</script>", text, re.S):
        assert "<" not in script and ">" not in script


def test_the_report_has_every_section_and_needs_no_network(hostile_report):
    text = hostile_report
    for heading in ("The decision", "Every metric over K", "Every metric at K = 1",
                    "How NDCG@1 is spread over users", "Significance of every pair at NDCG@1",
                    "Relevance and conventions", "Inputs", "Reproduce"):
        assert f"<h2>{heading}</h2>" in text
    assert text.count("Plotly.newPlot(") == 4
    assert "src=" not in text.split("<body>")[1].replace("src=x", "")  # nothing fetched
    assert 'src="http' not in text and "cdn.plot.ly" not in text.split("</script>")[-1]
    assert "significantly better than every other model" in text
    assert fingerprint("x", "x", b"t", 1, 1).sha256 in text  # sha256 of b"t"
    assert "rankmetrics report --truth" in text and "--binary 1" in text


def test_the_decision_opens_with_the_headline_and_folds_the_details_away(hostile_report):
    start = hostile_report.index("<h2>The decision</h2>")
    section = hostile_report[start:hostile_report.index("</section>", start)]
    assert "K\xa0=\xa01" in section and "K = 1" not in section  # no line ends in "K ="
    shown, details = section.replace("\xa0", " ").split("<details>")
    # the headline first and bold, one short line per metric, the test said once
    assert shown.startswith("<h2>The decision</h2>\n<p class='headline'><strong>&lt;script&gt;"
                            "alert(&#x27;x&#x27;)&lt;/script&gt; is best on all 6 metrics at "
                            "K = 1; the leader changes with K on Precision, Recall and HitRate."
                            "</strong></p>")
    lines = re.findall(r"<li><strong>(.*?)</strong>: (.*?)</li>", shown)
    assert [name for name, _ in lines] == ["Precision@1", "Recall@1", "HitRate@1", "MRR@1",
                                           "MAP@1", "NDCG@1"]
    assert all(" is best, +1.000 over &lt;b&gt;bold&lt;/b&gt; (1.000 to 1.000); " in line
               for _, line in lines)
    assert shown.count("paired t-test, Holm correction") == 1 and "p &lt;" not in shown
    # a click away: every metric's sentence with its p-value and users
    assert details.startswith("<summary>Details: each metric's p-value, users and leader "
                              "at each K</summary>")
    assert details.count("p &lt; 0.001 against &lt;b&gt;bold&lt;/b&gt;; 40 users") == 6
    assert details.count("<p class='k'>") == 6 and details.endswith("</details>\n")


def test_the_command_line_writes_the_report_and_its_command_reproduces_it(tmp_path,
                                                                       monkeypatch):
    output = tmp_path / "report.html"
    truth, personalized, popular = (MOVIES / "ground_truth.csv",
                                    MOVIES / "personalized.parquet", MOVIES / "popularity.parquet")
    code = main(["report", "--truth", str(truth), "--run", str(personalized), "--run",
                 f"pop={popular}", "--binary", "4", "--cutoff", "5", "--max-cutoff", "10",
                 "--test", "t", "--output", str(output)])
    assert code == 0
    text = output.read_text()
    assert "On NDCG@5, personalized is the best model" in text
    assert "rankmetrics report --truth ground_truth.csv --run personalized=personalized.parquet"\
        " --run pop=popularity.parquet --binary 4 --gain exponential" in text
    assert "--cutoff 5 --max-cutoff 10 --metric ndcg --test t --correction holm" in text
    assert "2,000</td>" in text and "ground_truth.csv" in text
    # the command in the report, run where the files are, gives the same numbers
    command = html.unescape(re.search(r"<pre><code>(.*?)</code></pre>", text, re.S).group(1))
    words = shlex.split(command)
    assert words[:2] == ["rankmetrics", "report"]
    again = tmp_path / "again.html"
    words[words.index("--output") + 1] = str(again)
    monkeypatch.chdir(MOVIES)
    assert main(words[1:]) == 0
    assert table_at_k(again.read_text()) == table_at_k(text)


def table_at_k(text: str) -> str:
    return text.split("<h2>Every metric at K")[1].split("</table>")[0]


def test_the_command_line_says_what_is_wrong(tmp_path, capsys):
    code = main(["report", "--truth", str(MOVIES / "ground_truth.csv"), "--run",
                 str(MOVIES / "random.parquet"), "--output", str(tmp_path / "r.html")])
    assert code == 1
    assert "A report compares models: got 1, give at least two." in capsys.readouterr().err


@pytest.mark.parametrize(("option", "said"), [
    (["--columns", "nobody:user=a"], "--columns nobody:user=a: it should start with one of "
                                     "truth, run:random, run:popularity, segments"),
    (["--columns", "truth:user"], "write the columns as ROLE=COLUMN"),
    (["--file-format", "run:random:"], "no format given after run:random:"),
    (["--segment-by", "plan"], "plan"),
])
def test_the_reports_read_choices_and_segments_say_what_is_wrong(tmp_path, capsys, option,
                                                                 said):
    code = main(["report", "--truth", str(MOVIES / "ground_truth.csv"), "--run",
                 str(MOVIES / "random.parquet"), "--run", str(MOVIES / "popularity.parquet"),
                 "--output", str(tmp_path / "r.html"), *option])
    assert code == 1
    assert said in capsys.readouterr().err


@pytest.fixture(scope="module")
def saved_movies(tmp_path_factory):
    """Two movies models (rating >= 4 relevant, K to 10) evaluated from files and saved by
    the command line."""
    folder = tmp_path_factory.mktemp("saved_report")
    files = ["--truth", str(MOVIES / "ground_truth.csv"), "--run",
             str(MOVIES / "personalized.parquet"), "--run", f"pop={MOVIES / 'popularity.parquet'}",
             "--binary", "4", "--max-cutoff", "10"]
    assert main(["evaluate", *files, "--save", str(folder / "movies.zip")]) == 0
    assert main(["report", *files, "--cutoff", "5", "--test", "t",
                 "--output", str(folder / "files.html")]) == 0
    return folder


def section_of(text: str, heading: str) -> str:
    start = text.index(f"<h2>{heading}")
    return text[start:text.index("</table>", start)]


def test_a_saved_evaluations_report_shows_its_numbers_and_names_its_archive(saved_movies,
                                                                           monkeypatch):
    archive = saved_movies / "movies.zip"
    output = saved_movies / "saved.html"
    assert main(["report", "--bundle", str(archive), "--cutoff", "5", "--test", "t",
                 "--output", str(output)]) == 0
    text, files = output.read_text(), (saved_movies / "files.html").read_text()
    # the same table at K and the same decision as the report of the files it was saved from
    assert table_at_k(text) == table_at_k(files)
    decision = re.compile(r"<h2>The decision</h2>.*?</ul>", re.S)
    assert decision.search(text).group(0) == decision.search(files).group(0)
    # users split by their relevant items (a saved evaluation has no ground-truth sizes)
    assert "<h2>NDCG@5 by segment: relevant items</h2>" in text
    # the archive's fingerprint, and the inputs it recorded
    inputs = section_of(text, "Inputs")
    assert hashlib.sha256(archive.read_bytes()).hexdigest() in inputs
    recorded = text.split("from these inputs:")[1].split("</table>")[0]
    for role in ("ground truth", "personalized", "pop"):
        assert f"<td>{role}</td>" in recorded
    assert hashlib.sha256((MOVIES / "ground_truth.csv").read_bytes()).hexdigest() in recorded
    # its command writes it again from the archive
    command = html.unescape(re.search(r"<pre><code>(.*?)</code></pre>", text, re.S).group(1))
    words = shlex.split(command)
    assert words[:4] == ["rankmetrics", "report", "--bundle", "movies.zip"]
    monkeypatch.chdir(saved_movies)
    words[words.index("--output") + 1] = "again.html"
    assert main(words[1:]) == 0
    again = (saved_movies / "again.html").read_text()
    assert table_at_k(again) == table_at_k(text)
    assert section_of(again, "Inputs") == inputs


@pytest.mark.parametrize(("option", "said"), [
    (["--cutoff", "4"], "--cutoff: a saved evaluation holds every user's values at K = 1, 3, "
                        "5, 10; choose one of them (got 4)."),
    (["--binary", "3", "--item-attributes", "x.csv"],
     "--bundle: a saved evaluation keeps its files, relevance, conventions and largest K; "
     "leave out --binary, --item-attributes"),
    (["--segment-by", "ground-truth size"], "A saved evaluation does not hold each user's "
                                            "ground truth"),
    (["--output", "/no/such/folder/r.html"], "--output /no/such/folder/r.html: the report "
                                             "cannot be written there (No such file or "
                                             "directory)."),
])
def test_a_saved_evaluations_report_says_what_it_cannot_do(saved_movies, capsys, option,
                                                           said):
    code = main(["report", "--bundle", str(saved_movies / "movies.zip"),
                 "--output", str(saved_movies / "r.html"), *option])  # a later --output wins
    assert code == 1
    assert said in capsys.readouterr().err


def test_a_report_of_a_saved_evaluation_takes_its_archive_alone(saved_movies):
    from rankmetrics import load_bundle
    from rankmetrics.bundle import content_sha256
    from rankmetrics.report.html import saved_input

    saved = load_bundle(saved_movies / "movies.zip")
    archive = saved_input("movies.zip", content_sha256(saved_movies / "movies.zip"), saved)
    assert (archive.rows, archive.users) == (len(saved.users),) * 2
    with pytest.raises(ValueError, match="needs the saved evaluation's file alone: 1 "
                                         "fingerprint, got 2"):
        build_report(saved, [archive, archive], cutoff=5, test="t")
    with pytest.raises(ValueError, match="must be one of them, got 4"):
        build_report(saved, [archive], cutoff=4, test="t")


def test_the_report_says_each_rank_how_big_and_how_many_users():
    # first: the hit at rank 1 for 30 of 40 users, at rank 3 for the rest; second: at rank
    # 2 for the first 20 and rank 1 for the next 20, so their NDCG@3 differ user by user
    ev = evaluated(3, first={u: 1 if i < 30 else 3 for i, u in enumerate(USERS)},
                   second={u: 2 if i < 20 else 1 for i, u in enumerate(USERS)},
                   third={u: 3 for u in USERS})
    inputs = [fingerprint("ground truth", "truth.csv", b"t", 40, 40),
              *(fingerprint(name, f"{name}.csv", name.encode(), 120, 40)
                for name in ("first", "second", "third"))]
    text = html.unescape(build_report(ev, inputs, cutoff=3, test="t", n_bootstrap=200))
    ranks = re.search(r"Ranks when the users are resampled \(95% intervals\): (.*?)\.</p>", text)
    assert ranks, "no ranks"
    # first's mean is 0.06 above second's with a standard error of about 0.056: second comes
    # first in about one resample in seven
    assert ranks.group(1) == "first ranked 1-2 of 3; second ranked 1-2 of 3; third ranked 3 of 3"
    assert re.search(r"How big: first's gain over second is [\d.]+ of the spread of the "
                     r"users' differences \(interval [-\d.]+ to [\d.]+\), a \w+ effect", text)
    assert re.search(r"With these 40 users, the smallest difference in NDCG@3 a paired t-test "
                     r"at level 1.67% \(5% shared by 3 pairs\) detects 80% of the time is "
                     r"[\d.]+", text)
    assert re.search(r"To detect a 1% lift over second \([\d.]+\) 80% of the time, you would "
                     r"need about [\d,]+ users", text)


def test_the_report_compares_models_of_several_runs_over_users_and_over_runs():
    # a@1..a@3: the hit at rank 1 for 30, 32 and 34 of 40 users, else at rank 3; b@1, b@2: at
    # rank 1 for 20 and 22 users; c: at rank 2 for everyone
    runs = {f"a@{i}": {u: 1 if j < hits else 3 for j, u in enumerate(USERS)}
            for i, hits in ((1, 30), (2, 32), (3, 34))}
    runs |= {f"b@{i}": {u: 1 if j < hits else 3 for j, u in enumerate(USERS)}
             for i, hits in ((1, 20), (2, 22))}
    ev = evaluated(3, **runs, c={u: 2 for u in USERS})
    inputs = [fingerprint("ground truth", "truth.csv", b"t", 40, 40),
              *(fingerprint(name, f"{name}.csv", name.encode(), 120, 40) for name in ev.models)]
    text = html.unescape(build_report(ev, inputs, cutoff=3, test="t", n_bootstrap=200))
    assert "<h2>Several runs of one model</h2>" in text
    section = text.split("<h2>Several runs of one model</h2>")[1].split("</section>")[0]
    values = ev.paired("ndcg", 3)
    a = values[["a@1", "a@2", "a@3"]].mean()
    assert f"<th>a</th><td>3</td><td>{a.mean():.4f}</td><td>{a.std(ddof=1):.4f}</td>" in section
    assert "<th>c</th><td>1</td>" in section and "<td>one run</td>" in section
    assert "Averaged over their runs (3 runs and 2 runs), a is ahead of b by" in section
    assert "Welch's t-test on the runs' means" in section
    plain_models = evaluated(3, first={u: 1 for u in USERS}, second={u: 2 for u in USERS})
    assert "Several runs of one model" not in build_report(
        plain_models, [fingerprint("ground truth", "t.csv", b"t", 40, 40),
                       *(fingerprint(n, f"{n}.csv", n.encode(), 120, 40)
                         for n in ("first", "second"))], cutoff=3, test="t", n_bootstrap=200)
