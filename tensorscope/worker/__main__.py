"""`python -m tensorscope.worker`: a session's worker process (started by WorkerSession).

The order matters: the network namespace needs a single-threaded process, and the limits hold
before the engine is imported or any request is read. With `--template FD` it is the template
process instead, which imports the engine once and forks workers (see template.py).
"""

from __future__ import annotations

import argparse
import sys

from tensorscope.worker import limits


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tensorscope.worker")
    parser.add_argument("--parent", type=int, required=True)
    parser.add_argument("--template", type=int, metavar="FD", help="be the template process on this socket")
    parser.add_argument("--memory-bytes", type=int)
    parser.add_argument("--cpu-seconds", type=int)
    parser.add_argument("--open-files", type=int)
    args = parser.parse_args()
    if args.template is not None:
        from tensorscope.worker import template

        return template.serve(args.template, args.parent)
    network_isolated = limits.isolate_network()
    limits.die_with_parent(args.parent)
    limits.apply(args.memory_bytes, args.cpu_seconds, args.open_files)

    from tensorscope.worker import server

    return server.start(args.memory_bytes, network_isolated)


if __name__ == "__main__":
    sys.exit(main())
