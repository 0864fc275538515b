"""The command palette's explorer commands (ctrl+p): open, tour, reset, undo, save, screenshot, theme."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

from tensorscope.tui.controller import Job

if TYPE_CHECKING:
    from tensorscope.tui.app import TensorscopeApp

SCENARIO_DIRS = ("scenarios",)


def bundled_files(roots: tuple[Path, ...] | None = None) -> list[Path]:
    """Scenarios shipped next to the package or in the working directory's scenarios/ folder."""
    package_root = Path(__file__).resolve().parents[2]
    roots = roots or (Path.cwd(), package_root)
    found: dict[Path, None] = {}
    for root in roots:
        for folder in SCENARIO_DIRS:
            base = root / folder
            if base.is_dir():
                for file in sorted(base.glob("*")):
                    if file.suffix in (".yaml", ".yml"):  # the folder's .py files are its package code
                        found.setdefault(file.resolve(), None)
    return list(found)


def scenario_title(file: Path) -> str:
    """What a scenario is about, as `tensorscope list` says it: the palette lists them by name, and
    a name alone rarely tells which one shows the trap you are after."""
    try:
        return _title(file, file.stat().st_mtime_ns)
    except OSError:
        return str(file)


@cache
def _title(file: Path, mtime_ns: int) -> str:
    from tensorscope.scenario import ScenarioError, load

    try:
        return load(file).title
    except ScenarioError as exc:
        return f"{file} (cannot load: {exc.message})"


class ExplorerCommands(Provider):
    """Explorer commands, plus one "Open" entry per bundled scenario."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        app: TensorscopeApp = self.app  # type: ignore[assignment]
        commands: list[tuple[str, str, Callable[[], object]]] = [
            ("Open scenario or script…", "open a .yaml scenario or a .py script by path (asks first when "
             "that would discard the session)", app.action_open_file),
            ("Take the tour", "step through the seeds' cases: views, versions, backward errors, memory",
             app.action_tour),
            ("Reset session", "a fresh engine with nothing defined (the scenario stays open)", app.action_reset),
            ("Undo last statement", "replay the session without its last statement",
             partial(app.controller.enqueue, Job("undo"))),
            ("Redo", "run again the statement undo took back", app.action_redo),
            ("Save session as script…", "write the statements so far to a .py file that replays them",
             app.action_save_script),
            ("Export screenshot (SVG)", "save what the screen shows as an SVG file", app.action_screenshot_svg),
            ("Show help", "keys and what the focused pane shows", app.action_help),
            ("Go to the latest step", "leave time travel", partial(setattr, app, "viewed", -1)),
            ("Next detail pane", "in a narrow terminal: storage, graph, inspector, memory",
             app.action_next_detail),
        ]
        commands.append(("Save session as scenario…", "write a .yaml scenario of the statements so far, "
                         "each step expecting the versions and errors it produced", app.action_save_scenario))
        if app.compares():
            commands.append(("Compare torch and paddle", "the step in both dialects, side by side, and what differs",
                             app.action_show_compare))
        if app.scenario is not None:
            commands.append(("Close scenario", "hide the scenario pane and keep the session",
                             app.close_scenario))
        for file in bundled_files():
            commands.append((f"Open {file.stem}", scenario_title(file), partial(app.ask_open_path, str(file))))
        return commands

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
