"""A template process that has imported the worker's code once and forks a fresh worker per
session, so a worker starts in milliseconds instead of the fraction of a second that importing
numpy, the engine and the interpreter takes (`tensorscope check` starts one per scenario, and a
stopped statement restarts one).

Isolation is what a worker started on its own has: the template runs no user code and starts no
thread (it checks that it has one); it leaves the network before importing anything, so every
worker it forks is in that empty network namespace; each worker is a fresh fork of the template,
never reused, and applies its own limits (memory, CPU, open files, no core) in the child, after
the fork and before it reads a request. A worker dies with the template, the template with its
front end (PR_SET_PDEATHSIG on Linux).

The front end talks to the template over a Unix socket of packets: `fork` (with the worker's
stdin, stdout and stderr passed as file descriptors) is answered by the new pid; `kill` is done
by the template, which alone reaps its children, so a pid is never signalled after it could have
been reused; `ended` messages tell the exit status of every worker. `ForkedWorker` gives such a
worker the part of `subprocess.Popen`'s interface that `WorkerProcess` uses.

Linux only (elsewhere, and if the template cannot start, workers are started on their own).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from tensorscope.worker.limits import Limits

STARTUP_SECONDS = 60.0
KILL_SECONDS = 10.0
_MESSAGE_BYTES = 4096


def available() -> bool:
    return sys.platform.startswith("linux") and hasattr(socket, "SOCK_SEQPACKET") and hasattr(socket, "send_fds")


class TemplateGone(Exception):
    """The template process ended or did not answer; workers are started on their own instead."""


class Template:
    """The front end's side: starts the template process and asks it for workers."""

    def __init__(self, environment: dict[str, str], folder: str) -> None:
        self._socket, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed with the template
        command = [sys.executable, "-s", "-m", "tensorscope.worker", "--template", str(theirs.fileno()),
                   "--parent", str(os.getpid())]
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=self.stderr, cwd=folder, env=environment,
                                            pass_fds=(theirs.fileno(),), start_new_session=True)
        finally:
            theirs.close()
        self.folder = folder
        self.ready: dict[str, Any] | None = None
        self.statuses: dict[int, int] = {}  # pid -> returncode of workers that ended
        self.lock = threading.Lock()
        self.gone = False

    # ------------------------------------------------------------------ requests
    def fork(self, limits: Limits, folder: str, stdin: int, stdout: int, stderr: int) -> int:
        """A new worker with these descriptors as its stdin, stdout and stderr, in `folder`."""
        request = {"op": "fork", "memory_bytes": limits.memory_bytes, "cpu_seconds": limits.cpu_seconds,
                   "open_files": limits.open_files, "folder": folder}
        return int(self._ask(request, [stdin, stdout, stderr], STARTUP_SECONDS)["forked"])

    def kill(self, pid: int) -> None:
        """SIGKILL one of the template's workers (nothing happens when it has ended already)."""
        with contextlib.suppress(TemplateGone):
            self._ask({"op": "kill", "pid": pid}, [], KILL_SECONDS)

    def status(self, pid: int, timeout: float | None) -> int | None:
        """A worker's returncode (negative: the signal that ended it), waiting up to `timeout`
        seconds for it to end (None: forever, 0: not at all); None while it runs."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self.lock:
            while pid not in self.statuses:
                if self.gone:
                    return -signal.SIGKILL  # the template ended: PR_SET_PDEATHSIG ended its workers
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._pump(remaining)
            return self.statuses[pid]

    def close(self) -> None:
        """End the template (its workers die with it) and wait for it."""
        with self.lock:
            with contextlib.suppress(OSError):
                self._socket.close()
            if self.process.poll() is None:
                try:
                    self.process.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
            self.stderr.close()
            self.gone = True

    def kill_now(self) -> None:
        """End the template at once (an abrupt exit of the front end): its workers die with it."""
        with contextlib.suppress(OSError):
            self.process.kill()

    # ------------------------------------------------------------------ messages
    def _ask(self, request: dict[str, Any], fds: list[int], seconds: float) -> dict[str, Any]:
        with self.lock:
            if self.gone:
                raise TemplateGone("the template process has ended")
            try:
                socket.send_fds(self._socket, [json.dumps(request).encode()], fds, socket.MSG_NOSIGNAL)
            except OSError:
                self.gone = True
                raise TemplateGone("the template process has ended") from None
            deadline = time.monotonic() + seconds
            while True:
                reply = self._pump(deadline - time.monotonic())
                if reply is not None:
                    if "failure" in reply:
                        self.gone = self.gone or self.ready is None  # it could not start: it has exited
                        raise TemplateGone(str(reply["failure"]))
                    return reply
                if time.monotonic() >= deadline:
                    self.gone = True
                    raise TemplateGone("the template process did not answer")

    def _pump(self, timeout: float | None) -> dict[str, Any] | None:
        """Read one message (under the lock): `ended` and `ready` are noted and None returned;
        a reply is returned."""
        self._socket.settimeout(None if timeout is None else max(timeout, 0.001))
        try:
            data = self._socket.recv(_MESSAGE_BYTES)
        except (TimeoutError, BlockingIOError):  # nothing yet
            return None
        except OSError:
            data = b""
        if not data:
            self.gone = True
            if self.ready is None:
                raise TemplateGone(self._last_words())
            return None
        message = json.loads(data)
        if "ended" in message:
            self.statuses[int(message["ended"])] = int(message["returncode"])
            return None
        if "ready" in message:
            self.ready = message["ready"]
            return None
        return message

    def _last_words(self) -> str:
        try:
            self.stderr.seek(0)
            lines = [line for line in self.stderr.read().decode("utf-8", "replace").splitlines() if line.strip()]
        except (OSError, ValueError):
            lines = []
        return lines[-1] if lines else "the template process ended"


class ForkedWorker:
    """A worker forked by the template, with the part of Popen's interface WorkerProcess uses.

    Its pipes exist from the start, so requests can be written at once; the fork is asked for
    then if the template is up, else when the worker is first waited on (so starting a worker
    never waits for the template to start). Should the template fail, `spawn(stdin, stdout)`
    starts the worker on its own over the same pipes."""

    def __init__(self, template: Template, limits: Limits, folder: str, stderr: IO[bytes],
                 spawn: Callable[[int, int], subprocess.Popen[bytes]]) -> None:
        self._child_stdin, self_stdin = os.pipe()
        self_stdout, self._child_stdout = os.pipe()
        self.stdin: IO[bytes] | None = os.fdopen(self_stdin, "wb")
        self.stdout: IO[bytes] | None = os.fdopen(self_stdout, "rb")
        self.template = template
        self.returncode: int | None = None
        self._start_args = (limits, folder, stderr, spawn)
        self._pid: int | None = None
        self._spawned: subprocess.Popen[bytes] | None = None
        if template.ready is not None:
            self.start()

    def start(self) -> None:
        """Fork now (or spawn, if the template cannot)."""
        if self._pid is not None or self.returncode is not None:
            return
        limits, folder, stderr, spawn = self._start_args
        try:
            self._pid = self.template.fork(limits, folder, self._child_stdin, self._child_stdout, stderr.fileno())
        except TemplateGone:
            self._spawned = spawn(self._child_stdin, self._child_stdout)
            self._pid = self._spawned.pid
        finally:
            os.close(self._child_stdin)
            os.close(self._child_stdout)

    @property
    def pid(self) -> int:
        self.start()
        assert self._pid is not None
        return self._pid

    def _abandon(self) -> None:
        """Never started, and now never will be (closed before anything was asked of it)."""
        if self._pid is None and self.returncode is None:
            os.close(self._child_stdin)
            os.close(self._child_stdout)
            self.returncode = 0

    def poll(self) -> int | None:
        if self._pid is None:
            self._abandon()
        if self._spawned is not None:
            return self._spawned.poll()
        if self.returncode is None:
            self.returncode = self.template.status(self.pid, 0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self.start()
        if self._spawned is not None:
            return self._spawned.wait(timeout)
        if self.returncode is None:
            self.returncode = self.template.status(self.pid, timeout)
            if self.returncode is None:
                raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout or 0)
        return self.returncode

    def kill(self) -> None:
        if self._pid is None:
            self._abandon()
        if self._spawned is not None:
            self._spawned.kill()
        elif self.poll() is None:
            self.template.kill(self.pid)


# ---------------------------------------------------------------------- the template's side
def serve(channel_fd: int, parent: int) -> int:
    """The template process: leave the network, import the worker's code, then fork workers on
    request until the front end goes."""
    from tensorscope.worker import limits

    network_isolated = limits.isolate_network()
    limits.die_with_parent(parent)
    channel = socket.socket(fileno=channel_fd)
    _preload()
    threads = len(os.listdir("/proc/self/task"))
    if threads != 1:  # a fork would copy a process whose other threads hold locks
        _tell(channel, {"failure": f"the template has {threads} threads"})
        return 1
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_write)
    children: set[int] = set()
    _tell(channel, {"ready": {"pid": os.getpid(), "network_isolated": network_isolated}})
    import select

    while True:
        readable, _, _ = select.select([channel, wake_read], [], [])
        if wake_read in readable:
            os.read(wake_read, 512)
        _reap(channel, children)
        if channel not in readable:
            continue
        try:
            data, fds, _, _ = socket.recv_fds(channel, _MESSAGE_BYTES, 3)
        except OSError:
            data, fds = b"", []
        if not data:  # the front end is gone: so are its workers
            for pid in children:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            return 0
        request = json.loads(data)
        if request.get("op") == "fork":
            template_pid = os.getpid()
            try:
                pid = os.fork()
            except OSError as exc:
                _close(fds)
                _tell(channel, {"failure": f"fork failed: {exc.strerror}"})
                continue
            if pid == 0:
                _become_worker(request, fds, channel, (wake_read, wake_write), network_isolated, template_pid)
            _close(fds)
            children.add(pid)
            _tell(channel, {"forked": pid})
        elif request.get("op") == "kill":
            pid = int(request["pid"])
            if pid in children:  # not reaped yet, so the pid is still this worker's
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            _tell(channel, {"killed": pid})
        else:
            _close(fds)
            _tell(channel, {"failure": f"unknown request {request.get('op')!r}"})


def _preload() -> None:
    """Everything a worker imports to serve a session, before any request (and any user code).
    (numpy.ma loads on the first op otherwise; the Paddle dialect is left to the sessions that
    import it, since the sandbox offers Paddle's classes only once it is loaded.)"""
    import numpy.ma  # noqa: F401

    import engine  # noqa: F401
    import tensorscope.completion  # noqa: F401
    import tensorscope.interpreter.core  # noqa: F401
    import tensorscope.snapshot_taker  # noqa: F401
    import tensorscope.worker.server  # noqa: F401


def _tell(channel: socket.socket, message: dict[str, Any]) -> None:
    """One message to the front end; if it is gone, so is the template (and then its workers)."""
    try:
        channel.send(json.dumps(message).encode(), socket.MSG_NOSIGNAL)
    except OSError:
        os._exit(0)


def _reap(channel: socket.socket, children: set[int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children.discard(pid)
        _tell(channel, {"ended": pid, "returncode": os.waitstatus_to_exitcode(status)})


def _close(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _become_worker(request: dict[str, Any], fds: list[int], channel: socket.socket, wake: tuple[int, int],
                   network_isolated: bool, template_pid: int) -> None:
    """In the forked child: take the descriptors, the folder and the limits, then serve; never
    returns to the template's loop."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        channel.close()
        _close(list(wake))
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        _close([fd for fd in fds if fd > 2])
        folder = request["folder"]
        os.chdir(folder)
        os.environ["HOME"] = os.environ["TMPDIR"] = folder
        tempfile.tempdir = None
        import numpy

        numpy.random.seed()  # numpy's global stream starts from fresh entropy, as in a new process
        from tensorscope.worker import limits, server

        limits.die_with_parent(template_pid)
        limits.apply(request["memory_bytes"], request["cpu_seconds"], request["open_files"])
        code = server.start(request["memory_bytes"], network_isolated)
    except BaseException:  # noqa: BLE001 - the child must never return into the template's loop
        import traceback

        traceback.print_exc()
    finally:
        os._exit(code)
