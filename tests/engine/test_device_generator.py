"""The simulated CUDA device draws from a generator of its own, as a GPU does.

A GPU's values are curand's, never the CPU's; what programs can see, and what these tests pin, is
that draws on the device leave the CPU stream where it was, that seeding makes them repeat, and
that they are the distribution asked for.
"""

from __future__ import annotations

import pytest

import engine


@pytest.fixture(autouse=True)
def _fresh_seed():
    engine.manual_seed(0)


def test_drawing_on_the_device_leaves_the_cpu_stream_alone():
    expected = engine.randn(8)
    engine.manual_seed(0)
    engine.randn(1000, device="cuda")
    engine.rand(10, device="cuda")
    engine.empty(5, device="cuda").normal_()
    assert engine.equal(engine.randn(8), expected)


def test_manual_seed_makes_device_draws_repeat():
    first = engine.randn(100, device="cuda").cpu()
    engine.manual_seed(0)
    assert engine.equal(engine.randn(100, device="cuda").cpu(), first)
    engine.cuda.manual_seed(5)
    other = engine.randn(100, device="cuda").cpu()
    engine.cuda.manual_seed(5)
    assert engine.equal(engine.randn(100, device="cuda").cpu(), other)
    assert not engine.equal(other, first)
    assert engine.cuda.initial_seed() == 5


@pytest.mark.parametrize("dtype", [engine.float32, engine.float64, engine.float16, engine.bfloat16])
def test_device_draws_have_the_distribution_and_dtype_asked_for(dtype):
    normal = engine.empty(200_000, device="cuda", dtype=dtype).normal_(2.0, 3.0)
    assert normal.dtype is dtype and normal.device.type == "cuda"
    assert abs(float(normal.float().mean()) - 2.0) < 0.05
    assert abs(float(normal.float().std()) - 3.0) < 0.05
    uniform = engine.rand(200_000, device="cuda", dtype=dtype).double()
    assert float(uniform.min()) >= 0 and float(uniform.max()) < 1
    assert abs(float(uniform.mean()) - 0.5) < 0.01


def test_uniform_bounds_on_the_device():
    values = engine.empty(100_000, device="cuda").uniform_(-2.0, 5.0).cpu()
    assert float(values.min()) >= -2 and float(values.max()) < 5


@pytest.mark.parametrize("n", [1, 2, 3, 17])
def test_device_normals_of_any_count(n):
    values = engine.randn(n, device="cuda")
    assert values.shape == (n,) and bool(engine.isfinite(values).all())
