"""torch.testing in the engine against real torch: assert_close passes and fails on the same
inputs with the same exception and message, and make_tensor makes the same tensors under a seed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine
import engine.testing

COMPARISONS = [
    "assert_close(torch.tensor([1., 2., 3.]), torch.tensor([1., 2., 3.5]))",
    "assert_close(torch.tensor(1.), torch.tensor(2.))",
    "assert_close(1.0, 1.1)",
    "assert_close(1, 2)",
    "assert_close(torch.tensor([1, 2]), torch.tensor([1, 3]))",
    "assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.], dtype=torch.float64))",
    "assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2., 3.]))",
    "assert_close([torch.tensor(1.)], [torch.tensor(1.), torch.tensor(2.)])",
    "assert_close({'a': torch.tensor(1.)}, {'b': torch.tensor(1.)})",
    "assert_close({'a': torch.tensor([1., 2.])}, {'a': torch.tensor([1., 2.5])})",
    "assert_close((torch.tensor(1.), 2), (torch.tensor(1.), 3))",
    "assert_close(torch.tensor([float('nan')]), torch.tensor([float('nan')]))",
    "assert_close(torch.tensor([float('nan')]), torch.tensor([float('nan')]), equal_nan=True)",
    "assert_close(float('nan'), float('nan'), equal_nan=True)",
    "assert_close(torch.tensor([float('inf')]), torch.tensor([float('inf')]))",
    "assert_close(torch.tensor([1.]), torch.tensor([1.1]), rtol=0.)",
    "assert_close(torch.tensor([1.]), torch.tensor([1.1]), rtol=0., atol=0.)",
    "assert_close(torch.tensor([1.]), torch.tensor([1.1]), atol=0.2, rtol=0.)",
    "assert_close(torch.tensor([True, False]), torch.tensor([True, True]))",
    "assert_close(torch.tensor([1.]), [1.])",
    "assert_close(torch.tensor([1.]), 1.)",
    "assert_close('a', 'b')",
    "assert_close(None, torch.tensor(1.))",
    "assert_close(True, False)",
    "assert_close(1, 1.0)",
    "assert_close(1, 1.0, check_dtype=False)",
    "assert_close(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([[1., 2.], [3., 5.]]), msg='custom')",
    "assert_close(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([[1., 2.], [3., 5.]]), msg=lambda m: 'H\\n' + m)",
    "assert_close(torch.zeros(3), torch.zeros(3) + 1e-6)",
    "assert_close(torch.tensor([0., 1.]), torch.tensor([1e-3, 1.]))",
    "assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.5], dtype=torch.float64), check_dtype=False)",
    "assert_close(torch.ones(2, 3).t(), torch.ones(3, 2))",
    "assert_close(torch.ones(2, 3).t(), torch.ones(3, 2), check_stride=True)",
    "assert_close(torch.tensor([1.], dtype=torch.float16), torch.tensor([1.01], dtype=torch.float16))",
    "assert_close(torch.tensor([[1., 2.], [3., 4.]], dtype=torch.float64), torch.tensor([[1., 2.], [3.01, 4.02]], dtype=torch.float64))",
    "assert_close(torch.nn.Parameter(torch.ones(2)), torch.ones(2), allow_subclasses=False)",
    "assert_close(torch.nn.Parameter(torch.ones(2)), torch.ones(2))",
    "assert_close(torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1, 2]))",
    "assert_close(torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1, 4]), check_dtype=False)",
    "assert_close(torch.tensor([1. + 1j]), torch.tensor([1. + 2j]))",
    "assert_close(torch.zeros(0), torch.zeros(0))",
    "assert_close(torch.tensor([1.0, 2.0], requires_grad=True) * 2, torch.tensor([2.0, 4.0]))",
    "assert_close(np.array([1., 2.]), np.array([1., 2.5]))",
    "assert_close(torch.tensor([1.]), np.array([1.]))",
    "assert_close(np.float32(1.0), np.float32(1.5))",
    "assert_close(np.float64(1.0), 1.0)",
    "assert_close(np.bool_(True), True)",
    "assert_close([np.array([1])], [np.array([2])])",
    "assert_allclose(torch.tensor([1.0, 2.0]), [1.0, 2.0001])",
    "assert_allclose(torch.tensor([1.0, 2.0]), [1.0, 2.1])",
]


def outcome(lib: Any, testing: Any, statement: str) -> str:
    try:
        with pytest.warns(FutureWarning) if "allclose" in statement else _nothing():
            exec(statement, {"torch": lib, "np": np, "assert_close": testing.assert_close,  # noqa: S102 - our own
                             "assert_allclose": testing.assert_allclose})
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return f"{type(error).__name__}: {error}"
    return "passes"


class _nothing:  # noqa: N801 - a stand-in context manager
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


@pytest.mark.parametrize("statement", COMPARISONS)
def test_assert_close_passes_and_fails_as_torchs(torch, statement: str) -> None:
    assert outcome(engine, engine.testing, statement) == outcome(torch, torch.testing, statement)


def test_the_failure_message_names_mismatches_and_greatest_differences() -> None:
    with pytest.raises(AssertionError) as caught:
        engine.testing.assert_close(engine.tensor([1.0, 2.0, 3.0]), engine.tensor([1.0, 2.0, 3.5]))
    assert str(caught.value) == ("Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n"
                                 "Greatest absolute difference: 0.5 at index (2,) (up to 1e-05 allowed)\n"
                                 "Greatest relative difference: 0.1428571492433548 at index (2,) (up to 1.3e-06 allowed)")


MAKE = [
    {"dtype": "float32"}, {"dtype": "float64", "low": -1, "high": 1}, {"dtype": "int64"}, {"dtype": "bool"},
    {"dtype": "uint8"}, {"dtype": "float32", "noncontiguous": True}, {"dtype": "float32", "exclude_zero": True,
                                                                       "requires_grad": True},
    {"dtype": "int32", "low": -3, "high": 3}, {"dtype": "complex64"}, {"dtype": "float16"}, {"dtype": "bfloat16"},
    {"dtype": "int8", "low": -1000, "high": 1000}, {"dtype": "float32", "low": 1, "high": 1},
    {"dtype": "int64", "requires_grad": True}, {"dtype": "float32", "low": 2, "high": 1},
    {"dtype": "uint8", "low": -10, "high": -5}, {"dtype": "float32", "low": float("nan")},
]


def made(lib: Any, options: dict[str, Any], shape: Any) -> Any:
    options = {**options, "dtype": getattr(lib, options["dtype"])}
    lib.manual_seed(7)
    try:
        with pytest.warns(FutureWarning) if options.get("low") == options.get("high") == 1 else _nothing():
            t = lib.testing.make_tensor(shape, device="cpu", **options)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return f"{type(error).__name__}: {error}"
    return str(t), t.stride(), t.is_contiguous(), t.requires_grad


@pytest.mark.parametrize("options", MAKE, ids=[str(m) for m in MAKE])
def test_make_tensor_makes_torchs_tensors_under_the_same_seed(torch, options: dict[str, Any]) -> None:
    for shape in ((2, 3), (4,)):
        assert made(engine, options, shape) == made(torch, options, shape)


def test_make_tensor_takes_the_shape_as_separate_ints(torch) -> None:
    for lib in (torch, engine):
        lib.manual_seed(1)
    assert str(engine.testing.make_tensor(2, 2, dtype=engine.float32, device="cpu")) == str(
        torch.testing.make_tensor(2, 2, dtype=torch.float32, device="cpu"))
