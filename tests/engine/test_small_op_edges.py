"""Small ops at the edges of their dtypes behave as PyTorch: the same refusals, the same values,
the same silence.

Each snippet is one thing a user might type on a bool mask, an integer tensor built from an
out-of-range number, a half-precision mean, or a narrowing cast; the oracle runs it in real
PyTorch and in the engine and compares everything it leaves behind (values, dtypes, errors with
their text, warnings).
"""

import pytest

from tests.oracle import reconcile, run_snippet, summarize

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

SNIPPETS = {**BOOL_SUBTRACTION, **BOOL_ACTIVATIONS}


@pytest.mark.parametrize("code", list(SNIPPETS.values()), ids=list(SNIPPETS))
def test_small_ops_at_dtype_edges_leave_what_torch_leaves(code):
    expected = summarize(run_snippet(code, torch, torch.nn, torch.nn.functional))
    got = summarize(run_snippet(code, engine, engine.nn, engine.nn.functional))
    assert reconcile(expected, got) == expected
