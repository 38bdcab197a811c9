"""The conventions in a few words: the preset they equal, or the closest preset and what
differs from it, each difference named in words; and every choice has its words."""

from __future__ import annotations

from dataclasses import fields

import pytest

from rankmetrics.conventions import (
    CHOICE_WORDS,
    NUMBER_OPTIONS,
    OPTION_CHOICES,
    OPTION_HELP,
    PRESET_NAMES,
    PRESETS,
    Conventions,
    number_words,
)

OPTIONS = [f.name for f in fields(Conventions)]


def test_the_defaults_are_named_as_such():
    assert Conventions().summary() == "Default conventions"


@pytest.mark.parametrize(("preset", "summary"), [
    ("default", "Default conventions"),
    ("trec_eval", "trec_eval's conventions"),
    ("ranx_burges", "ranx's ndcg_burges conventions"),
    ("retrieved_ideal", "Textbook conventions"),
    ("spark_mllib", "Spark MLlib's RankingMetrics conventions"),
    ("recommenders", "Microsoft Recommenders' conventions"),
])
def test_each_preset_is_named_by_its_summary(preset, summary):
    assert Conventions.preset(preset).summary() == summary


def test_one_difference_from_the_defaults_is_named_in_words():
    assert Conventions(ties="input").summary() == (
        "Default conventions, except: equal scores kept in the file's order")
    assert Conventions(threshold_gains=True).summary() == (
        "Default conventions, except: no gain below the relevance threshold")


def test_several_differences_are_named_in_the_order_of_the_options():
    conventions = Conventions(ties="item_asc", ap_denominator="hits")
    assert conventions.summary() == (
        "Default conventions, except: AP divided by the hits in the top K, "
        "equal scores ordered by item id, ascending")


def test_the_closest_preset_is_the_one_named():
    # trec_eval's conventions with another tie rule: one difference from trec_eval, three
    # from the defaults
    assert Conventions.preset("trec_eval", ties="input").summary() == (
        "trec_eval's conventions, except: equal scores kept in the file's order")
    # as close to the defaults as to trec_eval (one difference each): the defaults win
    assert Conventions(gain="linear").summary() == (
        "Default conventions, except: linear gain (g)")


def test_in_words_names_every_option_in_order():
    words = Conventions.preset("trec_eval").in_words()
    assert list(words) == OPTIONS
    assert words["gain"] == "linear gain (g)"
    assert words["empty_users"] == "users without relevant items counted"


def test_every_choice_of_every_option_has_words_and_help():
    # the number options (RBP's p, ERR's g_max) are said by number_words
    assert set(OPTIONS) == set(CHOICE_WORDS) | set(NUMBER_OPTIONS) == set(OPTION_HELP)
    assert number_words("rbp_persistence", 0.9) == "RBP persistence p = 0.9"
    assert number_words("max_grade", 4.0) == "the highest grade g_max = 4"
    for option, choices in OPTION_CHOICES.items():
        assert set(CHOICE_WORDS[option]) == set(choices), option
    assert set(CHOICE_WORDS["threshold_gains"]) == {False, True}
    assert set(PRESET_NAMES) == set(PRESETS)
    every_phrase = [words for choices in CHOICE_WORDS.values() for words in choices.values()]
    assert len(set(every_phrase)) == len(every_phrase)


def test_describe_is_unchanged_for_the_command_line_and_reports():
    assert Conventions().describe().startswith("preset default: gain exponential (2^g-1); ")
