"""The Playground in a link, without Streamlit: every scenario's list (ties, missed relevant
items, switches) is written and read back unchanged, and a value the page could not have
built is refused by name."""

from __future__ import annotations

import pytest

from dashboard.playground_link import PlaygroundView, read_view, write_view
from rankmetrics.playground import move, scenarios, set_beyond, set_option


@pytest.mark.parametrize("name", list(scenarios()))
def test_every_scenario_comes_back_as_it_was_written(name):
    playground = scenarios()[name].playground
    edited = set_option(set_beyond(move(playground, 1, 2).playground, 2, 3).playground,
                        "ideal", "retrieved").playground
    for shown in (playground, edited):
        view = PlaygroundView(name, shown, cutoff=3, formula="map", present=True)
        again, problems = read_view(write_view(view))
        assert problems == [] and again == view


@pytest.mark.parametrize(("params", "name", "why"), [
    ({"pg_list": "A:1:1,B:-1:0"}, "pg_list", "a grade is a whole number from 0 to 10"),
    ({"pg_list": "A:1:1", "pg_missing": "1,x"}, "pg_missing", "a grade is a whole number"),
    ({"pg_list": "A:1:nan"}, "pg_list", "a score is a finite number"),
    ({"pg_list": "A:1:1", "pg_threshold": "0"}, "pg_list", "'threshold' argument"),
    ({"pg_list": ",".join(f"I{i}:0:{i}" for i in range(31))}, "pg_list", "1 to 30 items"),
    ({"pg_list": "A:1"}, "pg_list", "a score is a finite number"),
    ({"pg_list": "A:1:1", "pg_ties": "random"}, "pg_ties", "the choices are"),
    ({"pg_present": "maybe"}, "pg_present", "yes or no"),
])
def test_a_value_the_page_could_not_have_built_is_refused_by_name(params, name, why):
    view, problems = read_view(params)
    assert [problem.name for problem in problems] == [name]
    assert why in problems[0].why
    assert view.playground is None  # the page starts from its scenario
