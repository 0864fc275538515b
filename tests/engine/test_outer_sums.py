"""A sum over the leading dims of a row-major tensor (a bias gradient's grad.sum(0)) adds in
ATen's order, bit for bit: cascade_sum's outer loop takes four vectors of columns at a time through
multi_row_sum's cascade and every other column through row_sum's interleaved accumulators."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import engine  # noqa: E402  (only once the reference is known to be there)

SHAPES = [(8, 1), (8, 2), (8, 4), (8, 5), (8, 8), (8, 9), (17, 16), (40, 33), (100, 3), (300, 70), (6, 1, 11),
          (3, 4, 5), (1, 7), (7, 1, 1), (64, 10)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_a_sum_over_leading_dims_has_torch_s_bits(shape, dtype):
    rng = np.random.default_rng(sum(shape))
    for leading in range(1, len(shape)):
        for keepdim in (False, True):
            values = (rng.standard_normal(shape) * 1000).astype(dtype)
            dims = tuple(range(leading))
            expected = torch.from_numpy(values).sum(dims, keepdim=keepdim)
            got = engine.from_numpy(values).sum(dims, keepdim=keepdim)
            assert (tuple(got.shape), got.stride()) == (tuple(expected.shape), expected.stride())
            assert got.numpy().tobytes() == expected.numpy().tobytes()


def test_a_linear_layer_s_bias_gradient_has_torch_s_bits():
    rng = np.random.default_rng(0)
    x, g = rng.standard_normal((37, 5)).astype(np.float32), rng.standard_normal((37, 19)).astype(np.float32)
    w, b = rng.standard_normal((19, 5)).astype(np.float32), rng.standard_normal(19).astype(np.float32)
    grads = []
    for m in (torch, engine):
        bias = m.tensor(b, requires_grad=True)
        m.nn.functional.linear(m.tensor(x), m.tensor(w), bias).backward(m.tensor(g))
        grads.append(bias.grad.numpy().tobytes())
    assert grads[0] == grads[1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [2, 3, 4, 7, 15, 16])
@pytest.mark.parametrize("columns", [4, 8, 16, 32, 64, 5])
def test_a_few_rows_summed_in_turn_keep_the_cascade_s_bits(rows, columns, dtype):
    """Fewer rows than multi_row_sum's smallest chunk are added row after row in place: the bits,
    zero signs and nan/inf included, are those of the cascade (outer_sums) and of torch."""
    from engine.kernels import summation
    from engine.ops.reduction import _outer_sum

    rng = np.random.default_rng(rows * 100 + columns)
    values = (rng.standard_normal((rows, columns)) * 1e3).astype(dtype)
    values[rng.random(values.shape) < 0.3] = -0.0
    values[rng.random(values.shape) < 0.2] = 0.0
    values[0, -1], values[-1, 0] = np.inf, np.nan
    with np.errstate(all="ignore"):
        cascade = np.add(np.zeros(columns, dtype), summation.outer_sums(values))
        assert _outer_sum(values, values.shape, 1).tobytes() == cascade.tobytes()
    assert engine.from_numpy(values).sum(0).numpy().tobytes() == torch.from_numpy(values).sum(0).numpy().tobytes()
    assert engine.from_numpy(values).mean(0).numpy().tobytes() == torch.from_numpy(values).mean(0).numpy().tobytes()
