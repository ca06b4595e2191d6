"""What a load's worker needs before its first batch of euchre games, imported
once in the server the workers are forked from (``Game.worker_modules``).

The fast path's kernels come from numba's cache, but the first of them a
process loads makes numba import and install the typing and lowering
registries of every type it knows: about half a CPU second (without scipy's
BLAS: :mod:`pipeline.jit`), paid by each worker and, on two workers, on the
critical path of a local Dask cluster's first splits.  Done here, the workers
inherit it.  One kernel alone is loaded here: the one whose
signature is declared (it is recursive), which its module's import loads
from the cache.  So this is done only once the kernels are compiled
(:mod:`pipeline.kernels`): else that import would compile it, and the
workers would wait for it.  It starts no thread in the server (numpy's BLAS
has one already, which is safe across a fork).

Importing it is only an optimisation: when numba cannot be readied, nothing
is done, and the first kernel call says what is wrong, as it would have.
"""

from __future__ import annotations

from contextlib import suppress


def _ready_numba() -> None:
    # The kernels' modules: their dispatchers, and numba's own modules they use.
    from numba.core.registry import cpu_target

    import pipeline.games.euchre.fast_kernel
    import pipeline.games.euchre.fast_rows_kernel
    import pipeline.games.euchre.fast_scan_kernel  # noqa: F401

    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()


with suppress(Exception):  # see the module's docstring
    from pipeline.kernels import compiled

    if compiled():  # else importing the kernels would compile one, keeping the workers waiting
        _ready_numba()
