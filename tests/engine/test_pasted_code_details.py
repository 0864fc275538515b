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
