"""Argument checks: every message names the argument, what is accepted and the value given,
in one style, whichever public function the bad argument was given to."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from rankmetrics import Conventions, RelevanceMapping, evaluate
from rankmetrics.checks import (
    check_bool,
    check_choice,
    check_finite,
    check_int,
    check_optional_int,
    check_probability,
)
from rankmetrics.evaluation import band_cutoffs
from rankmetrics.explain import explain_ndcg, side_by_side, slipped_discount
from rankmetrics.figures import distribution
from rankmetrics.stats import bootstrap_ci, paired_comparison


def _message(name: str, accepted: str, shown: str) -> str:
    return re.escape(f"The '{name}' argument must be {accepted}. Got {shown} instead.")


@pytest.mark.parametrize(("value", "shown"), [
    (0, "0"), (101, "101"), (2.0, "2.0"), ("3", "'3'"), (True, "True"), (None, "None"),
    (np.int64(0), "0"),
])
def test_int_in_a_range(value, shown):
    with pytest.raises(ValueError, match=_message(
            "cutoff", "an integer in the range [1, 100]", shown)):
        check_int("cutoff", value, high=100)


def test_int_without_upper_bound_and_what_it_returns():
    with pytest.raises(ValueError, match=_message("count", "an integer in the range [1, inf)",
                                                  "-2")):
        check_int("count", -2)
    value = check_int("rank", np.int32(3), low=2, high=3)
    assert value == 3 and type(value) is int


def test_optional_int():
    assert check_optional_int("seed", None) is None
    assert check_optional_int("seed", np.uint8(7)) == 7
    with pytest.raises(ValueError, match=_message(
            "seed", "an integer in the range [0, inf) or None", "'abc'")):
        check_optional_int("seed", "abc")


def test_choice():
    assert check_choice("method", "bh", ("holm", "bh")) == "bh"
    with pytest.raises(ValueError, match=_message("method", "one of 'holm', 'bh'", "'BH'")):
        check_choice("method", "BH", ("holm", "bh"))
    with pytest.raises(ValueError, match=_message("method", "one of 'holm', 'bh'", "1")):
        check_choice("method", 1, ("holm", "bh"))


@pytest.mark.parametrize(("value", "shown"), [
    (0, "0"), (1.0, "1.0"), (95, "95"), (float("nan"), "nan"), ("0.9", "'0.9'"),
    (True, "True"),
])
def test_probability(value, shown):
    with pytest.raises(ValueError, match=_message(
            "confidence", "a number in the range (0, 1), such as 0.95", shown)):
        check_probability("confidence", value)


def test_probability_and_finite_return_floats():
    assert check_probability("confidence", np.float32(0.5)) == 0.5
    assert check_finite("threshold", 3) == 3.0
    with pytest.raises(ValueError, match=_message("threshold", "a finite number", "inf")):
        check_finite("threshold", float("inf"))


def test_bool():
    assert check_bool("threshold_gains", False) is False
    with pytest.raises(ValueError, match=_message("threshold_gains", "True or False", "1")):
        check_bool("threshold_gains", 1)


# --------------------------------------------------------------------------------------------
# The public functions use them

TRUTH = pd.DataFrame({"user": ["u"] * 3, "item": list("abc"), "rating": [1, 0, 1]})
RUN = pd.DataFrame({"user": ["u"] * 3, "item": list("abc"), "score": [3.0, 2.0, 1.0]})


@pytest.mark.parametrize(("call", "expected"), [
    (lambda: evaluate(TRUTH, {"m": RUN}, max_cutoff=0),
     _message("max_cutoff", "an integer in the range [1, 1000000000]", "0")),
    (lambda: evaluate(TRUTH, {"m": RUN}, max_cutoff=5).per_user_at("m", "ndcg", 6),
     _message("cutoff", "an integer in the range [1, 5]", "6")),
    (lambda: evaluate(TRUTH, {"m": RUN}, max_cutoff=5).summary(cutoffs=[1, 0]),
     _message("cutoff", "an integer in the range [1, 5]", "0")),
    (lambda: evaluate(TRUTH, {"m": RUN}, max_cutoff=5).means(["ndgc"]),
     _message("metric", "one of 'precision', 'recall', 'hit_rate', 'mrr', 'map', 'ndcg', "
              "'dcg', 'err', 'rbp', 'rbp_residual', 'r_precision', 'bpref', 'judged'",
              "'ndgc'")),
    (lambda: band_cutoffs(0, n_values_per_cutoff=1),
     _message("max_cutoff", "an integer in the range [1, inf)", "0")),
    (lambda: explain_ndcg(TRUTH, RUN, "u", cutoff=True),
     _message("cutoff", "an integer in the range [1, inf)", "True")),
    (lambda: side_by_side(TRUTH, RUN, RUN, "u", cutoff=0),
     _message("cutoff", "an integer in the range [1, inf)", "0")),
    (lambda: slipped_discount(explain_ndcg(TRUTH, RUN, "u", cutoff=3), 1),
     _message("rank", "an integer in the range [2, 3]", "1")),
    (lambda: Conventions(gain="log"),
     _message("gain", "one of 'exponential', 'linear'", "'log'")),
    (lambda: Conventions(threshold_gains="yes"),
     _message("threshold_gains", "True or False", "'yes'")),
    (lambda: Conventions.preset("trec"),
     _message("name", "one of 'default', 'trec_eval', 'ranx_burges', 'retrieved_ideal', "
              "'spark_mllib', 'recommenders', 'sklearn', 'beir', 'torchmetrics', 'evidently', "
              "'lenskit'", "'trec'")),
    (lambda: RelevanceMapping("stars"),
     _message("kind", "one of 'identity', 'binary', 'graded'", "'stars'")),
    (lambda: RelevanceMapping.identity(float("nan")),
     _message("threshold", "a finite number", "nan")),
    (lambda: bootstrap_ci(np.zeros(3), seed=-1),
     _message("seed", "an integer in the range [0, inf) or None", "-1")),
    (lambda: paired_comparison(pd.DataFrame({"a": [0.0, 1.0], "b": [1.0, 0.0]}),
                               n_bootstrap=0),
     _message("n_bootstrap", "an integer in the range [1, inf)", "0")),
    (lambda: distribution({"m": np.zeros(3)}, "ndcg", 5, kind="violin"),
     _message("kind", "one of 'histogram', 'box'", "'violin'")),
])
def test_public_functions_report_bad_arguments_in_one_style(call, expected):
    with pytest.raises(ValueError, match=expected):
        call()


def test_a_mapping_suggestion_or_a_preset_name_is_a_type_error_that_says_what_to_pass():
    from rankmetrics.relevance import suggest_mapping

    suggestion = suggest_mapping(np.array([1, 2, 3, 4, 5]))
    with pytest.raises(TypeError, match=re.escape(
            "The 'relevance' argument must be a RelevanceMapping. Got MappingSuggestion "
            "instead.") + ".*pass its .recommended mapping"):
        evaluate(TRUTH, {"m": RUN}, relevance=suggestion)
    with pytest.raises(TypeError, match=re.escape(
            "The 'conventions' argument must be a Conventions. Got str instead.")):
        evaluate(TRUTH, {"m": RUN}, conventions="trec_eval")
    # the suggestion's own mapping is what it was for
    assert evaluate(TRUTH, {"m": RUN}, relevance=suggestion.recommended).relevance is (
        suggestion.recommended)
