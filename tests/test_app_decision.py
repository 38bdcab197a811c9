"""The Compare page's decision box: the headline first and bold, a short line per metric, the
test said once, the details in an expander; above the curves, and following the metrics
chosen."""

from __future__ import annotations

from tests.apptest import keyed_block, ok, start
from tests.apptest import plain as markdown_text

DEMO_HEADLINE = (
    "top_heavy is best on 4 of 6 metrics at K = 10; on Recall it cannot be told apart from "
    "personalized; personalized is best on Precision; the leader changes with K on Precision, "
    "Recall and HitRate.")


def plain(text: str) -> str:
    """The box's text as read: "K = 10" is held together by no-break spaces."""
    assert " K = " not in markdown_text(text), text
    return markdown_text(text).replace("\xa0", " ")


def holds_the_decision(block) -> bool:
    """Whether ``block`` is the page's decision area (the box is its child)."""
    return hasattr(block, "children") and any(
        str(getattr(child.proto, "id", "")).endswith("-decision")
        for child in block.children.values() if hasattr(child, "children"))


def test_the_decision_opens_with_the_headline():
    at = start("movies")
    box = keyed_block(at, "decision")
    kinds = [type(child).__name__ for child in box.children.values()]
    assert kinds == ["Markdown", "Markdown", "Caption", "Expander"]
    first = box.children[0]
    assert plain(first.value) == f"**{DEMO_HEADLINE}**"
    lines = plain(box.markdown[1].value).splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "- **Precision@10**", "- **Recall@10**", "- **HitRate@10**", "- **MRR@10**",
        "- **MAP@10**", "- **NDCG@10**"]
    assert lines[5].startswith("- **NDCG@10**: top_heavy is best, +0.168 over personalized (")
    assert lines[1].startswith("- **Recall@10**: top_heavy and personalized cannot be told "
                               "apart: top_heavy +0.00533 (")
    assert lines[0].endswith("; top_heavy leads up to K = 5, personalized from K = 10.")
    # the test is said once, below the lines; p-values and users are a click away
    shown = " ".join(plain(element.value) for element in [*box.markdown[:2], box.caption[0]])
    assert shown.count("randomization test, Holm correction") == 1
    assert "on the 1,940 users every model counts" in shown and "p < " not in shown
    details = plain(box.expander[0].markdown[0].value)
    assert box.expander[0].label.startswith("Details")
    assert details.count("p < 0.001") == 5 and details.count("1,940 users") == 6
    everything = shown + details
    assert "-0.000" not in everything and "−0.000" not in everything


def test_the_decision_is_above_the_curves_and_follows_the_metrics_chosen():
    at = start("movies")
    children = list(at.main.children.values())
    chart = next(i for i, child in enumerate(children)
                 if child.type == "plotly_chart"
                 or hasattr(child, "children") and child.get("plotly_chart"))
    area = next(i for i, child in enumerate(children) if holds_the_decision(child))
    assert area < chart
    at.button_group(key="compare_metrics").set_value(["ndcg"]).run()
    ok(at)
    box = keyed_block(at, "decision")
    assert plain(box.markdown[0].value) == "**top_heavy is best on NDCG at K = 10.**"
    assert plain(box.markdown[1].value).startswith("- **NDCG@10**: top_heavy is best, ")
