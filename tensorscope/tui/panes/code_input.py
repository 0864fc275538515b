"""The code input: multi-line Python with highlighting, history on up/down and tab completion.

Enter runs what is typed when it is a complete statement; after a line ending in `:` (or inside an
open bracket) it starts a new, indented line instead, and an empty line ends the block, as Python's
prompt does. Indentation typed on such a line replaces the automatic one (so `    return t` after
`def f(t):` is indented once, not twice). Up on the first line and down on the last walk the
history. Tab completes; several candidates open a dropdown under the cursor.

A paste too large to edit comfortably (a generated 200,000-term line) is held aside rather than
laid out in the text area, which re-renders a whole logical line for every wrapped row: the input
says what it holds, Enter runs it, escape drops it.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.widgets import OptionList, TextArea

from tensorscope.continuation import parse_state
from tensorscope.tui.completion import Completer, common_prefix, word_before
from tensorscope.tui.highlight import python_highlights
from tensorscope.tui.history import History
from tensorscope.tui.messages import StatementSubmitted
from tensorscope.tui.panes.base import Pane

HOLD_CHARS = 20_000  # a paste longer than this is held aside, not laid out in the text area
HOLD_LINE = 4_000  # nor is one with a line longer than this
MENU_ROWS = 8


def too_big_to_edit(text: str) -> bool:
    return len(text) > HOLD_CHARS or any(len(line) > HOLD_LINE for line in text.split("\n"))


def describe_held(text: str) -> str:
    lines = text.count("\n") + 1
    return (f"holding a pasted {len(text):,}-character text on {lines:,} line{'s' if lines > 1 else ''} "
            "(too long to edit here): Enter runs it · escape drops it")


class CompletionMenu(OptionList):
    """The completion dropdown, drawn over the screen under the cursor."""

    DEFAULT_CSS = """
    CompletionMenu {
        overlay: screen;
        position: absolute;
        width: auto;
        min-width: 16;
        max-width: 48;
        height: auto;
        max-height: 10;
        border: round $accent;
        background: $surface;
        padding: 0;
        display: none;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, target: CodeInput) -> None:
        super().__init__(id="completion-menu")
        self.can_focus = False
        self.target = target

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A click on a candidate takes it."""
        event.stop()
        self.target.take_choice(self.target.choices[event.option_index])


def needs_more(text: str) -> bool:
    """Whether `text` is an unfinished statement: an open block, bracket or line continuation. A
    line no continuation could mend (`def f(:`) runs, so that its SyntaxError shows at once."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1].strip() == "":
        return False
    if lines[0][:1].isspace():
        return True  # an indented snippet: a block of its own, until an empty line
    return parse_state(text) in ("incomplete", "block")


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
- **tab** completes names, `torch.` functions and tensor methods; several candidates open a
  dropdown (up/down choose, tab or Enter take one, escape closes it); on an empty line tab moves
  to the next pane.
- Indentation you type after `def f(t):` replaces the automatic one; backspace on an indent-only
  line goes back one level.
- **ctrl+z** with text here undoes typing; with the input empty it undoes the last statement
  (**ctrl+y** runs it again).
