"""Telling a complete ``.zst`` file from a truncated one.

``zstandard``'s stream reader returns what it could decode and then a clean
end of file when the compressed data stops half way through a frame: half a
file would read as a complete (shorter) one.  :class:`FrameCheckingReader`
sits between the file and the decompressor and follows the frame layout
(RFC 8878: frame header, block headers, optional checksum; skippable frames)
without decoding anything, skipping over block contents; at the end of the
file it raises ``EOFError`` -- the error gzip raises for a truncated ``.gz`` --
unless the data ended exactly at the end of a frame.

>>> import io, zstandard
>>> packed = zstandard.ZstdCompressor().compress(b"x" * 100_000)
>>> FrameCheckingReader(io.BytesIO(packed * 2)).read() == packed * 2
True
>>> FrameCheckingReader(io.BytesIO(packed[:-3])).read()
Traceback (most recent call last):
...
EOFError: Compressed file ended before the end-of-stream marker was reached
"""

from __future__ import annotations

import io
from typing import IO, Any

TRUNCATED = "Compressed file ended before the end-of-stream marker was reached"
_MAGIC = 0xFD2FB528
_SKIPPABLE = 0x184D2A50

# What the next header to read is.
_FRAME, _SKIP_SIZE, _DESCRIPTOR, _BLOCK = range(4)
_HEADER_SIZE = {_FRAME: 4, _SKIP_SIZE: 4, _DESCRIPTOR: 1, _BLOCK: 3}


class FrameWalker:
    """Follows the frame structure of a zstd stream fed in pieces."""

    def __init__(self) -> None:
        self.state = _FRAME
        self.header = b""
        self.skip = 0
        self.checksum = False

    @property
    def at_boundary(self) -> bool:
        """The data so far ends exactly at the end of a frame (or is empty)."""
        return self.state == _FRAME and not self.header and not self.skip

    def feed(self, data: bytes | memoryview) -> None:
        pos, end = 0, len(data)
        while pos < end:
            if self.skip:
                step = min(self.skip, end - pos)
                pos += step
                self.skip -= step
                continue
            need = _HEADER_SIZE[self.state] - len(self.header)
            self.header += bytes(data[pos : pos + need])
            pos += need
            if len(self.header) == _HEADER_SIZE[self.state]:
                header, self.header = self.header, b""
                self._parse(int.from_bytes(header, "little"))

    def _parse(self, value: int) -> None:
        if self.state == _FRAME:
            if value == _MAGIC:
                self.state = _DESCRIPTOR
            elif value & 0xFFFFFFF0 == _SKIPPABLE:
                self.state = _SKIP_SIZE
            else:
                raise EOFError("not zstd data: a frame does not start with the zstd magic number")
        elif self.state == _SKIP_SIZE:
            self.state, self.skip = _FRAME, value
        elif self.state == _DESCRIPTOR:
            single_segment = bool(value & 0x20)
            self.checksum = bool(value & 0x04)
            window = 0 if single_segment else 1
            dict_id = (0, 1, 2, 4)[value & 3]
            content_size = (1 if single_segment else 0, 2, 4, 8)[value >> 6]
            self.state, self.skip = _BLOCK, window + dict_id + content_size
        else:
            last, kind, size = value & 1, (value >> 1) & 3, value >> 3
            if kind == 3:
                raise EOFError("not zstd data: a reserved block type")
            self.skip = 1 if kind == 1 else size
            if last:
                self.state = _FRAME
                self.skip += 4 if self.checksum else 0


class FrameCheckingReader(io.RawIOBase):
    """A compressed file passed through as it is, checked to end at a frame's end."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._walker = FrameWalker()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = int(self._raw.readinto(buffer) or 0)  # type: ignore[attr-defined]
        if n:
            self._walker.feed(memoryview(buffer)[:n])
        elif not self._walker.at_boundary:
            raise EOFError(TRUNCATED)
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()
