"""A training step rounds as torch's does: the pointwise kernels optimizers use (add with alpha,
addcmul, addcdiv, lerp), the float32 2-norm clip_grad_norm_ takes, and the optimizers' updates
themselves, compared byte for byte with torch 2.13 (CPU)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import engine
from engine.kernels.fma import fma32
from tests.training_diff import RECIPES, divergences

SIZES = (1, 3, 4, 7, 20, 1013)  # below, at and past a vector's width, with every kind of tail


def _arrays(size: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a, b = (rng.standard_normal(size).astype(np.float32) for _ in range(2))
    return a, b, (np.abs(rng.standard_normal(size)) + 0.1).astype(np.float32)


def _same_bytes(torch, code) -> None:
    """code(module, a, b, c) with torch and with the engine give the same bytes, at every size."""
    for size in SIZES:
        a, b, c = _arrays(size, seed=size)
        want = code(torch, *(torch.from_numpy(v.copy()) for v in (a, b, c))).numpy()
        got = code(engine, *(engine.from_numpy(v.copy()) for v in (a, b, c))).numpy()
        assert got.tobytes() == want.tobytes(), (size, np.count_nonzero(got != want))


# --------------------------------------------------------------------------- fma
def test_fma32_rounds_once_where_a_double_sum_lands_on_a_float_midpoint():
    """(1 + 2**-12)**2 is 1 + 2**-11 + 2**-24, halfway between two floats; 2**-60 more is above
    the midpoint, but the float64 sum drops it and ties to even would round down."""
    a = np.float32(1 + 2 ** -12)
    tiny = np.float32(2 ** -60)
    assert fma32(a, a, tiny) == np.float32(1 + 2 ** -11 + 2 ** -23)
    assert fma32(a, a, -tiny) == np.float32(1 + 2 ** -11)
    assert np.float32(float(a) * float(a) + float(tiny)) == np.float32(1 + 2 ** -11)  # what two roundings give


def test_fma32_is_the_nearest_float_to_the_exact_value():
    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal(2000).astype(np.float32) for _ in range(3))
    got = fma32(a, b, c)
    for x, y, z, r in zip(a, b, c, got):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        nearest = min((np.nextafter(r, np.float32(-np.inf)), r, np.nextafter(r, np.float32(np.inf))),
                      key=lambda v: abs(Fraction(float(v)) - exact))
        assert r == nearest


# --------------------------------------------------------------------------- pointwise ops
@pytest.mark.needs_torch
@pytest.mark.parametrize("code", [
    lambda T, a, b, c: a.add(b, alpha=-0.37),
    lambda T, a, b, c: a.sub(b, alpha=0.013),
    lambda T, a, b, c: a.add_(b, alpha=-0.1),
    lambda T, a, b, c: a.sub_(b, alpha=3),
    lambda T, a, b, c: T.addcmul(a, b, c, value=0.37),
    lambda T, a, b, c: a.addcmul_(b, c, value=1 - 0.999),
    lambda T, a, b, c: T.addcdiv(a, b, c, value=-0.37),
    lambda T, a, b, c: a.addcdiv_(b, c, value=-1e-3),
    lambda T, a, b, c: T.lerp(a, b, 0.1),
    lambda T, a, b, c: a.lerp_(b, 0.9),
    lambda T, a, b, c: T.lerp(a, b, c / 4),
], ids=["add alpha", "sub alpha", "add_ alpha", "sub_ int alpha", "addcmul", "addcmul_", "addcdiv", "addcdiv_",
        "lerp small weight", "lerp_ large weight", "lerp tensor weight"])
def test_update_kernels_round_as_atens(torch, code):
    _same_bytes(torch, code)


@pytest.mark.needs_torch
@pytest.mark.parametrize(("shape", "options"), [
    ((3,), {}), ((4,), {}), ((20,), {}), ((20, 6), {}), ((1013,), {}), ((5, 7), {"dim": 1}),
    ((5, 7), {"dim": -1, "keepdim": True}), ((5, 7), {"dim": 0}), ((2, 3, 9), {"dim": (1, 2)}),
    ((2, 3, 4), {"dim": (0, 2)}), ((4, 1, 6), {"dim": (1, 2)}), ((2, 40000), {"dim": 1}),
])
def test_float32_two_norm_adds_in_atens_order(torch, shape, options):
    x = (np.random.default_rng(len(shape)).standard_normal(shape) * 0.01).astype(np.float32)
    want = torch.linalg.vector_norm(torch.from_numpy(x), **options).numpy()
    assert engine.linalg.vector_norm(engine.from_numpy(x), **options).numpy().tobytes() == want.tobytes()
    assert engine.from_numpy(x).norm(**options).numpy().tobytes() == want.tobytes()


@pytest.mark.needs_torch
def test_clip_grad_norm_gives_torchs_norm_and_gradients(torch):
    rng = np.random.default_rng(5)
    grads = [rng.standard_normal(shape).astype(np.float32) for shape in ((20, 6), (20,), (3, 20), (3,))]

    def clip(T):
        params = [T.zeros(g.shape, requires_grad=True) for g in grads]
        for p, g in zip(params, grads):
            p.grad = T.from_numpy(g.copy())
        norm = T.nn.utils.clip_grad_norm_(params, 0.5)
        return [norm.numpy().tobytes()] + [p.grad.numpy().tobytes() for p in params]
    assert clip(engine) == clip(torch)


# --------------------------------------------------------------------------- optimizer steps
# Each step judged alone (the engine given torch's gradients, parameters and state first): these
# optimizers' updates are torch's to the bit. Adam's, RMSprop's and Adadelta's denominators take a
# float sqrt, which torch hands to MKL's vector library (not correctly rounded: about 1 input in 160
# differs by an ulp from numpy's exact sqrt), so their steps are compared where no sqrt is taken.
EXACT_STEPS = ["sgd", "sgd_momentum", "sgd_nesterov", "sgd_weight_decay", "cross_entropy_sgd", "clip_sgd_nesterov"]


@pytest.mark.needs_torch
@pytest.mark.parametrize("recipe", EXACT_STEPS)
def test_optimizer_steps_and_clipping_are_torchs_to_the_bit(torch, recipe):
    found = [d for d in divergences(RECIPES[recipe], steps=4, isolate=True) if d.phase != "forward_backward"]
    assert found == []


@pytest.mark.needs_torch
@pytest.mark.parametrize("recipe", ["adam", "adamw", "rmsprop_momentum", "clip_adam"])
def test_adaptive_optimizers_part_from_torch_only_in_its_sqrt(torch, recipe, monkeypatch):
    """With torch's own sqrt in the denominators, the whole update is torch's."""
    import engine.optim.algorithms as algorithms

    class NumpyWithTorchsSqrt:
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def sqrt(x):
            return torch.from_numpy(np.ascontiguousarray(x)).sqrt().numpy()

    monkeypatch.setattr(algorithms, "np", NumpyWithTorchsSqrt())
    found = [d for d in divergences(RECIPES[recipe], steps=4, isolate=True) if d.phase != "forward_backward"]
    assert found == []


# --------------------------------------------------------------------------- activations
@pytest.mark.needs_torch
def test_exact_gelu_of_a_contiguous_float32_tensor_is_onednns(torch):
    rng = np.random.default_rng(11)
    for scale in (1e-3, 0.5, 3, 100):
        x = (rng.standard_normal((64, 37)) * scale).astype(np.float32)
        want = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
        assert engine.nn.functional.gelu(engine.from_numpy(x)).numpy().tobytes() == want.tobytes()
    edges = np.array([0, -0.0, 1e-30, -1e-40, 5.5, 6, 100, -100, 3e38, np.inf, -np.inf, np.nan], np.float32)
    want = torch.nn.functional.gelu(torch.from_numpy(edges)).numpy()
    assert engine.nn.GELU()(engine.from_numpy(edges)).numpy().tobytes() == want.tobytes()


# --------------------------------------------------------------------------- losses
@pytest.mark.needs_torch
@pytest.mark.parametrize("batch", [1, 8, 17, 257, 4097])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nll_loss_adds_a_batch_in_atens_cascade(torch, batch, reduction):
    rng = np.random.default_rng(batch)
    logp = rng.standard_normal((batch, 5)).astype(np.float32)
    target = rng.integers(0, 5, batch)
    ignored = target.copy()
    ignored[rng.random(batch) < 0.25] = -100  # ignored targets shift which indices close a block
    for y in (target, ignored):
        want = torch.nn.functional.nll_loss(torch.from_numpy(logp), torch.from_numpy(y), reduction=reduction)
        got = engine.nn.functional.nll_loss(engine.from_numpy(logp), engine.from_numpy(y), reduction=reduction)
        assert got.numpy().tobytes() == want.numpy().tobytes()


@pytest.mark.needs_torch
@pytest.mark.parametrize("shape", [(2000, 10), (50, 3), (7, 1000), (3, 1), (4, 16), (4, 17), (2, 3, 5)])
def test_float32_log_softmax_over_the_last_dim_is_atens(torch, shape):
    """exp by SLEEF's expf_u10, summed by reduce_all, the log SLEEF's logf_u10."""
    x = (np.random.default_rng(len(shape)).standard_normal(shape) * 3).astype(np.float32)
    want = torch.log_softmax(torch.from_numpy(x), -1).numpy()
    assert engine.log_softmax(engine.from_numpy(x), -1).numpy().tobytes() == want.tobytes()


@pytest.mark.needs_torch
def test_log_softmax_of_rows_with_infinities_and_nans_keeps_torchs_nan_bits(torch):
    x = np.array([[0, -np.inf, 1], [np.inf, 0, 1], [np.nan, 1, 2], [-np.inf, -np.inf, -np.inf],
                  [1e30, -1e30, 0], [3e38, 3e38, -3e38], [1, 2, np.nan]], np.float32)
    want = torch.log_softmax(torch.from_numpy(x), 1).numpy()
    assert engine.log_softmax(engine.from_numpy(x), 1).numpy().tobytes() == want.tobytes()


@pytest.mark.needs_torch
@pytest.mark.parametrize("batch", [4, 8, 100])
def test_cross_entropy_of_a_float32_batch_is_torchs_to_the_bit(torch, batch):
    rng = np.random.default_rng(batch)
    logits = rng.standard_normal((batch, 10)).astype(np.float32)
    target = rng.integers(0, 10, batch)
    want = torch.nn.functional.cross_entropy(torch.from_numpy(logits), torch.from_numpy(target)).numpy()
    got = engine.nn.functional.cross_entropy(engine.from_numpy(logits), engine.from_numpy(target)).numpy()
    assert got.tobytes() == want.tobytes()


@pytest.mark.needs_torch
@pytest.mark.parametrize("shape", [(1,), (8, 4), (100, 10), (3, 5, 7)])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_float32_mse_loss_sums_in_atens_order(torch, shape, reduction):
    rng = np.random.default_rng(len(shape))
    x, y = (rng.standard_normal(shape).astype(np.float32) for _ in range(2))
    want = torch.nn.functional.mse_loss(torch.from_numpy(x), torch.from_numpy(y), reduction=reduction).numpy()
    got = engine.nn.functional.mse_loss(engine.from_numpy(x), engine.from_numpy(y), reduction=reduction).numpy()
    assert got.tobytes() == want.tobytes()


@pytest.mark.needs_torch
@pytest.mark.parametrize("shape", [(8, 3), (32, 10), (5, 33), (3, 16), (2, 3, 7)])
def test_float32_log_softmax_gradient_is_atens(torch, shape):
    """grad - exp(out) * sum(grad): the sum by reduce_all, exp SLEEF's, one fused multiply-add."""
    rng = np.random.default_rng(len(shape))
    x, g = (rng.standard_normal(shape).astype(np.float32) for _ in range(2))
    grads = []
    for module in (torch, engine):
        t = module.from_numpy(x.copy()).requires_grad_()
        module.log_softmax(t, -1).backward(module.from_numpy(g.copy()))
        grads.append(t.grad.numpy().tobytes())
    assert grads[1] == grads[0]
