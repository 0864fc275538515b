"""Kernel tests: every forward output and gradient against real torch, plus torch-free checks.

Torch-backed tests take the `F` fixture, which skips them when torch is absent; the
finite-difference and erf tests run everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kernels.activation import (
    erf,
    gelu,
    gelu_backward,
    leaky_relu,
    leaky_relu_backward,
    log_softmax,
    log_softmax_backward,
    softmax,
    softmax_backward,
)
from engine.kernels.conv import conv2d_backward, conv2d_forward
from engine.kernels.loss import (
    binary_cross_entropy_backward,
    binary_cross_entropy_forward,
    binary_cross_entropy_with_logits_backward,
    binary_cross_entropy_with_logits_forward,
    mse_loss_backward,
    mse_loss_forward,
    nll_loss_backward,
    nll_loss_forward,
    nll_loss_prob_backward,
    nll_loss_prob_forward,
)
from engine.kernels.norm import (
    batch_norm_backward,
    batch_norm_forward,
    layer_norm_backward,
    layer_norm_forward,
)
from engine.kernels.pool import (
    adaptive_avg_pool2d_backward,
    adaptive_avg_pool2d_forward,
    avg_pool2d_backward,
    avg_pool2d_forward,
    max_pool2d_backward,
    max_pool2d_forward,
)

DTYPES = [np.float32, np.float64]
REDUCTIONS = ["none", "mean", "sum"]
TOL = {
    np.dtype(np.float32): {"rtol": 1e-4, "atol": 1e-5},
    np.dtype(np.float64): {"rtol": 1e-10, "atol": 1e-12},
}


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


@pytest.fixture(scope="module")
def F(torch):
    return torch.nn.functional


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)


def close(actual: np.ndarray, expected) -> None:
    """Same dtype and shape as the torch result, values within the dtype's tolerance."""
    expected = expected.detach().numpy() if hasattr(expected, "detach") else np.asarray(expected)
    assert isinstance(actual, np.ndarray)
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, **TOL[actual.dtype])


def run_torch(torch, fn: Callable, *arrays: np.ndarray, rng: np.random.Generator):
    """Apply fn to torch copies of arrays and backprop a random upstream gradient.

    Returns (output, upstream, grads), grads[i] being None for integer inputs.
    """
    leaves = [
        torch.tensor(a, requires_grad=a.dtype.kind == "f") if a is not None else None
        for a in arrays
    ]
    out = fn(*leaves)
    upstream = rng.standard_normal(out.shape).astype(out.detach().numpy().dtype)
    out.backward(torch.tensor(upstream))
    grads = [None if t is None or t.grad is None else t.grad for t in leaves]
    return out, upstream, grads


