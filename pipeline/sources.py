"""Reading inputs: files (plain, ``.gz``, ``.zst``) or stdin, line by line.

Every input becomes a stream of :class:`SourceItem`: a game record (in its
game's record format, whatever format it was read from) or a line that could not become one,
with the violations found on the way.  Nothing is dropped: each non-empty line
of a JSON Lines file yields exactly one item.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, Any, Protocol, TypeVar, cast

import orjson
import zstandard

from pipeline.atomic import is_pipe_or_device
from pipeline.record import origin_findings
from pipeline.violations import TricklogError, Violation, failure
from pipeline.zstd_frames import FrameCheckingReader

STDIN = "-"
T = TypeVar("T")
#: A UTF-8 byte order mark, which some editors put at the start of a file: dropped.
BOM = b"\xef\xbb\xbf"
#: What a damaged file or stream raises while it is read.
READ_ERRORS = (OSError, EOFError, ValueError, zlib.error, zstandard.ZstdError)


@dataclass(slots=True)
class SourceItem:
    """One game read from an input, or one line that could not become a game."""

    file: str
    line: int | None
    #: The text as read, kept for lines that could not become a record.
    raw: bytes | None
    #: The game as a record of its game's format (None when the line could not become one).
    record: dict[str, Any] | None
    #: Problems found while reading or converting (malformed_json, unsupported, ...).
    violations: list[Violation] = field(default_factory=list)


@dataclass(slots=True)
class ByteMeter:
    """How many bytes of input files have been read (compressed bytes for .gz/.zst)."""

    done: int = 0


_METER: ContextVar[ByteMeter | None] = ContextVar("tricklog_byte_meter", default=None)


@contextmanager
def metered(meter: ByteMeter) -> Iterator[ByteMeter]:
    """Count into ``meter`` every byte that files opened in this block read from disk."""
    token = _METER.set(meter)
    try:
        yield meter
    finally:
        _METER.reset(token)


class _CountingReader(io.RawIOBase):
    """A file that adds each byte read to a meter (under any decompressor)."""

    def __init__(self, raw: IO[bytes], meter: ByteMeter) -> None:
        self._raw = raw
        self._meter = meter

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self._raw.readinto(buffer)  # type: ignore[attr-defined]
        self._meter.done += n or 0
        return int(n or 0)

    def close(self) -> None:
        self._raw.close()
        super().close()


class InputChanged(TricklogError):
    """An input that shrank while it was read (cut short, or rewritten): what a load
    hashed of it is not what it read."""


def shrank(path: str, size: int) -> InputChanged:
    """The error for an input of ``size`` bytes when reading began that ended sooner."""
    try:
        now = f"{os.stat(path).st_size:,}"
    except OSError:
        now = "none"
    return InputChanged(
        f"{path}: changed while it was read ({size:,} bytes when the load began, {now} now: cut short "
        "or rewritten); load it again once it stands still"
    )


class _UpTo(io.RawIOBase):
    """A file read up to byte ``stop`` (from ``position``, where ``raw`` stands): a load
    reads an input as it stood when it began, and a log that grows meanwhile keeps
    its new lines for the next load.  A file that ends sooner shrank: :func:`shrank`."""

    def __init__(self, raw: IO[bytes], stop: int, path: str, position: int = 0) -> None:
        self._raw, self._stop, self._path, self._position = raw, stop, path, position

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self._stop - self._position
        if left <= 0:
            return 0
        n = self._raw.readinto(memoryview(buffer)[: min(len(buffer), left)]) or 0  # type: ignore[attr-defined]
        if n == 0:
            raise shrank(self._path, self._stop)
        self._position += n
        return int(n)

    def close(self) -> None:
        self._raw.close()
        super().close()


def open_up_to(path: str, stop: int, position: int = 0) -> IO[bytes]:
    """A file's bytes from ``position`` up to ``stop`` (see :class:`_UpTo`), buffered."""
    raw = open(path, "rb")  # noqa: SIM115 -- closed with the reader
    if position:
        raw.seek(position)
    return io.BufferedReader(_UpTo(raw, stop, path, position), buffer_size=1 << 16)


