"""The embedded tensor engine: a numpy-backed subset of torch that behaves like PyTorch 2.13.

`import engine as torch` gives storages, views, version counters, in-place ops and autograd with
PyTorch's names, strides, errors and printing, so tensorscope can show what PyTorch does to memory.
"""

from __future__ import annotations

import builtins

from engine import autograd, cuda, dtypes
from engine.amp import autocast, get_autocast_dtype, is_autocast_enabled
from engine.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from engine.dtypes import (
    bfloat16,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
)
from engine.dtypes import (
    bool_ as bool,  # noqa: A001 - torch.bool
)
from engine.ops import FUNCTIONS as _FUNCTIONS
from engine.ops.core import result_type
from engine.tensor import Size, Tensor, device
from engine.typeinfo import finfo, iinfo
from engine.version import __version__

half = float16
float = float32  # noqa: A001 - torch.float
double = float64
long = int64
int = int32  # noqa: A001 - torch.int
short = int16
cfloat = complex64
cdouble = complex128

globals().update(_FUNCTIONS)


strided = "torch.strided"
contiguous_format = "contiguous_format"
preserve_format = "preserve_format"


def is_tensor(obj: object) -> bool:
    return isinstance(obj, Tensor)


def numel(t: Tensor) -> int:
    return t.numel()


def can_cast(from_: dtype, to: dtype) -> bool:
    return dtypes.can_cast(from_, to)


def is_inference(t: Tensor) -> builtins.bool:
    return t.is_inference()


def is_floating_point(t: Tensor) -> bool:
    return t.dtype.is_floating_point


def equal(a: Tensor, b: Tensor) -> builtins.bool:
    """Same shape and same values (dtype may differ; NaN equals nothing)."""
    return a.shape == b.shape and builtins.bool((a._numpy_view() == b._numpy_view()).all())


Tensor.equal = equal


from engine import linalg, nn, optim, special, utils  # noqa: E402  (they build on everything above)
from engine.linalg import dist  # noqa: E402
from engine.printing import set_printoptions  # noqa: E402
from engine.serialization import load, save  # noqa: E402

_LAZY_SUBMODULES = ("distributions", "testing")  # imported on first use: start-up does not pay for them


def __getattr__(name: str) -> object:
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f"engine.{name}")
    raise AttributeError(f"module 'engine' has no attribute '{name}'")

__all__ = sorted(
    ["Size", "Tensor", "FloatTensor", "autograd", "cuda", "device", "dtype", "enable_grad", "inference_mode", "is_inference_mode_enabled", "autocast", "is_autocast_enabled", "get_autocast_dtype",
     "is_grad_enabled", "no_grad", "set_grad_enabled", "nn", "result_type", "__version__", "is_tensor", "numel",
     "can_cast", "is_floating_point", "is_inference", "equal", "optim", "linalg", "special", "utils", "distributions", "testing", "dist", "save", "load", "set_printoptions", "get_default_dtype", "set_default_dtype", "promote_types",
     "float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool", "half", "float",
     "double", "long", "int", "short", "complex64", "complex128", "cfloat", "cdouble", "finfo", "iinfo", "strided", "contiguous_format", "preserve_format", *_FUNCTIONS]
)
