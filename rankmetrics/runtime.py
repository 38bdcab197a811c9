"""Settings of a whole process that only our own programs (the command line, the dashboard's
server) apply to themselves; importing the library changes nothing.

Huge pages. NumPy asks Linux for transparent huge pages on every large array
(``madvise(MADV_HUGEPAGE)``). Where the kernel's ``transparent_hugepage/defrag`` setting is
``madvise`` (the default of many distributions), each first touch of such an array may stop
to compact memory so a 2 MiB page can be handed out. Evaluating 10 million rows allocates a
few gigabytes of short-lived arrays, and on a machine whose memory is fragmented those stalls
cost seconds of system time in some runs and none in others (measured: the same command took
1.7 s or 3.4 s). Where ``transparent_hugepage/enabled`` is ``always``, the kernel hands out
huge pages to every large allocation, NumPy's or not (pyarrow's memory pool, which holds the
text read from files), and the command line spent 1 to 2 seconds of system time more in some
runs than in others (measured: 2.2-3.0 s against 1.9-2.1 s, alternating, on 100,000 users).
So the process also asks Linux for ordinary pages for all of its memory
(``prctl(PR_SET_THP_DISABLE)``, Linux 3.15 and later). Ordinary pages make every run as fast
as the best one.

BLAS threads (:func:`one_blas_thread`, for one computation, not the process): OpenBLAS splits
a matrix product over its threads, which spin-wait for each other. For the flat products of
the bootstrap and of sums over a block of users that costs more than it gains, and on a busy
2-core machine it made them 5 to 10 times slower than one thread (bench/bench_stats.py).
"""

from __future__ import annotations

import ctypes
import os
import sys
from contextlib import AbstractContextManager, nullcontext

import numpy as np

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # only speed on a busy machine depends on it
    threadpool_limits = None


#: prctl's option that stops transparent huge pages for the calling process (linux/prctl.h).
PR_SET_THP_DISABLE = 41


def prefer_ordinary_pages() -> bool:
    """Stop NumPy from asking for transparent huge pages in this process, and on Linux ask
    the kernel for ordinary pages for all of the process's memory; return whether either
    switch was there (the environment variable ``NUMPY_MADVISE_HUGEPAGE=1`` keeps huge pages).
    """
    if os.environ.get("NUMPY_MADVISE_HUGEPAGE") == "1":
        return False
    switch = getattr(getattr(np, "_core", None), "multiarray", None)
    setter = getattr(switch, "_set_madvise_hugepage", None)
    if setter is not None:
        setter(False)
    return no_huge_pages_for_process() or setter is not None


def no_huge_pages_for_process() -> bool:
    """Ask Linux not to back this process's memory with transparent huge pages; return
    whether it agreed (never elsewhere, nor on kernels older than 3.15)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def one_blas_thread() -> AbstractContextManager:
    """Run the matrix products inside the ``with`` block on one BLAS thread."""
    if threadpool_limits is None:
        return nullcontext()
    return threadpool_limits(limits=1, user_api="blas")
