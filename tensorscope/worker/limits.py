"""The worker's limits: what the front end asks for, and how the child applies them to itself.

`Limits` travels on the worker's command line; `apply` runs in the child before it imports the
engine or reads a request. What holds where:

- address space (RLIMIT_AS), CPU seconds (RLIMIT_CPU), open files (RLIMIT_NOFILE), no core dumps
  (RLIMIT_CORE = 0): POSIX, applied on Linux and macOS (macOS ignores RLIMIT_AS);
- no network: a new, empty network namespace (unshare(CLONE_NEWUSER | CLONE_NEWNET)), where the
  kernel lets an unprivileged process make one (most Linux systems; not macOS, not containers
  that forbid user namespaces); without it the worker shares the host's network;
- the worker dies with its parent (prctl(PR_SET_PDEATHSIG)) on Linux.

The wall-clock limit per statement is the front end's to enforce: it kills the worker.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from dataclasses import dataclass

GIB = 1024**3
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = 4 * GIB
    time_limit: float = 10.0  # seconds per statement, wall clock
    cpu_seconds: int = 3600  # the whole worker's CPU time: a backstop should it outlive its parent
    open_files: int = 64

    def arguments(self) -> list[str]:
        return ["--memory-bytes", str(self.memory_bytes), "--cpu-seconds", str(self.cpu_seconds),
                "--open-files", str(self.open_files)]

    @property
    def memory_text(self) -> str:
        return size_text(self.memory_bytes)


def size_text(nbytes: int) -> str:
    """`4.0 GiB`, `300.0 MiB`: how limits are named in messages."""
    if nbytes >= GIB:
        return f"{nbytes / GIB:.1f} GiB"
    return f"{nbytes / 1024**2:.1f} MiB"


def isolate_network() -> bool:
    """Move into a new user and network namespace with no interfaces but loopback (down), if the
    kernel allows it; False when it does not. Must run while the process has one thread."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(parent: int) -> None:
    """Get SIGKILL when the process (thread) that started us ends; exit now if it already has."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def apply(memory_bytes: int, cpu_seconds: int, open_files: int) -> None:
    import resource

    def cap(kind: int, value: int) -> None:
        _, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        with contextlib.suppress(ValueError, OSError):  # a limit the OS lacks (RLIMIT_AS on macOS)
            resource.setrlimit(kind, (value, value))

    cap(resource.RLIMIT_CORE, 0)
    cap(resource.RLIMIT_NOFILE, open_files)
    cap(resource.RLIMIT_CPU, cpu_seconds)
    cap(resource.RLIMIT_AS, memory_bytes)


def address_space_bytes() -> int:
    """The process's current virtual size (what RLIMIT_AS counts), 0 where it cannot be read."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
