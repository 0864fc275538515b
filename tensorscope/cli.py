"""The `tensorscope` command: `replay` a script headless, or work in the line `repl`."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from tensorscope import __version__

DESCRIPTION = (
    "tensorscope shows what PyTorch does to memory: which tensors share a storage, version counters, "
    "the autograd graph and its saved tensors, and why an in-place operation broke backward. "
    "Statements run on tensorscope's own engine, which behaves like PyTorch 2.13."
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tensorscope", description=DESCRIPTION)
    parser.add_argument("--version", action="version",
                        version=f"tensorscope {__version__} (engine modelled on PyTorch 2.13)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    replay = commands.add_parser(
        "replay", help="run a script headless and print a transcript (or the JSON trace)",
        description="Run FILE one top-level statement at a time and print each statement, its output or "
                    "error, and the tensors after it. With --json, print the trace: one JSON object per line.")
    replay.add_argument("file", metavar="FILE", help="a .py script of PyTorch statements")
    replay.add_argument("--json", action="store_true", help="print the JSON trace (one line per statement)")
    commands.add_parser("repl", help="a line REPL that says what each statement did to memory",
                        description="Type PyTorch statements; :help lists the REPL's commands.")
    return parser


def _read_script(path: str) -> str:
    file = Path(path)
    if file.suffix in (".yaml", ".yml"):
        raise SystemExit(f"tensorscope: {path}: scenario files are not supported by this version yet; "
                         "give a .py script")
    try:
        return file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SystemExit(f"tensorscope: {path}: no such file") from None
    except IsADirectoryError:
        raise SystemExit(f"tensorscope: {path}: is a directory, not a script") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SystemExit(f"tensorscope: {path}: cannot read it ({exc})") from None


def replay(path: str, as_json: bool) -> int:
    from tensorscope import report, trace
    from tensorscope.interpreter import UserError
    from tensorscope.session import Session

    source = _read_script(path)
    session = Session()
    try:
        steps = session.run(source)
    except UserError as exc:
        print(f"{path}: {exc.info.type}: {exc.info.message}", file=sys.stderr)
        return 1
    if as_json:
        for step in steps:
            print(trace.step_line(step.snapshot))
    else:
        print(report.render(step.snapshot for step in steps))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `tensorscope replay f --json | head` ends quietly
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "replay":
        return replay(args.file, args.json)
    if args.command == "repl":
        from tensorscope import repl

        return repl.run()
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
