"""The `tensorscope` command: the explorer (no arguments, or `open FILE`), headless `replay`,
`check`, `list` and `compare` (torch vs paddle) for scenarios, and the line `repl`."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tensorscope import __version__
from tensorscope.printable import printable
from tensorscope.worker.limits import Limits

if TYPE_CHECKING:
    from tensorscope.scenario import Scenario, ScenarioRun
    from tensorscope.session import Step
    from tensorscope.snapshot import Snapshot
    from tensorscope.worker.client import WorkerStarter

DESCRIPTION = (
    "tensorscope shows what PyTorch does to memory: which tensors share a storage, version counters, "
    "the autograd graph and its saved tensors, and why an in-place operation broke backward. "
    "Statements run on tensorscope's own engine, which behaves like PyTorch 2.13, with a simulated "
    "CUDA device (its memory figures follow PyTorch's caching allocator)."
)


def memory_size(text: str) -> int:
    """`4G`, `512M`, `2GiB`, `300000000`: bytes, for --memory-limit."""
    units = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}
    cleaned = text.strip().upper().removesuffix("IB").removesuffix("B")
    number, unit = (cleaned[:-1], cleaned[-1]) if cleaned[-1:] in "KMG" else (cleaned, "")
    try:
        value = float(number) * units[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 4G, 512M)") from None
    if not 192 * 1024**2 <= value <= 1024**4:  # Python, numpy and BLAS take 110 to 160 MB of it
        raise argparse.ArgumentTypeError(f"{text!r} is outside 192M..1024G (a worker needs about 200 MB to start)")
    return int(value)


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"{text!r} is outside 0..3600 seconds")
    return value


def port_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is outside 1..65535")
    return value


def _common_options(sub: bool) -> argparse.ArgumentParser:
    """The options every command takes, before or after its name (`tensorscope --no-cuda replay f`
    and `tensorscope replay --no-cuda f`): after it, an option left out keeps the value before it."""
    def default(value: object) -> object:
        return argparse.SUPPRESS if sub else value

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--no-cuda", action="store_true", default=default(False),
                        help="run without the simulated CUDA device (torch.cuda.is_available() is False; a "
                             "scenario's cuda key decides for it)")
    common.add_argument("--time-limit", type=seconds, metavar="SECONDS", default=default(Limits.time_limit),
                        help="wall-clock limit per statement in the worker process (default 10; a scenario's "
                             "time_limit key overrides it)")
    common.add_argument("--memory-limit", type=memory_size, metavar="SIZE", default=default(Limits.memory_bytes),
                        help="address-space limit of the worker process, e.g. 4G or 512M (default 4G)")
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common_options(sub=True)
    parser = argparse.ArgumentParser(prog="tensorscope", description=DESCRIPTION, parents=[_common_options(sub=False)],
                                     epilog="Statements run in a worker process per session, under the time and "
                                            "memory limits above; see the README's 'Isolation' section.")
    parser.add_argument("--version", action="version",
                        version=f"tensorscope {__version__} (engine modelled on PyTorch 2.13)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    replay = commands.add_parser(
        "replay", parents=[common], help="run a script or scenario headless and print a transcript (or the JSON trace)",
        description="Run FILE (a .py script or a .yaml scenario) one top-level statement at a time and print "
                    "each statement, its output or error (explained), and the tensors after it. With --json, "
                    "print the trace instead: one JSON object per statement.")
    replay.add_argument("file", metavar="FILE", help="a .py script or a .yaml scenario; - reads a script from standard input")
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
    commands.add_parser("list", parents=[common], help="list the bundled scenarios",
                        description="The bundled scenarios, each by the name that open, replay, check and "
                                    "compare take, and its title.")
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
    serve = commands.add_parser(
        "serve", parents=[common], help="the explorer in a web browser (each tab its own session)",
        description="Serve the explorer over HTTP (textual-serve): open the printed address in a browser. "
                    "Each browser tab runs its own explorer, whose statements run in a worker process under "
                    "the time and memory limits above. It listens on this machine only unless --host says "
                    "otherwise: whoever reaches the address can run statements (in the worker's sandbox).")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=port_number, default=8000, help="the port to listen on (default 8000)")
    parser.add_argument("--browser-tab", action="store_true", help=argparse.SUPPRESS)  # one tab of `serve`
    return parser


STDIN = "-"  # the FILE that means standard input


def _read_script(path: str) -> str:
    from tensorscope.script_file import ScriptFileError, read_script

    try:
        return read_script(path)
    except ScriptFileError as exc:
        raise SystemExit(f"tensorscope: {path}: {exc}") from None


def _read_stdin() -> str:
    """Standard input as UTF-8 text (the terminal's encoding would let binary through as
    surrogates, to fail later as a puzzling SyntaxError)."""
    from tensorscope.script_file import ScriptFileError, decode_script

    try:
        return decode_script(sys.stdin.buffer)
    except ScriptFileError as exc:
        raise SystemExit(f"tensorscope: <stdin>: {exc}") from None


def _is_scenario(path: str) -> bool:
    return Path(path).suffix in (".yaml", ".yml")


class NoSuchFile(Exception):
    """A FILE argument that is neither a path nor a bundled scenario's name."""


