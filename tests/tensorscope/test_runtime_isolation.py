"""Two sessions in one process never disturb each other: each owns the engine's runtime state
(random generator, simulated device, grad mode, default dtype, allocator, Paddle counters)."""

from __future__ import annotations

import engine
from engine import allocator as allocation
from engine.runtime import Runtime
from tensorscope.session import Session


def values(session: Session, name: str) -> list:
    return session.last.objects[name].values if session.last else []


def test_interleaved_sessions_keep_their_own_random_streams() -> None:
    alone = Session()
    alone.run("import torch\ntorch.manual_seed(0)\na = torch.randn(2)\nb = torch.randn(2)\nc = torch.rand(2)")
    first, second = Session(), Session()
    first.run("import torch\ntorch.manual_seed(0)")
    second.run("import torch\ntorch.manual_seed(0)\nzz = torch.randn(5)")  # draws in between
    first.run("a = torch.randn(2)")
    second.run("torch.manual_seed(7)")
    first.run("b = torch.randn(2)")
    Session()  # a third session made meanwhile does not reseed anything
    first.run("c = torch.rand(2)")
    for name in "abc":
        assert values(first, name) == values(alone, name)


def test_unseeded_sessions_start_from_the_same_fresh_generator() -> None:
    first, second = Session(), Session()
    first.run("import torch\na = torch.randn(3)")
    second.run("import torch\nwarm = torch.randn(100)")
    first.run("b = torch.randn(3)")
    fresh = Session()
    fresh.run("import torch\na = torch.randn(3)\nb = torch.randn(3)")
    assert values(first, "a") == values(fresh, "a") and values(first, "b") == values(fresh, "b")


def test_device_figures_belong_to_their_session() -> None:
    first, second = Session(), Session()
    first.run("import torch\nx = torch.ones(1024, device='cuda')\nm = torch.cuda.memory_allocated()")
    second.run("import torch\nprint(torch.cuda.memory_allocated())")
    assert second.last.output == "0"
    first.run("print(torch.cuda.memory_allocated())")
    assert first.last.output == "4096"
    del first
    second.run("print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())")
    assert second.last.output == "0 0"


def test_grad_mode_and_default_dtype_stay_in_their_session() -> None:
    first, second = Session(), Session()
    first.run("import torch\ntorch.set_grad_enabled(False)\ntorch.set_default_dtype(torch.float64)")
    second.run("import torch\nprint(torch.is_grad_enabled(), torch.get_default_dtype())\nt = torch.ones(2)")
    assert second.steps[1].snapshot.output == "True torch.float32"
    assert second.last.objects["t"].dtype == "float32"
    first.run("print(torch.is_grad_enabled(), torch.get_default_dtype())\nt = torch.ones(2)")
    assert first.steps[3].snapshot.output == "False torch.float64"
    assert first.last.objects["t"].dtype == "float64"
    assert engine.is_grad_enabled() and engine.get_default_dtype() is engine.float32  # outside: the default


def test_paddle_counters_and_place_are_per_session() -> None:
    first, second = Session(), Session()
    first.run("import paddle\na = paddle.to_tensor([1.0])\nprint(a.name)")
    second.run("import paddle\nb = paddle.to_tensor([1.0])\nprint(b.name)\npaddle.set_device('gpu')")
    first.run("c = paddle.to_tensor([2.0])\nprint(c.name, paddle.get_device())")
    assert second.steps[2].snapshot.output == "generated_tensor_0"
    assert first.last.output == "generated_tensor_1 cpu"


def test_memory_freed_while_another_session_runs_is_counted_where_it_was_allocated() -> None:
    first, second = Session(), Session()
    first.run("import torch\nbig = torch.ones(1000)")
    second.run("import torch\nsmall = torch.ones(10)")
    first.run("del big")  # freed in first's runtime...
    second.run("print(1)")
    assert second.last.memory.allocated_bytes == 40
    assert first.runtime.parts["engine.allocator.allocator"].live_bytes == 0


def test_outside_any_session_the_engine_works_on_its_default_runtime() -> None:
    before = allocation.allocator.live_bytes
    with Runtime().active():
        inside = engine.ones(100)
        assert allocation.allocator.live_bytes == 400
    assert allocation.allocator.live_bytes == before
    del inside  # freed in the runtime that allocated it, not in the default one
    assert allocation.allocator.live_bytes == before
    engine.manual_seed(3)
    drawn = engine.randn(2).tolist()
    engine.manual_seed(3)
    assert engine.randn(2).tolist() == drawn
