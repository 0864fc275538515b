"""Reading a script the user names (`replay`, `open`, the explorer's Open): bounded, since a file
named by mistake (`/dev/zero`, a multi-gigabyte log) must not fill the front end's memory, and
strictly UTF-8, so binary is refused in words instead of failing later as a puzzling SyntaxError."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

MAX_SCRIPT_BYTES = 16 * 1024 * 1024  # a long script is a few hundred KB


class ScriptFileError(Exception):
    """Why a script cannot be read, worded to follow `tensorscope: PATH: `."""


def read_script(path: str | Path) -> str:
    try:
        with Path(path).open("rb") as file:
            return decode_script(file)
    except FileNotFoundError:
        raise ScriptFileError("no such file") from None
    except IsADirectoryError:
        raise ScriptFileError("is a directory, not a script") from None
    except OSError as exc:
        raise ScriptFileError(f"cannot read it ({exc.strerror or exc})") from None


def decode_script(stream: BinaryIO) -> str:
    """The stream's text, read up to MAX_SCRIPT_BYTES; raises ScriptFileError beyond that or for
    bytes that are not UTF-8 (a byte-order mark is allowed, as Python allows it)."""
    data = stream.read(MAX_SCRIPT_BYTES + 1)
    if len(data) > MAX_SCRIPT_BYTES:
        raise ScriptFileError(f"too big for a script (more than {MAX_SCRIPT_BYTES:,} bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ScriptFileError(f"not UTF-8 text (byte {data[exc.start]:#04x} at line {line}, column {column})") from None
