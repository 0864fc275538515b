"""The little markdown that narration and help use, as Content in the theme's colours.

Scenario narration (`say`, `summary`) and pane help are short: paragraphs, `- ` lists, `#`
headings, `**bold**`, `*italic*`, `` `code` ``, fenced code and simple tables. Rendering that
subset directly costs well under a millisecond and needs no markdown parser to import, which keeps
F1 and every scenario step instant; its styles are theme variables like every pane's.
"""

from __future__ import annotations

import re

from textual.content import Content

from tensorscope.tui.format import ACCENT, MUTED, PRIMARY, Styled, highlight_code

CODE = f"bold {ACCENT}"
HEADING = f"bold {PRIMARY}"
_INLINE = re.compile(r"(\*\*[^*]+\*\*|`[^`]+`|(?<![\w*])\*[^*\s][^*]*\*(?!\w)|(?<!\w)_[^_\s][^_]*_(?!\w))")
_BULLET = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+")


def inline(text: str, style: str = "") -> Styled:
    """`**bold**`, `*italic*`, `` `code` `` within one line or paragraph."""
    out = Styled()
    for piece in _INLINE.split(text):
        if not piece:
            continue
        if piece.startswith("**") and piece.endswith("**") and len(piece) > 4:
            out.append(piece[2:-2], f"bold {style}".strip())
        elif piece.startswith("`") and piece.endswith("`") and len(piece) > 2:
            out.append(piece[1:-1], CODE)
        elif piece[0] in "*_" and piece[-1] == piece[0] and len(piece) > 2:
            out.append(piece[1:-1], f"italic {style}".strip())
        else:
            out.append(piece, style)
    return out


def _table(rows: list[str]) -> Styled:
    cells = [[cell.strip() for cell in row.strip().strip("|").split("|")] for row in rows
             if not re.fullmatch(r"\s*\|?[\s:|-]+\|?\s*", row)]
    widths = [max(len(inline(row[i]).plain) if i < len(row) else 0 for row in cells)
              for i in range(max(len(row) for row in cells))]
    out = Styled()
    for number, row in enumerate(cells):
        for index, width in enumerate(widths):
            cell = inline(row[index] if index < len(row) else "", "bold" if number == 0 else "")
            out.append_text(cell)
            out.append(" " * (width - len(cell.plain) + 2))
        out.rstrip()
        out.append("\n")
    return out


def markdown(text: str) -> Content:
    """The subset above as Content; paragraphs joined as markdown joins them."""
    return render(text).content()


def render(text: str) -> Styled:
    out = Styled()
    lines = text.strip("\n").splitlines()
    paragraph: list[str] = []
    bullet: str | None = None
    gap = False  # a blank line since the last block: one blank line before the next
    index = 0

    def block(body: Styled | Content) -> None:
        nonlocal gap
        if gap and out.parts:
            out.append("\n")
        gap = False
        out.append_text(body)
        out.append("\n")

    def flush() -> None:
        nonlocal bullet
        if paragraph:
            body = Styled()
            if bullet is not None:
                body.append(bullet, MUTED)
            body.append_text(inline(" ".join(part.strip() for part in paragraph)))
            block(body)
            paragraph.clear()
        bullet = None

    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if stripped.startswith("```"):
            flush()
            code: list[str] = []
            index += 1
            while index < len(lines) and not lines[index].strip().startswith("```"):
                code.append(lines[index])
                index += 1
            block(highlight_code("\n".join(code)))
        elif not stripped:
            flush()
            gap = True
        elif stripped.startswith("#"):
            flush()
            block(inline(stripped.lstrip("#").strip(), HEADING))
        elif stripped.startswith("|"):
            flush()
            table = []
            while index < len(lines) and lines[index].strip().startswith("|"):
                table.append(lines[index])
                index += 1
            block(_table(table).rstrip())
            continue
        elif match := _BULLET.match(line):
            flush()
            marker = match.group(2)
            bullet = match.group(1) + ("• " if marker in "-*+" else marker + " ")
            paragraph.append(line[match.end():])
        else:
            paragraph.append(line)
        index += 1
    flush()
    return out.rstrip()
