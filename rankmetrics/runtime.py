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

Freed memory kept for reuse (:func:`keep_freed_memory`, the command line only): glibc gives
every allocation above 128 KiB-32 MiB pages of its own (``mmap``) and hands them back to Linux
when freed, so each of the many arrays of 10-80 MB that evaluating 10 million rows makes in
turn starts on fresh pages, which Linux zeroes and maps one 4 KiB page at a time. The command
line asks glibc to take large blocks from its heap and keep what is freed there
(``mallopt``), so later arrays reuse pages already mapped: on 100,000 users, about 60,000
fewer page faults and 0.1 s less, for 4 % more peak memory. A process that runs for long (the
dashboard's server) does not ask, so that the memory of one large upload goes back to the
system.

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


#: mallopt's parameters (malloc.h): largest heap top kept when freeing, and most blocks
#: given pages of their own.
M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4
#: How much freed memory at the top of the heap a process that keeps it keeps.
KEPT_FREE_BYTES = 1 << 30

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


def keep_freed_memory() -> bool:
    """Ask glibc to serve large blocks from its heap and keep freed memory for reuse instead
    of handing it back to Linux; return whether it agreed (never with another C library)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # a C library without mallopt (musl)
        return False
    return bool(mallopt(M_MMAP_MAX, 0)) and bool(mallopt(M_TRIM_THRESHOLD, KEPT_FREE_BYTES))


def one_blas_thread() -> AbstractContextManager:
    """Run the matrix products inside the ``with`` block on one BLAS thread."""
    if threadpool_limits is None:
        return nullcontext()
    return threadpool_limits(limits=1, user_api="blas")
