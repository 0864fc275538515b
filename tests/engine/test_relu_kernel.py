"""relu and relu_: torch's values bit for bit (-0. and signed NaN kept), and relu_ really in place.

The memory tests count what numpy allocates (numpy reports its buffers to tracemalloc) while relu_
runs on an 8 MB tensor: in place means next to nothing, a full-size temporary would show as
megabytes. Each runs on the fast path and on the exact path other np.maximum loops would take.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import engine
from engine.kernels import relu as relu_kernels

SPECIALS = [-0.0, 0.0, np.nan, -np.nan, -1.0, 2.0, -np.inf, np.inf, -1e-45, 1e-45, -3.5]


@pytest.fixture(params=["fast", "exact"])
def path(request, monkeypatch):
    """Run the test once as this machine's np.maximum allows and once on the exact path."""
    if request.param == "exact":
        monkeypatch.setattr(relu_kernels, "maximum_keeps_negative_zero", lambda dtype: False)
        monkeypatch.setattr(relu_kernels, "_fast_zeros", {})  # what the probe said before
    return request.param


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def _values(dtype: str, size: int) -> np.ndarray:
    """Random values with the special ones spread through them (and at the end, in a vector's tail)."""
    x = np.random.default_rng(3).standard_normal(size).astype(dtype)
    spread = np.resize(np.array(SPECIALS, dtype=dtype), size)
    x[::3] = spread[::3]
    x[-min(size, len(SPECIALS)):] = SPECIALS[:size]
    return x


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("size", [1, 7, 33, relu_kernels.CHUNK + 5])
def test_relu_and_relu_match_torch_bit_for_bit(torch, path, dtype, size):
    x = _values(dtype, size)
    expected = torch.relu(torch.from_numpy(x.copy())).numpy()
    assert np.array_equal(_bits(engine.relu(engine.from_numpy(x.copy())).numpy()), _bits(expected))
    in_place = engine.from_numpy(x.copy())
    engine.relu_(in_place)
    assert np.array_equal(_bits(in_place.numpy()), _bits(expected))


def test_relu_of_a_strided_view_writes_only_the_view(torch, path):
    x = _values("float32", 600).reshape(20, 30)
    ours, theirs = engine.from_numpy(x.copy()), torch.from_numpy(x.copy())
    engine.relu_(ours[:, ::3])
    torch.relu_(theirs[:, ::3])
    assert np.array_equal(_bits(ours.numpy()), _bits(theirs.numpy()))


def test_relu_keeps_negative_zero_and_signed_nan():
    out = engine.relu(engine.tensor([-0.0, float("nan"), -float("nan"), -1.0, 3.0])).numpy()
    assert list(np.signbit(out)) == [True, False, True, False, False]
    assert list(np.isnan(out)) == [False, True, True, False, False]


def _peak_allocated(run) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("requires_grad", [False, True])
def test_relu_in_place_allocates_under_five_percent_of_the_tensor(path, requires_grad):
    x = engine.from_numpy(_values("float32", 2_000_000).reshape(1000, 2000))
    if requires_grad:
        x = (x.requires_grad_() * 1).detach().requires_grad_() * 1  # a non-leaf: relu_ is allowed
    relu_kernels.maximum_keeps_negative_zero(np.dtype("float32"))  # the one-off probe is not relu_'s cost
    peak = _peak_allocated(lambda: engine.relu_(x))
    assert peak < 0.05 * x.numel() * x.element_size(), f"relu_ allocated {peak} bytes"


def test_relu_allocates_its_result_and_little_more(path):
    x = engine.from_numpy(_values("float32", 2_000_000))
    relu_kernels.maximum_keeps_negative_zero(np.dtype("float32"))
    size = x.numel() * x.element_size()
    peak = _peak_allocated(lambda: engine.relu(x))
    assert size <= peak < 1.05 * size, f"relu allocated {peak} bytes for a {size}-byte result"


def test_paddle_relu_and_relu_match_paddle_bit_for_bit():
    paddle = pytest.importorskip("paddle")
    import engine.paddle as ours

    x = _values("float32", 4 * len(SPECIALS) + 5)
    for name in ("relu", "relu_"):
        expected = getattr(paddle.nn.functional, name)(paddle.to_tensor(x.copy())).numpy()
        got = getattr(ours.nn.functional, name)(ours.to_tensor(x.copy())).numpy()
        assert np.array_equal(_bits(got), _bits(expected)), name


def test_paddle_relu_in_place_allocates_nothing_full_size():
    import engine.paddle as ours

    x = ours.to_tensor(_values("float32", 2_000_000))
    peak = _peak_allocated(lambda: ours.nn.functional.relu_(x))
    assert peak < 0.05 * 8_000_000, f"relu_ allocated {peak} bytes"
