"""Modal screens: the help (F1 / ?) and a one-line path prompt."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Markdown


class HelpScreen(ModalScreen[None]):
    """The focused pane's help, the general help, and the keys active now."""

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
        parts = [self.pane_help, self.general, "## Keys now\n\n" + "\n".join(table),
                 "*escape closes this help*"]
        with VerticalScroll(id="help-body"):
            yield Markdown("\n\n".join(p for p in parts if p))

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        self.dismiss(None)


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
