"""`python -m tensorscope.worker`: a session's worker process (started by WorkerSession).

The order matters: the network namespace needs a single-threaded process, and the limits hold
before the engine is imported or any request is read; the file confinement (Landlock) comes once
the engine and the server are imported, before any request is read. `confine` is that whole
sequence, so a test can enter exactly the worker's confinement and look around from inside it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from tensorscope.worker import limits


def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tensorscope.worker")
    parser.add_argument("--parent", type=int, required=True)
    parser.add_argument("--memory-bytes", type=int, required=True)
    parser.add_argument("--cpu-seconds", type=int, required=True)
    parser.add_argument("--open-files", type=int, required=True)
    return parser.parse_args(argv)


def confine(args: argparse.Namespace) -> tuple[int, dict[str, bool]]:
    """Enter the worker's confinement: the file descriptor replies go to (fd 1 is then stderr's),
    and the isolation the OS granted (`network_isolated`, `files_isolated`)."""
    network_isolated = limits.isolate_network()
    limits.die_with_parent(args.parent)
    limits.apply(args.memory_bytes, args.cpu_seconds, args.open_files)
    replies_fd = os.dup(1)
    os.dup2(2, 1)  # nothing printed by C code can corrupt the reply stream
    sys.stdout = sys.stderr

    from engine import allocator
    from tensorscope.worker import server  # noqa: F401 - imported before the files are confined
    from tensorscope.worker.process import package_root

    # The engine refuses tensors past what the address space leaves, with PyTorch's error,
    # before numpy would fail; the rest is headroom for temporaries inside ops.
    room = args.memory_bytes - limits.address_space_bytes()
    allocator.set_budget(min(allocator.Allocator.budget_bytes, max(room - max(64 << 20, room // 8), 0)))
    files_isolated = limits.confine_files(package_root())
    return replies_fd, {"network_isolated": network_isolated, "files_isolated": files_isolated}


def main() -> int:
    args = arguments()
    replies_fd, isolation = confine(args)
    from tensorscope.worker import server

    return server.main(replies_fd, isolation, limits.size_text(args.memory_bytes))


if __name__ == "__main__":
    sys.exit(main())
