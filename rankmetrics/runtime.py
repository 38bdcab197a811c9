"""Settings of a whole process that only our own programs (the command line, the dashboard's
server) apply to themselves; importing the library changes nothing.

Huge pages. NumPy asks Linux for transparent huge pages on every large array
(``madvise(MADV_HUGEPAGE)``). Where the kernel's ``transparent_hugepage/defrag`` setting is
``madvise`` (the default of many distributions), each first touch of such an array may stop
to compact memory so a 2 MiB page can be handed out. Evaluating 10 million rows allocates a
few gigabytes of short-lived arrays, and on a machine whose memory is fragmented those stalls
cost seconds of system time in some runs and none in others (measured: the same command took
1.7 s or 3.4 s). Ordinary pages make every run as fast as the best one.

BLAS threads (:func:`one_blas_thread`, for one computation, not the process): OpenBLAS splits
a matrix product over its threads, which spin-wait for each other. For the flat products of
the bootstrap and of sums over a block of users that costs more than it gains, and on a busy
2-core machine it made them 5 to 10 times slower than one thread (bench/bench_stats.py).
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager, nullcontext

import numpy as np

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # only speed on a busy machine depends on it
    threadpool_limits = None


def prefer_ordinary_pages() -> bool:
    """Stop NumPy from asking for transparent huge pages in this process; return whether the
    running NumPy offers the switch (the environment variable ``NUMPY_MADVISE_HUGEPAGE=1``
    asks for them again)."""
    if os.environ.get("NUMPY_MADVISE_HUGEPAGE") == "1":
        return False
    switch = getattr(getattr(np, "_core", None), "multiarray", None)
    setter = getattr(switch, "_set_madvise_hugepage", None)
    if setter is None:
        return False
    setter(False)
    return True


def one_blas_thread() -> AbstractContextManager:
    """Run the matrix products inside the ``with`` block on one BLAS thread."""
    if threadpool_limits is None:
        return nullcontext()
    return threadpool_limits(limits=1, user_api="blas")
