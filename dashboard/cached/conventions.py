"""Why the presets disagree: the metric under every preset, each setting's move and the users
moved most (:func:`rankmetrics.disagreement.compare_presets`)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.cached import HASH, HOUR, shared
from dashboard.cached.evaluation import evaluation_of_lists
from dashboard.cached.inputs import read_file
from dashboard.prepared import Prepared
from dashboard.settings import Settings
from rankmetrics.choosing_k.ties import tie_bounds
from rankmetrics.conventions import Conventions
from rankmetrics.disagreement import PresetComparison, compare_presets
from rankmetrics.io import LoadedTable
from rankmetrics.metrics import METRICS
from rankmetrics.relevance import RelevanceMapping


def comparison(prepared: Prepared, settings: Settings, metric: str) -> PresetComparison:
    """The models under every preset at the sidebar's K, kept in the server's budget (its
    evaluations under each set of conventions with it). The lists are those at hand, ranked
    with the sidebar's tie rule."""
    cutoff = settings.cutoff if METRICS[metric].has_cutoff else None
    return shared(
        ("presets", prepared.key, settings.relevance, settings.conventions.ties,
         settings.conventions.identical_ids, settings.max_cutoff, metric, cutoff),
        lambda: compare_presets(evaluation_of_lists(prepared, settings), metric, cutoff,
                                tables=_tables(prepared)))


def _tables(prepared: Prepared) -> dict[str, LoadedTable] | None:
    """Each model's file as read, to rank its lists again for the presets that keep or drop
    items with the user's id (None when a model's file is not at hand)."""
    tables = {model: read_file(prepared.specs[model]).table for model in prepared.models}
    if any(table is None for table in tables.values()):
        return None
    return {model: table for model, table in tables.items() if table is not None}


def means(prepared: Prepared, settings: Settings, metric: str
          ) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """Each preset's means (presets x models) and the pairs of presets that disagree."""
    return _means(prepared, settings.relevance, settings.conventions, settings.cutoff,
                  settings.max_cutoff, metric, settings)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _means(prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions,
           cutoff: int, max_cutoff: int, metric: str, _settings: Settings,
           ) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    compared = comparison(prepared, _settings, metric)
    return compared.values, compared.disagreeing_pairs()


def steps(prepared: Prepared, settings: Settings, metric: str, preset_a: str,
          preset_b: str) -> pd.DataFrame:
    """From ``preset_a``, each differing setting changed alone, then all of them."""
    return _steps(prepared, settings.relevance, settings.conventions, settings.cutoff,
                  settings.max_cutoff, metric, preset_a, preset_b, settings)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _steps(prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions,
           cutoff: int, max_cutoff: int, metric: str, preset_a: str, preset_b: str,
           _settings: Settings) -> pd.DataFrame:
    return comparison(prepared, _settings, metric).steps(preset_a, preset_b)


def users_moved(prepared: Prepared, settings: Settings, metric: str, preset_a: str,
                preset_b: str, model: str, n: int) -> pd.DataFrame:
    """The users whose value of ``model`` moves most between the two presets."""
    return _users_moved(prepared, settings.relevance, settings.conventions, settings.cutoff,
                        settings.max_cutoff, metric, preset_a, preset_b, model, n, settings)


@st.cache_data(max_entries=32, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def _users_moved(prepared: Prepared, relevance: RelevanceMapping, conventions: Conventions,
                 cutoff: int, max_cutoff: int, metric: str, preset_a: str, preset_b: str,
                 model: str, n: int, _settings: Settings) -> pd.DataFrame:
    return comparison(prepared, _settings, metric).users_moved(preset_a, preset_b, model, n)


def identical_ids_as_preset(prepared: Prepared, settings: Settings, metric: str) -> bool:
    """Whether each preset keeps or drops items with the user's id as it says (False: the
    models' files are not at hand, and every preset follows the sidebar)."""
    return comparison(prepared, settings, metric).identical_ids_as_preset


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def tie_bounds_of(prepared: Prepared, settings: Settings, metric: str) -> pd.DataFrame | None:
    """Each model's mean of ``metric`` under the pessimistic and optimistic orders of tied
    scores (None when a model's file is not at hand: the bounds need the scores)."""
    tables = _tables(prepared)
    if tables is None:
        return None
    return tie_bounds(evaluation_of_lists(prepared, settings), tables, [metric])


def grades_note(prepared: Prepared, settings: Settings, metric: str) -> str | None:
    """Why a preset's library would not give its row's value on these grades, if it would not."""
    return comparison(prepared, settings, metric).grades_note
