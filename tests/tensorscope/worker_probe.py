"""A probe for tests: `python -m tests.tensorscope.worker_probe`, started as a worker is started
(same command line, folder, environment), enters the worker's own confinement and then does what
an attacker who escaped the sandbox would try, with all of Python at hand. It reads one JSON line
of targets on stdin and answers one JSON object of findings on the worker's reply channel.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import socket
import subprocess
import sys
import threading

from tensorscope.worker.__main__ import arguments, confine


def _outcome(attempt) -> str:
    """'ok', or the name of what stopped it."""
    try:
        attempt()
    except MemoryError:
        return "MemoryError"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, type(exc).__name__) if exc.errno else type(exc).__name__
    except Exception as exc:  # noqa: BLE001 - a probe reports whatever happened
        return type(exc).__name__
    return "ok"


def _read(path: str) -> None:
    with open(path, "rb") as file:
        file.read(1)


def _write(path: str) -> None:
    with open(path, "wb") as file:
        file.write(b"x")


def _connect(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=2):
        pass


def _fork() -> None:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)


def _thread() -> None:
    thread = threading.Thread(target=lambda: None)
    thread.start()
    thread.join()


def _many_files() -> None:
    opened = [os.open("/dev/null", os.O_RDONLY) for _ in range(200)]
    for fd in opened:
        os.close(fd)


def main() -> int:
    args = arguments()
    targets = json.loads(sys.stdin.readline())
    replies_fd, isolation = confine(args)
    limits = {name: resource.getrlimit(getattr(resource, f"RLIMIT_{name}")) for name in ("AS", "CPU", "NOFILE", "CORE")}
    cwd = os.getcwd()
    findings = {
        "isolation": isolation,
        "limits": limits,
        "cwd": cwd, "cwd_entries": os.listdir(cwd), "cwd_mode": oct(os.stat(cwd).st_mode & 0o777),
        "environment": sorted(os.environ),
        "canary_seen": any(targets["canary"] in value for value in os.environ.values()),
        "read_secret": _outcome(lambda: _read(targets["secret"])),
        "read_parent_environ": _outcome(lambda: _read(f"/proc/{args.parent}/environ")),
        "read_own_code": _outcome(lambda: _read(targets["own_code"])),
        "write_cwd": _outcome(lambda: _write(os.path.join(cwd, "dropped"))),
        "write_outside": _outcome(lambda: _write(targets["outside"])),
        "execute": _outcome(lambda: subprocess.run(["/bin/true"], check=True)),
        "connect": _outcome(lambda: _connect(targets["port"])),
        "resolve": _outcome(lambda: socket.getaddrinfo("example.com", 80)),
        "signal_parent": _outcome(lambda: os.kill(args.parent, 0)),
        "allocate_past_limit": _outcome(lambda: bytearray(args.memory_bytes)),
        "open_many_files": _outcome(_many_files),
        "fork": _outcome(_fork),
        "thread": _outcome(_thread),
    }
    with os.fdopen(replies_fd, "w") as replies:
        replies.write(json.dumps(findings) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
