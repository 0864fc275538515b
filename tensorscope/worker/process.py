"""One worker process as the front end sees it: the child, its pipes and its private folder.

The child is `python -m tensorscope.worker` with the parent's interpreter (on Linux, a fork of
the front end's template process, which has imported it already: see template.py), in a private
empty temporary folder (removed when the worker is closed), with an environment scrubbed to what
it needs. PYTHONPATH points at the folder that holds the parent's `tensorscope` package, so the
worker imports the same code whether it comes from a checkout, an editable install or a wheel.

A front end killed outright (a closed terminal, SIGKILL) cannot remove its workers' folders; the
folders carry the front end's pid, and the next front end removes those whose process is gone.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path
from typing import IO, Any

import tensorscope
from tensorscope.worker import codec, template
from tensorscope.worker.limits import Limits
from tensorscope.worker.template import ForkedWorker, Template

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS")
SIGNAL_NAMES = {
    signal.SIGSEGV: "segmentation fault", signal.SIGABRT: "aborted", signal.SIGBUS: "bus error",
    signal.SIGKILL: "killed", signal.SIGFPE: "arithmetic fault", signal.SIGILL: "illegal instruction",
    signal.SIGXCPU: "CPU time limit reached", signal.SIGTERM: "terminated",
}
MAX_REPLY_BYTES = 64 * 1024**2  # the longest reply a front end reads: a snapshot past it stops the worker
MEMORY_SIGNS = (b"MemoryError", b"Cannot allocate memory", b"std::bad_alloc", b"out of memory",
                b"Unable to allocate")


class Stopped(Exception):
    """The worker stopped answering: `why` is "time", "interrupt", "died" or "large" (a reply
    longer than MAX_REPLY_BYTES: the front end reads no further, whatever the worker sends)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def package_root() -> str:
    """The folder holding the running `tensorscope` package (and `engine` beside it)."""
    return str(Path(tensorscope.__file__).resolve().parent.parent)


