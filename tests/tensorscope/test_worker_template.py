"""Workers fork from one template process per front end: each is a fresh process with its own
limits, the template runs no user code and ends with its front end, and without a template (or
when it fails) workers start on their own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tensorscope.worker import process, template
from tensorscope.worker.client import WorkerSession
from tensorscope.worker.limits import GIB, Limits, landlock_abi

pytestmark = pytest.mark.skipif(not template.available(), reason="the template process is Linux only")


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def address_space_limit(pid: int) -> str:
    line = next(line for line in Path(f"/proc/{pid}/limits").read_text().splitlines()
                if line.startswith("Max address space"))
    return line[26:].split()[0]


def max_processes(pid: int) -> str:
    line = next(line for line in Path(f"/proc/{pid}/limits").read_text().splitlines()
                if line.startswith("Max processes"))
    return line[26:].split()[0]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_each_session_gets_a_fresh_fork_of_the_template_with_its_own_limits() -> None:
    with WorkerSession(limits=Limits(memory_bytes=GIB)) as first, \
            WorkerSession(limits=Limits(memory_bytes=2 * GIB)) as second:
        first.run("import torch\nonly_here = torch.ones(2)")
        second.run("import torch")
        assert second.run("print('only_here' in dir())")[-1].snapshot.output == "False"
        one, two = first.isolation["pid"], second.isolation["pid"]
        the_template = process._template
        assert the_template is not None and the_template.ready is not None
        assert one != two and parent_of(one) == parent_of(two) == the_template.process.pid
        assert address_space_limit(one) == str(GIB) and address_space_limit(two) == str(2 * GIB)
        assert len(os.listdir(f"/proc/{the_template.process.pid}/task")) == 1


def test_a_forked_worker_enters_the_same_confinement_as_one_started_on_its_own() -> None:
    with WorkerSession() as worker:
        worker.run("import torch")
        assert parent_of(worker.isolation["pid"]) == process._template.process.pid
        assert worker.isolation["files_isolated"] == (landlock_abi() > 0)
        assert worker.isolation["network_isolated"] == process._template.ready["network_isolated"]
        assert max_processes(worker.isolation["pid"]) == "0"


def test_numpy_s_unseeded_stream_differs_between_workers_as_between_processes() -> None:
    draws = []
    for _ in range(2):
        with WorkerSession() as worker:
            worker.run("import numpy as np")
            draws.append(worker.run("print(np.random.randint(0, 2**30))")[-1].snapshot.output)
    assert draws[0] != draws[1]


def test_a_worker_killed_behind_the_front_end_s_back_is_replaced_and_replayed() -> None:
    with WorkerSession() as worker:
        worker.run("import torch\nx = torch.arange(3.)")
        os.kill(worker.isolation["pid"], signal.SIGKILL)
        step = worker.run("y = x * 2")[-1]
        assert step.stopped and step.snapshot.error.message.startswith("the worker crashed (SIGKILL")
        assert worker.run("print(x.tolist())")[-1].snapshot.output == "[0.0, 1.0, 2.0]"


def test_when_the_template_dies_its_workers_die_and_a_new_template_takes_over() -> None:
    with WorkerSession() as worker:
        worker.run("import torch\nx = torch.arange(3.)")
        old_worker, old_template = worker.isolation["pid"], process._template
        assert old_template is not None
        old_template.process.kill()
        old_template.process.wait()
        deadline = time.monotonic() + 10
        while alive(old_worker) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not alive(old_worker)
        step = worker.run("y = x * 2")[-1]
        assert step.stopped  # it died with the template
        assert worker.run("print(x.tolist())")[-1].snapshot.output == "[0.0, 1.0, 2.0]"
        assert process._template is not old_template and parent_of(worker.isolation["pid"]) == \
            process._template.process.pid


def test_without_a_template_workers_start_on_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process, "_template_refused", True)
    with WorkerSession() as worker:
        worker.run("import torch\nx = torch.ones(2)")
        assert parent_of(worker.isolation["pid"]) == os.getpid()


FRONT_END = """
import sys
from tensorscope.worker import process
from tensorscope.worker.client import WorkerSession
worker = WorkerSession()
worker.run("import torch")
print(process._template.process.pid, worker.isolation["pid"], flush=True)
sys.stdin.read()
"""


def test_the_template_and_its_workers_end_with_their_front_end() -> None:
    front = subprocess.Popen([sys.executable, "-c", FRONT_END], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, cwd=Path(__file__).resolve().parents[2])
    try:
        template_pid, worker_pid = map(int, front.stdout.readline().split())
        assert alive(template_pid) and alive(worker_pid)
        front.kill()  # no cleanup runs: the kernel's parent-death signal ends them
        front.wait()
        deadline = time.monotonic() + 10
        while (alive(template_pid) or alive(worker_pid)) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not alive(template_pid) and not alive(worker_pid)
    finally:
        front.kill()
        front.wait()


def test_a_template_that_cannot_start_leaves_workers_to_start_on_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    real_init = template.Template.__init__

    def broken(self: template.Template, environment: dict[str, str], folder: str) -> None:
        real_init(self, {**environment, "PYTHONHASHSEED": "not a number"}, folder)  # python refuses to start

    monkeypatch.setattr(template.Template, "__init__", broken)
    monkeypatch.setattr(process, "_template", None)
    monkeypatch.setattr(process, "_template_refused", False)
    for _ in range(2):
        with WorkerSession() as worker:
            worker.run("import torch\nx = torch.ones(2)")
            assert parent_of(worker.isolation["pid"]) == os.getpid()
    assert process._template_refused