- A paste too long to edit (over 20,000 characters, or a line over 4,000) is held: Enter runs it,
  escape drops it (up brings it back from the history).
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
        self.held: str | None = None  # a paste too large to edit, run as it is
        self._auto_indent: tuple[int, str] | None = None  # (row, indent) Enter put there
        self._word = ""  # the word the open dropdown completes
        self._placeholder = ""

    @property
    def menu(self) -> CompletionMenu:
        try:
            return self.screen.query_one(CompletionMenu)
        except Exception:  # noqa: BLE001 - not mounted yet: mount it on the screen
            menu = CompletionMenu(self)
            self.screen.mount(menu)
            return menu

    @property
    def menu_open(self) -> bool:
        try:
            return self.screen.query_one(CompletionMenu).display
        except Exception:  # noqa: BLE001 - no menu yet
            return False

    # ---------------------------------------------------------------- highlighting
    def _build_highlight_map(self) -> None:
        """Pygments instead of tree-sitter (not installed here): same highlight names."""
        self._line_cache.clear()
        self._highlights.clear()
        self._highlights.update(python_highlights(self.text))

    # ---------------------------------------------------------------- keys
    async def _on_key(self, event: events.Key) -> None:
        if self.held is not None:
            event.stop()
            event.prevent_default()
            if event.key == "enter":
                self.submit()
            elif event.key in ("escape", "backspace", "delete"):
                self.input_history.add(self.held)  # dropped, not lost: up brings it back
                self.hold(None)
            return
        if self.menu_open and event.key in ("up", "down", "tab", "enter", "escape", "pageup", "pagedown"):
            event.stop()
            event.prevent_default()
            self._menu_key(event.key)
            return
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
        if event.character in (" ", "\t") and self._on_auto_indent():
            self.replace("", (self.cursor_location[0], 0), self.cursor_location)  # the user indents
            self._auto_indent = None
        elif event.key == "backspace" and self._dedent():
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    def _on_auto_indent(self) -> bool:
        """The cursor is at the end of an indent Enter put there, and nothing was typed since."""
        if self._auto_indent is None:
            return False
        row, indent = self._auto_indent
        return self.cursor_location == (row, len(indent)) and self.document[row] == indent and bool(indent)

    def _dedent(self) -> bool:
        """Backspace on a line of indentation only: back one level, as editors do."""
        row, column = self.cursor_location
        line = self.document[row]
        if not line or line.strip() or column != len(line) or self.selection.start != self.selection.end:
            return False
        keep = (column - 1) // self.indent_width * self.indent_width
        self.replace(line[:keep], (row, 0), (row, column))
        self._auto_indent = None
        return True

    async def _on_paste(self, event: events.Paste) -> None:
        text = event.text
        if too_big_to_edit(self.text + text):
            event.stop()
            event.prevent_default()
            self.hold(self.text + text)
            return
        if self._on_auto_indent() and text[:1] in (" ", "\t"):
            self.replace("", (self.cursor_location[0], 0), self.cursor_location)  # the paste brings its own
        self._auto_indent = None
        await super()._on_paste(event)

    def hold(self, text: str | None) -> None:
        """Hold a text too large to edit (Enter runs it), or drop the one held (None)."""
        if text is not None and self.held is None:
            self._placeholder = str(self.placeholder)
        self.held = text
        if text is not None:
            self.load_text("")
            self.placeholder = describe_held(text)
        else:
            self.placeholder = self._placeholder
        self.set_class(text is not None, "-held")

    def load_text(self, text: str) -> None:
        """Replace the whole text (a history entry, a submitted statement): any dropdown closes."""
        self.set_choices([])
        super().load_text(text)

    def set_source(self, text: str) -> None:
        """Show `text` for editing (a history entry), or hold it when it is too large to edit."""
        if too_big_to_edit(text):
            self.hold(text)
            return
        if self.held is not None:
            self.hold(None)
        self.load_text(text)

    def submit_or_newline(self) -> None:
        text = self.text
        if not text.strip():
            return
        if needs_more(text):
            self.action_newline()
            return
        self.submit()

    def submit(self) -> None:
        source = (self.held if self.held is not None else self.text).rstrip()
        if not source.strip():
            return
        self.input_history.add(source)
        if self.held is not None:
            self.hold(None)
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
        self._auto_indent = (row + 1, indent)

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
        self._word = word
        self.set_choices(choices if len(choices) > 1 else [])

    def set_choices(self, choices: list[str]) -> None:
        """Show candidates in the dropdown under the cursor (none: close it)."""
        self.choices = choices
        if not choices:
            if self.menu_open:
                self.menu.display = False
            return
        menu = self.menu
        menu.clear_options()
        menu.add_options([choice.rpartition(".")[2] or choice for choice in choices])
        menu.highlighted = 0
        menu.display = True
        self._place_menu()

    def _place_menu(self) -> None:
        menu = self.menu
        cursor = self.cursor_screen_offset
        height = min(len(self.choices), MENU_ROWS) + 2
        below = cursor.y + 1
        top = below if below + height <= self.screen.size.height else max(cursor.y - height, 0)
        menu.styles.offset = (max(cursor.x - len(self._word.rpartition(".")[2]) - 1, 0), top)

    def _menu_key(self, key: str) -> None:
        menu = self.menu
        if key == "escape":
            self.set_choices([])
        elif key in ("up", "down", "pageup", "pagedown"):
            getattr(menu, f"action_{'cursor_' if key in ('up', 'down') else 'page_'}{key.removeprefix('page')}")()
        else:  # tab or enter: take the highlighted candidate
            index = menu.highlighted if menu.highlighted is not None else 0
            self.take_choice(self.choices[index])

    def take_choice(self, choice: str) -> None:
        """Complete the word before the cursor to `choice` and close the dropdown."""
        row, column = self.cursor_location
        word = word_before(self.document[row][:column])
        if choice.startswith(word):
            self.insert(choice[len(word):])
        self.set_choices([])

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """Typing narrows the dropdown to the candidates that still fit; moving away closes it."""
        if not self.choices:
            return
        row, column = self.cursor_location
        word = word_before(self.document[row][:column])
        same_word = word.startswith(self._word) or self._word.startswith(word)
        kept = [choice for choice in self.choices if word and same_word and choice.startswith(word)]
        self._word = word
        self.set_choices(kept if len(kept) > 1 or (kept and kept[0] != word) else [])

    def on_blur(self) -> None:
        self.set_choices([])


    def action_cursor_up(self, select: bool = False) -> None:
        if not select and self.cursor_location[0] == 0:
            entry = self.input_history.previous(self.text)
            if entry is not None:
                self.set_source(entry)
                self.move_cursor((0, len(self.document[0])))
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        last = self.document.line_count - 1
        if not select and self.cursor_location[0] == last:
            entry = self.input_history.next()
            if entry is not None:
                self.set_source(entry)
                self.move_cursor(self.document.end)
            return
        super().action_cursor_down(select)
