"""`python -m tensorscope.worker`: a session's worker process (started by WorkerSession).

The order matters: the network namespace needs a single-threaded process, and the limits hold
before the engine is imported or any request is read.
"""

from __future__ import annotations

import argparse
import os
import sys

from tensorscope.worker import limits


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tensorscope.worker")
    parser.add_argument("--parent", type=int, required=True)
    parser.add_argument("--memory-bytes", type=int, required=True)
    parser.add_argument("--cpu-seconds", type=int, required=True)
    parser.add_argument("--open-files", type=int, required=True)
    args = parser.parse_args()
    network_isolated = limits.isolate_network()
    limits.die_with_parent(args.parent)
    limits.apply(args.memory_bytes, args.cpu_seconds, args.open_files)
    replies_fd = os.dup(1)

    from engine import allocator
    from tensorscope.worker import server

    # The engine refuses tensors past what the address space leaves, with PyTorch's error,
    # before numpy would fail; the rest is headroom for temporaries inside ops.
    room = args.memory_bytes - limits.address_space_bytes()
    allocator.set_budget(min(allocator.Allocator.budget_bytes, max(room - max(64 << 20, room // 8), 0)))
    return server.main(replies_fd, network_isolated, limits.size_text(args.memory_bytes))


if __name__ == "__main__":
    sys.exit(main())
