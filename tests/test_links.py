"""Links and workspaces in the app (AppTest): the URL holds every setting and the workspace id,
a link reopens the same view with the same uploaded files, a bad value in a link falls back
to the default with a notice, and deleting a workspace removes its files."""

from __future__ import annotations

import io
import json
import time

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import dashboard.sharing
import dashboard.store
from dashboard import keys
from tests.apptest import MOVIE_MODELS, go, keyed_block, ok, opened, plain, upload, uploader
from tests.apptest import UPLOADS as UPLOAD_FILES
from tests.helpers import MOVIES

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def notices(at: AppTest) -> list[str]:
    return [plain(w.value) for w in at.warning if "link" in w.value]


def link_of(at: AppTest) -> dict[str, str]:
    return {name: str(value) for name, value in at.query_params.items()}


def uploaded_workspace() -> tuple[AppTest, str]:
    at = opened({}, "app_pages/data.py")
    upload(at, 1, "ratings.csv")
    upload(at, 0, "als_model.csv", "popular_items.tsv")
    workspace = at.session_state["workspace"]
    assert workspace and link_of(at)["ws"] == workspace
    return at, workspace


def test_a_link_reopens_the_uploads_and_settings_after_a_restart():
    at, workspace = uploaded_workspace()
    at.slider(key="cutoff").set_value(7).run()
    go(at, "app_pages/significance.py")  # the Data page shows no conventions
    at.sidebar.selectbox(key="preset").set_value("trec_eval").run()
    at.selectbox(key="significance_metric").set_value("map").run()
    at.selectbox(key="significance_test").set_value("t").run()
    params = link_of(at)
    assert {"ws": workspace, "data": "uploads", "k": "7", "preset": "trec_eval",
            "metric": "map", "test": "t"}.items() <= params.items()
    dashboard.store._STORE = None  # the server restarts: the store is opened again
    again = opened(params, "app_pages/significance.py")
    assert again.session_state["dataset"] == "uploads"
    assert [spec.name for spec in again.session_state["uploads"].runs] == [
        "als_model", "popular_items"]
    assert again.session_state["cutoff"] == 7
    assert again.session_state["significance_metric"] == "map"
    assert again.session_state["conv_gain"] == "linear"  # the preset's options
    assert notices(again) == []
    assert link_of(again) == params
    bare = opened({"ws": workspace})  # the workspace alone reopens its last view
    assert bare.session_state["cutoff"] == 7 and bare.session_state["dataset"] == "uploads"


def test_a_session_without_the_link_sees_none_of_the_uploads():
    uploaded_workspace()
    other = opened({})
    assert other.session_state["dataset"] == "movies"
    assert other.session_state["uploads"].runs == []
    assert "ws" not in link_of(other)


