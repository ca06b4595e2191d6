"""Running the real ``tricklog`` console script in tests."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

_BESIDE_PYTHON = Path(sys.executable).parent / "tricklog"
TRICKLOG = str(_BESIDE_PYTHON) if _BESIDE_PYTHON.exists() else shutil.which("tricklog") or "tricklog"


def run(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``tricklog ARGS`` and capture its output as text."""
    return subprocess.run(
        [TRICKLOG, *args],
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
        check=False,
    )
