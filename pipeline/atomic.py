"""Writing outputs so that they are whole or absent: never half written, never mixed.

* :func:`atomic_file` -- a file is written beside its target under a temporary
  name and renamed over it when complete; on any error the temporary file is
  removed and the target is left as it was.  A target that is a pipe or a device
  (a FIFO, ``/dev/stdout``) is written in place, and a symbolic link to a file
  stays a link: the file it names is replaced.
* :func:`replace_folder` -- a folder of outputs (a Parquet export) is written
  into a fresh temporary folder beside the target, which then takes the
  target's place whole.  A target that exists is replaced only if it is empty
  or carries the marker file an earlier run wrote; any other folder is
  refused, so a user's files are never deleted.
* :func:`fill_folder` -- files (a report) are written into a hidden folder
  inside the target, then each renamed into place: files of the same names
  are replaced, nothing else in the folder is touched.

A killed run leaves at most a ``.NAME.tmp-PID-*`` entry beside the target (or
inside it), which the next run removes.  Errors become one-line :class:`TricklogError` messages.

Temporary files that are no output (a load's spool, keys gone to disk) go in a
folder of the run's own, :func:`scratch_folder`, which the next run of the
same kind removes too when a killed run left it.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with atomic_file(folder / "out.txt") as stream:
...     _ = stream.write(b"whole")
>>> (folder / "out.txt").read_bytes(), sorted(p.name for p in folder.iterdir())
(b'whole', ['out.txt'])
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, cast

from pipeline.violations import TricklogError, failure

TEMP_INFIX = ".tmp-"
#: An output named ``-`` is the command's stdout.
STDOUT = "-"
#: :func:`fill_folder` writes into ``TARGET/.tricklog.tmp-PID-*``.
FILL_NAME = "tricklog"


def write_error(path: Path | str, error: OSError) -> TricklogError:
    """The one-line message for an output that cannot be written."""
    return TricklogError(f"{path}: cannot write: {failure(error)}")


@contextlib.contextmanager
def atomic_file(path: Path) -> Iterator[IO[bytes]]:
    """A binary stream whose content replaces ``path`` only when the block ends
    without error.  This process's own stdout or stderr, by any name (``-``, ``/dev/stdout``,
    ``/dev/fd/1``), is written where it stands, as a shell's redirection left it;
    another pipe or device (:func:`is_pipe_or_device`: a FIFO) is written in place."""
    own = _own_stream(Path(path))
    if own is not None or is_pipe_or_device(path):
        try:
            with contextlib.nullcontext(own) if own is not None else open(path, "wb") as stream:
                yield stream
                stream.flush()
        except OSError as e:
            raise write_error(path, e) from e
        return
    with atomic_path(path) as temp, temp.open("wb") as stream:
        yield stream
        stream.flush()
        os.fsync(stream.fileno())


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary file beside ``path`` for a writer that wants a name (Parquet, say);
    it replaces ``path`` only when the block ends without error, and is removed
    otherwise.  A symbolic link to a file stays one: the file it names is replaced.
    A stream cannot be written so (renamed over, a FIFO would be gone, and
    ``/dev/stdout`` a file): a TricklogError."""
    path = Path(path)
    if _own_stream(path) is not None or is_pipe_or_device(path):
        raise TricklogError(
            f"{path}: not a file (a pipe, a FIFO or a device); this output is written to a file"
        )
    path = path.resolve() if path.is_symlink() else path
    try:
        clear_leftovers(path)
        fd, name = tempfile.mkstemp(prefix=f".{path.name}{TEMP_INFIX}{os.getpid()}-", dir=path.parent)
        os.close(fd)
    except OSError as e:
        raise write_error(path, e) from e
    temp = Path(name)
    try:
        yield temp
        _keep_mode(path, temp)
        os.replace(temp, path)
    except OSError as e:
        _remove(temp)
        raise write_error(path, e) from e
    except BaseException:
        _remove(temp)
        raise


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file, however spelled (relative, ``..``, a
    symbolic link, a hard link); a path that does not exist is compared resolved."""
    try:
        if a.exists() and b.exists():
            return a.samefile(b)
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):  # a symlink loop, a path we cannot stat
        return False


def refuse_overwriting(
    out: Path, inputs: Sequence[str | Path], hint: str = "choose another output file"
) -> None:
    """Refuse an output file that is one of the command's ``inputs`` (``-`` and
    pipes aside): the output renamed into place would replace it.

    >>> import tempfile, pathlib
    >>> games = pathlib.Path(tempfile.mkdtemp()) / "games.jsonl"
    >>> _ = games.write_text("")
    >>> refuse_overwriting(games.parent / "." / "games.jsonl", ["-", str(games)])
    Traceback (most recent call last):
    ...
    pipeline.violations.TricklogError: .../games.jsonl: is an input of this command (.../games.jsonl); choose another output file
    """
    for given in inputs:
        if given == "-" or is_pipe_or_device(given):
            continue
        if same_file(out, Path(given)):
            raise TricklogError(f"{out}: is an input of this command ({given}); {hint}")


def is_pipe_or_device(path: str | Path) -> bool:
    """Whether ``path`` exists and is no regular file nor folder (a symbolic link
    followed): a FIFO, a device, a socket.  It can be read once, and written only in
    place (renamed over, a FIFO would be gone)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _own_stream(path: Path) -> IO[bytes] | None:
    """This process's stdout or stderr when ``path`` names it (its file, pipe or
    terminal); ``-`` is stdout."""
    if str(path) == STDOUT:
        sys.stdout.flush()
        return cast(IO[bytes], sys.stdout.buffer)
    try:
        named = os.stat(path)
    except OSError:
        return None
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            if os.path.samestat(named, os.fstat(stream.fileno())):
                stream.flush()
                return cast(IO[bytes], stream.buffer)
    return None