def numeric_grad(f: Callable[[], float], x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of scalar f w.r.t. every entry of x (mutated in place, restored)."""
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus = f()
        x[i] = old - eps
        minus = f()
        x[i] = old
        grad[i] = (plus - minus) / (2 * eps)
    return grad


def check_fd(analytic: np.ndarray, f: Callable[[], float], x: np.ndarray) -> None:
    np.testing.assert_allclose(analytic, numeric_grad(f, x), rtol=1e-5, atol=1e-7)


# ----------------------------------------------------------------------------- conv

CONV_CASES = [
    # (input shape, out channels, kernel, stride, padding, dilation, groups, bias)
    ((2, 4, 9, 8), 6, (3, 3), 1, 0, 1, 1, True),
    ((2, 4, 9, 8), 6, (3, 3), 2, 1, 1, 1, True),
    ((1, 6, 11, 10), 6, (3, 2), (2, 3), (1, 2), (2, 1), 3, True),
    ((2, 4, 7, 7), 4, (3, 3), 1, 1, 1, 4, False),
    ((2, 4, 8, 9), 4, (2, 3), 1, "same", (2, 1), 2, True),
    ((1, 3, 6, 6), 5, (4, 4), 1, "same", 1, 1, True),
    ((2, 3, 5, 6), 4, (2, 3), 1, "valid", 1, 1, False),
    ((3, 5, 5), 2, (3, 3), 2, 1, 1, 1, True),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CONV_CASES)
@pytest.mark.filterwarnings("ignore:Using padding='same'")
def test_conv2d_matches_torch(torch, F, rng, dtype, case):
    shape, out_ch, kernel, stride, padding, dilation, groups, has_bias = case
    x = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal((out_ch, shape[-3] // groups, *kernel)).astype(dtype)
    b = rng.standard_normal(out_ch).astype(dtype) if has_bias else None
    out, g, (gx, gw, gb) = run_torch(
        torch, lambda *t: F.conv2d(*t, stride, padding, dilation, groups), x, w, b, rng=rng
    )
    close(conv2d_forward(x, w, b, stride, padding, dilation, groups), out)
    ours = conv2d_backward(g, x, w, stride, padding, dilation, groups, need=(True, True, has_bias))
    close(ours[0], gx)
    close(ours[1], gw)
    if has_bias:
        close(ours[2], gb)
    else:
        assert ours[2] is None


@settings(max_examples=20, deadline=None)
@given(
    size=st.tuples(st.integers(1, 9), st.integers(1, 9)),
    kernel=st.tuples(st.integers(1, 4), st.integers(1, 4)),
    stride=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    padding=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    dilation=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    groups=st.sampled_from([1, 2]),
)
def test_conv2d_geometry_property(size, kernel, stride, padding, dilation, groups):
    torch = pytest.importorskip("torch")
    span = [d * (k - 1) + 1 for k, d in zip(kernel, dilation, strict=True)]
    if any(s + 2 * p < k for s, p, k in zip(size, padding, span, strict=True)):
        with pytest.raises(ValueError):
            conv2d_forward(np.zeros((1, 2, *size)), np.zeros((2, 2 // groups, *kernel)),
                           None, stride, padding, dilation, groups)
        return
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 2, *size))
    w = rng.standard_normal((4, 2 // groups, *kernel))
    out, g, (gx, gw) = run_torch(
        torch, lambda a, b: torch.nn.functional.conv2d(a, b, None, stride, padding, dilation, groups),
        x, w, rng=rng,
    )
    close(conv2d_forward(x, w, None, stride, padding, dilation, groups), out)
    grad_x, grad_w, _ = conv2d_backward(g, x, w, stride, padding, dilation, groups, (True, True, False))
    close(grad_x, gx)
    close(grad_w, gw)


def test_conv2d_need_flags_skip_work(rng):
    x, w = rng.standard_normal((1, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3))
    g = rng.standard_normal((1, 3, 3, 3))
    grad_x, grad_w, grad_b = conv2d_backward(g, x, w, need=(False, True, False))
    assert grad_x is None and grad_b is None and grad_w.shape == w.shape


def test_conv2d_rejects_bad_arguments():
    x, w = np.zeros((1, 4, 5, 5)), np.zeros((2, 3, 3, 3))
    with pytest.raises(ValueError, match="channels"):
        conv2d_forward(x, w)
    with pytest.raises(ValueError, match="strided"):
        conv2d_forward(x, np.zeros((2, 4, 3, 3)), stride=2, padding="same")
    with pytest.raises(ValueError, match="too small"):
        conv2d_forward(x, np.zeros((2, 4, 7, 7)))


def test_conv2d_keeps_float32(rng):
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    w = rng.standard_normal((2, 2, 3, 3)).astype(np.float32)
    b = np.zeros(2, np.float32)
    assert conv2d_forward(x, w, b, padding=1).dtype == np.float32
    assert all(g.dtype == np.float32 for g in conv2d_backward(np.ones((1, 2, 6, 6), np.float32), x, w, padding=1))


def test_conv2d_finite_differences(rng):
    x = rng.standard_normal((2, 4, 5, 6))
    w = rng.standard_normal((4, 2, 2, 3))
    b = rng.standard_normal(4)
    args = ((2, 1), (1, 2), (1, 2), 2)
    g = rng.standard_normal(conv2d_forward(x, w, b, *args).shape)
    grad_x, grad_w, grad_b = conv2d_backward(g, x, w, *args)

    def f() -> float:
        return float((conv2d_forward(x, w, b, *args) * g).sum())

    check_fd(grad_x, f, x)
    check_fd(grad_w, f, w)
    check_fd(grad_b, f, b)


# ----------------------------------------------------------------------------- pooling

MAX_POOL_CASES = [
    # (input shape, kernel, stride, padding, dilation, ceil_mode)
    ((2, 3, 9, 8), 3, 2, 1, 1, False),
    ((2, 3, 9, 8), 3, 2, 1, 1, True),
    ((1, 2, 7, 7), (3, 2), (2, 1), (1, 0), (2, 1), True),
    ((2, 5, 6), 2, None, 1, 1, False),
    ((1, 1, 10, 11), 3, 3, 1, 2, True),
    ((1, 2, 5, 5), 2, 2, 0, 1, True),
    ((1, 2, 4, 4), 4, 1, 2, 1, False),
]


def pool_inputs(rng: np.random.Generator, shape: tuple[int, ...], dtype) -> dict[str, np.ndarray]:
    """Inputs that stress torch's tie-breaking: distinct values, many ties, NaNs, all -inf."""
    x = rng.standard_normal(shape).astype(dtype)
    return {
        "random": x,
        "rounded": np.round(x),
        "constant": np.ones(shape, dtype),
        "nan": np.where(rng.random(shape) < 0.2, np.nan, x).astype(dtype),
        "neg_inf": np.full(shape, -np.inf, dtype),
    }


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", MAX_POOL_CASES)
def test_max_pool2d_matches_torch_exactly(torch, F, rng, dtype, case):
    shape, kernel, stride, padding, dilation, ceil_mode = case
    for kind, x in pool_inputs(rng, shape, dtype).items():
        tx = torch.tensor(x, requires_grad=True)
        t_out, t_idx = F.max_pool2d(tx, kernel, stride, padding, dilation, ceil_mode, return_indices=True)
        g = rng.standard_normal(t_out.shape).astype(dtype)
        t_out.backward(torch.tensor(g))
        out, idx = max_pool2d_forward(x, kernel, stride, padding, dilation, ceil_mode)
        np.testing.assert_array_equal(out, t_out.detach().numpy(), err_msg=kind)
        assert out.dtype == dtype
        assert idx.dtype == np.int64
        np.testing.assert_array_equal(idx, t_idx.numpy(), err_msg=kind)
        close(max_pool2d_backward(g, idx, x.shape), tx.grad)


def test_max_pool2d_window_entirely_in_padding():
    """torch indexes such a window at its first in-bounds cell (here out of the plane)."""
    x = np.zeros((1, 1, 2, 2))
    out, idx = max_pool2d_forward(x, 2, 1, 1, 3)
    assert out.item() == -np.inf and idx.item() == 6
    np.testing.assert_array_equal(max_pool2d_backward(np.ones((1, 1, 1, 1)), idx, x.shape), 0)


def test_max_pool2d_rejects_large_padding():
    with pytest.raises(ValueError, match="half of effective kernel"):
        max_pool2d_forward(np.zeros((1, 1, 5, 5)), 3, padding=2)


AVG_POOL_CASES = [
    # (input shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
    ((2, 3, 9, 8), 3, 2, 1, False, True, None),
    ((2, 3, 9, 8), 3, 2, 1, True, True, None),
    ((2, 3, 9, 8), 3, 2, 1, True, False, None),
    ((1, 2, 7, 7), (3, 2), (2, 1), (1, 0), False, False, None),
    ((2, 5, 6), 2, None, 1, True, True, None),
    ((1, 1, 10, 11), 3, 3, 1, True, False, 5),
    ((1, 2, 5, 5), 2, 2, 1, True, False, None),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", AVG_POOL_CASES)
def test_avg_pool2d_matches_torch(torch, F, rng, dtype, case):
    shape, *args = case
    x = rng.standard_normal(shape).astype(dtype)
    out, g, (gx,) = run_torch(torch, lambda t: F.avg_pool2d(t, *args), x, rng=rng)
    close(avg_pool2d_forward(x, *args), out)
    close(avg_pool2d_backward(g, x.shape, *args), gx)


@settings(max_examples=20, deadline=None)
@given(
    size=st.tuples(st.integers(2, 9), st.integers(2, 9)),
    kernel=st.tuples(st.integers(1, 4), st.integers(1, 4)),
    stride=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    padding=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    ceil_mode=st.booleans(),
    count_include_pad=st.booleans(),
)
def test_pool_geometry_property(size, kernel, stride, padding, ceil_mode, count_include_pad):
    torch = pytest.importorskip("torch")
    padding = tuple(min(p, k // 2) for p, k in zip(padding, kernel, strict=True))
    if any(s + 2 * p < k for s, p, k in zip(size, padding, kernel, strict=True)):
        return
    x = np.round(np.random.default_rng(0).standard_normal((2, *size)), 1)
    tx = torch.tensor(x)
    t_out, t_idx = torch.nn.functional.max_pool2d(tx, kernel, stride, padding, 1, ceil_mode, True)
    out, idx = max_pool2d_forward(x, kernel, stride, padding, 1, ceil_mode)
    np.testing.assert_array_equal(out, t_out.numpy())
    np.testing.assert_array_equal(idx, t_idx.numpy())
    args = (kernel, stride, padding, ceil_mode, count_include_pad)
    close(avg_pool2d_forward(x, *args), torch.nn.functional.avg_pool2d(tx, *args))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("shape", "size"),
    [((2, 3, 9, 8), (4, 3)), ((2, 3, 7, 7), 1), ((3, 10, 13), (None, 5)), ((1, 2, 5, 5), (7, 8))],
)
def test_adaptive_avg_pool2d_matches_torch(torch, F, rng, dtype, shape, size):
    x = rng.standard_normal(shape).astype(dtype)
    out, g, (gx,) = run_torch(torch, lambda t: F.adaptive_avg_pool2d(t, size), x, rng=rng)
    close(adaptive_avg_pool2d_forward(x, size), out)
    close(adaptive_avg_pool2d_backward(g, x.shape), gx)


def test_pool_finite_differences(rng):
    x = rng.permutation(2 * 2 * 7 * 6).reshape(2, 2, 7, 6) / 10.0  # distinct: max is smooth
    max_args = ((3, 2), 2, 1, (1, 2), True)
    avg_args = (3, (2, 1), 1, True, False)
    out, idx = max_pool2d_forward(x, *max_args)
    g_max = rng.standard_normal(out.shape)
    g_avg = rng.standard_normal(avg_pool2d_forward(x, *avg_args).shape)
    g_ada = rng.standard_normal((2, 2, 4, 5))
    check_fd(max_pool2d_backward(g_max, idx, x.shape),
             lambda: float((max_pool2d_forward(x, *max_args)[0] * g_max).sum()), x)
    check_fd(avg_pool2d_backward(g_avg, x.shape, *avg_args),
             lambda: float((avg_pool2d_forward(x, *avg_args) * g_avg).sum()), x)
    check_fd(adaptive_avg_pool2d_backward(g_ada, x.shape),
             lambda: float((adaptive_avg_pool2d_forward(x, (4, 5)) * g_ada).sum()), x)


# ----------------------------------------------------------------------------- normalization


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(8, 5), (4, 3, 5, 6), (3, 4, 7)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_matches_torch(torch, F, rng, dtype, shape, training, affine):
    channels = shape[1]
    x = (rng.standard_normal(shape) * 3 + 1).astype(dtype)
    w = rng.standard_normal(channels).astype(dtype) if affine else None
    b = rng.standard_normal(channels).astype(dtype) if affine else None
    running_mean = rng.standard_normal(channels).astype(dtype)
    running_var = (rng.random(channels) + 0.5).astype(dtype)
    t_mean, t_var = torch.tensor(running_mean), torch.tensor(running_var)
    out, g, grads = run_torch(
        torch, lambda *t: F.batch_norm(t[0], t_mean, t_var, *t[1:], training, 0.3, 1e-3),
        x, w, b, rng=rng,
    )
    ours, save_mean, save_invstd = batch_norm_forward(
        x, running_mean, running_var, w, b, training, 0.3, 1e-3)
    close(ours, out)
    close(running_mean, t_mean)
    close(running_var, t_var)
    grad_x, grad_w, grad_b = batch_norm_backward(
        g, x, w, save_mean, save_invstd, training, running_mean, running_var, 1e-3)
    close(grad_x, grads[0])
    if affine:
        close(grad_w, grads[1])
        close(grad_b, grads[2])
    else:
        assert grad_w is None


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_saved_stats_match_native(torch, rng, dtype):
    x = rng.standard_normal((6, 3, 4)).astype(dtype)
    _, t_mean, t_invstd = torch.ops.aten.native_batch_norm(
        torch.tensor(x), None, None, None, None, True, 0.1, 1e-5)
    _, save_mean, save_invstd = batch_norm_forward(x, None, None, None, None, True)
    close(save_mean, t_mean)
    close(save_invstd, t_invstd)


def test_batch_norm_running_stats_updated_in_place():
    x = np.arange(12.0).reshape(4, 3)
    running_mean, running_var = np.zeros(3), np.ones(3)
    batch_norm_forward(x, running_mean, running_var, None, None, True, 0.5, 1e-5)
    np.testing.assert_allclose(running_mean, 0.5 * x.mean(0))
    np.testing.assert_allclose(running_var, 0.5 * x.var(0, ddof=1) + 0.5)


def test_batch_norm_errors_and_eval_outputs():
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        batch_norm_forward(np.zeros((1, 3)), None, None, None, None, True)
    with pytest.raises(ValueError, match="evaluation mode"):
        batch_norm_forward(np.zeros((2, 3)), None, None, None, None, False)
    _, save_mean, save_invstd = batch_norm_forward(
        np.zeros((2, 3), np.float32), np.zeros(3, np.float32), np.ones(3, np.float32), None, None, False)
    assert save_mean.shape == save_invstd.shape == (0,)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "normalized"), [((4, 5), (5,)), ((2, 3, 4, 5), (4, 5)), ((3, 6), 6)])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_matches_torch(torch, F, rng, dtype, shape, normalized, affine):
    norm_shape = (normalized,) if isinstance(normalized, int) else normalized
    x = (rng.standard_normal(shape) * 2 + 1).astype(dtype)
    w = rng.standard_normal(norm_shape).astype(dtype) if affine else None
    b = rng.standard_normal(norm_shape).astype(dtype) if affine else None
    out, g, grads = run_torch(torch, lambda *t: F.layer_norm(t[0], norm_shape, *t[1:], 1e-4),
                              x, w, b, rng=rng)
    _, t_mean, t_rstd = torch.ops.aten.native_layer_norm(torch.tensor(x), list(norm_shape), None, None, 1e-4)
    ours, mean, rstd = layer_norm_forward(x, normalized, w, b, 1e-4)
    close(ours, out)
    close(mean, t_mean)
    close(rstd, t_rstd)
    grad_x, grad_w, grad_b = layer_norm_backward(g, x, normalized, mean, rstd, w)
    close(grad_x, grads[0])
    if affine:
        close(grad_w, grads[1])
        close(grad_b, grads[2])


def test_layer_norm_rejects_mismatched_shape():
    with pytest.raises(ValueError, match="normalized_shape"):
        layer_norm_forward(np.zeros((2, 3)), (4,))


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_finite_differences(rng, training):
    x = rng.standard_normal((3, 2, 2, 3))
    w, b = rng.standard_normal(2), rng.standard_normal(2)
    mean, var = rng.standard_normal(2), rng.random(2) + 0.5
    g = rng.standard_normal(x.shape)

    def f() -> float:
        stats = (None, None) if training else (mean, var)
        return float((batch_norm_forward(x, *stats, w, b, training)[0] * g).sum())

    _, save_mean, save_invstd = batch_norm_forward(x, mean.copy(), var.copy(), w, b, training)
    grad_x, grad_w, grad_b = batch_norm_backward(g, x, w, save_mean, save_invstd, training, mean, var)
    check_fd(grad_x, f, x)
    check_fd(grad_w, f, w)
    check_fd(grad_b, f, b)


def test_layer_norm_finite_differences(rng):
    x = rng.standard_normal((3, 2, 4))
    w, b = rng.standard_normal((2, 4)), rng.standard_normal((2, 4))
    g = rng.standard_normal(x.shape)
    _, mean, rstd = layer_norm_forward(x, (2, 4), w, b)
    grad_x, grad_w, grad_b = layer_norm_backward(g, x, (2, 4), mean, rstd, w)

    def f() -> float:
        return float((layer_norm_forward(x, (2, 4), w, b)[0] * g).sum())

    check_fd(grad_x, f, x)
    check_fd(grad_w, f, w)
    check_fd(grad_b, f, b)


# ----------------------------------------------------------------------------- activations


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "dim"), [((4, 7), 1), ((4, 7), 0), ((2, 3, 5), -1), ((), 0), ((3,), -1)])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_matches_torch(torch, F, rng, dtype, shape, dim, log):
    x = (rng.standard_normal(shape) * 5).astype(dtype)
    forward, backward = (log_softmax, log_softmax_backward) if log else (softmax, softmax_backward)
    reference = F.log_softmax if log else F.softmax
    out, g, (gx,) = run_torch(torch, lambda t: reference(t, dim), x, rng=rng)
    ours = forward(x, dim)
    close(ours, out)
    close(backward(g, ours, dim), gx)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_extreme_rows(torch, F, log):
    x = np.array([[1000.0, -1000.0, 0.0], [-np.inf, 0.0, 1.0], [-np.inf, -np.inf, -np.inf]])
    ours = log_softmax(x, 1) if log else softmax(x, 1)
    close(ours, (F.log_softmax if log else F.softmax)(torch.tensor(x), 1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_matches_torch(torch, F, rng, dtype, approximate):
    x = np.concatenate([rng.standard_normal(500) * 4, [0.0, -30.0, 30.0, 0.84375, 1.25, 3.0]]).astype(dtype)
    out, g, (gx,) = run_torch(torch, lambda t: F.gelu(t, approximate=approximate), x, rng=rng)
    close(gelu(x, approximate), out)
    close(gelu_backward(g, x, approximate), gx)


@pytest.mark.parametrize("slope", [0.01, 0.2, -0.3])
def test_leaky_relu_matches_torch(torch, F, rng, slope):
    x = np.concatenate([rng.standard_normal(50), [0.0, -0.0]]).astype(np.float32)
    out, g, (gx,) = run_torch(torch, lambda t: F.leaky_relu(t, slope), x, rng=rng)
    close(leaky_relu(x, slope), out)
    close(leaky_relu_backward(g, x, slope), gx)
    if slope > 0:
        close(leaky_relu_backward(g, leaky_relu(x, slope), slope), gx)


def test_erf_within_one_ulp_of_libm():
    x = np.concatenate([np.linspace(-7, 7, 20001), [0.0, -0.0, 1e-300, 0.84375, 1.25, 1 / 0.35, 6.0]])
    ours = erf(x)
    exact = np.array([math.erf(v) for v in x])
    assert np.all(np.abs(ours - exact) <= np.spacing(np.abs(exact)))
    np.testing.assert_array_equal(erf(np.array([np.inf, -np.inf, 40.0])), [1.0, -1.0, 1.0])
    assert np.isnan(erf(np.array([np.nan]))).all()


def test_activation_finite_differences(rng):
    x = rng.standard_normal((3, 4))
    g = rng.standard_normal(x.shape)
    for forward, backward in [(softmax, softmax_backward), (log_softmax, log_softmax_backward)]:
        check_fd(backward(g, forward(x, 1), 1), lambda f=forward: float((f(x, 1) * g).sum()), x)
    for approximate in ["none", "tanh"]:
        check_fd(gelu_backward(g, x, approximate),
                 lambda a=approximate: float((gelu(x, a) * g).sum()), x)
    check_fd(leaky_relu_backward(g, x, 0.1), lambda: float((leaky_relu(x, 0.1) * g).sum()), x)


# ----------------------------------------------------------------------------- losses


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 5), (3, 4, 2, 3), (5,)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_matches_torch(torch, F, rng, dtype, shape, reduction, weighted):
    classes = shape[1] if len(shape) > 1 else shape[0]
    weight = rng.random(classes).astype(dtype) if weighted else None
    t_weight = None if weight is None else torch.tensor(weight)
    for ignore_index in (-100, 2):  # the default, and a real class index
        logp = rng.standard_normal(shape).astype(dtype)
        target = rng.integers(0, classes, shape[:1] + shape[2:] if len(shape) > 1 else ())
        if target.ndim:
            target.flat[0] = ignore_index
        out, g, (grad,) = run_torch(
            torch,
            lambda t, target=target, ignore_index=ignore_index: F.nll_loss(
                t, torch.tensor(target), t_weight, ignore_index=ignore_index, reduction=reduction),
            logp, rng=rng,
        )
        loss, total_weight = nll_loss_forward(logp, target, weight, reduction, ignore_index)
        close(loss, out)
        close(nll_loss_backward(g, logp, target, weight, reduction, ignore_index, total_weight), grad)


def test_nll_loss_all_ignored(torch, F):
    logp = np.zeros((3, 4), np.float32)
    target = np.full(3, -100)
    loss, total_weight = nll_loss_forward(logp, target)
    assert torch.isnan(F.nll_loss(torch.tensor(logp), torch.tensor(target)))
    assert np.isnan(loss) and total_weight == 0
    grad = nll_loss_backward(np.array(1.0, np.float32), logp, target, total_weight=total_weight)
    np.testing.assert_array_equal(grad, 0)


def test_nll_loss_rejects_out_of_range_target():
    with pytest.raises(IndexError, match="out of bounds"):
        nll_loss_forward(np.zeros((2, 3)), np.array([0, 3]))
    with pytest.raises(ValueError, match="reduction"):
        nll_loss_forward(np.zeros((2, 3)), np.array([0, 1]), reduction="avg")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 5), (3, 4, 2, 3), (5,)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_probability_targets(torch, F, rng, dtype, shape, reduction, weighted):
    axis = 1 if len(shape) > 1 else 0
    x = rng.standard_normal(shape).astype(dtype)
    probs = rng.random(shape).astype(dtype)
    probs /= probs.sum(axis, keepdims=True)
    weight = rng.random(shape[axis]).astype(dtype) if weighted else None
    out, g, (gx, gp) = run_torch(
        torch,
        lambda a, b: F.cross_entropy(a, b, None if weight is None else torch.tensor(weight),
                                     reduction=reduction),
        x, probs, rng=rng,
    )
    logp = log_softmax(x, axis)
    close(nll_loss_prob_forward(logp, probs, weight, reduction), out)
    grad_logp, grad_probs = nll_loss_prob_backward(g, logp, probs, weight, reduction)
    close(log_softmax_backward(grad_logp, logp, axis), gx)
    close(grad_probs, gp)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("x_shape", "y_shape"), [((4, 5), (4, 5)), ((4, 5), (1, 5)), ((3, 1, 2), (4, 2))])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.filterwarnings("ignore:Using a target size")
