"""The Paddle dialect: `import engine.paddle as paddle` behaves like PaddlePaddle 3.3.1 (measured
against the CPU wheel), over the same engine machinery as the PyTorch face: storages, views,
version counters, autograd nodes, the allocator and the simulated GPU.

What is Paddle's and not PyTorch's: `stop_gradient` (default True), `inplace_version`, node names
(`ScaleGradNode`, `GradNodeAccumulation`...), the leaf rule (in-place ops run, then raise
`ValueError: (InvalidArgument) Leaf Var ...`), `y += t` rebinding instead of writing in place,
split/chunk/expand/to_tensor/from_numpy/numpy() copying, copy_/set_value/initializers/SGD.step
writing without a version bump, and Paddle's error texts. See tensor.py and autograd.py.
"""

from __future__ import annotations

from typing import Any

from engine.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from engine.paddle import device, dtypes, messages, names, nn, optimizer
from engine.paddle.creation import (
    arange,
    from_numpy,
    full,
    full_like,
    ones,
    ones_like,
    rand,
    randn,
    seed,
    to_tensor,
    zeros,
    zeros_like,
)
from engine.paddle.device import CPUPlace, CUDAPlace, get_device, is_compiled_with_cuda, set_device
from engine.paddle.dtypes import (
    bool_ as bool,  # noqa: A001 - paddle.bool
)
from engine.paddle.dtypes import (
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    set_default_dtype,
    uint8,
)
from engine.paddle.inplace import (
    abs_,
    divide_,
    multiply_,
    neg_,
    normal_,
    pow_,
    reshape_,
    squeeze_,
    subtract_,
    tanh_,
    transpose_,
    unsqueeze_,
)
from engine.paddle.nn.layer import create_parameter
from engine.paddle.ops import (
    abs,
    add,
    assign,
    broadcast_to,
    cast,
    chunk,
    clip,
    clone,
    concat,
    divide,
    exp,
    expand,
    flatten,
    log,
    matmul,
    max,
    mean,
    multiply,
    pow,
    reshape,
    scale,
    sigmoid,
    split,
    sqrt,
    square,
    squeeze,
    stack,
    subtract,
    sum,
    t,
    tanh,
    transpose,
    unbind,
    unsqueeze,
)
from engine.paddle.tensor import Size, Tensor

__version__ = "3.3.1"


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def reset() -> None:
    """What a fresh Python process would have: name counters, the CPU place, float32 default."""
    names.reset()
    device.reset()
    dtypes.set_default_dtype("float32")


def __getattr__(name: str) -> Any:
    raise messages.missing("paddle", name)


__all__ = sorted([
    "CPUPlace", "CUDAPlace", "Size", "Tensor", "abs", "abs_", "add", "arange", "assign", "bool", "broadcast_to",
    "cast", "chunk", "clip", "clone", "concat", "create_parameter", "device", "divide", "divide_",
    "enable_grad", "exp", "expand", "flatten", "float16", "float32", "float64", "from_numpy", "full",
    "full_like", "get_default_dtype", "get_device", "int16", "int32", "int64", "int8", "is_compiled_with_cuda",
    "is_grad_enabled", "is_tensor", "log", "matmul", "max", "mean", "multiply", "multiply_", "neg_", "nn",
    "no_grad", "normal_", "ones", "ones_like", "optimizer", "pow", "pow_", "rand", "randn", "reshape",
    "reshape_", "scale", "seed", "set_default_dtype", "set_device", "set_grad_enabled", "sigmoid", "split",
    "sqrt", "square", "squeeze", "squeeze_", "stack", "subtract", "subtract_", "sum", "t", "tanh", "tanh_",
    "to_tensor", "transpose", "transpose_", "uint8", "unbind", "unsqueeze", "unsqueeze_", "zeros",
    "zeros_like", "__version__",
])
