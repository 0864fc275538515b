"""Small ops at the edges of their dtypes behave as PyTorch: the same refusals, the same values,
the same silence.

Each snippet is one thing a user might type on a bool mask, an integer tensor built from an
out-of-range number, a half-precision mean, or a narrowing cast; the oracle runs it in real
PyTorch and in the engine and compares everything it leaves behind (values, dtypes, errors with
their text, warnings).
"""

import pytest

from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")
import engine  # noqa: E402  (only once the reference is known to be there)
import engine.nn  # noqa: E402
import engine.nn.functional  # noqa: E402

MASK = "m = torch.tensor([True, False])\n"

BOOL_SUBTRACTION = {
    "mask minus an int": MASK + "r = m - 1",
    "an int minus a mask": MASK + "r = 1 - m",
    "mask minus a float": MASK + "r = m - 1.5",
    "mask minus True": MASK + "r = m - True",
    "mask minus mask": MASK + "r = m - m",
    "floats minus a mask": MASK + "r = torch.ones(2) - m",
    "mask minus ints": MASK + "r = m - torch.arange(2)",
    "mask minus a 0-dim int": MASK + "r = m - torch.tensor(1)",
    "torch.sub of a mask and an int": MASK + "r = torch.sub(m, 1)",
    "torch.sub with alpha and out": MASK + "r = torch.sub(torch.ones(2), m, alpha=2, out=torch.empty(2))",
    "torch.subtract of masks": MASK + "r = torch.subtract(m, m)",
    "torch.rsub of a mask and a number": MASK + "r = torch.rsub(m, 1)",
    "torch.rsub of masks": MASK + "r = torch.rsub(m, m)",
    "sub_ of a mask by an int": MASK + "m.sub_(1)",
    "sub_ of a mask by a mask": MASK + "m.sub_(m)",
    "sub_ of ints by a mask": MASK + "x = torch.arange(2)\nx.sub_(m)",
    "augmented subtraction of masks": MASK + "m -= m",
    "subtract_ of masks": MASK + "m.subtract_(m)",
}

BOOL_ACTIVATIONS = {
    "relu of a mask": MASK + "r = m.relu()",
    "relu_ of a mask": MASK + "m.relu_()",
    "relu of a 0-dim mask": "r = torch.tensor(True).relu()",
    "torch.relu and torch.relu_": MASK + "r = torch.relu(m)\ns = torch.relu_(m)",
    "F.relu in place": MASK + "r = F.relu(m, inplace=True)",
    "nn.ReLU": MASK + "r = nn.ReLU()(m)",
    "relu6 and hardtanh": MASK + "r = F.relu6(m)",
    "hardtanh in place": MASK + "r = F.hardtanh(m, inplace=True)",
    "hardtanh of uint8 with a negative bound": "r = F.hardtanh(torch.tensor([1, 0], dtype=torch.uint8))",
    "hardtanh of uint8 with bounds that truncate to zero": (
        "r = F.hardtanh(torch.tensor([1, 0], dtype=torch.uint8), -0.5, 2)"),
    "leaky_relu of a mask": MASK + "r = F.leaky_relu(m)",
    "leaky_relu of ints in place": "r = F.leaky_relu(torch.arange(2), inplace=True)",
    "threshold of a mask": MASK + "r = F.threshold(m, 0, 0)",
    "threshold of ints": "r = F.threshold(torch.arange(3), 1, 5)",
    "gelu of ints": "r = F.gelu(torch.arange(3))",
}