def test_mse_loss_matches_torch(torch, F, rng, dtype, x_shape, y_shape, reduction):
    x = rng.standard_normal(x_shape).astype(dtype)
    y = rng.standard_normal(y_shape).astype(dtype)
    out, g, (gx, gy) = run_torch(torch, lambda a, b: F.mse_loss(a, b, reduction=reduction), x, y, rng=rng)
    close(mse_loss_forward(x, y, reduction), out)
    grad_x, grad_y = mse_loss_backward(g, x, y, reduction)
    close(grad_x, gx)
    close(grad_y, gy)


def bce_inputs(rng: np.random.Generator, dtype) -> tuple[np.ndarray, np.ndarray]:
    """Probabilities including exact 0 and 1 (log clamps) and a tiny value (epsilon floor)."""
    x = rng.random((4, 5)).astype(dtype)
    x[0, :3] = [0.0, 1.0, 1e-30]
    y = rng.random((4, 5)).astype(dtype)
    y[1, :2] = [0.0, 1.0]
    return x, y


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_matches_torch(torch, F, rng, dtype, reduction, weighted):
    x, y = bce_inputs(rng, dtype)
    weight = rng.random(5).astype(dtype) if weighted else None
    out, g, (gx, gy) = run_torch(
        torch,
        lambda a, b: F.binary_cross_entropy(a, b, None if weight is None else torch.tensor(weight),
                                            reduction=reduction),
        x, y, rng=rng,
    )
    close(binary_cross_entropy_forward(x, y, weight, reduction), out)
    grad_x, grad_y = binary_cross_entropy_backward(g, x, y, weight, reduction)
    close(grad_x, gx)
    close(grad_y, gy)


