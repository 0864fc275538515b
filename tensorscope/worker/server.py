"""The worker's side: one Session, driven by JSON requests on stdin, answered on a private pipe.

Requests (one JSON object per line) and what comes back:

- `open {options}`: a fresh Session -> `{"ok": true}`
- `run {source}`: `{"statements": [...]}` (or `{"syntax": [type, message]}`), then `{"step": snapshot}`
  after each statement, then `{"done": true}`; the front end times each statement from the message
  before it
- `replay {steps}`: a fresh Session that runs the given statements again (a stopped one is recorded,
  not run) -> `{"replayed": i}` after each, then `{"done": true}`
- `stopped {statement, error}`: record a statement the front end stopped -> `{"step": snapshot}`
- `complete {word}` -> `{"candidates": [...]}`
- `memory_snapshot` (`filename`: what the frames name) -> `{"pickle": base64}` (bytes the front
  end writes to a file, never loads)
- `close`: the worker exits.

A failure of the worker's own code answers `{"failure": text}`; user code never gets that far (the
interpreter turns its errors into the snapshot's `error`).
"""

from __future__ import annotations

import base64
import os
import sys
import traceback
from dataclasses import replace
from typing import IO, Any

from tensorscope.interpreter import ErrorInfo, UserError, parse
from tensorscope.session import Session, Step
from tensorscope.snapshot import Snapshot
from tensorscope.worker import codec


class Server:
    def __init__(self, replies: IO[bytes], memory_limit: str = "") -> None:
        self.replies = replies
        self.memory_limit = memory_limit
        self.session = Session(history=False)
        self.encoder = codec.SnapshotEncoder()

    def send_step(self, snapshot: Snapshot) -> None:
        """A step's snapshot; a MemoryError from numpy or Python says which limit it hit."""
        error = snapshot.error
        if self.memory_limit and error is not None and error.type == "MemoryError" and "limit" not in error.message:
            reached = f"memory limit of {self.memory_limit} reached"
            snapshot = replace(snapshot, error=ErrorInfo("MemoryError", f"{reached} ({error.message})"
                                                         if error.message else reached))
        self.reply({"step": self.encoder.encode(snapshot)})

    def reply(self, message: dict[str, Any]) -> None:
        self.replies.write(codec.dumps(message))
        self.replies.flush()

    def handle(self, request: dict[str, Any]) -> bool:
        """Answer one request; False when the worker should exit."""
        op = request.get("op")
        if op == "close":
            return False
        handler = getattr(self, f"do_{op}", None)
        if handler is None:
            self.reply({"failure": f"unknown request {op!r}"})
            return True
        try:
            handler(request)
        except Exception as exc:  # noqa: BLE001 - a bug of ours: say it, keep serving
            line = traceback.format_exception_only(type(exc), exc)[-1].strip()
            self.reply({"failure": f"internal error in the worker: {line}"})
        return True

    def do_open(self, request: dict[str, Any]) -> None:
        self.session = Session(**request.get("options", {}), history=False)
        self.reply({"ok": True})

    def do_run(self, request: dict[str, Any]) -> None:
        try:
            statements = parse(request["source"])
        except UserError as exc:
            self.reply({"syntax": codec.error_record(exc.info)})
            return
        self.reply({"statements": [codec.statement_record(s) for s in statements]})
        for statement in statements:
            self.send_step(self.session.run_statement(statement).snapshot)
        self.reply({"done": True})

    def do_replay(self, request: dict[str, Any]) -> None:
        self.session = Session(**request.get("options", {}), history=False)
        for index, (statement, error) in enumerate(request["steps"]):
            stopped = codec.error_from(error)
            if stopped is None:
                self.session.run_statement(codec.statement_from(statement))
            else:
                self.session.record_stopped(codec.statement_from(statement), stopped)
            self.reply({"replayed": index})
        self.reply({"done": True})

    def do_stopped(self, request: dict[str, Any]) -> None:
        error = codec.error_from(request["error"])
        assert error is not None
        step: Step = self.session.record_stopped(codec.statement_from(request["statement"]), error)
        self.send_step(step.snapshot)

    def do_complete(self, request: dict[str, Any]) -> None:
        self.reply({"candidates": self.session.complete(str(request.get("word", "")))})

    def do_memory_snapshot(self, request: dict[str, Any]) -> None:
        data = self.session.memory_snapshot_bytes(str(request.get("filename", "<session>")))
        self.reply({"pickle": base64.b64encode(data).decode("ascii")})


def serve(requests: IO[bytes], replies: IO[bytes], isolation: dict[str, bool] | None = None,
          memory_limit: str = "") -> int:
    """Serve requests; the first reply says the worker is ready, with its pid and its isolation
    (`network_isolated`, `files_isolated`: see worker.limits)."""
    server = Server(replies, memory_limit)
    server.reply({"ready": {"pid": os.getpid(), **(isolation or {})}})
    for line in requests:
        try:
            request = codec.loads(line)
        except ValueError as exc:
            server.reply({"failure": f"unreadable request: {exc}"})
            continue
        if not server.handle(request):
            break
    return 0


def confine(memory_bytes: int, network_isolated: bool) -> tuple[int, dict[str, bool]]:
    """The rest of the worker's confinement, once its limits are applied (`memory_bytes` is the
    address-space limit): replies get a descriptor of their own and fd 1 points at stderr, so that
    nothing printed by C code can corrupt the reply stream; the engine's budget; then Landlock.
    Returns the replies' descriptor and the isolation the OS granted."""
    from engine import allocator
    from tensorscope.worker import limits
    from tensorscope.worker.process import package_root

    replies_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # The engine refuses tensors past what the address space leaves, with PyTorch's error,
    # before numpy would fail; the rest is headroom for temporaries inside ops.
    room = memory_bytes - limits.address_space_bytes()
    allocator.set_budget(min(allocator.Allocator.budget_bytes, max(room - max(64 << 20, room // 8), 0)))
    files_isolated = limits.confine_files(package_root())
    return replies_fd, {"network_isolated": network_isolated, "files_isolated": files_isolated}


def start(memory_bytes: int, network_isolated: bool) -> int:
    """Serve a session on stdin, under limits applied already (a worker forked by the template)."""
    from tensorscope.worker import limits

    replies_fd, isolation = confine(memory_bytes, network_isolated)
    return main(replies_fd, isolation, limits.size_text(memory_bytes))


def main(replies_fd: int, isolation: dict[str, bool], memory_limit: str) -> int:
    """Serve on stdin; replies go to `replies_fd` (fd 1 already points at stderr)."""
    replies = os.fdopen(replies_fd, "wb", buffering=1 << 16)
    return serve(sys.stdin.buffer, replies, isolation, memory_limit)