class _GzipReader(gzip.GzipFile):
    """A GzipFile that also closes the file it reads from."""

    def __init__(self, source: IO[bytes]) -> None:
        super().__init__(fileobj=source, mode="rb")
        self._source = source

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._source.close()


def open_binary(path: str, stop: int | None = None) -> IO[bytes]:
    """Open an input for reading bytes, decompressing by its extension; a file
    up to byte ``stop`` of it (:func:`open_up_to`), when given.

    A stream (stdin, a pipe, a FIFO) is opened once per process and its first
    bytes kept for sniffing (:func:`head_bytes`): every later open gets the same
    stream, so nothing it sends is lost or read twice.

    Raises TricklogError (a one-line message) when the file cannot be opened.
    """
    if is_stream(path):
        return _open_stream(path).stream
    return _open_file(path, stop)


#: How many first bytes of an input format sniffing looks at.
HEAD_BYTES = 4096


def is_stream(path: str) -> bool:
    """stdin, or a path that is no regular file nor folder (a pipe such as
    ``<(cat f)``, a FIFO, a device): it can be read only once."""
    return path == STDIN or is_pipe_or_device(path)


def check_input(path: str) -> None:
    """Fail early (TricklogError) when an input cannot be opened; a stream is
    opened here for good (opening and closing a FIFO would lose its writer)."""
    if is_stream(path):
        _open_stream(path)
    else:
        _open_file(path).close()


def head_bytes(path: str, size: int = HEAD_BYTES) -> bytes:
    """The first bytes of an input (decompressed), without consuming them from a stream."""
    if is_stream(path):
        return _open_stream(path).head[:size]
    with _open_file(path) as stream:
        try:
            return stream.read(size)
        except READ_ERRORS as e:
            raise TricklogError(f"{path}: cannot read: {e}") from e


@dataclass(slots=True)
class _Stream:
    stream: IO[bytes]
    head: bytes


_STREAMS: dict[str, _Stream] = {}


def _open_stream(path: str) -> _Stream:
    opened = _STREAMS.get(path)
    if opened is None:
        source = sys.stdin.buffer if path == STDIN else _open_file(path, sniffed=False)
        head = _first_bytes(path, source)
        reader: IO[bytes] = io.BufferedReader(_Prefixed(head, source, close_source=path != STDIN))
        kind = compression_of(head)
        if kind is not None:  # a stream has no name to tell: its first bytes do
            reader, head = _decompressed(path, kind, reader)
        opened = _STREAMS[path] = _Stream(reader, head)
    return opened


def _decompressed(path: str, kind: str, compressed: IO[bytes]) -> tuple[IO[bytes], bytes]:
    """A compressed stream read decompressed, and its first decompressed bytes."""
    if kind not in ENDING:
        raise TricklogError(misnamed(path, kind))
    inner = _decompressor(kind, compressed)
    head = _first_bytes(path, inner)
    return cast(IO[bytes], io.BufferedReader(_Prefixed(head, inner, close_source=True))), head


def _first_bytes(path: str, stream: IO[bytes]) -> bytes:
    """The first ``HEAD_BYTES`` of a stream (fewer if it ends sooner), read whole."""
    head = b""
    try:
        while len(head) < HEAD_BYTES and (chunk := stream.read(HEAD_BYTES - len(head))):
            head += chunk
    except READ_ERRORS as e:
        raise TricklogError(f"{path}: cannot read: {e}") from e
    return head


class _Prefixed(io.RawIOBase):
    """Bytes already read from a stream, then the rest of the stream."""

    def __init__(self, head: bytes, source: IO[bytes], *, close_source: bool) -> None:
        self._head = memoryview(head)
        self._source = source
        self._close_source = close_source

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._source.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if self._close_source:
            self._source.close()
        super().close()


