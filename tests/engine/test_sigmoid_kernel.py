"""float32 sigmoid equals torch's bit for bit: SLEEF's exp replayed on the vector part of each run,
the scalar loop on the tail (n % 32), NaN as torch makes it; views and in place too."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.kernels.sigmoid import VECTOR_STEP, sigmoid_float32


@pytest.fixture(scope="module")
def torch1(torch):
    """torch on one thread: with more, each thread's share has a scalar tail of its own."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield torch
    torch.set_num_threads(threads)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint32)


@pytest.mark.parametrize("scale", [0.5, 3.0, 30.0])
@pytest.mark.parametrize("size", [1, VECTOR_STEP - 1, VECTOR_STEP, VECTOR_STEP + 5, 20_011, 70_000])
def test_sigmoid_of_random_values_is_torchs_bit_for_bit(torch1, size, scale):
    x = (np.random.default_rng(size).standard_normal(size) * scale).astype(np.float32)
    expected = torch1.sigmoid(torch1.from_numpy(x)).numpy()
    assert np.array_equal(_bits(engine.sigmoid(engine.from_numpy(x)).numpy()), _bits(expected))
    in_place = engine.from_numpy(x.copy())
    in_place.sigmoid_()
    assert np.array_equal(_bits(in_place.numpy()), _bits(expected))


def test_special_values_as_torch_gives_them(torch1):
    specials = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 88.7, -88.7, 104.0, -104.0, 1e-30, 3e38, -3e38]
    x = np.resize(np.array(specials, np.float32), 3 * VECTOR_STEP + 7)
    expected = torch1.sigmoid(torch1.from_numpy(x)).numpy()
    assert np.array_equal(_bits(sigmoid_float32(x)), _bits(expected))
    in_place = x.copy()
    sigmoid_float32(in_place, out=in_place)
    assert np.array_equal(_bits(in_place), _bits(expected))


def test_a_zero_dim_tensor_in_place(torch1):
    x = engine.tensor(-1.5)
    x.sigmoid_()
    assert _bits(x.numpy()) == _bits(torch1.tensor(-1.5).sigmoid_().numpy())


@pytest.mark.parametrize("view", ["t", "first_columns", "strided_rows", "every_other", "3d"])
def test_views_run_row_by_row_as_tensor_iterator_does(torch1, view):
    """The scalar tails (and an all-strided last dimension) use the C library's expf, replayed."""
    x = (np.random.default_rng(7).standard_normal((300, 200)) * 3).astype(np.float32)
    pick = {"t": lambda a: a.t(),
            "first_columns": lambda a: a[:, :100], "strided_rows": lambda a: a[::2, 3:77],
            "every_other": lambda a: a[:, ::2], "3d": lambda a: a.reshape(3, 100, 200)[:, :, 5:50]}[view]
    expected = _bits(torch1.sigmoid(pick(torch1.from_numpy(x))).numpy())
    ours = _bits(engine.sigmoid(pick(engine.from_numpy(x))).numpy())
    assert np.array_equal(ours, expected)


@pytest.mark.parametrize("shape", [(), (0,), (1,), (4, 4), (2, 3, 5), (VECTOR_STEP - 1,)])
def test_small_tensors_take_the_scalar_loop_whole(torch1, shape):
    """Fewer elements than a pair of vectors: torch runs only the scalar loop, and so does the
    engine's short path (a new array in a few numpy calls); special values included."""
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 88.7, -88.7, 104.0, -104.0, 1e-30, 3e38,
                         -3e38, 0.25, -2.5, 7.0], np.float32)
    x = np.resize(specials, shape)
    expected = torch1.from_numpy(x.copy()).sigmoid().numpy()
    assert np.array_equal(_bits(engine.from_numpy(x.copy()).sigmoid().numpy()), _bits(expected))
    assert np.array_equal(_bits(sigmoid_float32(x)), _bits(expected))


def test_small_random_tensors_as_torch_computes_them(torch1):
    """glibc's expf, which torch's scalar loop calls, is not always the nearest float: here about
    one random 4x4 tensor in 250 would have an element an ulp off if the engine rounded numpy's exp."""
    generator = np.random.default_rng(15)
    for scale in (0.5, 3.0, 30.0):
        x = (generator.standard_normal((1000, 4, 4)) * scale).astype(np.float32)
        for a in x:
            expected = torch1.from_numpy(a.copy()).sigmoid().numpy()
            assert np.array_equal(_bits(engine.from_numpy(a.copy()).sigmoid().numpy()), _bits(expected))


def test_the_scalar_loop_over_the_whole_float_range(torch1):
    """Every kind of float (random bit patterns: huge, tiny, subnormal, NaN with payloads) through
    the scalar loop, which a strided last dimension takes in torch and in the engine."""
    bits = np.random.default_rng(16).integers(0, 2 ** 32, 400_000, dtype=np.uint64).astype(np.uint32)
    x = np.repeat(bits.view(np.float32), 2)
    expected = torch1.from_numpy(x)[::2].sigmoid().numpy()
    assert np.array_equal(_bits(engine.from_numpy(x)[::2].sigmoid().numpy()), _bits(expected))


def test_every_kind_of_float_through_the_vector_loop(torch1):
    """Random bit patterns (huge, tiny, subnormal, NaN with payloads, signaling ones quieted) over
    SLEEF's replay, whose first four multiply-adds round on a fixed float32 step."""
    bits = np.random.default_rng(17).integers(0, 2 ** 32, 400_000, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    expected = torch1.sigmoid(torch1.from_numpy(x)).numpy()
    assert np.array_equal(_bits(sigmoid_float32(x)), _bits(expected))


def test_the_polynomial_s_first_steps_stay_in_their_binades():
    """fma(u, s, c) for the first four coefficients stays in c's binade over the whole reduced
    range |s| < 0.35, which rounding on c's float32 step (the kernel's shortcut) relies on."""
    from engine.kernels.sigmoid import _POLY

    low = high = float(_POLY[0])
    for c in map(float, _POLY[1:5]):
        reach = 0.35 * max(abs(low), abs(high))
        low, high = c - reach, c + reach
        assert np.floor(np.log2(low)) == np.floor(np.log2(high)) == np.floor(np.log2(c)), c