def resolve_file(path: str) -> str:
    """`path` as given when it exists; else the bundled scenario it names, as `tensorscope list`
    prints it (`resnet_plus_equals_trap`), with `.yaml` or as `scenarios/NAME.yaml` from any
    folder; else a clear error."""
    if Path(path).exists() or Path(path).suffix == ".py":
        return path  # a missing script is reported where it is read
    from scenarios import bundled

    stem = Path(path).name.removesuffix(".yaml").removesuffix(".yml")
    for file in bundled():
        if file.stem == stem and (Path(path).parent.name in ("", "scenarios")):
            return str(file)
    raise NoSuchFile(f"tensorscope: {path}: no such file (a bundled scenario can be named as "
                     "`tensorscope list` prints it)")


def replay(path: str, as_json: bool, limits: Limits, cuda: bool, memory_snapshot: str | None = None) -> int:
    from tensorscope import report, trace
    from tensorscope.interpreter import UserError
    from tensorscope.worker.client import WorkerError, WorkerSession

    if path == STDIN:  # a pasted script: `pbpaste | tensorscope replay -`
        source, path = _read_stdin(), "<stdin>"
    else:
        path = resolve_file(path)
        if _is_scenario(path):
            return replay_scenario(path, as_json, limits)
        source = _read_script(path)
    history: list[Snapshot] = []

    def line(step: Step) -> None:  # each trace line while the worker runs the next statement
        history.append(step.snapshot)
        print(trace.explained_line(history))

    with WorkerSession(cuda=cuda, limits=limits) as session:
        try:
            steps = session.run(source, line if as_json else None, keep_going=True)
        except UserError as exc:
            print(f"{path}: {exc.info.type}: {exc.info.message}", file=sys.stderr)
            return 1
        except WorkerError as exc:
            print(f"tensorscope: {exc}", file=sys.stderr)
            return 1
        if not as_json:
            print(printable(report.render(step.snapshot for step in steps)))
        if memory_snapshot:
            try:
                session.dump_memory_snapshot(memory_snapshot, filename=path)
            except OSError as exc:
                print(f"tensorscope: cannot write {memory_snapshot}: {exc.strerror}", file=sys.stderr)
                return 1
    return 0


def _scenario_run(scenario: Scenario, dialect: str, starter: WorkerStarter) -> ScenarioRun:
    """One dialect of a scenario, in a fresh worker (its time_limit, else the command's)."""
    from tensorscope.scenario import run_scenario, session_options

    with starter.session(**session_options(scenario)) as session:
        return run_scenario(scenario, dialect, session)


def replay_scenario(path: str, as_json: bool, limits: Limits) -> int:
    from tensorscope import narrate, trace
    from tensorscope.scenario import ScenarioError, load
    from tensorscope.worker.client import WorkerError, WorkerStarter

    with WorkerStarter(limits) as starter:
        try:
            run = _scenario_run(load(path), "torch", starter)
        except (ScenarioError, WorkerError) as exc:
            print(f"tensorscope: {exc}", file=sys.stderr)
            return 1
    if as_json:
        for line in trace.explained_lines(narrate.all_snapshots(run)):
            print(line)
    else:
        print(printable(narrate.render(run)))
    return 0 if run.passed else 1


def check(paths: Sequence[str], limits: Limits) -> int:
    """Each scenario (each dialect of it) in a fresh worker, so none can poison the next; a few
    scenarios at a time (one per core, at most CHECK_AT_ONCE), reported in file order."""
    from concurrent.futures import ThreadPoolExecutor

    from tensorscope import narrate
    from tensorscope.worker.client import WorkerStarter
    from tensorscope.worker.process import end_all

    files = narrate.scenario_files([resolve_file(path) for path in paths])
    if not files:
        print("tensorscope: no scenario files found", file=sys.stderr)
        return 1
    failed = 0
    at_once = max(1, min(CHECK_AT_ONCE, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                         else os.cpu_count() or 1))
    with WorkerStarter(limits) as starter, ThreadPoolExecutor(max_workers=at_once) as pool:
        started = {file: pool.submit(_check_file, file, starter) for file in sorted(files, key=_slow_first)}
        verdicts = [started[file] for file in files]
        try:
            for verdict in verdicts:
                text, passed = verdict.result()
                print(text, flush=True)
                failed += not passed
        except KeyboardInterrupt:
            for verdict in verdicts:
                verdict.cancel()
            end_all()  # the scenarios still running stop with their workers
            raise
    print(f"{len(files) - failed} passed, {failed} failed")
    return 1 if failed else 0


