"""Paired significance tests, confidence intervals and letter groups for comparing models.

Every function here works on *per-user* metric values at one metric and cutoff, paired by
user: a :class:`pandas.DataFrame` ``values`` whose index holds the user ids and which has one
float column per model (the same users for every model, no missing values). Model A and model B
of a pair are compared through the per-user differences ``d_u = value_B(u) - value_A(u)``.

- :func:`paired_comparison` runs a paired test (t-test, Wilcoxon signed-rank or a sign-flip
  randomization test) on every pair of models, with a bootstrap confidence interval of the mean
  difference, an effect size, win / tie / loss counts and multiple-comparison correction;
- :func:`correct_pvalues` is the Holm, Bonferroni or Benjamini-Hochberg correction;
- :func:`bootstrap_ci` gives bootstrap confidence bands of a mean over users at every cutoff,
  and :func:`confidence_bands` does so for several models at once;
- :func:`significance_groups` is the compact letter display ("a", "ab", "b");
- :func:`compare_models` puts it all together for one metric and cutoff (every model's mean
  and interval, letters and every pair's test) from a single bootstrap;
- :func:`describe_pair` and :func:`comparison_warnings` put results and caveats into words;
- :func:`effect_size`, :func:`paired_power`, :func:`users_needed`, :func:`detectable_effect`
  and :func:`plan_pair` say how big a difference is and how many users it takes to see one;
- :func:`run_groups`, :func:`run_summary`, :func:`run_curves` and :func:`compare_runs` treat
  several runs (seeds) of one model as one model with the runs' spread.

Randomness comes from :func:`numpy.random.default_rng` seeded by the ``seed`` argument, so the
same inputs and seed give the same numbers. Large random matrices are generated in chunks of at
most about four million entries, so memory stays bounded whatever the number of users.

Equal values are equal to a relative precision of 1e-12 (:data:`EQUALITY_PRECISION`,
:func:`restore_ties`): per-user values, their differences and the models' means that are equal
in exact arithmetic but come out as different floats (``1 - 2/3`` and ``1/3 - 0``) are tied
wherever a tie decides something: the ranks and zeros of the Wilcoxon test, the wins, ties and
losses, the order of the models and who leads.

The modules, by concept: :mod:`~rankmetrics.stats.values` (the table of per-user values and
when two of its numbers are equal), :mod:`~rankmetrics.stats.corrections`,
:mod:`~rankmetrics.stats.bootstrap`,
:mod:`~rankmetrics.stats.randomization` (the sign-flip test's p-values),
:mod:`~rankmetrics.stats.paired` (the paired tests of every pair),
:mod:`~rankmetrics.stats.groups` (the letters), :mod:`~rankmetrics.stats.comparison`
(:func:`compare_models` and the rank intervals), :mod:`~rankmetrics.stats.power` (effect
sizes, power and sample size), :mod:`~rankmetrics.stats.runs` (several runs of a model) and
:mod:`~rankmetrics.stats.words`. Every public name is imported here.
"""


from rankmetrics.stats.bootstrap import bootstrap_ci, confidence_bands
from rankmetrics.stats.comparison import ModelComparison, compare_models, compare_models_together
from rankmetrics.stats.corrections import (
    CORRECTION_HELP,
    CORRECTION_NAMES,
    CORRECTIONS,
    correct_pvalues,
)
from rankmetrics.stats.groups import significance_groups
from rankmetrics.stats.paired import (
    COMPARISON_COLUMNS,
    FAMILY_TESTS,
    TEST_HELP,
    TEST_NAMES,
    TESTS,
    paired_comparison,
)
from rankmetrics.stats.power import (
    EFFECT_SIZE_WORDS,
    EffectSize,
    PairPlan,
    detectable_effect,
    effect_size,
    effect_size_words,
    paired_power,
    plan_pair,
    users_needed,
)
from rankmetrics.stats.randomization import randomization_pvalues
from rankmetrics.stats.runs import (
    RUN_SEPARATOR,
    RunComparison,
    compare_runs,
    describe_runs_pair,
    has_runs,
    run_curves,
    run_groups,
    run_name,
    run_summary,
    runs_method_text,
)
from rankmetrics.stats.values import (
    EQUALITY_PRECISION,
    equality_tolerance,
    paired_differences,
    restore_ties,
)
from rankmetrics.stats.words import (
    MIN_USERS,
    MIN_USERS_T,
    TableValue,
    comparison_warnings,
    correction_text,
    describe_effect,
    describe_pair,
    describe_plan,
    p_text,
)

__all__ = [
    "COMPARISON_COLUMNS",
    "CORRECTIONS",
    "CORRECTION_HELP",
    "CORRECTION_NAMES",
    "EFFECT_SIZE_WORDS",
    "EQUALITY_PRECISION",
    "EffectSize",
    "FAMILY_TESTS",
    "MIN_USERS",
    "MIN_USERS_T",
    "ModelComparison",
    "PairPlan",
    "RUN_SEPARATOR",
    "RunComparison",
    "TESTS",
    "TEST_HELP",
    "TEST_NAMES",
    "TableValue",
    "bootstrap_ci",
    "compare_models",
    "compare_models_together",
    "compare_runs",
    "comparison_warnings",
    "confidence_bands",
    "correct_pvalues",
    "correction_text",
    "describe_effect",
    "describe_pair",
    "describe_plan",
    "describe_runs_pair",
    "detectable_effect",
    "effect_size",
    "effect_size_words",
    "equality_tolerance",
    "has_runs",
    "p_text",
    "paired_comparison",
    "paired_differences",
    "paired_power",
    "plan_pair",
    "randomization_pvalues",
    "restore_ties",
    "run_curves",
    "run_groups",
    "run_name",
    "run_summary",
    "runs_method_text",
    "significance_groups",
    "users_needed",
]
