"""Modal screens: the help (F1 / ?), a question that guards work (Enter confirms), and a
one-line path prompt."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from tensorscope.tui.format import MUTED
from tensorscope.tui.markdown import render as render_markdown


class HelpScreen(ModalScreen[None]):
    """The focused pane's help, the general help, and the keys active now.

    One Static of pre-styled text (the help's own little markdown, see tui/markdown.py), so it
    opens in a few milliseconds."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q,question_mark", "dismiss", "Close", priority=True),
    ]

    def __init__(self, pane_help: str, general: str, keys: list[tuple[str, str]]) -> None:
        super().__init__()
        self.pane_help = pane_help
        self.general = general
        self.keys = keys

    def compose(self) -> ComposeResult:
        table = ["| key | does |", "|---|---|"]
        seen: set[tuple[str, str]] = set()
        for key, description in self.keys:
            if (key, description) not in seen:
                seen.add((key, description))
                table.append(f"| `{key}` | {description} |")
        parts = [self.pane_help, self.general, "## Keys now\n\n" + "\n".join(table)]
        body = render_markdown("\n\n".join(p for p in parts if p))
        body.append("\n\nescape closes this help", f"italic {MUTED}")
        with VerticalScroll(id="help-body"):
            yield Static(body.content(), id="help-text")

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question before something that would discard work: Enter confirms, escape keeps."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "answer(True)", "Yes", priority=True),
        Binding("escape", "answer(False)", "No", priority=True),
    ]

    def __init__(self, question: str, detail: str, yes: str, no: str) -> None:
        super().__init__()
        self.question = question
        self.detail = detail
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-body"):
            yield Label(self.question, id="confirm-question")
            yield Static(self.detail, id="confirm-detail", markup=False)
            with Horizontal(id="confirm-buttons"):
                yield Button(f"{self.yes} (enter)", variant="primary", id="confirm-yes")
                yield Button(f"{self.no} (escape)", id="confirm-no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class PathPrompt(ModalScreen[str | None]):
    """Ask for a path; Enter accepts, escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, default: str) -> None:
        super().__init__()
        self.title_text = title
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-body"):
            yield Label(self.title_text)
            yield Input(self.default, placeholder="path", id="prompt-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
