"""The one entry point `tensorscope.cli` calls: `open_explorer(path=None)`.

Errors under failing statements are explained by `tensorscope.explain.explain`; `.yaml` files are
read by `tensorscope.scenario.load` (through `tui.scenario_adapter`). Both can be replaced by
arguments.

`tensorscope` (no arguments) opens an empty session, or the tour on a first run (no input history
yet); `tensorscope open FILE` opens a `.py` script or a `.yaml` scenario, stepped one cell (or
statement) at a time.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tensorscope.snapshot import Snapshot
    from tensorscope.worker.limits import Limits


def open_explorer(path: str | None = None, *,
                  explain: Callable[[list[Snapshot]], str | None] | None = None,
                  scenario_loader: Callable[[Path], Any] | None = None,
                  cuda: bool = True, limits: Limits | None = None, keep_session: bool = True) -> int:
    """Run the explorer until the user quits; the exit status for the command. Every session
    (the Compare pane's Paddle side too) runs in a worker process under `limits`. With
    `keep_session` the session is saved as it goes and the next start offers to resume it (a
    browser tab of `tensorscope serve` keeps none: tabs would resume each other's)."""
    from tensorscope.script_file import read_script
    from tensorscope.tui.actions import keymap_problems, load_keymap
    from tensorscope.tui.app import TensorscopeApp
    from tensorscope.tui.history import History, history_path
    from tensorscope.tui.saved_session import SessionStore, session_path
    from tensorscope.tui.scripts import script_scenario

    if explain is None:
        from tensorscope.explain import explain as explain_error

        explain = explain_error
    if scenario_loader is None:
        from tensorscope.tui.scenario_adapter import load_yaml

        scenario_loader = load_yaml
    from tensorscope.worker.client import WorkerSession

    def worker_session(**options: Any) -> WorkerSession:
        return WorkerSession(limits=limits, **options)

    history_file = history_path()
    first_run = not history_file.exists()
    history = History(history_file)
    scenario = None
    if path is not None:
        file = Path(path)
        try:
            if file.suffix in (".yaml", ".yml"):
                if scenario_loader is None:
                    print(f"tensorscope: {path}: scenario files are not supported by this version yet",
                          file=sys.stderr)
                    return 2
                scenario = scenario_loader(file)
            else:
                scenario = script_scenario(read_script(file), file.name)
        except Exception as exc:  # a syntax error in the script, an unreadable file, a bad scenario
            info = getattr(exc, "info", None)
            reason = f"{info.type}: {info.message}" if info is not None else str(exc)
            print(f"tensorscope: {reason}" if reason.startswith(str(path)) else f"tensorscope: {path}: {reason}",
                  file=sys.stderr)
            return 1
    # a browser tab of `serve` (keep_session False) talks through pipes by design; anything else needs a terminal
    if keep_session and not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("tensorscope: the explorer needs a terminal (standard input and output are not one); without "
              "one, `tensorscope replay FILE` (or `-` for standard input) runs a script and `tensorscope repl` "
              "reads statements", file=sys.stderr)
        return 2
    if first_run:
        try:  # mark the first run as done even if nothing gets typed
            history_file.parent.mkdir(parents=True, exist_ok=True)
            history_file.touch()
        except OSError:
            pass
    app = TensorscopeApp(scenario=scenario, explain=explain, history=history,
                         tour=first_run and scenario is None, scenario_loader=scenario_loader,
                         keymap=load_keymap(), session_options=None if cuda else {"cuda": False},
                         session_factory=worker_session,
                         store=SessionStore(session_path() if keep_session else None),
                         scenario_source={"path": str(Path(path).resolve())} if path is not None else None,
                         notices=keymap_problems())
    app.run()
    return app.return_code or 0
