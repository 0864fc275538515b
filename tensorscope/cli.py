"""The `tensorscope` command: the explorer (no arguments, or `open FILE`), headless `replay`,
`check`, `list` and `compare` (torch vs paddle) for scenarios, and the line `repl`."""

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
    "Statements run on tensorscope's own engine, which behaves like PyTorch 2.13, with a simulated "
    "CUDA device (its memory figures follow PyTorch's caching allocator)."
)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--no-cuda", action="store_true",
                        help="run without the simulated CUDA device (torch.cuda.is_available() is False)")
    parser = argparse.ArgumentParser(prog="tensorscope", description=DESCRIPTION, parents=[common])
    parser.add_argument("--version", action="version",
                        version=f"tensorscope {__version__} (engine modelled on PyTorch 2.13)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    replay = commands.add_parser(
        "replay", parents=[common], help="run a script or scenario headless and print a transcript (or the JSON trace)",
        description="Run FILE (a .py script or a .yaml scenario) one top-level statement at a time and print "
                    "each statement, its output or error (explained), and the tensors after it. With --json, "
                    "print the trace instead: one JSON object per statement.")
    replay.add_argument("file", metavar="FILE", help="a .py script or a .yaml scenario")
    replay.add_argument("--json", action="store_true", help="print the JSON trace (one line per statement)")
    replay.add_argument("--memory-snapshot", metavar="OUT.pickle",
                        help="also write the simulated CUDA device's memory history in torch.cuda.memory._dump_snapshot's "
                             "format (render it with: python -m torch.cuda._memory_viz trace_plot OUT.pickle -o OUT.html)")
    check = commands.add_parser("check", parents=[common], help="run scenarios and check their expectations",
                                description="Run every scenario (files, or folders of .yaml files; the bundled "
                                            "ones when no path is given) and report pass/fail per scenario. "
                                            "A scenario with paddle code runs in both dialects (checking "
                                            "'expect' and 'paddle_expect') and passes only when both do.")
    check.add_argument("paths", metavar="PATH", nargs="*", help="scenario files or folders")
    commands.add_parser("list", parents=[common], help="list the bundled scenarios")
    compare = commands.add_parser(
        "compare", parents=[common], help="run a scenario in PyTorch and in Paddle and say where they differ",
        description="Run SCENARIO's torch code and its paddle code (each step gives both, see "
                    "scenarios/README.md) in two fresh sessions, and print step by step where the dialects "
                    "differ: storage sharing, versions, leaf and requires_grad, grad_fn, errors, printed "
                    "output, values and gradients.")
    compare.add_argument("scenario", metavar="SCENARIO", help="a .yaml scenario whose steps give 'paddle:' code")
    explore = commands.add_parser("open", parents=[common], help="open a scenario (.yaml) or script (.py) in the explorer",
                                  description="The explorer, stepping through FILE one step at a time.")
    explore.add_argument("file", metavar="FILE", help="a .yaml scenario or a .py script")
    commands.add_parser("repl", parents=[common], help="a line REPL that says what each statement did to memory",
                        description="Type PyTorch statements; :help lists the REPL's commands.")
    return parser


def _read_script(path: str) -> str:
    file = Path(path)
    try:
        return file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SystemExit(f"tensorscope: {path}: no such file") from None
    except IsADirectoryError:
        raise SystemExit(f"tensorscope: {path}: is a directory, not a script") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SystemExit(f"tensorscope: {path}: cannot read it ({exc})") from None


def _is_scenario(path: str) -> bool:
    return Path(path).suffix in (".yaml", ".yml")


def replay(path: str, as_json: bool, cuda: bool, memory_snapshot: str | None = None) -> int:
    from tensorscope import report, trace
    from tensorscope.interpreter import UserError
    from tensorscope.session import Session

    if _is_scenario(path):
        return replay_scenario(path, as_json)
    source = _read_script(path)
    session = Session(cuda=cuda)
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
    if memory_snapshot:
        try:
            session.dump_memory_snapshot(memory_snapshot)
        except OSError as exc:
            print(f"tensorscope: cannot write {memory_snapshot}: {exc.strerror}", file=sys.stderr)
            return 1
    return 0


def replay_scenario(path: str, as_json: bool) -> int:
    from tensorscope import narrate, trace
    from tensorscope.scenario import ScenarioError, load, run_scenario

    try:
        run = run_scenario(load(path))
    except ScenarioError as exc:
        print(f"tensorscope: {exc}", file=sys.stderr)
        return 1
    if as_json:
        for snap in narrate.all_snapshots(run):
            print(trace.step_line(snap))
    else:
        print(narrate.render(run))
    return 0 if run.passed else 1


def check(paths: Sequence[str]) -> int:
    from tensorscope import narrate
    from tensorscope.scenario import ScenarioError, load, run_scenario

    files = narrate.scenario_files(paths)
    if not files:
        print("tensorscope: no scenario files found", file=sys.stderr)
        return 1
    failed = 0
    for file in files:
        dialect = "torch"
        try:
            scenario = load(file)
            run = run_scenario(scenario)
            if scenario.has_paddle:  # both dialects must pass
                dialect = "paddle"
                paddle_run = run_scenario(scenario, "paddle")
        except ScenarioError as exc:
            print(f"ERROR {file}: {dialect}: {exc}" if dialect == "paddle" else f"ERROR {file}: {exc}")
            failed += 1
            continue
        if scenario.has_paddle:
            print(narrate.verdict_both(file, run, paddle_run))
            failed += not (run.passed and paddle_run.passed)
        else:
            print(narrate.verdict(file, run))
            failed += not run.passed
    print(f"{len(files) - failed} passed, {failed} failed")
    return 1 if failed else 0


def compare(path: str) -> int:
    from tensorscope import compare as side_by_side
    from tensorscope.scenario import ScenarioError, load, run_scenario

    try:
        scenario = load(path)
        runs = run_scenario(scenario, "torch"), run_scenario(scenario, "paddle")
    except ScenarioError as exc:
        print(f"tensorscope: {exc}", file=sys.stderr)
        return 1
    print(side_by_side.render(*runs))
    return 0


def list_scenarios() -> int:
    from scenarios import bundled
    from tensorscope.scenario import ScenarioError, load

    for file in bundled():
        try:
            title = load(file).title
        except ScenarioError as exc:
            title = f"(cannot load: {exc.message})"
        print(f"{file.stem:32} {title}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `tensorscope replay f --json | head` ends quietly
    parser = build_parser()
    args = parser.parse_args(argv)
    cuda = not args.no_cuda
    if args.command == "replay":
        return replay(args.file, args.json, cuda, args.memory_snapshot)
    if args.command == "check":
        return check(args.paths)
    if args.command == "list":
        return list_scenarios()
    if args.command == "compare":
        return compare(args.scenario)
    if args.command == "repl":
        from tensorscope import repl

        return repl.run(cuda=cuda)
    # `tensorscope` alone, or `tensorscope open FILE`: the explorer
    from tensorscope.tui.launch import open_explorer

    return open_explorer(path=getattr(args, "file", None), cuda=cuda)


if __name__ == "__main__":
    sys.exit(main())
