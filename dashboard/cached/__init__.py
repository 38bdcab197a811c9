"""Cached calls into the library: everything a page shows comes through here.

Caching is in two layers, both bounded so that a server many people use does not grow
without limit:

- big objects (read tables, the prepared ground truth, each model's ranked run, the
  Evaluation) live in the server's memory budget (:mod:`dashboard.budget`: bounded in bytes,
  dropped when no session has used them for a while, computed once when sessions ask at the
  same time), keyed on the files' contents and read options and on the settings they depend
  on. They are shared between sessions, never copied and never mutated here: copying a
  10-million-row table on every rerun, as ``st.cache_data`` does, would take seconds;
- everything a page shows (curves, tables, per-user values, NDCG breakdowns, validation
  warnings) comes from ``st.cache_data`` functions keyed on the same data keys and the
  settings, so changing K, a threshold or a preset recomputes only what it changes.

This package holds what both layers share (:func:`shared`, ``HASH``, ``HOUR``); its modules
hold the caches by what they cache: ``inputs`` the files and what is made of them,
``evaluation`` the evaluations and what every page draws from them, then one module for each
page's own values (``users``, ``explained``, ``head_to_head``, ``significance``,
``segments``, ``beyond``, ``playground``, ``choosing_k``). Modules outside the package import
the module they need under a ``cached_`` name::

    from dashboard.cached import significance as cached_significance
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from dashboard import keys
from dashboard.budget import BUDGET
from dashboard.files import FileSpec
from dashboard.prepared import Prepared

HOUR = 3600  # shared objects unused for this long are dropped

T = TypeVar("T")

#: How ``st.cache_data`` hashes the arguments it cannot hash itself (by their cache keys).
HASH: dict[str | type[Any], Callable[[Any], Any]] = {
    FileSpec: lambda spec: spec.token,
    Prepared: lambda prepared: prepared.key,
}


def shared(key: tuple, compute: Callable[[], T]) -> T:
    """The object kept under ``key`` in the server's memory budget (or ``compute()``), held
    for this session."""
    return BUDGET.get_or_compute(key, compute, st.session_state.get(keys.LEASE))
