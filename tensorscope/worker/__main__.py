"""`python -m tensorscope.worker`: a session's worker process (started by WorkerSession).

The order matters: the network namespace needs a single-threaded process, and the limits hold
before the engine is imported or any request is read; the file confinement (Landlock) comes once
the engine and the server are imported, before any request is read. `confine` is that whole
sequence, so a test can enter exactly the worker's confinement and look around from inside it.
With `--template FD` it is the template process instead, which imports the engine once and forks
workers (see template.py); a forked worker enters the same confinement (server.confine).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tensorscope.worker import limits


def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tensorscope.worker")
    parser.add_argument("--parent", type=int, required=True)
    parser.add_argument("--template", type=int, metavar="FD", help="be the template process on this socket")
    parser.add_argument("--memory-bytes", type=int)
    parser.add_argument("--cpu-seconds", type=int)
    parser.add_argument("--open-files", type=int)
    return parser.parse_args(argv)


def confine(args: argparse.Namespace) -> tuple[int, dict[str, bool]]:
    """Enter the worker's confinement: the file descriptor replies go to (fd 1 is then stderr's),
    and the isolation the OS granted (`network_isolated`, `files_isolated`)."""
    network_isolated = limits.isolate_network()
    limits.die_with_parent(args.parent)
    limits.apply(args.memory_bytes, args.cpu_seconds, args.open_files)
    from tensorscope.worker import server

    return server.confine(args.memory_bytes, network_isolated)


def main() -> int:
    args = arguments()
    if args.template is not None:
        from tensorscope.worker import template

        return template.serve(args.template, args.parent)
    replies_fd, isolation = confine(args)
    from tensorscope.worker import server

    return server.main(replies_fd, isolation, limits.size_text(args.memory_bytes))


if __name__ == "__main__":
    sys.exit(main())
