"""pandera set up for polars frames alone, in the processes that check nothing
else: the fork server that workers come from (first in ``pipeline.parallel.PRELOAD``).

pandera's package imports its pandas half whenever pandas is installed (as
statsmodels installs it): 0.7 of the server's 2.6 CPU seconds, spent before
the first worker can be forked, on the critical path of a local Dask
cluster's start.  Imported while pandas cannot be found, pandera sets
itself up as it does in a polars-only install, which it supports, and
``pandera.polars`` works as it would have.  pandas can be imported afterwards;
only ``pandera``'s own pandas API is missing, so this is not for a process that
may want it later (a notebook's).

Like the rest of the preload, this is only an optimisation: a pandera that will
not import without pandas is imported as usual.  Importing this module is what
sets pandera up, so pytest does not collect it for docstrings (``conftest.py``).
"""

from __future__ import annotations

import importlib
import importlib.abc
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType


class _NoPandas(importlib.abc.MetaPathFinder):
    """Finds pandas nowhere, with the error an environment without it gives."""

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


@contextmanager
def _pandas_hidden() -> Iterator[None]:
    finder = _NoPandas()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def _forget(package: str) -> None:
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        del sys.modules[name]


def import_polars_pandera() -> ModuleType:
    """``pandera.polars``, imported without pandas when pandera is not imported yet."""
    if "pandera" not in sys.modules:
        try:
            with _pandas_hidden():
                return importlib.import_module("pandera.polars")
        except ImportError:  # a pandera that needs pandas after all
            _forget("pandera")
    return importlib.import_module("pandera.polars")


import_polars_pandera()
