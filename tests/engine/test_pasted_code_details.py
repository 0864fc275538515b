"""Details that pasted training code shows and the corpus programs found: each snippet runs in real
PyTorch and in the engine, and everything it leaves behind (printed text included) is compared."""

import pytest

from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")

CASES = {
    "a ModuleList of equal blocks prints them once":
        "m = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2)])\nprint(m)",
    "an empty ModuleList": "print(nn.ModuleList())",
    "a nested ModuleList": "print(nn.Sequential(nn.ModuleList([nn.ReLU(), nn.ReLU()]), nn.Tanh()))",
    "blocks that differ print apart": "print(nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 3), nn.Linear(2, 3)]))",
}


@pytest.mark.parametrize("code", CASES.values(), ids=CASES.keys())
def test_pasted_code_prints_and_behaves_as_torch(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


CELL = "x = torch.ones(3, 4)\n"
CELLS = {
    "GRUCell with a hidden state too wide": CELL + "r = nn.GRUCell(4, 5)(x, torch.zeros(3, 6))",
    "GRUCell with another batch": CELL + "r = nn.GRUCell(4, 5)(x, torch.zeros(2, 5))",
    "RNNCell with inputs too wide": "r = nn.RNNCell(4, 5)(torch.ones(3, 7))",
    "RNNCell with a 3-d hidden state": CELL + "r = nn.RNNCell(4, 5)(x, torch.zeros(1, 3, 5))",
    "LSTMCell with a cell state too narrow": CELL + "r = nn.LSTMCell(4, 5)(x, (torch.zeros(3, 5), torch.zeros(3, 4)))",
    "LSTMCell with a 3-d cell state": CELL + "r = nn.LSTMCell(4, 5)(x, (torch.zeros(3, 5), torch.zeros(1, 3, 5)))",
    "an unbatched GRUCell": "r = nn.GRUCell(4, 5)(torch.ones(4), torch.zeros(5)).shape",
    "one_hot of a transposed index is contiguous": "o = F.one_hot(torch.tensor([[0, 2], [1, 0]]).T, 3)",
    "one_hot of a negative class": "o = F.one_hot(torch.tensor([-1, 2]))",
    "one_hot past num_classes": "o = F.one_hot(torch.tensor([1, 5]), 3)",
    "one_hot of floats": "o = F.one_hot(torch.tensor([1., 2.]))",
    "one_hot of an empty index": "o = F.one_hot(torch.tensor([], dtype=torch.long))",
    "one_hot of an empty index with classes": "o = F.one_hot(torch.tensor([], dtype=torch.long), 3)",
}


@pytest.mark.parametrize("code", CELLS.values(), ids=CELLS.keys())
def test_recurrent_cells_and_one_hot_check_as_torch(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


LOGSPACE = {
    "powers of ten": "r = torch.logspace(0, 2, 3)", "base 2": "r = torch.logspace(0, 1, 5, base=2)",
    "float64": "r = torch.logspace(-10, 10, 7, dtype=torch.float64)", "int64": "r = torch.logspace(0, 3, 4, dtype=torch.long)",
    "one step takes start as it is": "r = torch.logspace(0.5, 2, 1, dtype=torch.long)",
    "no steps": "r = torch.logspace(1, 2, 0)", "negative steps": "r = torch.logspace(0, 1, -1)",
    "float16 past its range": "r = torch.logspace(0, 40, 9, dtype=torch.float16)",
    "uint8 from a negative start": "r = torch.logspace(-3, 2, 4, dtype=torch.uint8)",
    "requires_grad": "r = torch.logspace(0, 1, 3, requires_grad=True)",
}


@pytest.mark.parametrize("code", LOGSPACE.values(), ids=LOGSPACE.keys())
def test_logspace_as_torch(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


def test_logspace_bit_for_bit_over_random_ranges() -> None:
    import numpy as np

    import engine

    rng = np.random.default_rng(0)
    for _ in range(150):
        a, b = (float(v) for v in rng.uniform(-40, 40, 2))
        n, base = int(rng.integers(2, 50)), float(rng.choice([10.0, 2.0, 2.718281828, 1.5]))
        for dt in ("float32", "float64", "int64"):
            expected = torch.logspace(a, b, n, base, dtype=getattr(torch, dt)).numpy()
            got = engine.logspace(a, b, n, base, dtype=getattr(engine, dt)).numpy()
            assert expected.tobytes() == got.tobytes(), (a, b, n, base, dt)


XY = "x = torch.arange(3.)\ny = torch.arange(2.)\n"
MESHGRID = {
    "ij grids are expanded views": XY + "a, b = torch.meshgrid(x, y, indexing='ij')",
    "xy swaps the first two, no transpose": XY + "a, b = torch.meshgrid(x, y, indexing='xy')",
    "three inputs, xy": "g = torch.meshgrid(torch.arange(2), torch.arange(3), torch.arange(4), indexing='xy')",
    "a list of tensors": XY + "g = torch.meshgrid([x, y], indexing='ij')",
    "a 0-d input": "g = torch.meshgrid(torch.tensor(2.), indexing='ij')",
    "gradients flow back through the grids": XY + "x.requires_grad_()\na, b = torch.meshgrid(x, y, indexing='xy')\n"
                                                "(a * b).sum().backward()",
    "no tensors": "g = torch.meshgrid(indexing='ij')",
    "a 2-d input": "g = torch.meshgrid(torch.arange(6).view(2, 3), indexing='ij')",
    "a 3-d input of fractions": "g = torch.meshgrid(torch.arange(12.).view(2, 2, 3) / 7, indexing='ij')",
    "mixed dtypes": XY + "g = torch.meshgrid(x, y.long(), indexing='ij')",
    "an unknown indexing": XY + "g = torch.meshgrid(x, y, indexing='ab')",
}


@pytest.mark.parametrize("code", MESHGRID.values(), ids=MESHGRID.keys())
def test_meshgrid_as_torch(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


def test_meshgrid_without_indexing_warns_once_as_torch_does() -> None:
    import warnings

    import engine
    from engine import warn_once

    message = "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."
    warn_once._given.discard(message)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a, _ = engine.meshgrid(engine.arange(3), engine.arange(2))
        engine.meshgrid(engine.arange(3), engine.arange(2))
    assert [str(w.message) for w in caught] == [message] and a.shape == (3, 2)


AB = ("a = torch.tensor([1.0, 1e-9, float('nan'), float('inf'), 100.0, 1.00001])\n"
      "b = torch.tensor([1.0, 0.0, float('nan'), float('inf'), 100.001, 1.0])\n")
CLOSE = {
    "isclose": AB + "r = torch.isclose(a, b)", "equal_nan": AB + "r = torch.isclose(a, b, equal_nan=True)",
    "zero tolerances": AB + "r = a.isclose(b, rtol=0, atol=0)",
    "float64 with atol": AB + "r = torch.isclose(a.double(), b.double(), atol=1e-3)",
    "integers": "r = torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3]), atol=1)",
    "bools": "r = torch.isclose(torch.tensor([True]), torch.tensor([False]), atol=1)",
    "float16": AB + "r = torch.isclose(a.half(), b.half())",
    "mixed dtypes": AB + "r = torch.isclose(a, b.long())", "negative rtol": AB + "r = torch.isclose(a, b, rtol=-1)",
    "broadcast": "r = torch.isclose(torch.ones(2, 1), torch.ones(3))",
    "allclose": AB + "r = (torch.allclose(a, b), torch.allclose(a[:2], b[:2]), a.allclose(a))",
    "allclose at float32's edge": "r = torch.allclose(torch.tensor([1.0000001]), torch.tensor([1.]), rtol=0, atol=1e-7)",
    "allclose of mixed dtypes": "r = torch.allclose(torch.ones(2), torch.ones(2, dtype=torch.long))",
}


@pytest.mark.parametrize("code", CLOSE.values(), ids=CLOSE.keys())
def test_isclose_and_allclose_as_torch(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


SHOW = ("x = torch.tensor([[1e-5, 0.5, 123.456], [2.0, -3.25, 0.0]])\nprint(x)\nprint(torch.tensor([1., 2., 3000.]))\n"
        "print(torch.arange(2000.).reshape(40, 50) / 7)\nprint(torch.tensor([1+2j, 0.5-1j]))\nprint(torch.tensor(3.14159))\n")
RESET = "torch.set_printoptions(profile='default')\n"
PRINT_OPTIONS = {
    "precision 2": "torch.set_printoptions(precision=2)\n" + SHOW + RESET,
    "sci_mode off": "torch.set_printoptions(sci_mode=False)\n" + SHOW + RESET,
    "sci_mode on, precision 3": "torch.set_printoptions(sci_mode=True, precision=3)\n" + SHOW + RESET,
    "the short profile": "torch.set_printoptions(profile='short')\n" + SHOW + RESET,
    "threshold, edgeitems, linewidth": "torch.set_printoptions(threshold=5, edgeitems=1, linewidth=40)\n" + SHOW + RESET,
    "the full profile": "torch.set_printoptions(profile='full')\nprint(torch.arange(1200.).reshape(2, 600) / 3)\n"
                        + RESET,
    "sci_mode left out goes back to automatic": "torch.set_printoptions(sci_mode=False)\n"
                                                "torch.set_printoptions(precision=6)\n" + SHOW + RESET,
}


@pytest.mark.parametrize("code", PRINT_OPTIONS.values(), ids=PRINT_OPTIONS.keys())
def test_set_printoptions_as_torch(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


X6 = "x = torch.arange(6., requires_grad=True)\ns = torch.tensor(2., requires_grad=True)\n"
SMALL_OPS = {
    "vstack of vectors unsqueezes them": X6 + "r = torch.vstack([x, x])",
    "vstack of numbers": X6 + "r = torch.vstack([s, s])",
    "hstack of numbers": X6 + "r = torch.hstack([s, s])",
    "row_stack": X6 + "r = torch.row_stack([x.view(2, 3), x.view(2, 3)])",
    "column_stack of vectors": X6 + "r = torch.column_stack([x, x])",
    "column_stack of matrices": X6 + "r = torch.column_stack([x.view(2, 3), x.view(2, 3)])",
    "column_stack mismatched": X6 + "r = torch.column_stack([x, x.view(2, 3)])",
    "dstack": X6 + "r = torch.dstack([x, x])\nq = torch.dstack([x.view(2, 3), x.view(2, 3)])",
    "cartesian_prod": "r = torch.cartesian_prod(torch.arange(2), torch.arange(3))\nq = torch.cartesian_prod(torch.arange(3))",
    "cartesian_prod with grad": X6 + "r = torch.cartesian_prod(x[:2], x[:3])\nr.sum().backward()",
    "cartesian_prod of a matrix": "r = torch.cartesian_prod(torch.ones(2, 2), torch.ones(2))",
    "argwhere": "r = torch.argwhere(torch.tensor([[0, 1], [2, 0]]))\nq = torch.tensor([0., 3., 4.]).argwhere()",
    "nonzero of numbers": "r = torch.nonzero(torch.tensor(3))\nq = torch.nonzero(torch.tensor(0), as_tuple=True)",
    "nonzero's column-major layout": "r = torch.nonzero(torch.zeros(2, 3))\nq = torch.nonzero(torch.arange(6.) > 2)",
    "tril_indices and triu_indices": "r = torch.tril_indices(3, 3)\nq = torch.triu_indices(3, 4, 1)\n"
                                      "p = torch.tril_indices(4, 3, -1, dtype=torch.int32)",
    "tril_indices of a negative row": "r = torch.tril_indices(-1, 3)",
    "tril_indices of floats": "r = torch.tril_indices(3, 3, dtype=torch.float32)",
    "matrix_power": "m = torch.tensor([[2., 1.], [0., 3.]], requires_grad=True)\n"
                    "r = [torch.matrix_power(m, n) for n in (0, 1, 2, 3, 5, -1, -2)]\nq = m.matrix_power(4)\n"
                    "p = torch.linalg.matrix_power(m, 6)",
    "matrix_power of a batch of integers": "r = torch.matrix_power(torch.ones(3, 2, 2, dtype=torch.long), 3)",
    "matrix_power of a non-square matrix": "r = torch.matrix_power(torch.ones(2, 3), 2)",
    "matrix_power -1 of integers": "r = torch.matrix_power(torch.ones(2, 2, dtype=torch.long), -1)",
    "diag as a method": X6 + "r = x.view(2, 3)[:, :2].diag()\nq = x.diag()\np = x.view(2, 3).diag(1)",
    "randint_like": "torch.manual_seed(0)\nx = torch.arange(6.)\nr = torch.randint_like(x, 10)\n"
                    "q = torch.randint_like(x, 3, 10)\np = torch.randint_like(x, 5, dtype=torch.long)",
}


@pytest.mark.parametrize("code", SMALL_OPS.values(), ids=SMALL_OPS.keys())
def test_small_ops_pasted_code_reaches_for(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


FORMATTING = {
    "a 0-d tensor in an f-string is its number": "x = torch.arange(3.)\nprint(f'{x[0]}', f'{x.sum()}', f'{x[1]:>8}')",
    "a loss formatted with a spec": "loss = torch.tensor(0.123456, requires_grad=True) * 2\nprint(f'{loss:.3f}')",
    "an integer and a bool": "print(format(torch.tensor(3), '05d'), f'{torch.tensor(True)}')",
    "a vector in an f-string": "print(f'{torch.arange(3.)}')",
    "a vector with a spec": "r = f'{torch.arange(3.):.2f}'",
    "torch.tensor of a range": "r = torch.tensor(range(2, 5))\nq = torch.tensor(range(0))\np = torch.tensor([range(2), range(2)])",
}


@pytest.mark.parametrize("code", FORMATTING.values(), ids=FORMATTING.keys())
def test_formatting_and_ranges_as_torch(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


MISTAKES = {
    "cat of nothing": "r = torch.cat([])",
    "randint with an int size": "r = torch.randint(5, 3)",
    "randint with an int size keyword": "r = torch.randint(5, size=3)",
    "randint with three ints": "r = torch.randint(0, 5, 3)",
    "cross entropy over mismatched batches": "r = nn.CrossEntropyLoss()(torch.ones(2, 3), torch.tensor([0, 1, 2]))",
    "nll_loss over mismatched batches": "r = F.nll_loss(torch.ones(2, 3, 4), torch.ones(3, 4, dtype=torch.long))",
    "mse_loss of shapes that do not broadcast": "r = nn.MSELoss()(torch.ones(2, 3), torch.ones(3, 2))",
    "a kernel larger than the input": "r = nn.Conv2d(3, 4, 3)(torch.ones(3, 2, 2))",
    "a dilated kernel larger than the padded input":
        "r = F.conv2d(torch.ones(1, 3, 2, 5), torch.ones(4, 3, 3, 3), padding=(0, 1), dilation=(1, 2))",
    "conv1d with a kernel too large": "r = F.conv1d(torch.ones(1, 3, 2), torch.ones(4, 3, 3))",
    "same padding always fits": "r = F.conv2d(torch.ones(1, 3, 1, 1), torch.ones(4, 3, 3, 3), padding='same')",
}


@pytest.mark.parametrize("code", MISTAKES.values(), ids=MISTAKES.keys())
def test_common_mistakes_fail_as_torch(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


def test_float_of_a_tensor_requiring_grad_warns_once_as_torch_does() -> None:
    """torch's TORCH_WARN_ONCE: the first float()/int()/complex() of a tensor in a graph in the process."""
    import warnings

    import engine
    from engine import warn_once

    message = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
               "Consider using tensor.detach() first.")
    warn_once._given.discard(message)
    loss = (engine.ones(2, requires_grad=True) * 2).sum()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values = float(loss), int(loss), complex(loss), loss.item(), float(loss.detach())
    assert [str(w.message) for w in caught] == [message] and values == (4.0, 4, 4 + 0j, 4.0, 4.0)
