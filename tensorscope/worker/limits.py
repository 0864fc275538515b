"""The worker's limits: what the front end asks for, and how the child applies them to itself.

`Limits` travels on the worker's command line; `apply` runs in the child before it imports the
engine or reads a request. What holds where:

- address space (RLIMIT_AS), CPU seconds (RLIMIT_CPU), open files (RLIMIT_NOFILE), no core dumps
  (RLIMIT_CORE = 0), no new process or thread (RLIMIT_NPROC = 0: the worker needs none; the
  kernel does not apply it to root): POSIX, applied on Linux and macOS (macOS ignores RLIMIT_AS);
- no network: a new, empty network namespace (unshare(CLONE_NEWUSER | CLONE_NEWNET)), where the
  kernel lets an unprivileged process make one (most Linux systems; not macOS, not containers
  that forbid user namespaces); without it the worker shares the host's network;
- files: where the kernel has Landlock (Linux 5.13 and later), the worker confines itself once it
  has started: it may read only the Python installation, the folders on its import path, the
  system's libraries and its own /proc entries; it may not write, create, remove or execute any
  file, nor (Landlock ABI 4 and later) bind or connect a TCP socket, nor (ABI 6 and later) signal
  a process or reach an abstract Unix socket outside itself. Without Landlock it can read and
  write what its user can;
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
    cap(resource.RLIMIT_NPROC, 0)
    cap(resource.RLIMIT_NOFILE, open_files)
    cap(resource.RLIMIT_CPU, cpu_seconds)
    cap(resource.RLIMIT_AS, memory_bytes)


# ------------------------------------------------------------------ Landlock (linux/landlock.h)
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # the same on every architecture
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_RIGHTS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}  # cumulative
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1
SYSTEM_READABLE = ("/usr", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/localtime", "/proc/meminfo",
                   "/proc/cpuinfo", "/sys/devices/system/cpu", "/dev/null", "/dev/urandom")


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 where there is none (not Linux, too old, disabled)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        return max(int(libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION)), 0)
    except (OSError, AttributeError):
        return 0


def readable_paths(package_root: str) -> list[str]:
    """What the worker still reads once confined: the interpreter, its import path, our code,
    the system's libraries, its own /proc entries and a few device files."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, package_root,
             f"/proc/{os.getpid()}", *SYSTEM_READABLE, *(entry for entry in sys.path if entry)}
    return sorted(p for p in paths if os.path.exists(p))


def confine_files(package_root: str) -> bool:
    """Restrict this process with Landlock: read-only access beneath `readable_paths`, no write,
    create, remove or execute anywhere, no TCP (ABI 4+), no signals or abstract Unix sockets
    outside (ABI 6+). Irreversible, for this process and what it starts. False where the kernel
    has no Landlock (nothing changes then)."""
    abi = landlock_abi()
    if abi == 0:
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    fs_rights = next(rights for version, rights in sorted(_FS_RIGHTS_BY_ABI.items(), reverse=True) if abi >= version)
    attr = _RulesetAttr(fs_rights, _NET_BIND_TCP | _NET_CONNECT_TCP if abi >= 4 else 0,
                        _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = int(libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0))
    if ruleset < 0:
        return False
    try:
        for path in readable_paths(package_root):
            _allow(libc, ruleset, path, fs_rights)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) == 0
    finally:
        os.close(ruleset)


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, handled: int) -> None:
    """Read access beneath `path` (a folder: its files and listings; a file: itself)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        rights = _READ_FILE | (_READ_DIR if os.path.isdir(path) else 0)
        if path == "/dev/null":
            rights |= _WRITE_FILE
        rule = _PathBeneathAttr(rights & handled, fd)
        libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0)
    finally:
        os.close(fd)


def address_space_bytes() -> int:
    """The process's current virtual size (what RLIMIT_AS counts), 0 where it cannot be read."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