def _open_file(path: str, stop: int | None = None, *, sniffed: bool = True) -> IO[bytes]:
    """A file opened to read, decompressed by its ending; ``sniffed``: one that is
    compressed but does not say so is refused (a stream's first bytes, read by
    :func:`_open_stream`, tell what it is instead)."""
    p = Path(path)
    if p.is_dir():
        raise TricklogError(f"{path}: is a folder (give the files inside it)")
    try:
        raw: IO[bytes] = p.open("rb") if stop is None else open_up_to(path, stop)
    except OSError as e:
        raise TricklogError(f"{path}: cannot open: {failure(e)}") from e
    meter = _METER.get()
    if meter is not None:
        raw = io.BufferedReader(_CountingReader(raw, meter))
    if sniffed and not path.endswith(COMPRESSED) and (peek := getattr(raw, "peek", None)) is not None:
        kind = compression_of(peek(HEAD_MAGIC))
        if kind is not None:
            raw.close()
            raise TricklogError(misnamed(path, kind))
    kind = next((kind for kind, ending in ENDING.items() if path.endswith(ending)), None)
    return raw if kind is None else _decompressor(kind, raw)


def _decompressor(kind: str, raw: IO[bytes]) -> IO[bytes]:
    """``raw`` read decompressed: gzip or Zstandard (of :data:`ENDING`)."""
    if kind == "gzip":
        return cast(IO[bytes], _GzipReader(raw))
    checked = FrameCheckingReader(raw)  # a truncated .zst is an error, as a truncated .gz is
    reader = zstandard.ZstdDecompressor().stream_reader(
        cast(IO[bytes], checked), closefd=True, read_across_frames=True
    )
    return io.BufferedReader(cast(io.RawIOBase, reader))


#: The first bytes of compressed data, by compression: gzip and Zstandard are
#: read (by a file's ending, or found at the start of a stream), the others refused.
MAGIC = {
    "gzip": b"\x1f\x8b",
    "Zstandard": b"\x28\xb5\x2f\xfd",
    "xz": b"\xfd7zXZ\x00",
    "zip": b"PK\x03\x04",
}
BZIP2_MAGIC = re.compile(rb"BZh[1-9]1AY&SY")
#: Enough first bytes to tell them all.
HEAD_MAGIC = 10
#: The ending a compression is read by.
ENDING = {"gzip": ".gz", "Zstandard": ".zst"}
#: The endings of the inputs read decompressed (gzip, Zstandard).
COMPRESSED = tuple(ENDING.values())


def compression_of(head: bytes) -> str | None:
    """The compression whose data starts with ``head``, or None.

    >>> compression_of(gzip.compress(b"{}")), compression_of(b'{"format": "euchre/1"}')
    ('gzip', None)
    """
    for kind, magic in MAGIC.items():
        if head.startswith(magic):
            return kind
    return "bzip2" if BZIP2_MAGIC.match(head) else None


def misnamed(path: str, kind: str) -> str:
    """Why a compressed input whose name does not say so is refused, and what to do."""
    if kind in ENDING:
        return f"{path}: is {kind}-compressed, but its name does not end in {ENDING[kind]}: rename it"
    return f"{path}: is {kind}-compressed, which tricklog does not read (gzip and Zstandard only): decompress it first"


#: The JSON Lines files a folder given as an input stands for, by their endings.
JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst")


def input_suffixes(fmt: str = "auto") -> tuple[str, ...]:
    """The endings of the input files a folder holds, as ``--from`` (``fmt``) reads
    them: for ``auto``, JSON Lines and every installed importer's own endings; for
    an importer's name, its files' endings (JSON Lines when it names none); for a
    game's own records, JSON Lines.  Each also compressed (gzip, Zstandard), as
    such a file given by name is read.

    >>> input_suffixes("tarotclub")
    ('.json', '.json.gz', '.json.zst', '.jsonl', '.jsonl.gz', '.jsonl.zst')
    """
    from pipeline.games import importers

    known = [i for _, i in importers()]
    named = [i.suffixes + i.shared_suffixes for i in known if i.name == fmt]
    if named:
        return _compressed_too(named[0]) or JSONL_SUFFIXES
    if fmt != "auto":
        return JSONL_SUFFIXES
    return JSONL_SUFFIXES + _compressed_too(tuple(s for i in known for s in i.suffixes))


