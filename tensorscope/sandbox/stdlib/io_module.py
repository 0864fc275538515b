"""`io`: in-memory files only, `BytesIO` and `StringIO`, bounded in bytes.

Each is CPython's own object held inside a small class of ours that forwards the file methods,
so that nothing reaches a file descriptor, no raw buffer leaves it (`getbuffer`, which hands out
a memoryview, is not offered) and no write grows it past MAX_SEQUENCE_BYTES: seeking far past the
end and writing one byte would otherwise allocate the gap. `torch.save`/`torch.load` take them as
they take CPython's.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import LARGE_RESULT_BYTES
from tensorscope.sandbox.sizes import check_sequence_bytes

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox

_COMMON = ("close", "flush", "getvalue", "isatty", "read", "readable", "readline", "readlines", "seek",
           "seekable", "tell", "truncate", "writable", "fileno", "detach")
_BYTES_ONLY = ("read1", "readinto", "readinto1")
_TEXT_PROPERTIES = ("encoding", "errors", "line_buffering", "newlines")
NAMES = ("BytesIO", "StringIO", "UnsupportedOperation")


@gateway
def make_io_module(sandbox: Sandbox) -> dict[str, Any]:
    meter = sandbox.meter

    class MemoryFile:
        """What BytesIO and StringIO share: a CPython in-memory file, written within limits."""

        __slots__ = ("_file",)

        def write(self, data: Any) -> int:
            self._check_growth(data)
            return self._file.write(data)

        def writelines(self, lines: Any) -> None:
            for line in lines:
                meter.tick()
                self.write(line)

        @property
        def closed(self) -> bool:
            return self._file.closed

        def __enter__(self) -> Any:
            self._file.__enter__()
            return self

        def __exit__(self, *exc: Any) -> None:
            self._file.__exit__(*exc)

        def __iter__(self) -> Any:
            return self

        def __next__(self) -> Any:
            return next(self._file)

        def _check_growth(self, data: Any) -> None:
            if self._file.closed:
                return  # the file's own ValueError follows
            size = self._bytes(data)
            end = self._file.tell() * self._width() + size
            check_sequence_bytes("the in-memory file", end)
            if size > LARGE_RESULT_BYTES:
                meter.check_memory()

    class BytesIO(MemoryFile):
        """io.BytesIO, in memory and bounded."""

        __slots__ = ()

        def __init__(self, initial_bytes: Any = b"") -> None:
            self._file = io.BytesIO(initial_bytes)

        @staticmethod
        def _bytes(data: Any) -> int:
            try:
                with memoryview(data) as view:
                    return view.nbytes
            except TypeError:
                return 0  # not bytes-like: BytesIO.write raises its own TypeError

        @staticmethod
        def _width() -> int:
            return 1

    class StringIO(MemoryFile):
        """io.StringIO, in memory and bounded (4 bytes counted per character)."""

        __slots__ = ()

        def __init__(self, initial_value: Any = "", newline: Any = "\n") -> None:
            self._file = io.StringIO(initial_value, newline)

        @staticmethod
        def _bytes(data: Any) -> int:
            return 4 * (len(data) + data.count("\n")) if isinstance(data, str) else 0  # "\n" may become "\r\n"

        @staticmethod
        def _width() -> int:
            return 4

    for cls, names in ((MemoryFile, _COMMON), (BytesIO, _BYTES_ONLY)):
        for name in names:
            setattr(cls, name, _forward(name))
    for name in _TEXT_PROPERTIES:
        setattr(StringIO, name, property(_forward(name, attribute=True)))
    for cls in (BytesIO, StringIO):
        cls.__module__ = "_io"
    return {"BytesIO": BytesIO, "StringIO": StringIO, "UnsupportedOperation": io.UnsupportedOperation}


@gateway
def _forward(name: str, attribute: bool = False) -> Any:
    def forwarded(self: Any, *args: Any) -> Any:
        value = getattr(self._file, name)
        return value if attribute else value(*args)

    forwarded.__name__ = forwarded.__qualname__ = name
    return forwarded
