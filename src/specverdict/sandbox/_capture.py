"""Read several pipes at once, each up to a byte cap, without ever holding more than the caps.

A stream that goes over its cap is closed on our side: the writer then gets ``EPIPE`` (Python
raises ``BrokenPipeError``), so a program printing gigabytes stops early instead of making the
parent read them. Nothing is written to disk.
"""

from __future__ import annotations

import os
import selectors
import time
from dataclasses import dataclass, field

_CHUNK = 1 << 16


@dataclass(slots=True)
class Stream:
    """One pipe's read end and what was kept of it."""

    fd: int
    cap: int
    data: bytearray = field(default_factory=bytearray)
    overflowed: bool = False
    closed: bool = False


class CappedReader:
    """Pumps named pipes until each reaches end of file, goes over its cap, or time runs out."""

    def __init__(self, streams: dict[str, tuple[int, int]]) -> None:
        self.streams = {name: Stream(fd, cap) for name, (fd, cap) in streams.items()}
        self._selector = selectors.DefaultSelector()
        for name, stream in self.streams.items():
            os.set_blocking(stream.fd, False)
            self._selector.register(stream.fd, selectors.EVENT_READ, name)

    def pump(self, deadline: float) -> bool:
        """Read until every stream is closed (True) or ``deadline`` (monotonic) passes (False)."""
        while self._selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            for key, _ in self._selector.select(remaining):
                self._read(self.streams[key.data])
        return True

    def _read(self, stream: Stream) -> None:
        try:
            chunk = os.read(stream.fd, _CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._close(stream)
            return
        room = stream.cap - len(stream.data)
        stream.data += chunk[:room]
        if len(chunk) > room:
            stream.overflowed = True
            self._close(stream)

    def _close(self, stream: Stream) -> None:
        if not stream.closed:
            self._selector.unregister(stream.fd)
            os.close(stream.fd)
            stream.closed = True

    def close(self) -> None:
        """Close whatever is still open (after the processes are gone or killed)."""
        for stream in self.streams.values():
            self._close(stream)
        self._selector.close()

    def __getitem__(self, name: str) -> Stream:
        return self.streams[name]