NUMBERS_OUT_OF_RANGE = {
    "an int64 tensor of inf": "t = torch.tensor(float('inf'), dtype=torch.int64)",
    "an int64 tensor of nan in a list": "t = torch.tensor([0, float('nan')], dtype=torch.int64)",
    "an int64 tensor of 1e20": "t = torch.tensor([1e20], dtype=torch.int64)",
    "an int64 tensor of 2.**63 wraps": "t = torch.tensor(2.0 ** 63, dtype=torch.int64)",
    "an int64 tensor of 2**63 fails unpacking": "t = torch.tensor([2 ** 63], dtype=torch.int64)",
    "an inferred tensor of 2**63": "t = torch.tensor(2 ** 63)",
    "an int32 tensor of 2**40": "t = torch.tensor(2 ** 40, dtype=torch.int32)",
    "an int8 tensor of 300.": "t = torch.tensor([300.], dtype=torch.int8)",
    "a uint8 tensor of -1 and -255 wraps": "t = torch.tensor([-1, -255], dtype=torch.uint8)",
    "a uint8 tensor of -256": "t = torch.tensor([-256], dtype=torch.uint8)",
    "a uint8 tensor of -1.": "t = torch.tensor([-1.], dtype=torch.uint8)",
    "a uint8 tensor of 255.5": "t = torch.tensor([255.5], dtype=torch.uint8)",
    "an int16 tensor of a numpy inf": "t = torch.tensor([np.float64('inf')], dtype=torch.int16)",
    "an int64 tensor of an array holding inf": "t = torch.tensor(np.array([np.inf]), dtype=torch.int64)",
    "float tensors of huge numbers are inf": ("a = torch.tensor(1e300, dtype=torch.float32)\n"
                                             "b = torch.tensor([1e6], dtype=torch.float16)"),
    "full of inf into int64": "t = torch.full((2,), float('inf'), dtype=torch.int64)",
    "full of 300 into int8": "t = torch.full((2,), 300, dtype=torch.int8)",
    "full of 2**63": "t = torch.full((2,), 2 ** 63)",
    "full of 1e6 into float16": "t = torch.full((2,), 1e6, dtype=torch.float16)",
    "full of 1e6 into a single float16": "t = torch.full((1,), 1e6, dtype=torch.float16)",
    "full of 1e39 into bfloat16": "t = torch.full((0,), 1e39, dtype=torch.bfloat16)",
    "full_like of 300 into int8": "t = torch.full_like(torch.zeros(2, dtype=torch.int8), 300)",
    "full_like of 1e6 into float16": "t = torch.full_like(torch.zeros(2, dtype=torch.float16), 1e6)",
    "new_full of -1 into uint8": "t = torch.zeros(2, dtype=torch.uint8).new_full((2,), -1)",
    "fill_ of inf into int64": "t = torch.zeros(2, dtype=torch.int64)\nt.fill_(float('inf'))",
    "fill_ of 1e6 into float16": "t = torch.zeros(2, dtype=torch.float16)\nt.fill_(1e6)",
    "fill_ of 1e6 into a single float16": "t = torch.zeros(1, dtype=torch.float16)\nt.fill_(1e6)",
    "setitem of inf into int64": "t = torch.zeros(2, dtype=torch.int64)\nt[0] = float('inf')",
    "setitem of 2.**63 into int64": "t = torch.zeros(2, dtype=torch.int64)\nt[:] = 2.0 ** 63",
    "setitem of 2**63 into float32": "t = torch.zeros(2)\nt[0] = 2 ** 63",
    "setitem of 1e6 into float16": "t = torch.zeros(2, dtype=torch.float16)\nt[:] = 1e6",
    "an int8 tensor plus 300 wraps": "t = torch.ones(2, dtype=torch.int8) + 300",
    "add_ of 300 into int8 wraps": "t = torch.ones(2, dtype=torch.int8)\nt.add_(300)",
    "arange to inf": "t = torch.arange(0, float('inf'))",
    "arange against its step": "t = torch.arange(0, 5, -1)",
}

SILENT_CASTS = {
    "long of inf, nan and 1e20": "t = torch.tensor([float('inf'), float('nan'), 1e20]).long()",
    "uint8 of inf, -1 and 300": "t = torch.tensor([float('inf'), -1., 300.]).to(torch.uint8)",
    "half of a value beyond its range": "t = torch.tensor([1e6, 1e-10]).half()",
    "float and bfloat16 of 1e300": ("d = torch.tensor([1e300], dtype=torch.float64)\nf = d.float()\n"
                                    "b = d.bfloat16()\nc = d.to(torch.bfloat16)"),
    "type() to float16": "t = torch.tensor([1e6]).type(torch.float16)",
    "a float32 tensor plus 1e300": "t = torch.ones(2) + 1e300",
    "a float16 tensor times 1e6": "t = torch.ones(2, dtype=torch.float16) * 1e6",
}

SNIPPETS = {**BOOL_SUBTRACTION, **BOOL_ACTIVATIONS, **NUMBERS_OUT_OF_RANGE, **SILENT_CASTS}


