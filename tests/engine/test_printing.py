"""engine.printing against PyTorch 2.13's repr(tensor).

First the measured examples of tests/data/torch-ops.json ('printing'), each
rebuilt from plain numpy values; then a differential sweep against the real torch
when it is installed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from engine.printing import format_parameter, format_tensor

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "torch-ops.json"  # the measured reference, in the repository
NAN, INF = float("nan"), float("inf")


def f32(values: Any) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def f64(values: Any) -> np.ndarray:
    return np.array(values, dtype=np.float64)


def i64(values: Any) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def text(*lines: str) -> str:
    return "\n".join(lines)


# (the reference's torch code, the same tensor printed by the engine, what torch printed)
EXAMPLES = [
    pytest.param(
        "torch.tensor([1, 2, 3])",
        lambda: format_tensor(i64([1, 2, 3]), "int64"),
        "tensor([1, 2, 3])",
        id="int64",
    ),
    pytest.param(
        "torch.tensor([[1, -20], [300, 4]])",
        lambda: format_tensor(i64([[1, -20], [300, 4]]), "int64"),
        text(
            "tensor([[  1, -20],",
            "        [300,   4]])",
        ),
        id="int64 negative, width alignment",
    ),
    pytest.param(
        "torch.tensor([1., 2., 3.])",
        lambda: format_tensor(f32([1.0, 2.0, 3.0]), "float32"),
        "tensor([1., 2., 3.])",
        id="float, integral values (int_mode: trailing '.')",
    ),
    pytest.param(
        "torch.tensor([1.5, -2.25, 3.0])",
        lambda: format_tensor(f32([1.5, -2.25, 3.0]), "float32"),
        "tensor([ 1.5000, -2.2500,  3.0000])",
        id="float with decimals (4 digits after the point)",
    ),
    pytest.param(
        "torch.tensor([0.123456, 1.0])",
        lambda: format_tensor(f32([0.123456, 1.0]), "float32"),
        "tensor([0.1235, 1.0000])",
        id="float rounding to 4 decimals",
    ),
    pytest.param(
        "torch.tensor([0.00001, 1.0])",
        lambda: format_tensor(f32([0.00001, 1.0]), "float32"),
        "tensor([1.0000e-05, 1.0000e+00])",
        id="float, min nonzero |v| < 1e-4 -> sci",
    ),
    pytest.param(
        "torch.tensor([0.5, 1000.0])",
        lambda: format_tensor(f32([0.5, 1000.0]), "float32"),
        "tensor([5.0000e-01, 1.0000e+03])",
        id="float, max/min ratio > 1000 -> sci",
    ),
    pytest.param(
        "torch.tensor([1.0, 1000.0])",
        lambda: format_tensor(f32([1.0, 1000.0]), "float32"),
        "tensor([   1., 1000.])",
        id="float, ratio exactly 1000 -> no sci",
    ),
    pytest.param(
        "torch.tensor([1.0, 1001.0])",
        lambda: format_tensor(f32([1.0, 1001.0]), "float32"),
        "tensor([1.0000e+00, 1.0010e+03])",
        id="float integral, ratio > 1000 -> sci",
    ),
    pytest.param(
        "torch.tensor([1e9])",
        lambda: format_tensor(f32([1e9]), "float32"),
        "tensor([1.0000e+09])",
        id="float > 1e8 -> sci",
    ),
    pytest.param(
        "torch.tensor([1e8])",
        lambda: format_tensor(f32([1e8]), "float32"),
        "tensor([100000000.])",
        id="float 1e8 exactly -> no sci",
    ),
    pytest.param(
        "torch.tensor([0.0, 0.5, 2.0])",
        lambda: format_tensor(f32([0.0, 0.5, 2.0]), "float32"),
        "tensor([0.0000, 0.5000, 2.0000])",
        id="zeros are ignored by the mode decision",
    ),
    pytest.param(
        "torch.zeros(3)",
        lambda: format_tensor(np.zeros(3, dtype=np.float32), "float32"),
        "tensor([0., 0., 0.])",
        id="all zeros",
    ),
    pytest.param(
        "torch.tensor([-0.0, 1.0])",
        lambda: format_tensor(f32([-0.0, 1.0]), "float32"),
        "tensor([-0., 1.])",
        id="negative zero",
    ),
    pytest.param(
        "torch.tensor([float('nan'), float('inf'), -float('inf'), 1.0])",
        lambda: format_tensor(f32([NAN, INF, -INF, 1.0]), "float32"),
        "tensor([nan, inf, -inf, 1.])",
        id="nan and inf (integral finite values)",
    ),
    pytest.param(
        "torch.tensor([float('nan'), float('inf'), 1.5])",
        lambda: format_tensor(f32([NAN, INF, 1.5]), "float32"),
        "tensor([   nan,    inf, 1.5000])",
        id="nan and inf (fractional finite values)",
    ),
    pytest.param(
        "torch.tensor([float('nan')])",
        lambda: format_tensor(f32([NAN]), "float32"),
        "tensor([nan])",
        id="only nan",
    ),
    pytest.param(
        "torch.tensor([[1.5, 22.25], [-333.125, 4.0]])",
        lambda: format_tensor(f32([[1.5, 22.25], [-333.125, 4.0]]), "float32"),
        text(
            "tensor([[   1.5000,   22.2500],",
            "        [-333.1250,    4.0000]])",
        ),
        id="2-D alignment (common width)",
    ),
    pytest.param(
        "torch.arange(8.).reshape(2, 2, 2)",
        lambda: format_tensor(np.arange(8, dtype=np.float32).reshape(2, 2, 2), "float32"),
        text(
            "tensor([[[0., 1.],",
            "         [2., 3.]],",
            "",
            "        [[4., 5.],",
            "         [6., 7.]]])",
        ),
        id="3-D: blank line between blocks",
    ),
    pytest.param(
        "torch.arange(30.)",
        lambda: format_tensor(np.arange(30, dtype=np.float32), "float32"),
        text(
            "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,",
            "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,",
            "        28., 29.])",
        ),
        id="line wrapping at linewidth 80",
    ),
    pytest.param(
        "torch.arange(2000.)",
        lambda: format_tensor(np.arange(2000, dtype=np.float32), "float32"),
        text(
            "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,",
            "        1.9990e+03])",
        ),
        id="summarization: > 1000 elements, 3 edge items",
    ),
    pytest.param(
        "torch.arange(1001)",
        lambda: format_tensor(np.arange(1001, dtype=np.int64), "int64"),
        "tensor([   0,    1,    2,  ...,  998,  999, 1000])",
        id="summarization of int64",
    ),
    pytest.param(
        "('...' in repr(torch.arange(1000)), '...' in repr(torch.arange(1001)))",
        lambda: str(
            tuple(
                "..." in format_tensor(np.arange(n, dtype=np.int64), "int64") for n in (1000, 1001)
            )
        ),
        "(False, True)",
        id="threshold: '...' in repr for 1000 vs 1001 elements",
    ),
    pytest.param(
        "torch.arange(10000.).reshape(100, 100)",
        lambda: format_tensor(np.arange(10000, dtype=np.float32).reshape(100, 100), "float32"),
        text(
            "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.7000e+01, 9.8000e+01,",
            "         9.9000e+01],",
            "        [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.9700e+02, 1.9800e+02,",
            "         1.9900e+02],",
            "        [2.0000e+02, 2.0100e+02, 2.0200e+02,  ..., 2.9700e+02, 2.9800e+02,",
            "         2.9900e+02],",
            "        ...,",
            "        [9.7000e+03, 9.7010e+03, 9.7020e+03,  ..., 9.7970e+03, 9.7980e+03,",
            "         9.7990e+03],",
            "        [9.8000e+03, 9.8010e+03, 9.8020e+03,  ..., 9.8970e+03, 9.8980e+03,",
            "         9.8990e+03],",
            "        [9.9000e+03, 9.9010e+03, 9.9020e+03,  ..., 9.9970e+03, 9.9980e+03,",
            "         9.9990e+03]])",
        ),
        id="summarization 2-D",
    ),
    pytest.param(
        "torch.arange(1200.).reshape(2, 600)",
        lambda: format_tensor(np.arange(1200, dtype=np.float32).reshape(2, 600), "float32"),
        text(
            "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 5.9700e+02, 5.9800e+02,",
            "         5.9900e+02],",
            "        [6.0000e+02, 6.0100e+02, 6.0200e+02,  ..., 1.1970e+03, 1.1980e+03,",
            "         1.1990e+03]])",
        ),
        id="summarization applies to the whole tensor once numel > 1000",
    ),
    pytest.param(
        "torch.tensor([1., 2.], dtype=torch.float64)",
        lambda: format_tensor(f64([1.0, 2.0]), "float64"),
        "tensor([1., 2.], dtype=torch.float64)",
        id="float64 dtype suffix",
    ),
    pytest.param(
        "torch.tensor([1, 2], dtype=torch.int32)",
        lambda: format_tensor(np.array([1, 2], dtype=np.int32), "int32"),
        "tensor([1, 2], dtype=torch.int32)",
        id="int32 dtype suffix",
    ),
    pytest.param(
        "torch.tensor([1.5, 2.], dtype=torch.float16)",
        lambda: format_tensor(np.array([1.5, 2.0], dtype=np.float16), "float16"),
        "tensor([1.5000, 2.0000], dtype=torch.float16)",
        id="float16 dtype suffix",
    ),
    pytest.param(
        "torch.tensor([1, 2], dtype=torch.uint8)",
        lambda: format_tensor(np.array([1, 2], dtype=np.uint8), "uint8"),
        "tensor([1, 2], dtype=torch.uint8)",
        id="uint8",
    ),
    pytest.param(
        "torch.tensor([True, False])",
        lambda: format_tensor(np.array([True, False]), "bool"),
        "tensor([ True, False])",
        id="bool (no dtype suffix)",
    ),
    pytest.param(
        "torch.tensor(True)",
        lambda: format_tensor(np.array(True), "bool"),
        "tensor(True)",
        id="0-dim bool",
    ),
    pytest.param(
        "torch.tensor(3.)",
        lambda: format_tensor(f32(3.0), "float32"),
        "tensor(3.)",
        id="0-dim float",
    ),
    pytest.param(
        "torch.tensor(3.25)",
        lambda: format_tensor(f32(3.25), "float32"),
        "tensor(3.2500)",
        id="0-dim float fractional",
    ),
    pytest.param(
        "torch.tensor(3)",
        lambda: format_tensor(i64(3), "int64"),
        "tensor(3)",
        id="0-dim int",
    ),
    pytest.param(
        "torch.tensor(3., dtype=torch.float64)",
        lambda: format_tensor(f64(3.0), "float64"),
        "tensor(3., dtype=torch.float64)",
        id="0-dim float64",
    ),
    pytest.param(
        "torch.tensor([1., 2.], requires_grad=True)",
        lambda: format_tensor(f32([1.0, 2.0]), "float32", requires_grad=True),
        "tensor([1., 2.], requires_grad=True)",
        id="requires_grad leaf",
    ),
    pytest.param(
        "torch.tensor(3.5, requires_grad=True)",
        lambda: format_tensor(f32(3.5), "float32", requires_grad=True),
        "tensor(3.5000, requires_grad=True)",
        id="0-dim requires_grad",
    ),
    pytest.param(
        "torch.tensor([1., 2.], requires_grad=True) * 2",
        lambda: format_tensor(
            f32([2.0, 4.0]), "float32", requires_grad=True, grad_fn_name="MulBackward0"
        ),
        "tensor([2., 4.], grad_fn=<MulBackward0>)",
        id="grad_fn suffix",
    ),
    pytest.param(
        "torch.tensor([1., 2.], requires_grad=True).sum()",
        lambda: format_tensor(f32(3.0), "float32", grad_fn_name="SumBackward0"),
        "tensor(3., grad_fn=<SumBackward0>)",
        id="0-dim with grad_fn",
    ),
    pytest.param(
        "torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True) * 2",
        lambda: format_tensor(f64([2.0, 4.0]), "float64", grad_fn_name="MulBackward0"),
        "tensor([2., 4.], dtype=torch.float64, grad_fn=<MulBackward0>)",
        id="dtype before grad_fn",
    ),
    pytest.param(
        "torch.ones(2, dtype=torch.float64, requires_grad=True)",
        lambda: format_tensor(f64([1.0, 1.0]), "float64", requires_grad=True),
        "tensor([1., 1.], dtype=torch.float64, requires_grad=True)",
        id="dtype before requires_grad",
    ),
    pytest.param(
        "(torch.tensor([[1., 2.], [3., 4.]], requires_grad=True) * 1)[0]",
        lambda: format_tensor(f32([1.0, 2.0]), "float32", grad_fn_name="SelectBackward0"),
        "tensor([1., 2.], grad_fn=<SelectBackward0>)",
        id="view grad_fn",
    ),
    pytest.param(
        "(torch.tensor([1., 2.], requires_grad=True) * 1).add_(1)",
        lambda: format_tensor(f32([2.0, 3.0]), "float32", grad_fn_name="AddBackward0"),
        "tensor([2., 3.], grad_fn=<AddBackward0>)",
        id="after in-place on non-leaf",
    ),
    pytest.param(
        "(lambda b: (b.__setitem__(0, 5.0), b)[1])(torch.tensor([1., 2.], requires_grad=True) * 1)",
        lambda: format_tensor(f32([5.0, 2.0]), "float32", grad_fn_name="CopySlices"),
        "tensor([5., 2.], grad_fn=<CopySlices>)",
        id="CopySlices in repr (node name() is 'torch::autograd::CopySlices')",
    ),
    pytest.param(
        "(torch.tensor([1., 2.], requires_grad=True) * 1).copy_(torch.ones(2))",
        lambda: format_tensor(f32([1.0, 1.0]), "float32", grad_fn_name="CopyBackwards"),
        "tensor([1., 1.], grad_fn=<CopyBackwards>)",
        id="CopyBackwards in repr",
    ),
    pytest.param(
        "(lambda b: b[0].mul_(2))((torch.tensor([[1., 2.], [3., 4.]], requires_grad=True) * 1))",
        lambda: format_tensor(f32([2.0, 4.0]), "float32", grad_fn_name="AsStridedBackward0"),
        "tensor([2., 4.], grad_fn=<AsStridedBackward0>)",
        id="view after in-place on it",
    ),
    pytest.param(
        "nograd_view_modified()",
        lambda: format_tensor(
            f32([2.0, 2.0, 2.0]), "float32", requires_grad=True, grad_fn_name="Invalid"
        ),
        "tensor([2., 2., 2.], grad_fn=<Invalid>)",
        id="view made and modified under no_grad, printed in grad mode (grad_fn access raises inside repr)",
    ),
    pytest.param(
        "torch.tensor([1., 2.], requires_grad=True).detach()",
        lambda: format_tensor(f32([1.0, 2.0]), "float32"),
        "tensor([1., 2.])",
        id="detach drops suffixes",
    ),
    pytest.param(
        "torch.tensor([])",
        lambda: format_tensor(f32([]), "float32"),
        "tensor([])",
        id="empty float",
    ),
    pytest.param(
        "torch.tensor([], dtype=torch.int64)",
        lambda: format_tensor(i64([]), "int64"),
        "tensor([], dtype=torch.int64)",
        id="empty int64 (dtype shown)",
    ),
    pytest.param(
        "torch.tensor([], dtype=torch.bool)",
        lambda: format_tensor(np.array([], dtype=bool), "bool"),
        "tensor([], dtype=torch.bool)",
        id="empty bool (dtype shown)",
    ),
    pytest.param(
        "torch.empty(0, 3)",
        lambda: format_tensor(np.empty((0, 3), dtype=np.float32), "float32"),
        "tensor([], size=(0, 3))",
        id="empty 2-D (size shown)",
    ),
    pytest.param(
        "torch.empty(2, 0, dtype=torch.int64)",
        lambda: format_tensor(np.empty((2, 0), dtype=np.int64), "int64"),
        "tensor([], size=(2, 0), dtype=torch.int64)",
        id="empty 2-D int64",
    ),
    pytest.param(
        "torch.empty(0, requires_grad=True)",
        lambda: format_tensor(f32([]), "float32", requires_grad=True),
        "tensor([], requires_grad=True)",
        id="empty requires_grad",
    ),
    pytest.param(
        "torch.tensor([123456789012, 1])",
        lambda: format_tensor(i64([123456789012, 1]), "int64"),
        "tensor([123456789012,            1])",
        id="large int64",
    ),
    pytest.param(
        "torch.arange(18., dtype=torch.float64).reshape(3, 6) * torch.tensor(1., dtype=torch.float64, requires_grad=True)",
        lambda: format_tensor(
            np.arange(18.0).reshape(3, 6), "float64", grad_fn_name="MulBackward0"
        ),
        text(
            "tensor([[ 0.,  1.,  2.,  3.,  4.,  5.],",
            "        [ 6.,  7.,  8.,  9., 10., 11.],",
            "        [12., 13., 14., 15., 16., 17.]], dtype=torch.float64,",
            "       grad_fn=<MulBackward0>)",
        ),
        id="long suffix wraps to a new line",
    ),
    pytest.param(
        "nn.Parameter(torch.tensor([1., 2.]))",
        lambda: format_parameter(f32([1.0, 2.0]), "float32"),
        text(
            "Parameter containing:",
            "tensor([1., 2.], requires_grad=True)",
        ),
        id="nn.Parameter",
    ),
    pytest.param(
        "nn.Parameter(torch.tensor(1.))",
        lambda: format_parameter(f32(1.0), "float32"),
        text(
            "Parameter containing:",
            "tensor(1., requires_grad=True)",
        ),
        id="nn.Parameter 0-dim",
    ),
    pytest.param(
        "(lambda x: ((x * 3).sum().backward(), x.grad)[1])(torch.tensor([1., 2.], requires_grad=True))",
        lambda: format_tensor(f32([3.0, 3.0]), "float32"),
        "tensor([3., 3.])",
        id="x.grad after backward",
    ),
    pytest.param(
        "torch.arange(4.).split(2)",
        lambda: (
            "("
            + ", ".join(format_tensor(f32(half), "float32") for half in ([0.0, 1.0], [2.0, 3.0]))
            + ")"
        ),
        "(tensor([0., 1.]), tensor([2., 3.]))",
        id="repr of a tuple of tensors (split)",
    ),
]

# Reference examples whose text is not a tensor repr (structseq, dtype, device, node reprs).
NOT_TENSOR_TEXT = {
    "torch.ones(2, 3).shape",
    "torch.ones(2).dtype",
    "torch.ones(2).device",
    "torch.max(torch.tensor([[1., 5.], [7., 2.]]), dim=1)",
    "(x * 2).grad_fn",
}


@pytest.mark.parametrize(("code", "build", "expected"), EXAMPLES)
def test_reference_example(code: str, build: Callable[[], str], expected: str) -> None:
    assert build() == expected, code


def test_examples_match_the_reference_file() -> None:
    """EXAMPLES holds every tensor example of the measured reference, with its exact text."""
    if not REFERENCE.exists():
        pytest.skip(f"{REFERENCE} is not there")
    measured = json.loads(REFERENCE.read_text())["printing"]["examples"]
    ours = {param.values[0]: param.values[2] for param in EXAMPLES}
    tensor_examples = [e for e in measured if e["code"] not in NOT_TENSOR_TEXT]
    assert {e["code"] for e in tensor_examples} == set(ours)
    for example in tensor_examples:
        assert ours[example["code"]] == example["print"] == example["repr"], example["code"]


def test_suffix_order_device_size_dtype_then_grad() -> None:
    """Device first (unless cpu), then size and dtype, then the autograd suffix, wrapped past 80."""
    empty = np.empty((2, 0), dtype=np.float16)
    assert format_tensor(empty, "float16", device="cuda:0", requires_grad=True) == text(
        "tensor([], device='cuda:0', size=(2, 0), dtype=torch.float16,",
        "       requires_grad=True)",
    )
    assert format_tensor(f32([1.0]), "float32", device="cpu") == "tensor([1.])"
    assert format_parameter(f64(1.5), "float64", device="cuda:1") == text(
        "Parameter containing:",
        "tensor(1.5000, device='cuda:1', dtype=torch.float64, requires_grad=True)",
    )


def test_huge_tensor_is_summarized_before_formatting() -> None:
    """A 10^12-element broadcast view prints at once: only its 6x6 corners are read."""
    huge = np.broadcast_to(np.float32(1.5), (10**6, 10**6))
    start = time.perf_counter()
    printed = format_tensor(huge, "float32")
    assert time.perf_counter() - start < 0.5
    row = "[1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000]"
    assert printed == text(
        f"tensor([{row},",
        *[f"        {row}," for _ in range(2)],
        "        ...,",
        *[f"        {row}," for _ in range(2)],
        f"        {row}])",
    )


# ------------------------------------------------------------ differential sweep against torch
# The `torch` fixture (tests/conftest.py) is pytest.importorskip("torch"): these skip without it.

FLOAT_DTYPES = ["float32", "float64", "float16", "bfloat16"]
INT_DTYPES = ["int64", "int32", "int16", "int8", "uint8"]
SHAPES = [
    (), (0,), (1,), (2,), (5,), (13,), (41,), (0, 3), (3, 0), (2, 0, 4), (1, 1), (3, 4), (7, 9),
    (6, 7), (2, 3, 4), (1, 5, 1), (4, 1, 6), (2, 2, 2, 3), (1, 2, 1, 5), (3, 2, 4, 2), (8, 9, 3),
    (2, 3, 30), (1001,), (2000,), (40, 26), (7, 200), (3, 5, 70), (2, 3, 4, 50), (1, 1, 1, 1200),
    (10, 10, 11), (7, 2, 2, 40),
]  # fmt: skip
# Pinned values around the mode thresholds and 4-digit rounding ties (in float32 and float64).
EDGE_VALUES = [
    1e-4, 1.0001e-4, 9.9999e-5, 1e8, 1.00000001e8, 99999999.5, 1000.0, 1001.0, 0.5, 500.5,
    0.00005, 2.5e-05, 0.12345, 0.00015, 9.99995, 0.99995, 1.00005, 0.1, 1 / 3, 65504.0, 2.0**-24,
    1e-45, 3.4e38, 1e300, 5e-324, 123456.789, 0.0, -0.0,
]  # fmt: skip


# How a float case is printed: plain, as a leaf requiring grad, or as a clone of that leaf.
AUTOGRAD: dict[str, dict[str, Any]] = {
    "plain": {},
    "leaf": {"requires_grad": True},
    "clone": {"requires_grad": True, "grad_fn_name": "CloneBackward0"},
}


def float_values(rng: np.random.Generator, shape: tuple[int, ...], kind: str) -> np.ndarray:
    """float64 values of one magnitude pattern; cast to the tested dtype afterwards."""
    n = int(np.prod(shape))
    normal = rng.standard_normal(n)
    if kind == "integral":
        values = rng.integers(-60, 60, n).astype(np.float64) * 10.0 ** rng.integers(0, 9)
    elif kind == "normal":
        values = normal * 10.0 ** rng.uniform(-5, 9)
    elif kind == "tiny":
        values = normal * 10.0 ** rng.uniform(-40, -4)
    elif kind == "huge":
        values = normal * 10.0 ** rng.uniform(8, 40)
    elif kind == "mixed":
        values = np.sign(normal) * 10.0 ** rng.uniform(-9, 11, n)
    elif kind == "edges":
        values = rng.choice(EDGE_VALUES, n) * rng.choice([-1.0, 1.0], n)
    elif kind == "ties":
        values = (rng.integers(-99999, 99999, n) + 0.5) / 10.0 ** rng.integers(4, 6)
    else:  # "specials": nan, inf and signed zeros among ordinary values
        specials = rng.choice([NAN, INF, -INF, 0.0, -0.0], n)
        values = np.where(rng.random(n) < 0.4, specials, normal * 10.0 ** rng.integers(-5, 9, n))
    return values.reshape(shape)


def int_values(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    info = np.iinfo(dtype)
    high = min(int(info.max), 10 ** int(rng.integers(1, 19)))
    low = max(int(info.min), -high if rng.random() < 0.7 else 0)
    return rng.integers(low, high, shape, dtype=dtype, endpoint=True)


def strided_copy(rng: np.random.Generator, values: np.ndarray) -> np.ndarray:
    """The same logical values, but sometimes laid out column-major or with negative strides."""
    layout = rng.integers(3)
    if layout == 1:
        return np.array(values, order="F")
    if layout == 2:
        return np.flip(np.flip(values).copy())
    return values


def sweep_cases(
    torch: Any, dtype: str, seed: int, rounds: int
) -> Iterator[tuple[str, Any, np.ndarray, dict[str, Any]]]:
    """(description, torch tensor, the values the engine holds, format_tensor flags)."""
    rng = np.random.default_rng(seed)
    kinds = ["integral", "normal", "tiny", "huge", "mixed", "edges", "ties", "specials"]
    for _ in range(rounds):
        for shape in SHAPES:
            if dtype in FLOAT_DTYPES:
                kind = kinds[rng.integers(len(kinds))]
                with np.errstate(over="ignore", under="ignore"):
                    values = float_values(rng, shape, kind)
                    if dtype == "bfloat16":
                        tensor = torch.from_numpy(values.astype(np.float32)).to(torch.bfloat16)
                        values = tensor.float().numpy()
                    else:
                        values = values.astype(dtype)
                        tensor = torch.from_numpy(values)
            elif dtype == "bool":
                kind, values = "bool", np.asarray(rng.random(shape) < rng.random())
                tensor = torch.from_numpy(values)
            else:
                kind, values = "int", int_values(rng, shape, dtype)
                tensor = torch.from_numpy(values)
            autograd = str(rng.choice(list(AUTOGRAD))) if dtype in FLOAT_DTYPES else "plain"
            if autograd != "plain":
                tensor = tensor.requires_grad_()
            if autograd == "clone":
                tensor = tensor.clone()
            label = f"{dtype} {shape} {kind} {autograd}"
            yield label, tensor, strided_copy(rng, values), AUTOGRAD[autograd]


@pytest.mark.parametrize("dtype", [*FLOAT_DTYPES, *INT_DTYPES, "bool"])
def test_sweep_matches_torch(torch: Any, dtype: str) -> None:
    """Seeded shapes x dtypes x magnitudes x layouts x autograd suffixes, byte for byte."""
    rounds = 10 if dtype in FLOAT_DTYPES else 12
    mismatches, count = [], 0
    for label, tensor, values, flags in sweep_cases(torch, dtype, len(dtype) * 7919, rounds):
        count += 1
        expected, got = repr(tensor), format_tensor(values, dtype, **flags)
        if got != expected:
            mismatches.append(f"{label}\n--- torch\n{expected}\n--- engine\n{got}")
    assert count > 300
    assert not mismatches, f"{len(mismatches)}/{count} differ:\n" + "\n\n".join(mismatches[:3])


def test_parameter_matches_torch(torch: Any) -> None:
    """The header line, then requires_grad=True after any dtype suffix."""
    for values in (f32([1.0, 2.5]), f64(1.0), np.arange(2000, dtype=np.float32).reshape(2, 1000)):
        expected = repr(torch.nn.Parameter(torch.from_numpy(values)))
        assert format_parameter(values, str(values.dtype)) == expected


def test_broadcast_giant_matches_torch(torch: Any) -> None:
    """An expanded 10000x10000 view: summarized from its corners, as torch does."""
    row = np.linspace(-3.0, 5.0e4, 10000, dtype=np.float32)
    expanded = torch.from_numpy(row).expand(10000, 10000)
    assert format_tensor(np.broadcast_to(row, (10000, 10000)), "float32") == repr(expanded)


@settings(max_examples=100, deadline=None)
@given(
    values=hnp.arrays(
        dtype=st.sampled_from([np.float32, np.float64, np.float16]),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
        elements={"allow_nan": True, "allow_infinity": True, "allow_subnormal": True},
    )
)
def test_any_float_values_match_torch(torch: Any, values: np.ndarray) -> None:
    """Hypothesis' floats: subnormals, nan/inf, extremes, and a shrunk example on failure."""
    expected = repr(torch.from_numpy(values))
    assert format_tensor(values, str(values.dtype)) == expected


@pytest.mark.parametrize(
    ("dtype", "bits"), [("float16", "u2"), ("float32", "u4"), ("float64", "u8")]
)
def test_random_bit_patterns_match_torch(torch: Any, dtype: str, bits: str) -> None:
    """Every kind of float a bit pattern can be: NaN payloads, subnormals, extremes."""
    rng = np.random.default_rng(2013)
    for _ in range(500):
        shape = tuple(rng.integers(1, 4, rng.integers(0, 3)))
        values = rng.integers(0, np.iinfo(bits).max, shape, dtype=bits, endpoint=True).view(dtype)
        assert format_tensor(values, dtype) == repr(torch.from_numpy(values)), (
            values.tobytes().hex()
        )
