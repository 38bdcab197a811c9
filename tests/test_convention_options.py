"""Every choice of every convention option, on random data with grades, ties, short and empty
lists and users missing from the model: each mean at every K is the mean of the per-user
values over the counted users (the summed forms and the blocks of users agree), and the value
at one K alone (``per_user_at``) is that column of the per-user table."""

from __future__ import annotations

import numpy as np
import pytest

from rankmetrics import Conventions, RelevanceMapping, evaluate
from rankmetrics.conventions import OPTION_CHOICES, PRESETS
from rankmetrics.metrics import METRICS
from tests.helpers import random_data

STARS = RelevanceMapping.graded({5: 3, 4: 2, 3: 1})
CUTOFF = 40  # beyond every list (30 items at most)
PER_USER = [name for name, metric in METRICS.items() if metric.per_user is not None
            and metric.needs == "ground truth" and metric.has_cutoff]
CHOICES = [(option, choice) for option, choices in OPTION_CHOICES.items()
           for choice in choices[1:]] + [("preset", name) for name in PRESETS]


@pytest.mark.parametrize(("option", "choice"), CHOICES, ids=[f"{o}={c}" for o, c in CHOICES])
def test_each_mean_is_the_mean_of_the_per_user_values(option, choice):
    truth, run = random_data(1300, ratings="stars", n_users=80)
    conventions = (Conventions.preset(choice) if option == "preset"
                   else Conventions(**{option: choice}))
    evaluation = evaluate(truth, {"model": run}, relevance=STARS, conventions=conventions,
                          max_cutoff=CUTOFF)
    means = evaluation.means(PER_USER)["model"]
    for metric in PER_USER:
        per_user = evaluation.per_user("model", metric)
        np.testing.assert_allclose(means[metric], per_user.mean().to_numpy(), rtol=0,
                                   atol=1e-12, err_msg=metric)
        for cutoff in (1, 7, CUTOFF):
            np.testing.assert_allclose(
                evaluation.per_user_at("model", metric, cutoff).to_numpy(),
                per_user.iloc[:, cutoff - 1].to_numpy(), rtol=0, atol=1e-12,
                err_msg=f"{metric}@{cutoff}")