@pytest.mark.parametrize("code", list(SNIPPETS.values()), ids=list(SNIPPETS))
def test_small_ops_at_dtype_edges_leave_what_torch_leaves(code):
    expected, got = torch_and_engine(code)
    assert got == expected


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_mean_divides_the_float32_sum_bit_for_bit(dtype):
    """ATen's CPU mean of float16/bfloat16 sums in float32, divides in float32 and rounds once
    (rounding the sum before dividing is off in the last bit for many inputs); sum rounds its
    float32 total. Checked over whole tensors, dims, keepdim and strided views."""
    import numpy as np

    rng = np.random.default_rng(0)
    cases = [rng.standard_normal(tuple(rng.integers(1, 9, size=rng.integers(1, 4)))).tolist() for _ in range(60)]

    def results(lib):
        found = []
        for data in cases:
            x = lib.tensor(data, dtype=getattr(lib, dtype))
            for r in (x.mean(), x.sum(), x.mean(0), x.sum(-1), x.mean(-1, keepdim=True), x[..., ::2].mean(),
                      x.mean(dim=tuple(range(x.ndim)))):
                found.append(r.float().numpy().tobytes())
        return found

    assert results(engine) == results(torch)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_sum_of_a_strided_view_adds_in_atens_order_bit_for_bit(dtype):
    """A full sum of a non-dense view follows TensorIterator's loop: its rows (the smallest stride,
    merged with the dims it steps over) summed one by one, each added in turn to the output; a
    float16/bfloat16 view is summed as a float32 copy, as ATen's sum_out does. Values over sixteen
    orders of magnitude make any other order show in the last bit."""
    import numpy as np

    rng = np.random.default_rng(1)
    cases = []
    for _ in range(40):
        shape = tuple(int(s) for s in rng.integers(1, 30, size=rng.integers(1, 4)))
        cases.append((rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 9, size=shape)).tolist())

    def results(lib):
        found = []
        for data in cases:
            x = lib.tensor(data, dtype=getattr(lib, dtype))
            views = [x[..., ::2], x[..., 1:], x.transpose(0, -1)[..., ::3] if x.ndim > 1 else x[::3]]
            if x.ndim == 3:
                views.append(x.permute(1, 2, 0)[:, ::2])
            for v in views:  # exact values (the mean of an empty view is a NaN, of whatever bits)
                found.append(tuple(float(r.item()).hex() for r in (v.sum(), v.mean())))
        return found

    assert results(engine) == results(torch)


def test_a_double_becomes_a_half_through_float():
    """c10 converts a double to float16 through float32, so some doubles round twice (859.74998 is
    860. in torch, 859.5 rounded once): torch.tensor, a float64 tensor's half(), copy_ and fill_."""
    values = [859.7499845212891, 0.044876099725003636, -0.051101686171152405, 1e-8, 70000.0]

    def results(lib):
        h = lib.float16
        made = [lib.tensor(values, dtype=h), lib.tensor(values, dtype=lib.float64).half(),
                lib.zeros(len(values), dtype=h).copy_(lib.tensor(values, dtype=lib.float64)),
                lib.zeros(1, dtype=h).fill_(values[0])]
        return [t.numpy().tobytes() for t in made]

    assert results(engine) == results(torch)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_sigmoid_rounds_the_float32_kernel_once(dtype):
    """ATen's float16/bfloat16 sigmoid converts to float32, runs the float32 kernel (SLEEF's exp
    over whole pairs of 32-element vectors, expf for the rest) and rounds once; computing in the
    half type rounds after each step instead. Lengths around the vector loop's edges, strided and
    transposed layouts, and in place."""
    import numpy as np

    rng = np.random.default_rng(3)
    cases = [(rng.standard_normal(n) * 4).tolist() for n in (5, 33, 63, 64, 65, 130, 1000)]

    def results(lib):
        found = []
        for data in cases:
            x = lib.tensor(data, dtype=getattr(lib, dtype))
            ys = [x.sigmoid(), lib.sigmoid(x[::2]), x.clone().sigmoid_()]
            if x.numel() % 10 == 0:
                ys += [x.reshape(10, -1).t().sigmoid(), x.reshape(-1, 10)[:, 1:].sigmoid()]
            found += [y.float().numpy().tobytes() for y in ys]
        return found

    assert results(engine) == results(torch)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_mul_and_div_by_a_scalar_compute_in_float(dtype):
    """ATen's float16/bfloat16 mul and div by a CPU scalar (a Python number, a 0-dim tensor) take
    the scalar's own value as a float and round once (x * 0.3 multiplies by 0.3f, not by the half
    type's 0.2998); add and sub take a number in the half type. In place too, and `3.3 / x`."""
    import numpy as np

    data = (np.random.default_rng(4).standard_normal(300) * 10).tolist()

    def results(lib):
        x = lib.tensor(data, dtype=getattr(lib, dtype))
        made = [x * 0.3, x / 3.3, 0.3 * x, 3.3 / x, x * 3, x / 7, x * lib.tensor(0.3), x / lib.tensor(3.3),
                x * lib.tensor(0.3, dtype=lib.float64), x.clone().mul_(0.3), x.clone().div_(lib.tensor(3.3)),
                x + 0.1, x - 1.7, x.clone().add_(0.1), x.clone().sub_(0.1), x * x.flip(0)]
        return [t.float().numpy().tobytes() for t in made]

    assert results(engine) == results(torch)