@pytest.mark.parametrize(("params", "said"), [
    ({"model": "<script>alert(1)</script>"}, "model = “<script>alert(1)</script>” was not used"),
    ({"k": "500"}, "k = “500” was not used: K is a whole number from 1 to 50"),
    ({"k": "0"}, "k = “0” was not used"),
    ({"kmax": "ten"}, "kmax = “ten” was not used"),
    ({"metric": "accuracy"}, "metric = “accuracy” was not used: the metric must be one of"),
    ({"metrics": "ndcg,auc"}, "metrics = “ndcg,auc” was not used"),
    ({"rel": "graded:5=3,4=oops"}, "relevance “graded:5=3,4=oops” was not used"),
    ({"rel": "graded:5=3,5=2"}, "lists a rating twice"),
    ({"rel": "graded:5=0,4=0"}, "nothing is relevant"),
    ({"rel": "graded:5=3,4=2", "grade_min": "7"}, "no rating has the grade 7"),
    ({"rel": "binary:nan"}, "every number must be finite"),
    ({"rel": "graded:" + ",".join(f"{r}=1" for r in range(1, 151))},
     "its grade table has 150 bands, more than the 100 a grade table may have"),
    ({"rel": "graded:" + ",".join(f"{r}={r % 5}" for r in range(30_000))},
     "setting “rel” was left out: its value is 228,896 characters long, more than the 2,000"),
    ({"user": "<b>bold</b>"}, "user = “<b>bold</b>” was not used: it is not a user"),
    ({"ws": "../../etc/passwd"}, "workspace does not exist on this server"),
    ({"ws": "A" * 24}, "workspace does not exist on this server"),
    ({"data": "nothing"}, "data = “nothing” was not used"),
    ({"preset": "scikit"}, "preset = “scikit” was not used"),
    ({"confidence": "2"}, "confidence = “2” was not used"),
    ({"colour": "red"}, "setting “colour” = “red” is unknown"),
    ({"segment_by": "planet"}, "segment_by = “planet” was not used"),
    ({"baseline": "nobody"}, "baseline = “nobody” was not used"),
    ({"buckets": "99"}, "buckets = “99” was not used"),
    ({"users_by": "planet", "users_segment": "mars"}, "users_by = “planet” was not used"),
    ({"users_by": "plan", "users_segment": "<i>gold</i>"},
     "users_segment = “<i>gold</i>” was not used: it is not a segment of plan"),
    ({"beyond_metrics": "coverage,ndcg"}, "beyond_metrics = “coverage,ndcg” was not used"),
    ({"tradeoff_against": "fame"}, "tradeoff_against = “fame” was not used"),
    ({"tradeoff_accuracy": "fame"}, "tradeoff_accuracy = “fame” was not used"),
    ({"pair_a": "nobody", "pair_b": "random"}, "pair_a = “nobody” was not used"),
    ({"pair_a": "random", "pair_b": "random"}, "pair_b = “random” was not used: a pair is two"),
    ({"pg_scenario": "chess"}, "pg_scenario = “chess” was not used: the scenarios are"),
    ({"pg_list": "A:1:1,B:99:0"}, "pg_list = “A:1:1,B:99:0” was not used: a grade is a whole"),
    ({"pg_list": "A:1:1,A:0:0"}, "was not used: Each item appears once"),
    ({"pg_list": "A:1:inf"}, "a score is a finite number"),
    ({"pg_list": "A:1:1", "pg_gain": "cubic"}, "pg_gain = “cubic” was not used"),
    ({"pg_k": "0"}, "pg_k = “0” was not used: K is a whole number from 1 to 30"),
    ({"pg_formula": "auc"}, "pg_formula = “auc” was not used"),
])
def test_a_bad_value_in_a_link_falls_back_with_a_notice(params, said):
    at = opened(params, "app_pages/head_to_head.py")
    assert any(said in text for text in notices(at)), notices(at)
    assert at.session_state["dataset"] == "movies"
    assert at.session_state["cutoff"] == 10  # the defaults are in force
    for element in at.markdown:
        assert "<b>" not in element.value and "<script>" not in element.value
    at.button(key="dismiss_link_notices").click().run()
    assert notices(at) == []


def test_valid_values_of_every_kind_are_taken():
    params = {"data": "movies", "rel": "graded:3=1,4=2,5=3", "grade_min": "2", "kmax": "20",
              "k": "5", "a": "random", "b": "personalized", "user": "u0007",
              "h2h_metric": "recall", "preset": "custom", "gain": "linear",
              "ideal": "retrieved", "confidence": "0.9", "segment_by": "plan",
              "baseline": "random", "segment_metric": "map", "buckets": "3",
              "explain_metric": "mrr"}
    at = opened(params, "app_pages/head_to_head.py")
    assert notices(at) == []
    state = at.session_state
    assert (state["h2h_a"], state["h2h_b"], state["h2h_user"]) == ("random", "personalized",
                                                                   "u0007")
    assert state["rel_kind"] == "graded" and state["rel_grade_threshold"] == 2
    assert (state["max_cutoff"], state["cutoff"]) == (20, 5)
    assert state["conv_ideal"] == "retrieved"
    assert params.items() <= link_of(at).items()


def test_deleting_the_workspace_removes_its_files():
    at, workspace = uploaded_workspace()
    store = dashboard.store.workspace_store()
    assert store.files(workspace)
    at.button(key="delete_workspace").click().run()
    ok(at)
    assert store.files(workspace) == [] and not store.open(workspace)
    assert at.session_state["dataset"] == "movies" and "ws" not in link_of(at)
    gone = opened({"ws": workspace})
    assert any("does not exist" in text for text in notices(gone))


