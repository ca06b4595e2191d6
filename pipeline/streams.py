"""The command's standard streams when its caller closed one (``>&-``, ``2>&-``).

Python then sets ``sys.stdout`` (or ``sys.stderr``) to None, and the next file
the command opens takes the free descriptor: a database or a spool opened as
descriptor 1 would receive whatever is written to "stdout" below Python.
:func:`guard_closed_streams` gives each closed descriptor to ``/dev/null``
first; a closed stdin given as ``-`` then fails to be read, a closed stdout
fails its first write, as a full disk does (the command ends with exit 2 and
says so), and a closed stderr drops messages (the exit code still tells what
happened).
"""

from __future__ import annotations

import errno
import io
import os
import sys


class _Closed(io.RawIOBase):
    """A stream whose first write fails, the caller having closed it; what is
    written after that (flushed at exit, say) is dropped, the failure told."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        if self.failed:
            return len(memoryview(data))  # type: ignore[arg-type]
        self.failed = True
        raise OSError(errno.EBADF, "standard output is closed", "stdout")


class _ClosedInput(io.RawIOBase):
    """Standard input the caller closed (``<&-``): reading it fails, as a read error."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: object) -> int:
        raise OSError(errno.EBADF, "standard input is closed", "stdin")


def guard_closed_streams() -> None:
    """Give each closed standard descriptor to /dev/null; make a closed stdin's
    reads and a closed stdout's writes fail, and a closed stderr's go nowhere."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: ``fd`` itself
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if sys.stdin is None:
        sys.stdin = io.TextIOWrapper(io.BufferedReader(_ClosedInput()), encoding="utf-8")
    if sys.stdout is None:
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(_Closed()), encoding="utf-8", write_through=True)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the process's life


def silence(stream: object) -> None:
    """Point a standard stream's descriptor at /dev/null, so that flushing it at
    exit cannot fail again (a full disk, a closed pipe); a stream with no
    descriptor is replaced by one that takes everything."""
    try:
        fileno = stream.fileno()  # type: ignore[attr-defined]
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fileno)
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        if stream is sys.stdout:
            sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
        elif stream is sys.stderr:
            sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115


def terminal_text(text: str) -> str:
    r"""Text from the logs as a terminal shows it as written: each character that
    is not printable (ESC, which would start a sequence the terminal obeys, a
    line break, NUL) as its Python escape.

    >>> terminal_text("g-1\x1b]0;PWNED\x07 \n Zoë 🂡")
    'g-1\\x1b]0;PWNED\\x07 \\n Zoë 🂡'
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
