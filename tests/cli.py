"""Running the real ``tricklog`` console script in tests (the one beside this Python)."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path


def tricklog_command() -> list[str]:
    """The installed console script next to this Python (else ``python -c`` of its entry point)."""
    exe = shutil.which("tricklog", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-c", "from pipeline.cli import main; main()"]


TRICKLOG = tricklog_command()


def run(
    *args: str,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[str]:
    """Run ``tricklog ARGS`` and capture its output as text (``env``: more environment
    variables; ``timeout``: seconds before it counts as hung)."""
    return subprocess.run(
        [*TRICKLOG, *args],
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **env} if env else None,
        timeout=timeout,
        check=False,
    )


def files_capped_at(max_bytes: int) -> Callable[[], None]:
    """A ``preexec_fn`` capping the files a process writes at ``max_bytes``: a write
    past it fails as on a full disk (EFBIG, the signal ignored), for Python and
    DuckDB alike."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))

    return limit