def test_every_users_value_downloads_for_every_model(downloaded, movie_evaluation):
    at = opened({"kmax": "10", "k": "5", "rel": "binary:4", "users_metric": "recall"},
                "app_pages/users.py")
    saved = pd.read_csv(io.StringIO(downloaded(at, "per_user_csv")))
    assert list(saved.columns) == ["user", *MOVIE_MODELS]
    assert downloaded(at, "per_user_csv", name=True) == "per_user_recall_at_5_every_model.csv"
    for model in MOVIE_MODELS:
        expected = movie_evaluation.per_user_at(model, "recall", 5)
        values = saved.set_index("user")[model].dropna()
        assert values.sort_index().to_numpy() == pytest.approx(
            expected.sort_index().to_numpy(), rel=1e-9)  # written with 10 digits


def image_options(at: AppTest, chart: int) -> dict:
    return json.loads(at.get("plotly_chart")[chart].proto.config)["toImageButtonOptions"]


def test_every_chart_saves_as_the_png_or_svg_chosen_once_at_publication_size():
    at = opened({}, "app_pages/users.py")
    assert image_options(at, 0) == {"format": "png", "filename": "distribution_NDCG_10",
                                    "width": 1200, "height": 700, "scale": 2}
    assert image_options(at, 1)["format"] == "png"
    formats = [group for group in at.get("button_group")
               if group.proto.label == "Camera icon saves charts as"]
    assert len(formats) == 1  # one control, in the sidebar, for every chart
    at.session_state["chart_format"] = "svg"
    at.run()
    assert image_options(at, 0)["format"] == "svg" and image_options(at, 0)["scale"] == 1
    assert image_options(at, 1)["format"] == "svg"
    assert link_of(at)["chart"] == "histogram"
    go(at, "app_pages/data.py")  # no chart, no control: the choice stays for the session
    go(at, "app_pages/users.py")
    assert image_options(at, 0)["format"] == "svg"


def test_the_compare_page_opens_with_the_decision_and_offers_the_report():
    at = opened({"metrics": "mrr,ndcg", "k": "10", "rel": "binary:4", "test": "t"})
    box = keyed_block(at, "decision")
    assert plain(box.markdown[0].value).replace("\xa0", " ").startswith(
        "**top_heavy is best on both metrics at K = 10")
    lines = plain(box.markdown[1].value).splitlines()
    assert [line.split(":")[0] for line in lines] == ["- **MRR@10**", "- **NDCG@10**"]
    assert "(paired t-test, Holm correction" in plain(box.caption[0].value)
    details = plain(box.expander[0].markdown[0].value)
    assert details.startswith("- On MRR@10, top_heavy is the best model: ")
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download report" in labels and "Download as LaTeX" in labels
    one_user = opened({"data": "textbook"})  # nothing to test with one user: no decision
    assert keyed_block(one_user, "decision") is None


@pytest.fixture
def small_store(tmp_path, monkeypatch):
    """A store of tiny limits for one test (the app's store is put back afterwards)."""
    def make(limits, clock=time.time):
        monkeypatch.setattr(dashboard.store, "_STORE",
                            dashboard.store.WorkspaceStore(tmp_path, limits, clock=clock))
        monkeypatch.setenv("RANKMETRICS_WORKSPACES", str(tmp_path))
    yield make
    dashboard.store._STORE = None


def test_an_upload_over_the_workspace_size_is_refused_and_the_files_stay(small_store):
    truth = (UPLOAD_FILES / "ratings.csv").stat().st_size
    small_store(dashboard.store.Limits(truth + 100, 10, dashboard.store.DAY))
    at = opened({}, "app_pages/data.py")
    upload(at, 1, "ratings.csv")
    upload(at, 0, "als_model.csv")
    assert any("a workspace on this server holds at most" in e.value for e in at.error)
    assert at.session_state["uploads"].runs == []
    assert at.session_state["uploads"].truth.file_name == "ratings.csv"


def test_an_over_limit_first_upload_leaves_no_workspace_behind(small_store):
    small_store(dashboard.store.Limits(100, 10, dashboard.store.DAY))  # under any file
    at = opened({}, "app_pages/data.py")
    upload(at, 1, "ratings.csv")
    assert any("a workspace on this server holds at most" in e.value for e in at.error)
    assert dashboard.store.workspace_store().count() == 0
    assert "workspace" not in at.session_state and "ws" not in link_of(at)


def test_a_new_session_sweeps_away_workspaces_past_their_days(small_store):
    clock = [1_000_000.0]
    small_store(dashboard.store.Limits(10**9, 10, dashboard.store.DAY), clock=lambda: clock[0])
    at, workspace = uploaded_workspace()
    clock[0] += 2 * dashboard.store.DAY  # nobody opens it for two days
    opened({})  # somebody else's session, on another data set
    assert dashboard.store.workspace_store().count() == 0
    assert dashboard.store.workspace_store().files(workspace) == []


