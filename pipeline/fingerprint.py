"""Which tricklog a process runs, as one hash of its code.

A Dask cluster that the command did not start runs whatever its workers have
installed, and a split's results cross to the client as objects of tricklog's
own classes: workers on other code gave the client objects it could not read
(and Dask's client then waited for them forever), or rows built by other rules.
A version number says nothing of a checkout between two releases, so the load
compares this hash of the code itself (:func:`code_fingerprint`) with each
worker's before it sends them any work, and each task compares it with its
worker's (one may join the cluster later).
"""

from __future__ import annotations

import hashlib
import importlib.util
from functools import cache
from pathlib import Path

#: tricklog's packages (``schemas/`` and ``reports/`` are installed under these names).
PACKAGES = ("pipeline", "tricklog_schemas", "tricklog_reports")
#: The files that make up the code: its modules and the SQL and JSON it reads.
SUFFIXES = (".py", ".sql", ".json")


@cache
def code_fingerprint() -> str:
    """The SHA-256 of tricklog's code: each of its files' path in its package and
    its bytes, in order (compiled bytecode and numba's caches aside).

    >>> len(code_fingerprint()), code_fingerprint() == code_fingerprint()
    (64, True)
    """
    digest = hashlib.sha256()
    for package in PACKAGES:
        spec = importlib.util.find_spec(package)
        for root in (spec.submodule_search_locations or []) if spec is not None else []:
            base = Path(root)
            for path in sorted(p for p in base.rglob("*") if p.suffix in SUFFIXES and p.is_file()):
                if "__pycache__" not in path.parts:
                    digest.update(f"{package}/{path.relative_to(base).as_posix()}\0".encode())
                    digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
