"""The code input: multi-line Python with highlighting, history on up/down and tab completion.

Enter runs what is typed when it is a complete statement; after a line ending in `:` (or inside an
open bracket) it starts a new, indented line instead, and an empty line ends the block, as Python's
prompt does. Up on the first line and down on the last walk the history.
"""

from __future__ import annotations

import ast
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.widgets import TextArea

from tensorscope.tui.completion import Completer, common_prefix, word_before
from tensorscope.tui.highlight import python_highlights
from tensorscope.tui.history import History
from tensorscope.tui.messages import StatementSubmitted
from tensorscope.tui.panes.base import Pane


def needs_more(text: str) -> bool:
    """Whether `text` is an unfinished statement: an open block, bracket or line continuation."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1].strip() == "":
        return False
    if lines[-1].rstrip().endswith(("\\", ":")):
        return True
    if lines[0].rstrip().endswith(":") or lines[0][:1].isspace():
        return True  # a block continues until an empty line
    try:
        ast.parse(text)
    except SyntaxError as exc:
        message = str(exc)
        return "was never closed" in message or "unexpected EOF" in message
    except (ValueError, RecursionError, MemoryError):  # null bytes, nesting too deep: the worker says so
        return False
    return False


class CodeInput(TextArea, Pane):
    """Where statements are typed."""

    PANE_TITLE = "Input"
    HELP = """\
## Input

Type PyTorch statements; `torch` is tensorscope's engine, which behaves like PyTorch 2.13
(start with `import torch`). **Enter** runs the statement.

- After a line ending in `:` (`with torch.no_grad():`, `def f(x):`, `for ...:`) or inside an open
  bracket, Enter starts a new line; an **empty line** runs the whole block.
- **ctrl+j** always starts a new line.
- **up** / **down** on the first / last line walk the history, which is kept across runs.
- **tab** completes names, `torch.` functions and tensor methods (again to list the choices);
  on an empty line it moves to the next pane.
- **ctrl+z** with text here undoes typing; with the input empty it undoes the last statement.
- **escape** clears the completion list.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+j", "newline", "New line", show=False),
    ]

    def __init__(self, history: History, completer: Completer, *, id: str | None = None,
                 cursor_blink: bool = True) -> None:
        super().__init__("", id=id, classes="pane", soft_wrap=True, tab_behavior="focus",
                         show_line_numbers=False)
        self.cursor_blink = cursor_blink
        self.input_history = history
        self.completer = completer
        self.border_title = self.PANE_TITLE
        self.choices: list[str] = []

    # ---------------------------------------------------------------- highlighting
    def _build_highlight_map(self) -> None:
        """Pygments instead of tree-sitter (not installed here): same highlight names."""
        self._line_cache.clear()
        self._highlights.clear()
        self._highlights.update(python_highlights(self.text))

    # ---------------------------------------------------------------- keys
    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.submit_or_newline()
            return
        if event.key == "tab":
            event.stop()
            event.prevent_default()
            self.complete_or_focus()
            return
        if event.key == "escape" and self.choices:
            event.stop()
            self.set_choices([])
            return
        await super()._on_key(event)

    def submit_or_newline(self) -> None:
        text = self.text
        if not text.strip():
            return
        if needs_more(text):
            self.action_newline()
            return
        self.submit()

    def submit(self) -> None:
        source = self.text.rstrip()
        if not source.strip():
            return
        self.input_history.add(source)
        self.load_text("")
        self.set_choices([])
        self.post_message(StatementSubmitted(source))

    def action_newline(self) -> None:
        row, column = self.cursor_location
        line = self.document[row][:column]
        indent = line[: len(line) - len(line.lstrip())]
        if line.rstrip().endswith(":"):
            indent += " " * self.indent_width
        self.insert("\n" + indent)

    def complete_or_focus(self) -> None:
        row, column = self.cursor_location
        before = self.document[row][:column]
        if not before.strip():
            if row > 0 or needs_more(self.text + "\n"):
                self.insert(" " * self._find_columns_to_next_tab_stop())
            else:
                self.screen.focus_next()
            return
        word = word_before(before)
        choices = self.completer.candidates(word) if word else []
        if not choices:
            self.set_choices([])
            return
        prefix = common_prefix(choices)
        if len(prefix) > len(word):
            self.insert(prefix[len(word):])
            word = prefix
            choices = [c for c in choices if c.startswith(word)]
        self.set_choices(choices if len(choices) > 1 else [])

    def set_choices(self, choices: list[str]) -> None:
        self.choices = choices
        if choices:
            shown = "  ".join(c.rpartition(".")[2] for c in choices[:12])
            more = f"  (+{len(choices) - 12})" if len(choices) > 12 else ""
            self.border_subtitle = shown + more
        else:
            self.border_subtitle = ""

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and self.cursor_location[0] == 0:
            entry = self.input_history.previous(self.text)
            if entry is not None:
                self.load_text(entry)
                self.move_cursor((0, len(self.document[0])))
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        last = self.document.line_count - 1
        if not select and self.cursor_location[0] == last:
            entry = self.input_history.next()
            if entry is not None:
                self.load_text(entry)
                self.move_cursor(self.document.end)
            return
        super().action_cursor_down(select)
