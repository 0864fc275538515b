"""The simulated CUDA device: tensors live on it, ops stay on it, and torch.cuda reports what a real
GPU's caching allocator would (the seeds' relu vs relu_ figures)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import engine as torch
import engine.nn.functional as F
from engine.allocator import allocator
from engine.cuda_allocator import OutOfMemoryError

MiB = 1024**2
SEED = Path(__file__).resolve().parents[1] / "data" / "seeds" / "cuda_001_01_relu_memory.py"


@pytest.fixture(autouse=True)
def fresh_device():
    torch.cuda.configure(enabled=True)
    yield
    torch.cuda.configure(enabled=True)


def test_tensors_and_results_stay_on_the_device():
    x = torch.ones(2, 3, device="cuda")
    y = (x * 2).sum(0)
    assert x.device == torch.device("cuda:0") and y.is_cuda and str(y.device) == "cuda:0"
    assert repr(y) == "tensor([4., 4., 4.], device='cuda:0')"
    assert x.t().device == x.device and x.cpu().device.type == "cpu"
    assert x.cuda() is x and x.to("cuda:0") is x


def test_moving_between_devices_copies_and_is_recorded():
    w = torch.ones(3, requires_grad=True)
    on_gpu = w.cuda()
    assert on_gpu.grad_fn.name() == "ToCopyBackward0"
    assert on_gpu.untyped_storage().data_ptr() != w.untyped_storage().data_ptr()
    (on_gpu * 3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0, 3.0] and w.grad.device.type == "cpu"


def test_mixing_devices_fails_as_torch_does():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, but found at least two "
                                           "devices, cuda:0 and cpu!"):
        torch.ones(2, device="cuda") + torch.ones(2)
    assert (torch.ones(2, device="cuda") + torch.tensor(1.0)).is_cuda  # a CPU scalar may join


def test_modules_move_their_parameters():
    layer = torch.nn.Linear(2, 1).cuda()
    assert layer.weight.is_cuda and isinstance(layer.weight, torch.nn.Parameter)
    out = layer(torch.ones(4, 2, device="cuda"))
    assert out.is_cuda


def test_relu_allocates_a_whole_382_mib_segment_and_relu_inplace_nothing():
    t = torch.zeros(10000, 10000, device="cuda")
    start = torch.cuda.memory_allocated()
    peak_start = torch.cuda.max_memory_allocated()
    out = F.relu(t)
    assert (torch.cuda.memory_allocated() - start) / MiB == 382.0
    assert (torch.cuda.max_memory_allocated() - peak_start) / MiB == 382.0
    del out
    start = torch.cuda.memory_allocated()
    F.relu_(t)
    assert torch.cuda.memory_allocated() == start


def test_the_seed_prints_what_a_gpu_prints():
    from tensorscope.session import Session

    steps = Session().run(SEED.read_text(encoding="utf-8"))
    printed = [s.snapshot.output for s in steps if s.snapshot.source.startswith("print(")]
    assert printed == ["Allocated memory: 382.0", "Allocated max memory: 382.0",
                       "Allocated memory: 0.0", "Allocated max memory: 0.0"]


def test_a_paddle_style_peak_measurement():
    x = torch.zeros(4096, 4096, device="cuda")
    torch.cuda.reset_peak_memory_stats()
    y = F.relu(x)
    assert torch.cuda.max_memory_allocated() == 134217728
    del y
    torch.cuda.reset_peak_memory_stats()
    F.relu_(x)
    assert torch.cuda.max_memory_allocated() == 67108864


def test_device_memory_costs_the_host_once():
    """The data of a device tensor is one host buffer: the host pays 400 MB once, not twice."""
    probe = (  # VmHWM: the peak RSS of this process image (ru_maxrss would inherit the parent's)
        "import re, engine\n"
        "def peak_kb():\n"
        "    return int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))\n"
        "base = peak_kb()\n"
        "t = engine.zeros(10000, 10000, device='cuda')\n"
        "t.add_(1)\n"
        "print((peak_kb() - base) // 1024)\n"
    )
    grown_mb = int(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout)
    assert 380 <= grown_mb < 500


def test_device_storages_are_not_host_memory():
    before = allocator.live_bytes
    t = torch.zeros(1000, device="cuda")
    assert allocator.live_bytes == before and allocator.device_bytes >= 4000
    del t


def test_a_small_card_runs_out_of_memory_like_pytorch():
    torch.cuda.configure(enabled=True, capacity_bytes=1024**3)
    keep = torch.empty(256, 1024, 1024, device="cuda")  # 1 GiB: the whole card
    with pytest.raises(OutOfMemoryError) as caught:
        torch.empty(1024, device="cuda")
    assert str(caught.value).startswith("CUDA out of memory. Tried to allocate 2.00 MiB.")
    assert isinstance(caught.value, RuntimeError) and keep.is_cuda


def test_a_tensor_larger_than_the_card_fails_on_the_card_even_when_the_host_cannot_hold_it(monkeypatch):
    from engine.allocator import Allocator

    torch.cuda.configure(enabled=True, capacity_bytes=1024**3)
    monkeypatch.setattr(Allocator, "budget_bytes", 512 * MiB)  # the host holds less than the card
    device_bytes = allocator.device_bytes
    with pytest.raises(OutOfMemoryError) as caught:
        torch.zeros(2 * 1024**3, dtype=torch.uint8, device="cuda")
    assert str(caught.value).startswith("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
                                        "of 1024.00 MiB")
    assert torch.cuda.memory_stats()["num_ooms"] == 1 and allocator.device_bytes == device_bytes


def test_a_tensor_the_card_holds_but_the_host_cannot_fails_on_the_host_and_leaves_the_card_untouched(monkeypatch):
    from engine.allocator import Allocator

    torch.cuda.configure(enabled=True, capacity_bytes=1024**3)
    monkeypatch.setattr(Allocator, "budget_bytes", 512 * MiB)
    with pytest.raises(RuntimeError, match="^DefaultCPUAllocator: not enough memory: you tried to allocate 805306368"):
        torch.zeros(768 * MiB, dtype=torch.uint8, device="cuda")
    stats = torch.cuda.memory_stats()
    assert stats["num_ooms"] == 0 and stats["allocated_bytes.all.peak"] == 0 and torch.cuda.memory_reserved() == 0


def test_without_the_device_cuda_is_unavailable_as_on_a_cpu_build():
    torch.cuda.configure(enabled=False)
    assert not torch.cuda.is_available()
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        torch.ones(2).cuda()
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        torch.cuda.memory_allocated()


def test_the_memory_snapshot_renders_with_torchs_own_visualiser(tmp_path, torch):  # noqa: F811
    from tensorscope.cli import main

    script = tmp_path / "relu.py"
    script.write_text("import torch\nx = torch.ones(1000, device='cuda')\ny = x.relu()\ndel y\n", encoding="utf-8")
    pickle_path, html = tmp_path / "mem.pickle", tmp_path / "mem.html"
    assert main(["replay", str(script), "--memory-snapshot", str(pickle_path)]) == 0
    done = subprocess.run([sys.executable, "-m", "torch.cuda._memory_viz", "trace_plot", str(pickle_path), "-o",
                           str(html)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert html.stat().st_size > 1000