def test_binary_cross_entropy_rejects_bad_input():
    with pytest.raises(ValueError, match="between 0 and 1"):
        binary_cross_entropy_forward(np.array([1.5]), np.array([1.0]))
    with pytest.raises(ValueError, match="target size"):
        binary_cross_entropy_forward(np.array([0.5]), np.array([1.0, 0.0]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("pos_weighted", [False, True])
def test_bce_with_logits_matches_torch(torch, F, rng, dtype, reduction, weighted, pos_weighted):
    x = (rng.standard_normal((4, 5)) * 10).astype(dtype)
    x[0, :2] = [200.0, -200.0]
    y = rng.random((4, 5)).astype(dtype)
    weight = rng.random(5).astype(dtype) if weighted else None
    pos_weight = (rng.random(5) * 3).astype(dtype) if pos_weighted else None
    out, g, (gx, gy) = run_torch(
        torch,
        lambda a, b: F.binary_cross_entropy_with_logits(
            a, b, None if weight is None else torch.tensor(weight), reduction=reduction,
            pos_weight=None if pos_weight is None else torch.tensor(pos_weight)),
        x, y, rng=rng,
    )
    close(binary_cross_entropy_with_logits_forward(x, y, weight, reduction, pos_weight), out)
    grad_x, grad_y = binary_cross_entropy_with_logits_backward(g, x, y, weight, reduction, pos_weight)
    close(grad_x, gx)
    close(grad_y, gy)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_loss_finite_differences(rng, reduction):
    logp = rng.standard_normal((4, 3, 2))
    target = np.array([[0, 2], [1, -100], [2, 2], [0, 1]])
    weight = rng.random(3) + 0.5
    g = rng.standard_normal((4, 2)) if reduction == "none" else rng.standard_normal(())
    _, total = nll_loss_forward(logp, target, weight, reduction)
    check_fd(nll_loss_backward(g, logp, target, weight, reduction, -100, total),
             lambda: float((nll_loss_forward(logp, target, weight, reduction)[0] * g).sum()), logp)

    probs = rng.random((4, 3, 2))
    grad_logp, grad_probs = nll_loss_prob_backward(g, logp, probs, weight, reduction)

    def soft() -> float:
        return float((nll_loss_prob_forward(logp, probs, weight, reduction) * g).sum())

    check_fd(grad_logp, soft, logp)
    check_fd(grad_probs, soft, probs)

    x, y = rng.random((4, 2)) * 0.8 + 0.1, rng.random((4, 2))
    pos_weight = rng.random(2) + 0.5
    losses = [
        (mse_loss_forward, mse_loss_backward, (reduction,)),
        (binary_cross_entropy_forward, binary_cross_entropy_backward, (weight[:2], reduction)),
        (binary_cross_entropy_with_logits_forward, binary_cross_entropy_with_logits_backward,
         (weight[:2], reduction, pos_weight)),
    ]
    for forward, backward, args in losses:
        grad_x, grad_y = backward(g, x, y, *args)

        def f(forward=forward, args=args) -> float:
            return float((forward(x, y, *args) * g).sum())

        check_fd(grad_x, f, x)
        check_fd(grad_y, f, y)