CHECK_AT_ONCE = 4


def _slow_first(file: Path) -> float:
    """Scenarios that ask for more time per statement start first, so the others run beside them."""
    from tensorscope.scenario import ScenarioError, load

    try:
        return -(load(file).time_limit or 0)
    except ScenarioError:
        return 0


def _check_file(file: Path, starter: WorkerStarter) -> tuple[str, bool]:
    """(the verdict line, whether it passed) of one scenario file, both dialects if it has two."""
    from tensorscope import narrate
    from tensorscope.scenario import ScenarioError, load
    from tensorscope.worker.client import WorkerError

    dialect = "torch"
    try:
        scenario = load(file)
        run = _scenario_run(scenario, "torch", starter)
        if scenario.has_paddle:  # both dialects must pass
            dialect = "paddle"
            paddle_run = _scenario_run(scenario, "paddle", starter)
    except (ScenarioError, WorkerError) as exc:
        return (f"ERROR {file}: {dialect}: {exc}" if dialect == "paddle" else f"ERROR {file}: {exc}"), False
    if scenario.has_paddle:
        return printable(narrate.verdict_both(file, run, paddle_run)), run.passed and paddle_run.passed
    return printable(narrate.verdict(file, run)), run.passed


def compare(path: str, limits: Limits) -> int:
    from tensorscope import compare as side_by_side
    from tensorscope.scenario import ScenarioError, load
    from tensorscope.worker.client import WorkerError, WorkerStarter

    if not _is_scenario(resolve_file(path)):
        print(f"tensorscope: {path}: compare takes a scenario (.yaml) whose steps give 'paddle:' code beside "
              "the torch code (see scenarios/README.md)", file=sys.stderr)
        return 1
    with WorkerStarter(limits) as starter:
        try:
            scenario = load(resolve_file(path))
            if not scenario.has_paddle:
                print(f"tensorscope: {path}: the scenario has no 'paddle:' code to compare; these have: "
                      f"{', '.join(_dual_scenarios())}", file=sys.stderr)
                return 1
            runs = _scenario_run(scenario, "torch", starter), _scenario_run(scenario, "paddle", starter)
        except (ScenarioError, WorkerError) as exc:
            print(f"tensorscope: {exc}", file=sys.stderr)
            return 1
    print(printable(side_by_side.render(*runs)))
    return 0


def _dual_scenarios() -> list[str]:
    """The bundled scenarios told in both dialects, by name."""
    from scenarios import bundled
    from tensorscope.scenario import ScenarioError, load

    names = []
    for file in bundled():
        try:
            if load(file).has_paddle:
                names.append(file.stem)
        except ScenarioError:
            continue
    return names


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


def _exit_on(signum: int, frame: object) -> None:
    """A closed terminal or a kill: end the workers (and their folders), then exit at once, as the
    signal would have (the explorer's terminal threads are not waited for)."""
    from tensorscope.worker.process import end_all

    end_all()
    os._exit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    """The command. SIGPIPE stays ignored (a write to a worker that died must not end the front
    end); output to a reader that went away (`tensorscope replay f --json | head`) ends quietly,
    with the status a SIGPIPE would have given."""
    try:
        return _command(argv)
    except BrokenPipeError:
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left to flush at exit
        return 128 + signal.SIGPIPE


def _command(argv: Sequence[str] | None) -> int:
    if argv is None:  # run as the command: a closed terminal or a kill still ends the workers tidily
        signal.signal(signal.SIGHUP, _exit_on)
        signal.signal(signal.SIGTERM, _exit_on)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return run_command(args)
    except NoSuchFile as missing:
        print(missing, file=sys.stderr)
        return 1


def run_command(args: argparse.Namespace) -> int:
    cuda = not args.no_cuda
    limits = Limits(memory_bytes=args.memory_limit, time_limit=args.time_limit)
    if args.command == "replay":
        return replay(args.file, args.json, limits, cuda, args.memory_snapshot)
    if args.command == "check":
        return check(args.paths, limits)
    if args.command == "list":
        return list_scenarios()
    if args.command == "compare":
        return compare(args.scenario, limits)
    if args.command == "repl":
        from tensorscope import repl

        return repl.run(cuda=cuda, limits=limits)
    if args.command == "serve":
        from tensorscope.serve import serve

        return serve(args.host, args.port, limits, cuda)
    # `tensorscope` alone, or `tensorscope open FILE`: the explorer
    from tensorscope.tui.launch import open_explorer

    file = getattr(args, "file", None)
    return open_explorer(path=resolve_file(file) if file is not None else None, cuda=cuda, limits=limits,
                         keep_session=not args.browser_tab)


if __name__ == "__main__":
    sys.exit(main())