def test_when_the_server_keeps_no_more_workspaces_uploads_stay_in_the_tab(small_store):
    small_store(dashboard.store.Limits(10**9, 1, dashboard.store.DAY))
    dashboard.store.workspace_store().create()  # somebody else's
    at = opened({}, "app_pages/data.py")
    upload(at, 1, "ratings.csv")
    assert "workspace" not in at.session_state and "ws" not in link_of(at)
    assert any("already keeps 1 workspace, its limit" in plain(w.value) for w in at.warning)
    assert at.session_state["uploads"].truth_candidate or at.session_state["uploads"].truth


def test_the_optional_files_come_back_with_the_workspace():
    at, workspace = uploaded_workspace()
    people = (MOVIES / "users.csv").read_bytes()
    uploader(at, "User attributes").set_value(("people.csv", people, "text/csv")).run()
    train = (UPLOAD_FILES / "train.csv").read_bytes()
    uploader(at, "Training interactions").set_value(("train.csv", train, "text/csv")).run()
    ok(at)
    kinds = [f.kind for f in dashboard.store.workspace_store().files(workspace)]
    assert sorted(kinds) == ["interactions", "run", "run", "truth", "user_attributes"]
    again = opened({"ws": workspace})
    assert again.session_state["user_attributes"].data == people
    assert again.session_state["beyond_files"]["interactions"].data == train
    assert again.session_state["beyond_files"]["interactions"].file_name == "train.csv"


def test_the_one_segment_filter_comes_back_from_a_link():
    at = opened({}, "app_pages/users.py")
    at.selectbox(key="segment_filter_choice").set_value(("plan", "premium")).run()
    go(at, "app_pages/compare.py")  # the link keeps it on every page
    params = link_of(at)
    assert (params["users_by"], params["users_segment"]) == ("plan", "premium")
    again = opened(params, "app_pages/users.py")
    assert notices(again) == []
    assert again.selectbox(key="segment_filter_choice").value == ("plan", "premium")
    assert again.session_state["segment_filter"] == ("plan", "premium")


def test_the_beyond_accuracy_metrics_come_back_from_a_link():
    at = opened({}, "app_pages/beyond.py")
    at.session_state["beyond_metrics"] = ["novelty", "coverage"]
    at.selectbox(key="beyond_tradeoff_metric").set_value("gini").run()
    at.selectbox(key="beyond_accuracy_metric").set_value("recall").run()
    go(at, "app_pages/compare.py")  # the link keeps them on every page
    params = link_of(at)
    assert (params["beyond_metrics"], params["tradeoff_against"],
            params["tradeoff_accuracy"]) == ("novelty,coverage", "gini", "recall")
    again = opened(params, "app_pages/beyond.py")
    assert notices(again) == []
    panels = [note["text"].split("<br>")[0] for note in json.loads(
        again.get("plotly_chart")[0].proto.spec)["layout"]["annotations"]]
    assert panels == ["Share of the catalogue recommended (Coverage@K)",  # of the six shown
                      "Rarity of recommended items (Novelty@K)"]  # at first
    assert again.selectbox(key="beyond_tradeoff_metric").value == "gini"
    assert again.selectbox(key="beyond_accuracy_metric").value == "recall"


def test_the_significance_pair_comes_back_from_a_link():
    at = opened({}, "app_pages/significance.py")
    # the pair the page starts on is in the link of that very run
    shown = at.session_state["significance_pair"]
    assert (link_of(at)["pair_a"], link_of(at)["pair_b"]) == tuple(shown)
    assert at.selectbox(key="significance_pair").options[4] == "personalized vs random"
    at.selectbox(key="significance_pair").set_value(("random", "personalized")).run()
    chosen = link_of(at)  # in the link at once, for a copy right after the choice
    assert (chosen["pair_a"], chosen["pair_b"]) == ("random", "personalized")
    go(at, "app_pages/compare.py")  # the link keeps it on every page
    params = link_of(at)
    assert (params["pair_a"], params["pair_b"]) == ("random", "personalized")
    again = opened(params, "app_pages/significance.py")
    assert notices(again) == []
    assert again.selectbox(key="significance_pair").value == ("random", "personalized")
    assert "personalized" in again.info[-1].value and "random" in again.info[-1].value
    swapped = opened({**params, "pair_a": "personalized", "pair_b": "random"},
                     "app_pages/significance.py")  # either order names the same pair
    assert swapped.session_state["significance_pair"] == ("random", "personalized")