def environment(folder: str) -> dict[str, str]:
    """Only what the worker needs: where our code is, one BLAS thread, a UTF-8 locale, fixed string
    hashing (so a replay iterates sets of strings in the same order), HOME and TMPDIR private, and
    numpy's large arrays in ordinary pages: asked for transparent huge pages, a kernel whose memory
    is fragmented compacts it at the first touch, which made a 10^8-element randn plus relu cost
    1.5-2.9 s of CPU instead of 1.25 s (torch asks for none either)."""
    env = {"PYTHONPATH": package_root(), "PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8",
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": folder, "TMPDIR": folder, "NUMPY_MADVISE_HUGEPAGE": "0"}
    env.update(dict.fromkeys(THREAD_VARIABLES, "1"))
    return env


FOLDER_PREFIX = "tensorscope-worker-"
_swept = False
_running: weakref.WeakSet[WorkerProcess] = weakref.WeakSet()


_ending = False


def ending() -> bool:
    """Whether end_all was called: the program is on its way out, so no worker is started again."""
    return _ending


def end_all() -> None:
    """Kill every worker of this process and remove its folder (before an abrupt exit)."""
    global _ending
    _ending = True
    if _template is not None:
        _template.kill_now()  # its workers die with it
    for worker in list(_running):
        worker._finalizer()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_orphans(base: str | None = None) -> None:
    """Remove worker folders (ours, by uid) left by front ends that are no longer running."""
    base = base or tempfile.gettempdir()
    try:
        entries = list(os.scandir(base))
    except OSError:
        return
    for entry in entries:
        owner = entry.name[len(FOLDER_PREFIX):].partition("-")[0]
        if not (entry.name.startswith(FOLDER_PREFIX) and owner.isdigit()):
            continue
        with contextlib.suppress(OSError):
            if entry.is_dir(follow_symlinks=False) and entry.stat().st_uid == os.getuid() and not _alive(int(owner)):
                shutil.rmtree(entry.path, ignore_errors=True)


_template: Template | None = None
_template_lock = threading.Lock()
_template_refused = False


def _the_template() -> Template | None:
    """This front end's template process (started on first use, again if it ended), or None where
    workers are started on their own."""
    global _template, _template_refused
    if _template_refused or not template.available():
        return None
    with _template_lock:
        if _template is not None and _template.gone and _template.ready is None:
            _template_refused = True  # it could not start: it would not the next time either
            return None
        if _template is None or _template.gone:
            if _template is not None:
                _end_template(_template)
            folder = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")
            _template = Template(environment(folder), folder)
        return _template


def _end_template(ended: Template | None = None) -> None:
    """Close a template (this front end's current one when none is given) and remove its folder."""
    ended = ended or _template
    if ended is not None:
        ended.close()
        shutil.rmtree(ended.folder, ignore_errors=True)


atexit.register(_end_template)  # after the workers' own finalizers, which were registered later


def _spawn(limits: Limits, folder: str, stderr: IO[bytes], stdin: Any = subprocess.PIPE,
           stdout: Any = subprocess.PIPE, module: str = "tensorscope.worker") -> subprocess.Popen[bytes]:
    """A worker started on its own: a new interpreter that imports everything itself."""
    command = [sys.executable, "-s", "-m", module, "--parent", str(os.getpid()), *limits.arguments()]
    return subprocess.Popen(command, stdin=stdin, stdout=stdout, stderr=stderr, cwd=folder,
                            env=environment(folder), start_new_session=True)


def _start(limits: Limits, folder: str, stderr: IO[bytes]) -> subprocess.Popen[bytes] | ForkedWorker:
    """A worker forked by the template where there is one, else spawned."""
    found = _the_template()
    if found is None:
        return _spawn(limits, folder, stderr)
    return ForkedWorker(found, limits, folder, stderr,
                        lambda stdin, stdout: _spawn(limits, folder, stderr, stdin, stdout))


def _cleanup(process: subprocess.Popen[bytes] | ForkedWorker, folder: str, stderr: IO[bytes]) -> None:
    if process.poll() is None:
        with contextlib.suppress(OSError):
            process.kill()
        process.wait()
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    stderr.close()
    shutil.rmtree(folder, ignore_errors=True)


class WorkerProcess:
    """A started worker. Spawning does not wait for it: the first `receive` does."""

    def __init__(self, limits: Limits, module: str = "tensorscope.worker") -> None:
        """`module` is what the child runs (`python -m module`); a test may run a probe that
        enters the same confinement (see tensorscope.worker.__main__.confine)."""
        global _swept
        if not _swept:
            _swept = True
            sweep_orphans()
        self.limits = limits
        self.folder = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed with the worker (_cleanup)
        self.process = (_start(limits, self.folder, self.stderr) if module == "tensorscope.worker"
                        else _spawn(limits, self.folder, self.stderr, module=module))
        self._finalizer = weakref.finalize(self, _cleanup, self.process, self.folder, self.stderr)
        _running.add(self)
        self._buffer = bytearray()
        self._scanned = 0
        self.decoder = codec.SnapshotDecoder()
        self.info: dict[str, Any] | None = None

    # ------------------------------------------------------------------ messages
    def send(self, message: dict[str, Any]) -> None:
        """Write a request; a worker that is gone shows up at the next `receive`."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(codec.dumps(message))
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def receive(self, deadline: float | None, wake: int | None = None) -> dict[str, Any]:
        """The next message, or Stopped when the deadline passes, `wake` becomes readable, or the
        worker ends."""
        assert self.process.stdout is not None
        if isinstance(self.process, ForkedWorker):
            self.process.start()
        fd = self.process.stdout.fileno()
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[:end + 1]
                self._scanned = 0
                message = codec.loads(line)
                if "ready" in message:
                    self.info = message["ready"]
                    continue
                return message
            self._scanned = len(self._buffer)
            if self._scanned > MAX_REPLY_BYTES:
                raise Stopped("large")
            timeout = None if deadline is None else deadline - time.monotonic()
            if timeout is not None and timeout <= 0:
                raise Stopped("time")
            watched = [fd] if wake is None else [fd, wake]
            try:
                readable, _, _ = select.select(watched, [], [], timeout)
            except InterruptedError:
                continue
            if wake is not None and wake in readable:
                raise Stopped("interrupt")
            if fd in readable:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise Stopped("died")
                self._buffer += chunk

    # ------------------------------------------------------------------ ending
    def kill(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(OSError):
                self.process.kill()
        self.process.wait()

    def cause_of_death(self) -> tuple[str, str]:
        """(error type, what happened) for a worker that ended by itself."""
        code = self.process.wait()
        tail = self._stderr_tail()
        if any(sign in tail for sign in MEMORY_SIGNS):
            return "MemoryError", f"memory limit of {self.limits.memory_text} reached"
        if code < 0:
            number = -code
            if number == signal.SIGXCPU:
                return "WorkerCrash", f"CPU time limit of {self.limits.cpu_seconds} s reached"
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            what = SIGNAL_NAMES.get(number)
            return "WorkerCrash", f"the worker crashed ({name}, {what})" if what else f"the worker crashed ({name})"
        return "WorkerCrash", f"the worker exited with status {code}"

    def _stderr_tail(self) -> bytes:
        try:
            self.stderr.seek(0, os.SEEK_END)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - 4096))
            return self.stderr.read()
        except (OSError, ValueError):
            return b""

    def startup_problem(self) -> str:
        """Why a worker that died before answering could not start (the last line it wrote)."""
        lines = [line for line in self._stderr_tail().decode("utf-8", "replace").splitlines() if line.strip()]
        return lines[-1] if lines else self.cause_of_death()[1]

    def close(self) -> None:
        """Ask the worker to exit, then make sure it has; remove its folder."""
        if self.process.poll() is None:
            self.send({"op": "close"})
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=1)
        self._finalizer()
