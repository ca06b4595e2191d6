"""Importing a library while some installed packages cannot be found.

Some libraries look for an optional package once, when they are imported or
first used, and import it if it is there, though a process may never use what
it adds (pandera and pyarrow look for pandas, numba for scipy's BLAS).  Asked
while the package is hidden, such a library goes on as in an install without
it, and the process saves the import; the package itself can be imported
afterwards.

>>> with hidden("tricklog_no_such_package"):
...     try:
...         import tricklog_no_such_package
...     except ModuleNotFoundError as e:
...         print(e)
No module named 'tricklog_no_such_package'
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType


class _NotFound(importlib.abc.MetaPathFinder):
    """Finds the given packages (and their modules) nowhere, with the error an
    environment without them gives."""

    def __init__(self, packages: Sequence[str]) -> None:
        self.packages = tuple(packages)

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> None:
        if name.partition(".")[0] in self.packages:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


@contextmanager
def hidden(*packages: str) -> Iterator[None]:
    """While in this block, ``packages`` cannot be imported (those imported already stay)."""
    finder = _NotFound(packages)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
