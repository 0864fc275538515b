"""The explorer's actions in one registry: id, default keys, description, footer visibility.

Every binding has an id (`tensorscope.undo`, ...) so a keymap can remap it: `open_explorer` reads
`$XDG_CONFIG_HOME/tensorscope/keymap.toml` (`"tensorscope.undo" = "f9"`) and hands it to
`App.set_keymap`.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from textual.binding import Binding


@dataclass(frozen=True)
class ActionSpec:
    id: str
    keys: str
    action: str
    description: str
    show: bool = True
    priority: bool = False
    key_display: str | None = None

    def binding(self) -> Binding:
        return Binding(self.keys, self.action, self.description, show=self.show, priority=self.priority,
                       id=self.id, key_display=self.key_display)


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("tensorscope.help", "f1", "help", "Help", priority=True),
    ActionSpec("tensorscope.help_key", "question_mark", "help", "Help", show=False),
    ActionSpec("tensorscope.undo", "ctrl+z", "undo", "Undo", priority=True),
    ActionSpec("tensorscope.redo", "ctrl+y", "redo", "Redo", show=False, priority=True),
    ActionSpec("tensorscope.back", "ctrl+b", "step_back", "Back", priority=True),
    ActionSpec("tensorscope.next", "ctrl+n", "step_next", "Next", priority=True),
    ActionSpec("tensorscope.latest", "ctrl+g", "run_to_end", "To end", priority=True),
    ActionSpec("tensorscope.tour", "ctrl+t", "tour", "Tour", priority=True),
    ActionSpec("tensorscope.open", "ctrl+o", "open_file", "Open", show=False, priority=True),
    ActionSpec("tensorscope.save", "ctrl+s", "save_script", "Save", show=False, priority=True),
    ActionSpec("tensorscope.reset", "ctrl+r", "reset", "Reset", show=False, priority=True),
    ActionSpec("tensorscope.show_compare", "f2", "show_compare", "Compare"),
    ActionSpec("tensorscope.storage", "f3", "show_pane('storage')", "Storage", show=False, priority=True),
    ActionSpec("tensorscope.graph", "f4", "show_pane('graph')", "Graph", show=False, priority=True),
    ActionSpec("tensorscope.inspector", "f5", "show_pane('inspector')", "Inspector", show=False, priority=True),
    ActionSpec("tensorscope.memory", "f6", "show_pane('memory')", "Memory", show=False, priority=True),
    ActionSpec("tensorscope.interrupt", "ctrl+c", "interrupt", "Stop", show=False, priority=True),
    ActionSpec("tensorscope.input", "escape", "focus_input", "Input", show=False),
    ActionSpec("tensorscope.deselect", "delete", "deselect", "Deselect", show=False),
)


def bindings() -> list[Binding]:
    return [spec.binding() for spec in ACTIONS]


def keymap_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "tensorscope" / "keymap.toml"


def load_keymap(path: Path | None = None) -> dict[str, str]:
    """Binding id -> keys from a TOML file; a missing or broken file means no remapping (what is
    wrong with it, `keymap_problems` says)."""
    path = path or keymap_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    known = {spec.id for spec in ACTIONS}
    return {key: value for key, value in data.items() if key in known and isinstance(value, str)}


def keymap_problems(path: Path | None = None) -> list[str]:
    """What load_keymap had to leave out, one line each: a keymap that silently does nothing
    leaves its author guessing."""
    path = path or keymap_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        return [f"{path}: cannot read it ({getattr(exc, 'strerror', None) or exc}); the default keys apply"]
    except tomllib.TOMLDecodeError as exc:
        return [f"{path}: not valid TOML ({exc}); the default keys apply"]
    known = [spec.id for spec in ACTIONS]
    problems = []
    for key, value in data.items():
        if key not in known:
            problems.append(f"{path}: no action {key!r} (there are {', '.join(known)})")
        elif not isinstance(value, str):
            problems.append(f'{path}: {key!r} takes keys as a string, e.g. "f9" or "ctrl+k,f9"')
    return problems
