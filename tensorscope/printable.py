"""Text from user code made safe to show on a terminal: control characters and the like escaped.

A statement may print anything: `print('\\x1b[2J')` must not clear the screen, a lone surrogate
must not break the UTF-8 output, and a right-to-left override must not reorder what follows. Such
characters are shown as Python would write them in a string literal (`\\x1b`, `\\udc80`, `\\u202e`);
newlines and tabs stay.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 controls but tab and newline, DEL, C1 controls
    "\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidirectional marks, embeddings, overrides, isolates
    "\ud800-\udfff]"  # lone surrogates (text that was not valid UTF-8)
)


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char == "\r":
        return "\\r"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shorten(source: str, width: int = 60) -> str:
    """The first line of `source`, cut to `width` characters with an ellipsis when anything is
    left out (how messages quote a statement)."""
    stripped = source.strip()
    line = stripped.splitlines()[0] if stripped else ""
    if len(line) > width or "\n" in stripped:
        return line[: width - 1].rstrip() + "…"
    return line


def printable(text: str) -> str:
    """`text` with every character that could act on a terminal written as an escape."""
    return _UNSAFE.sub(_escape, text)


def plural(count: int, noun: str) -> str:
    """`1 statement`, `2 statements`."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