def _keep_mode(target: Path, temp: Path) -> None:
    """A new file gets the usual permissions (mkstemp makes it 0600); a replaced one keeps its own."""
    try:
        mode = target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(temp, mode)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def clear_leftovers(target: Path) -> None:
    """Remove what killed runs left beside ``target`` (``.NAME.tmp-PID-*``, ``.NAME.old-PID-*``);
    the entries of a run still going (its process alive) are left alone."""
    parent = target.parent
    if not parent.is_dir():
        return
    for entry in parent.iterdir():
        for kind in (TEMP_INFIX, ".old-"):
            prefix = f".{target.name}{kind}"
            if entry.name.startswith(prefix):
                pid = entry.name[len(prefix) :].split("-", 1)[0]
                if not pid.isdigit() or not _alive(int(pid)):
                    _remove(entry)


def scratch_error(what: str, folder: str, error: OSError) -> TricklogError:
    """The one-line error of temporary files (``what`` they hold) that could not be
    written in ``folder``, with the advice the error calls for.

    >>> import errno
    >>> print(scratch_error("the keys of the games seen", "/tmp", OSError(errno.ENOSPC, "")))
    cannot keep the keys of the games seen in /tmp (No space left on device); point TMPDIR at a folder with room
    >>> print(scratch_error("the games seen", "/ro", OSError(errno.EROFS, "")))
    cannot keep the games seen in /ro (Read-only file system); point TMPDIR at a writable folder
    """
    reason = failure(error)  # Arrow's errors give their number only in their text
    full = reason in {os.strerror(code) for code in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)}
    advice = "a folder with room" if full else "a writable folder"
    return TricklogError(f"cannot keep {what} in {folder} ({reason}); point TMPDIR at {advice}")


def scratch_folder(kind: str, folder: str | None = None) -> tempfile.TemporaryDirectory[str]:
    """A folder of this process's own for temporary files, ``tricklog-KIND-PID-*`` in
    ``folder`` (by default the temporary folder, which follows ``TMPDIR``), removed
    when it is closed.  The folders of the same kind that killed runs left there
    (their process gone) are removed first: a killed load left its spool there, up
    to a few hundred MB of its workers' rows.

    >>> import tempfile, pathlib
    >>> base = tempfile.mkdtemp()
    >>> (pathlib.Path(base) / "tricklog-demo-999999999-x").mkdir()  # no such process
    >>> with scratch_folder("demo", base) as mine:
    ...     [p.name for p in pathlib.Path(base).iterdir()] == [pathlib.Path(mine).name]
    True
    """
    prefix = f"tricklog-{kind}-"
    with contextlib.suppress(OSError):  # a folder that cannot be listed: the new one says why
        for entry in Path(folder if folder is not None else tempfile.gettempdir()).iterdir():
            pid, dash, _ = entry.name.removeprefix(prefix).partition("-")
            if entry.name.startswith(prefix) and dash and pid.isdigit() and not _alive(int(pid)):
                _remove(entry)
    return tempfile.TemporaryDirectory(prefix=f"{prefix}{os.getpid()}-", dir=folder)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def temp_beside(target: Path, kind: str = TEMP_INFIX) -> Path:
    """A new folder beside ``target`` named for this process (``.NAME.tmp-PID-*``, or of
    ``kind``), which :func:`clear_leftovers` removes once the process is gone."""
    return Path(tempfile.mkdtemp(prefix=f".{target.name}{kind}{os.getpid()}-", dir=target.parent))


