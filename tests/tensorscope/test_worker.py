"""WorkerSession: the Session interface over a worker process, with the same snapshots as the
in-process Session, JSON on the wire, and a worker that leaves nothing behind."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest

from tensorscope.interpreter import UserError
from tensorscope.session import Session
from tensorscope.worker import codec
from tensorscope.worker.client import WorkerSession, WorkerStarter
from tensorscope.worker.limits import Limits
from tensorscope.worker.process import environment, package_root, sweep_orphans

STORY = """import torch
x = torch.ones(2, 3, requires_grad=True)
y = x.sigmoid()
v = y[0]
y.add_(1)
print(v)
y.sum().backward()
g = torch.zeros(4, device='cuda')
import numpy as np
a = np.arange(3.)
t = torch.from_numpy(a)
"""


@pytest.fixture
def worker():
    with WorkerSession(limits=Limits(memory_bytes=1 << 30)) as session:
        yield session


def test_a_worker_session_gives_the_same_snapshots_as_one_in_process(worker) -> None:
    here = Session()
    here.run(STORY)
    worker.run(STORY)
    assert [s.snapshot for s in worker.steps] == [s.snapshot for s in here.steps]
    assert worker.sources() == here.sources()
    assert worker.export_script() == here.export_script()
    assert worker.export_scenario("t") == here.export_scenario("t")


def test_a_syntax_error_raises_and_runs_nothing(worker) -> None:
    with pytest.raises(UserError) as caught:
        worker.run("x = 1\ny = (")
    assert caught.value.info.type == "SyntaxError"
    assert worker.steps == []


def test_undo_replays_all_but_the_last_statement(worker) -> None:
    worker.run("import torch\nx = torch.ones(2)\nx.add_(1)")
    assert worker.undo() is worker
    assert worker.sources() == ["import torch", "x = torch.ones(2)"]
    worker.run("print(x._version)")
    assert worker.last.output == "0"


def test_completion_comes_from_the_workers_namespace(worker) -> None:
    worker.run("import torch\nxs = torch.ones(2)")
    assert "xs" in worker.complete("x")
    assert "torch.zeros_like" in worker.complete("torch.zeros")
    assert "xs.add_" in worker.complete("xs.ad")


def test_the_memory_snapshot_is_written_by_the_front_end(worker, tmp_path: Path) -> None:
    worker.run("import torch\nx = torch.ones(256, device='cuda')")
    out = tmp_path / "memory.pickle"
    worker.dump_memory_snapshot(str(out))
    here = Session()
    here.run("import torch\nx = torch.ones(256, device='cuda')")
    assert pickle.loads(out.read_bytes())["segments"] == pickle.loads(here.memory_snapshot_bytes())["segments"]


def test_the_worker_runs_in_a_private_folder_that_is_removed(worker) -> None:
    worker.run("import torch")
    process = worker._worker
    folder = Path(process.folder)
    assert folder.is_dir() and list(folder.iterdir()) == []
    assert Path(f"/proc/{process.process.pid}/cwd").resolve() == folder.resolve()
    worker.close()
    assert not folder.exists()
    assert process.process.poll() is not None


def test_the_worker_environment_is_scrubbed_and_finds_our_code() -> None:
    env = environment("/private")
    assert env["PYTHONPATH"] == package_root()
    assert (Path(package_root()) / "tensorscope" / "__init__.py").is_file()
    assert (Path(package_root()) / "engine" / "__init__.py").is_file()
    assert env["OPENBLAS_NUM_THREADS"] == env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"] == "1"
    assert env["HOME"] == env["TMPDIR"] == "/private"
    assert env["NUMPY_MADVISE_HUGEPAGE"] == "0"  # large arrays in ordinary pages: no compaction at first touch
    assert not {"PATH", "USER", "SSH_AUTH_SOCK"} & set(env)


def test_the_worker_has_its_limits(worker) -> None:
    worker.run("import torch")
    pid = worker.isolation["pid"]
    limits = {line[:26].strip(): line[26:].split() for line in Path(f"/proc/{pid}/limits").read_text().splitlines()}
    assert limits["Max address space"][:2] == ["1073741824", "1073741824"]
    assert limits["Max core file size"][:2] == ["0", "0"]
    assert limits["Max open files"][:2] == ["64", "64"]
    assert limits["Max cpu time"][:2] == ["3600", "3600"]


def test_the_worker_has_no_network_where_the_kernel_allows_it(worker) -> None:
    worker.run("import torch")
    pid = worker.isolation["pid"]
    if not worker.isolation["network_isolated"]:
        pytest.skip("this kernel does not let an unprivileged process make a network namespace")
    assert os.readlink(f"/proc/{pid}/ns/net") != os.readlink("/proc/self/ns/net")


def test_the_wire_is_json_and_carries_only_what_changed() -> None:
    here = Session()
    here.run(STORY)
    encoder, decoder = codec.SnapshotEncoder(), codec.SnapshotDecoder()
    sent = [codec.dumps({"step": encoder.encode(step.snapshot)}) for step in here.steps]
    records = [json.loads(line)["step"] for line in sent]
    assert list(records[3]["objects"]["set"]) == ["v"]  # `v = y[0]` changes nothing of x and y
    assert records[5]["objects"] == codec.UNCHANGED and records[5]["graph"] == codec.UNCHANGED  # print(v)
    assert [decoder.decode(record) for record in records] == [step.snapshot for step in here.steps]
    assert all(line.isascii() and line.endswith(b"\n") and line.count(b"\n") == 1 for line in sent)


def test_a_starter_hands_out_fresh_workers_one_ahead() -> None:
    with WorkerStarter(Limits(memory_bytes=1 << 30)) as starter:
        with starter.session(time_limit=3.0) as first:
            first.run("import torch\ntorch.set_default_dtype(torch.float64)")
            assert first.limits.time_limit == 3.0
        with starter.session(cuda=False) as second:
            second.run("import torch\nprint(torch.get_default_dtype(), torch.cuda.is_available())")
            assert second.last.output == "torch.float32 False"


def test_folders_left_by_front_ends_that_died_are_swept(tmp_path: Path) -> None:
    dead = tmp_path / "tensorscope-worker-999999999-abc"
    alive = tmp_path / f"tensorscope-worker-{os.getpid()}-abc"
    other = tmp_path / "unrelated-999999999"
    for folder in (dead, alive, other):
        folder.mkdir()
    sweep_orphans(str(tmp_path))
    assert not dead.exists() and alive.exists() and other.exists()


def test_rewind_goes_back_to_any_step(worker) -> None:
    worker.run("import torch\nx = torch.ones(2)\nx.add_(1)\nx.add_(1)\ny = x * 2")
    assert worker.rewind(3) is worker and worker.sources() == ["import torch", "x = torch.ones(2)", "x.add_(1)"]
    worker.run("print(x._version, 'y' in dir())")
    assert worker.last.output == "1 False"
    here = Session()
    here.run("import torch\nx = torch.ones(2)\nx.add_(1)")
    assert here.rewind(2).sources() == ["import torch", "x = torch.ones(2)"]


def test_each_step_is_handed_over_as_it_arrives(worker) -> None:
    seen = []
    steps = worker.run("import torch\nx = torch.ones(2)\ny = x * 2", seen.append)
    assert seen == steps and [s.statement.source for s in seen] == ["import torch", "x = torch.ones(2)", "y = x * 2"]