def _compressed_too(suffixes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(s + c for s in suffixes for c in ("", *COMPRESSED) if not (c and s.endswith(COMPRESSED)))


def expand_inputs(paths: Sequence[str], fmt: str = "auto") -> list[str]:
    """The inputs, each folder replaced by its input files (by ending for ``--from``
    ``fmt``, sorted, not recursive).

    >>> expand_inputs(["-"])
    ['-']
    """
    out: list[str] = []
    suffixes = input_suffixes(fmt)
    for path in paths:
        folder = Path(path)
        if path != STDIN and folder.is_dir():
            found = sorted(str(f) for f in _folder_inputs(folder, suffixes))
            if not found:
                hint = _other_formats(folder) if fmt == "auto" else ""
                endings = ", ".join(s for s in suffixes if not s.endswith(COMPRESSED))
                raise TricklogError(
                    f"{path}: a folder with no input files ({endings}; each also .gz, .zst){hint}"
                )
            out += found
        else:
            out.append(path)
    _refuse_a_stream_twice(out)
    return out


def _other_formats(folder: Path) -> str:
    """What to give ``--from`` for the files of a folder whose endings other formats
    share (TarotClub's ``.json``), or ""."""
    from pipeline.games import importers

    names = [entry.name for entry in folder.iterdir()]
    for _, importer in importers():
        endings = [e for e in importer.shared_suffixes if any(n.endswith(e) for n in names)]
        if endings:
            return f"; to read its {', '.join(endings)} files as {importer.name}, give --from {importer.name}"
    return ""


def _refuse_a_stream_twice(inputs: Sequence[str]) -> None:
    """Refuse stdin or a pipe named twice (``- -``, a FIFO and its link): it can be
    read once, and its second reading would find it ended or wait for ever."""
    seen: dict[tuple[int, int], str] = {}
    for path in inputs:
        if path != STDIN and not is_pipe_or_device(path):
            continue
        try:
            info = os.fstat(0) if path == STDIN else os.stat(path)
        except OSError:
            continue  # reading it says what is wrong
        key = (info.st_dev, info.st_ino)
        if key in seen:
            again = "given twice" if seen[key] == path else f"the same stream as {seen[key]}"
            raise TricklogError(f"{path}: {again}; a stream (stdin, a pipe) can be read once")
        seen[key] = path


#: Folder entries already warned about (a folder is expanded more than once per command).
_WARNED: set[str] = set()


def _folder_inputs(folder: Path, suffixes: tuple[str, ...]) -> Iterator[Path]:
    """The regular files of a folder with an input ending; an entry with such an
    ending that is no regular file (a dangling symlink, a FIFO, a socket) is
    skipped with a warning on stderr, never silently (nor read: a FIFO would hang)."""
    for entry in folder.iterdir():
        if not entry.name.endswith(suffixes):
            continue
        if entry.is_file():
            yield entry
        elif str(entry) not in _WARNED and not entry.is_dir():
            _WARNED.add(str(entry))
            print(f"tricklog: warning: {entry}: skipped, {_entry_kind(entry)}", file=sys.stderr)


def _entry_kind(entry: Path) -> str:
    if entry.is_symlink() and not entry.exists():
        return (
            "a symbolic link in a loop (it leads back to itself)" if _loops(entry) else "a dangling symlink"
        )
    if entry.is_fifo():
        return "a named pipe (FIFO), not a file; give it by name to read it"
    return "not a regular file"


def _loops(link: Path) -> bool:
    """Whether a symbolic link leads back to itself (Python 3.11-3.12 say so with a
    RuntimeError, 3.13 with ELOOP)."""
    try:
        link.resolve(strict=True)
    except RuntimeError:
        return True
    except OSError as e:
        return e.errno == errno.ELOOP
    return False


def input_size(paths: Sequence[str], fmt: str = "auto") -> int | None:
    """The bytes on disk of all inputs, or None when one has no size known ahead (stdin)."""
    try:
        files = expand_inputs(paths, fmt)
        return sum(Path(p).stat().st_size for p in files) if STDIN not in files else None
    except (OSError, TricklogError):
        return None


#: The longest line read whole (``--max-line-bytes``): a longer one is reported as
#: ``line_too_long`` with its length, offset and SHA-256, read in chunks, never held.
MAX_LINE_BYTES = 16 << 20
#: What is kept of a line that is too long (the quarantine's ``raw``): its first bytes.
LONG_LINE_KEPT = 1024
_CHUNK = 1 << 20
_LINE_LIMIT: ContextVar[int] = ContextVar("tricklog_max_line_bytes", default=MAX_LINE_BYTES)


#: The highest ``--max-line-bytes`` (no line is longer): a line's length is a machine integer.
LONGEST_LIMIT = 1 << 62


def checked_line_limit(max_bytes: int) -> int:
    """``max_bytes``, as a line limit; a TricklogError when it is below 1 or above
    :data:`LONGEST_LIMIT`."""
    if not 1 <= max_bytes <= LONGEST_LIMIT:
        raise TricklogError(f"--max-line-bytes must be from 1 to {LONGEST_LIMIT} (2**62), not {max_bytes}")
    return max_bytes


@contextmanager
def line_limit(max_bytes: int) -> Iterator[int]:
    """Read lines of at most ``max_bytes`` in this block (default :data:`MAX_LINE_BYTES`)."""
    token = _LINE_LIMIT.set(checked_line_limit(max_bytes))
    try:
        yield max_bytes
    finally:
        _LINE_LIMIT.reset(token)


class LongLine(bytes):
    """A line longer than the limit: its first bytes only, with what identifies it whole."""

    length: int
    offset: int
    sha256: str
    limit: int

    def describe(self, number: int) -> str:
        return (
            f"line {number} is {self.length} bytes long, over the limit of {self.limit} "
            f"(--max-line-bytes); it starts at byte {self.offset} and its SHA-256 is {self.sha256}"
        )

    def describe_document(self, path: str) -> str:
        return (
            f"{path} is one document of {self.length} bytes, over the limit of {self.limit} "
            f"(--max-line-bytes), so it was not read whole; its SHA-256 is {self.sha256}"
        )


def _long_line(first: bytes, length: int, offset: int, digest: Any, limit: int) -> LongLine:
    long = LongLine(first[:LONG_LINE_KEPT])
    long.length, long.offset, long.sha256, long.limit = length, offset, digest.hexdigest(), limit
    return long


def read_document(path: str, stop: int | None = None) -> bytes:
    """An input read whole as one document (an EGN game, a TarotClub deal, a
    serialized OpenSpiel state), a UTF-8 byte order mark dropped; with ``stop``, the
    file as it stood at that size (:func:`open_up_to`).  A document longer than the
    limit (:func:`line_limit`) comes as a :class:`LongLine`, read in chunks, never held.

    A file that cannot be read, or a decompression failure, is an I/O error (TricklogError).
    """
    limit = _LINE_LIMIT.get()
    stream = open_binary(path, stop)
    try:
        head = bytearray()  # read(limit + 1) would allocate the limit, however short the file
        while len(head) <= limit and (chunk := stream.read(min(_CHUNK, limit + 1 - len(head)))):
            head += chunk
        if len(head) <= limit:
            return bytes(head).removeprefix(BOM)
        digest, length = hashlib.sha256(head), len(head)
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
            length += len(chunk)
        return _long_line(bytes(head[:LONG_LINE_KEPT]), length, 0, digest, limit)
    except READ_ERRORS as e:
        raise TricklogError(f"{path}: cannot read: {e}") from e
    finally:
        stream.close()


def too_long_document(path: str, document: LongLine) -> SourceItem:
    """The item of an input too long to read whole as one document (:func:`read_document`)."""
    violation = Violation("document_too_long", document.describe_document(path), file=path)
    return SourceItem(path, None, bytes(document), None, [violation])


def still_written(path: str, stop: int | None) -> bool:
    """Whether an input read as it stood at ``stop`` bytes has grown since: its
    last document or line, cut there, is being written and is the next read's."""
    if stop is None or path.endswith(COMPRESSED) or is_stream(path):
        return False
    try:
        return os.stat(path).st_size > stop
    except OSError:
        return False


#: The most bytes of input (lines, or documents) a chunk holds, whatever its count:
#: a thousand lines of a few MB each would otherwise be held at once, with all
#: they become (records, rows, their copies in a worker and on their way back).
CHUNK_BYTES = 16 << 20


def bounded_chunks(items: Iterable[T], count: int, size: Callable[[T], int]) -> Iterator[list[T]]:
    """``items`` in lists of ``count``, a list ended early once the ``size`` of its
    items reaches :data:`CHUNK_BYTES`.

    >>> [len(c) for c in bounded_chunks([b"ab"] * 5 + [b"x" * CHUNK_BYTES, b"c"], 4, len)]
    [4, 2, 1]
    """
    chunk: list[T] = []
    held = 0
    for item in items:
        chunk.append(item)
        held += size(item)
        if len(chunk) >= count or held >= CHUNK_BYTES:
            yield chunk
            chunk, held = [], 0
    if chunk:
        yield chunk


def line_bytes(numbered: tuple[int, bytes]) -> int:
    """The size of a numbered line (as :func:`iter_lines` gives them), for :func:`bounded_chunks`."""
    return len(numbered[1])


def iter_lines(path: str, limit: int | None = None, stop: int | None = None) -> Iterator[tuple[int, bytes]]:
    """The non-empty lines of an input with their 1-based numbers, streaming (a
    UTF-8 byte order mark at the start is dropped).  A line longer than ``limit``
    (by default that of :func:`line_limit`) comes as a :class:`LongLine`, read in chunks.
    With ``stop``, the file as it stood at that size (:func:`open_up_to`): a last
    line cut there, of a file that has grown since, is left for the next read.

    A decompression failure half way is an I/O error (TricklogError).
    """
    stream = open_binary(path, stop)
    growing = None if stop is None else partial(still_written, path, stop)
    try:
        yield from numbered_lines(stream, _LINE_LIMIT.get() if limit is None else limit, growing=growing)
    except READ_ERRORS as e:
        raise TricklogError(f"{path}: cannot read: {e}") from e
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def numbered_lines(
    stream: IO[bytes],
    limit: int,
    *,
    number: int = 0,
    offset: int = 0,
    end: int | None = None,
    growing: Callable[[], bool] | None = None,
) -> Iterator[tuple[int, bytes]]:
    """The non-empty lines of ``stream`` read from byte ``offset`` of its input, the
    first numbered ``number + 1``; a line longer than ``limit`` comes as a
    :class:`LongLine`, read in chunks, never held.  With ``end``, the lines that
    start before it.  A last line without its newline is left out when
    ``growing()`` says the input is still being written."""
    while (end is None or offset < end) and (line := stream.readline(limit + 1)):
        number += 1
        start, offset = offset, offset + len(line)
        if len(line) > limit and not line.endswith(b"\n"):
            long, read = _rest_of_line(stream, line, start, limit)
            offset += read
            yield number, long
            continue
        if growing is not None and not line.endswith(b"\n") and growing():
            return  # being written: the next read takes it whole
        if number == 1:
            line = line.removeprefix(BOM)
        if line.strip():
            yield number, line.rstrip(b"\r\n")


def skip_to_line_start(stream: IO[bytes], position: int, end: int | None = None) -> int:
    """Read past the rest of the line ``stream`` is in (at byte ``position`` of its
    input), in chunks (none held), but not past byte ``end``; the bytes read."""
    read = 0
    left = _CHUNK if end is None else end - position
    while left > 0 and (chunk := stream.readline(min(_CHUNK, left))):
        read += len(chunk)
        left = _CHUNK if end is None else end - position - read
        if chunk.endswith(b"\n"):
            break
    return read


def _rest_of_line(stream: IO[bytes], first: bytes, start: int, limit: int) -> tuple[LongLine, int]:
    """Read the rest of a too long line in chunks, hashing it (its newline left
    out); keep its first bytes.  Also returns the bytes read after ``first``."""
    digest = hashlib.sha256(first)
    length, read = len(first), 0
    while chunk := stream.readline(_CHUNK):
        read += len(chunk)
        end = chunk.endswith(b"\n")
        body = chunk[:-1] if end else chunk
        digest.update(body)
        length += len(body)
        if end:
            break
    return _long_line(first, length, start, digest, limit), read


def parse_line(file: str, number: int, line: bytes) -> SourceItem:
    """A JSON Lines line as a record, or as a malformed_json item keeping the raw text."""
    if isinstance(line, LongLine):
        violation = Violation("line_too_long", line.describe(number), file=file, line=number)
        return SourceItem(file, number, bytes(line), None, [violation])
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError as e:
        return _malformed(file, number, line, f"line {number} is {_why_not_json(e)}")
    if not isinstance(value, dict):
        kinds: dict[type, str] = {list: "an array", str: "a string"}
        kind = kinds.get(type(value), type(value).__name__)
        return _malformed(file, number, line, f"line {number} is {kind}, not a JSON object")
    unstorable = storable_problem(value) or _wide_integer(line)
    if unstorable is not None:
        violation = Violation("schema", f"line {number} {unstorable}", file=file, line=number)
        return SourceItem(file, number, line, None, [violation])
    return SourceItem(file, number, None, value, origin_findings(value) if "origin" in value else [])


def _why_not_json(error: orjson.JSONDecodeError) -> str:
    """What is wrong with a line orjson cannot read, in a few words.

    >>> _why_not_json(orjson.JSONDecodeError("UTF-8 byte order mark (BOM) is not supported", "", 0))
    'not valid JSON: it starts with a byte order mark (BOM), which only the first line of a file may have'
    """
    text = str(error)
    if "byte order mark" in text:
        return "not valid JSON: it starts with a byte order mark (BOM), which only the first line of a file may have"
    return "not valid UTF-8" if "utf-8" in text.lower() else f"not valid JSON ({text})"


#: 20 digits or more: a whole number orjson may read as a float (past 64 bits).
_LONG_DIGITS = re.compile(rb"\d{20,}")


def _wide_integer(line: bytes) -> str | None:
    """Why a line holding a whole number orjson reads only approximately (one
    past 64 bits, read as a float) cannot be kept as it is; None for most lines.

    >>> _wide_integer(b'{"id": 123456789012345678901234567890}')
    'holds 123456789012345678901234567890, a whole number past 64 bits that cannot be kept exactly'
    >>> _wide_integer(b'{"id": "123456789012345678901234567890", "n": 18446744073709551615}') is None
    True
    """
    if _LONG_DIGITS.search(line) is None:
        return None
    import json

    wide: list[int] = []

    def keep(text: str) -> int:
        number = int(text)
        if not -(1 << 63) <= number < 1 << 64:
            wide.append(number)
        return number

    try:
        json.loads(line, parse_int=keep)
    except ValueError:  # orjson read it: a number of thousands of digits, past what int() reads
        return "holds a whole number of thousands of digits, which cannot be kept exactly"
    if not wide:
        return None
    shown = str(wide[0]) if len(str(wide[0])) <= 40 else f"{str(wide[0])[:37]}..."
    return f"holds {shown}, a whole number past 64 bits that cannot be kept exactly"


def storable_problem(value: object) -> str | None:
    """Why a parsed value cannot be written back as JSON (and so cannot be hashed or
    stored): nested more than 254 levels deep, say; None when it can."""
    try:
        orjson.dumps(value)
    except orjson.JSONEncodeError as e:
        return f"cannot be stored: {e} (at most 254 levels of nesting)"
    return None


def _malformed(file: str, number: int, line: bytes, message: str) -> SourceItem:
    violation = Violation("malformed_json", message, file=file, line=number)
    return SourceItem(file, number, line, None, [violation])


def read_jsonl(path: str, stop: int | None = None) -> Iterator[SourceItem]:
    """A euchre/1 (or any JSON Lines) input, one item per non-empty line."""
    for number, line in iter_lines(path, stop=stop):
        yield parse_line(path, number, line)


class Reader(Protocol):
    """What reads one input into items: with ``stop``, the file as it stood at that
    size (a load reads each input as it was hashed; see :func:`open_up_to`)."""

    def __call__(self, path: str, stop: int | None = None) -> Iterator[SourceItem]: ...
