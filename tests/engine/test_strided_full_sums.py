"""`x.sum()` of an expanded or otherwise non-dense tensor adds in ATen's order, bit for bit:
TensorIterator orders and merges the dims (a broadcast dim, of stride 0, is one like any other),
then cascade_sum runs its first two as one 2-D call per index of the rest, each adding its row or
column sums in turn to the output. Into an out= whose elements share memory (torch checks no
overlap for a reduction's out), the zeroed places add every total that lands on them."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import engine  # noqa: E402  (only once the reference is known to be there)

# (base shape, expand to, permutation of the expanded dims, step of the last dim)
LAYOUTS = [
    ((3, 2, 1), (2, 3, 2, 1), None, 1),  # an expanded row-major tensor: each row summed again
    ((6,), (5, 6), None, 1),
    ((6,), (5, 6), (1, 0), 1),  # the broadcast dim innermost: scalar_outer_sum over it
    ((3, 1), (3, 7), None, 1),  # a broadcast last dim: scalar_inner_sum of stride 0
    ((2, 9), (4, 2, 9), (1, 0, 2), 1),
    ((17,), (3, 17), None, 2),  # every other element
    ((4, 33), (2, 4, 33), (2, 0, 1), 1),  # the contiguous dim second: vectorized_outer_sum
    ((1, 40), (5, 3, 40), None, 3),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_the_sum_of_a_broadcast_or_strided_tensor_has_torch_s_bits(layout, dtype):
    base_shape, expanded, permutation, step = layout
    values = (np.random.default_rng(sum(expanded)).standard_normal(base_shape) * 1000).astype(dtype)
    totals = []
    for m in (torch, engine):
        x = m.from_numpy(values.copy()).expand(*expanded)
        if permutation is not None:
            x = x.permute(*permutation)
        x = x[..., ::step]
        totals.append((x.stride(), x.sum().numpy().tobytes()))
    assert totals[1] == totals[0]


def test_a_sum_of_an_expanded_tensor_prints_as_torch_s():
    code = ("b = torch.linspace(-1.5, 2.0, 6, dtype=torch.float64).reshape(3, 2, 1)\n"
            "c = b.expand_as(torch.empty(2, 3, 2, 1))\n")
    totals = []
    for m in (torch, engine):
        namespace = {"torch": m}
        exec(code, namespace)  # noqa: S102 - our own test code
        totals.append(repr(namespace["c"].sum()))
    assert totals[1] == totals[0]



A = "a = torch.arange(24.).reshape(2, 3, 4)\n"
OUTS = {  # code making `a` and an `out` whose elements share memory, and the dims summed
    "an expanded gradient as out": ("a = torch.linspace(-1.5, 2.0, 2, dtype=torch.float64).reshape(1, 2)\n"
                                    "d = torch.full((2,), 2.0, requires_grad=True)\n"
                                    "out, = torch.autograd.grad(d.sum(), [d])", (0,)),
    "rows of out sharing memory": (A + "out = torch.zeros(4).expand(3, 4)", (0,)),
    "columns of out sharing memory": (A + "out = torch.zeros(2, 1).expand(2, 4)", (1,)),
    "every element of out one place": (A + "out = torch.zeros(1).expand(3)", (0, 2)),
}


@pytest.mark.parametrize("case", OUTS.values(), ids=OUTS.keys())
def test_a_sum_into_an_out_whose_elements_share_memory_adds_them_up(case):
    code, dims = case
    results = []
    for m in (torch, engine):
        namespace = {"torch": m}
        exec(code, namespace)  # noqa: S102 - our own test code
        m.sum(namespace["a"], dims, out=namespace["out"])
        results.append(namespace["out"].tolist())
    assert results[1] == results[0]