def test_the_playground_comes_back_from_a_link():
    at = opened({}, "app_pages/playground.py")
    at.button(key="playground_scenario_reversed").click().run()
    at.button(key="playground_up_C").click().run()  # an edit after the scenario
    at.radio(key="playground_gain").set_value("linear").run()
    at.number_input(key="playground_beyond").set_value(2).run()
    at.slider(key="playground_cutoff").set_value(4).run()
    ok(at)
    edited, tiles = at.session_state["_playground"], [m.value for m in at.metric]
    go(at, "app_pages/compare.py")  # the link keeps it on every page
    params = link_of(at)
    assert params["pg_scenario"] == "reversed" and params["pg_gain"] == "linear"
    assert params["pg_k"] == "4" and params["pg_missing"] == "1,1"
    again = opened(params, "app_pages/playground.py")
    assert notices(again) == []
    assert again.session_state["_playground"] == edited
    assert again.slider(key="playground_cutoff").value == 4
    assert again.radio(key="playground_gain").value == "linear"
    assert [m.value for m in again.metric] == tiles
    assert "reversed list" in again.info[0].value  # the scenario's lesson
    scenario = opened({"pg_scenario": "one_relevant"}, "app_pages/playground.py")
    assert scenario.session_state["playground_cutoff"] == 10
    assert scenario.success, "the scenario's change before and after"


def test_a_per_user_beyond_accuracy_metric_comes_back_where_the_data_set_offers_it():
    at = opened({}, "app_pages/significance.py")
    at.selectbox(key="significance_metric").set_value("novelty").run()
    go(at, "app_pages/users.py")
    at.selectbox(key="users_metric").set_value("aplt").run()
    params = link_of(at)
    assert (params["metric"], params["users_metric"]) == ("novelty", "aplt")
    again = opened(params, "app_pages/users.py")
    assert notices(again) == []
    assert again.selectbox(key="users_metric").value == "aplt"
    assert again.session_state["significance_metric"] == "novelty"
    textbook = opened({**params, "data": "textbook"})  # no training interactions: no novelty
    assert any("metric = “novelty” was not used: it is not a metric of this data set" in text
               for text in notices(textbook)), notices(textbook)
    assert "significance_metric" not in textbook.session_state  # the page's default


def test_copy_link_is_one_button_whose_page_is_the_same_for_everyone():
    at, _ = uploaded_workspace()  # a session with its own files and settings
    buttons = [element for element in at.sidebar.get("html")
               if 'id="rm-copy-link"' in element.proto.body]
    assert len(buttons) == 1 and buttons[0].proto.unsafe_allow_javascript
    assert buttons[0].proto.body == dashboard.sharing.COPY_LINK.strip()  # no user text
    assert "navigator.clipboard.writeText(url)" in buttons[0].proto.body
    assert "window.location.href" in buttons[0].proto.body  # the address, as the URL has it


def test_the_optional_files_are_counted_once_in_the_sessions_memory():
    from dashboard.budget import _leased_bytes

    at, workspace = uploaded_workspace()
    people = (MOVIES / "users.csv").read_bytes()
    uploader(at, "User attributes").set_value(("people.csv", people, "text/csv")).run()
    train = (UPLOAD_FILES / "train.csv").read_bytes()
    uploader(at, "Training interactions").set_value(("train.csv", train, "text/csv")).run()
    ok(at)
    held = at.session_state["uploads"]
    assert set(held.optional) == {"user_attributes", "interactions"}
    files = sum(len(spec.data) for spec in [*held.runs, held.truth])
    lease = at.session_state["_lease"]
    assert lease.nbytes == files + len(people) + len(train)  # the optional files count
    again = opened({"ws": workspace})  # another tab on the link: the same bytes, once
    assert again.session_state["beyond_files"]["interactions"].data is (
        at.session_state["beyond_files"]["interactions"].data)
    assert _leased_bytes([lease, again.session_state["_lease"]]) == lease.nbytes
    at.button(key=keys.remove_extra("interactions")).click().run()  # removed: not held
    assert "interactions" not in at.session_state["uploads"].optional
    assert "interactions" not in at.session_state["beyond_files"]
