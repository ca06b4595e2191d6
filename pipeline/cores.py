"""How many cores this process may use: what ``--jobs 0`` starts a worker for.

``os.cpu_count()`` is the machine's.  A process bound to fewer (``taskset``, a
container's ``--cpuset-cpus``, a Slurm allocation) or given a CPU quota (a
container's ``--cpus``, a cgroup's ``cpu.max``) that started one worker per
core of the machine would run, on a 128-core node with four allotted, 128
workers taking turns on four cores: no faster than four, with 32 times their
memory.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

#: Where Linux mounts the cgroup file systems.
CGROUP = Path("/sys/fs/cgroup")


def usable_cores() -> int:
    """The cores this process is bound to, at most its cgroup's CPU quota rounded
    up (one at least)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on this platform
        cores = os.cpu_count() or 1
    quota = cgroup_quota()
    return max(1, min(cores, quota) if quota is not None else cores)


def cgroup_quota(root: Path = CGROUP, membership: str | None = None) -> int | None:
    """This process's cgroup CPU quota in whole cores, rounded up; None without one.
    cgroup v2 (``cpu.max`` of the process's group, ``membership`` being the text
    of ``/proc/self/cgroup``), else v1 (``cpu.cfs_quota_us`` over its period).

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "job").mkdir()
    >>> _ = (root / "job" / "cpu.max").write_text("250000 100000\\n")
    >>> cgroup_quota(root, "0::/job\\n")
    3
    >>> _ = (root / "job" / "cpu.max").write_text("max 100000\\n")
    >>> cgroup_quota(root, "0::/job\\n") is None
    True
    """
    if membership is None:
        try:
            membership = Path("/proc/self/cgroup").read_text()
        except OSError:
            return None
    group = next((line[3:].strip() for line in membership.splitlines() if line.startswith("0::")), None)
    if group is not None and (root / group.lstrip("/") / "cpu.max").is_file():
        return _cores(*_read(root / group.lstrip("/") / "cpu.max").split()[:2])
    for folder in ("cpu", "cpu,cpuacct", "cpuacct,cpu"):
        if (root / folder / "cpu.cfs_quota_us").is_file():
            return _cores(
                _read(root / folder / "cpu.cfs_quota_us"), _read(root / folder / "cpu.cfs_period_us")
            )
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def _cores(quota: str, period: str = "") -> int | None:
    """A quota over its period, in whole cores rounded up; None for none
    (``max``, v1's -1, or text that is no number).

    >>> _cores("150000", "100000"), _cores("-1", "100000"), _cores("max", "100000")
    (2, None, None)
    """
    try:
        used, every = int(quota), int(period)
    except ValueError:
        return None
    return math.ceil(used / every) if used > 0 and every > 0 else None