def fresh_beside(target: Path) -> Path:
    """:func:`temp_beside`, once ``target``'s folder exists and what killed runs left
    beside ``target`` is removed (:func:`clear_leftovers`)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    clear_leftovers(target)
    return temp_beside(target)


@contextlib.contextmanager
def replace_folder(target: Path, marker: str) -> Iterator[Path]:
    """A fresh folder beside ``target`` to write into; when the block ends without
    error it takes ``target``'s place whole (with ``marker`` written in it).

    An existing ``target`` is replaced only when it holds ``marker`` (an earlier
    run wrote it) or is empty; any other folder is refused before anything is
    written, so a user's files are never deleted."""
    target = Path(target).resolve()  # the folder itself, not a symlink to it
    if target.exists() and not target.is_dir():
        raise TricklogError(f"{target}: exists and is not a folder")
    if target.is_dir() and not (target / marker).is_file() and any(target.iterdir()):
        raise TricklogError(
            f"{target}: a folder tricklog did not write (no {marker} in it); "
            "give a new or empty folder, or remove this one yourself"
        )
    with _aside(target) as temp:
        yield temp
        (temp / marker).write_text("written by tricklog: this folder is replaced whole by the next run\n")
        _swap(temp, target)


@contextlib.contextmanager
def fill_folder(target: Path) -> Iterator[Path]:
    """A fresh hidden folder inside ``target`` (created if missing) to write into;
    when the block ends without error each of its files is renamed into
    ``target``, replacing files of the same name only: nothing else in
    ``target`` is touched.  On error nothing of the new output is left."""
    target = Path(target)
    if target.exists() and not target.is_dir():
        raise TricklogError(f"{target}: exists and is not a folder")
    try:
        temp = fresh_beside(target / FILL_NAME)
    except OSError as e:
        raise write_error(target, e) from e
    try:
        yield temp
        for entry in sorted(temp.rglob("*")):
            if not entry.is_dir():
                destination = target / entry.relative_to(temp)
                destination.parent.mkdir(parents=True, exist_ok=True)
                os.replace(entry, destination)
    except OSError as e:
        raise write_error(target, e) from e
    finally:
        _remove(temp)


@contextlib.contextmanager
def _aside(target: Path) -> Iterator[Path]:
    """A temporary folder beside ``target``, removed at the end whatever happens."""
    try:
        temp = fresh_beside(target)
    except OSError as e:
        raise write_error(target, e) from e
    try:
        yield temp
    except OSError as e:
        raise write_error(target, e) from e
    finally:
        _remove(temp)


def _swap(temp: Path, target: Path) -> None:
    """Put ``temp`` in ``target``'s place: the old folder is renamed aside, the new
    one renamed in, the old one removed.  Readers see the old folder or the new
    one (or, for an instant, none), never a mix.  A concurrent run may put its
    own folder in place meanwhile: then try again (the last one wins, whole)."""
    for _ in range(10):
        if not target.exists():
            try:
                os.replace(temp, target)
                return
            except OSError:
                continue  # another run put its folder there first
        old = temp_beside(target, ".old-")
        old.rmdir()
        try:
            os.replace(target, old)
        except FileNotFoundError:
            continue  # another run moved it first
        try:
            os.replace(temp, target)
        except OSError:
            with contextlib.suppress(OSError):
                os.replace(old, target)  # put the earlier output back
            raise
        _remove(old)
        return
    raise OSError(f"{target} kept changing while it was replaced (another export running?)")
