"""numba, readied for the kernels: every kernel module imports this first.

The first kernel a process loads (from numba's cache, or compiled) makes numba
import its implementations of numpy's functions (``numba.np.arraymath``), which
look for a BLAS by importing ``scipy.linalg`` when scipy is installed (it is,
for statsmodels): 0.35 of the 0.95 CPU seconds that first load took, in every
worker of a run that takes the fast path, and in the server a local Dask
cluster's workers are forked from, before the first of them can start.  The
kernels use no BLAS.  Imported while scipy is hidden, numba goes on as in an
install without it (compiled ``np.correlate`` and ``np.convolve`` then take
numba's own loop), and scipy can still be imported afterwards: numba's linear
algebra imports it when a compiled function uses it.  scipy is hidden from
every thread of the process for that import (under a tenth of a second):
the kernels are first imported by workers, the fork server and commands,
which run no other thread that imports scipy meanwhile.
"""

from __future__ import annotations

from pipeline.hidden import hidden

with hidden("scipy"):
    import numba.np.arraymath  # noqa: F401
