"""pandera and pyarrow set up without pandas, in the processes that never use
it: the fork server that workers come from (first in ``pipeline.forkserver.PRELOAD``),
and the command line's, for the commands on a warehouse (``set_up_without_pandas``
in ``pipeline.cli``).

pandas is installed (statsmodels needs it), and two of the workers' libraries
import it when it is, though the workers never use it:

- pandera's package imports its pandas half: 0.7 of the server's 2.6 CPU
  seconds, spent before the first worker can be forked, on the critical path of
  a local Dask cluster's start.  Imported while pandas cannot be found, pandera
  sets itself up as it does in a polars-only install, which it supports, and
  ``pandera.polars`` works as it would have.  Only ``pandera``'s own pandas API
  is missing, so this is not for a process that may want it later (a notebook's).
  hypothesis, when installed (with the test extras), is hidden from it too: it
  would import it for its data synthesis, which is never used here (0.05 s).
- pyarrow imports pandas at its first ``pa.array`` (to ask whether the values
  are a pandas object), and pandera at its first check (to look for a pandas
  backend): 0.35 CPU seconds in every worker, at its first chunk or split.
  Each asks once; asked while pandas cannot be found, each goes on without it
  (:func:`first_calls_without_pandas`).  pyarrow's conversions to pandas
  (``to_pandas``) still import it when called.  pyarrow also imports it to
  convert a column to numpy, or to infer an array's type: the workers do
  neither.

pandas itself can be imported afterwards.  Like the rest of the preload, this
is only an optimisation: a pandera that will not import without pandas is
imported as usual.  Importing this module is what sets them up, so pytest does
not collect it for docstrings (``conftest.py``).
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from types import ModuleType

from pipeline.hidden import hidden


def _forget(package: str) -> None:
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        del sys.modules[name]


def import_polars_pandera() -> ModuleType:
    """``pandera.polars``, imported without pandas (or hypothesis) when pandera is not imported yet."""
    if "pandera" not in sys.modules:
        try:
            with hidden("pandas", "hypothesis"):
                polars_pandera = importlib.import_module("pandera.polars")
                with contextlib.suppress(ImportError):  # what its checks import, at the first
                    importlib.import_module("pandera.strategies.base_strategies")
                return polars_pandera
        except ImportError:  # a pandera that needs pandas after all
            _forget("pandera")
    return importlib.import_module("pandera.polars")


def first_calls_without_pandas() -> None:
    """Once, while pandas cannot be found, the first calls that would import it:
    pyarrow's first ``pa.array`` (it then knows there is no pandas, and asks no
    more) and pandera's look for a pandas backend for its checks (it then routes
    checks on polars frames without it).  Each library keeps what it found for
    the process's life, and a process forked from it.  No check is run here: it
    would start polars' threads in the fork server, and a worker forked from a
    process with threads can deadlock."""
    import pyarrow as pa

    with hidden("pandas"):
        pa.array([0], pa.int64())
        try:  # private, and cached: a pandera without it goes on as it would
            from pandera.backends.register_checks import _load_get_backend_types_from_mro
        except ImportError:
            return
        _load_get_backend_types_from_mro()


import_polars_pandera()
first_calls_without_pandas()
