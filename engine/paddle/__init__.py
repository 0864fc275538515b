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
from engine.paddle import device, dtypes, messages, names, nn, optimizer, utils
from engine.paddle import random as _random
from engine.paddle import tensor_api as tensor
from engine.paddle.creation import (
    arange,
    bernoulli,
    from_numpy,
    full,
    full_like,
    gaussian,
    get_rng_state,
    normal,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
    standard_normal,
    to_tensor,
    uniform,
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
from engine.paddle.elementwise import *  # noqa: F403 - the table-driven math functions
from engine.paddle.elementwise import __all__ as _elementwise_names
from engine.paddle.inplace import (
    divide_,
    multiply_,
    normal_,
    pow_,
    reshape_,
    squeeze_,
    subtract_,
    transpose_,
    unsqueeze_,
)
from engine.paddle.manipulation import *  # noqa: F403 - indexing, selection, in-place layout
from engine.paddle.manipulation import __all__ as _manipulation_names
from engine.paddle.nn.layer import create_parameter
from engine.paddle.ops import (
    add,
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    assign,
    broadcast_to,
    cast,
    chunk,
    clip,
    clone,
    concat,
    divide,
    expand,
    flatten,
    logsumexp,
    matmul,
    max,
    mean,
    min,
    multiply,
    pow,
    prod,
    reshape,
    scale,
    split,
    squeeze,
    stack,
    std,
    subtract,
    sum,
    t,
    transpose,
    unbind,
    unsqueeze,
    var,
    view,
)
from engine.paddle.param_attr import ParamAttr
from engine.paddle.tensor import Size, Tensor

__version__ = "3.3.1"


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def reset() -> None:
    """What a fresh Python process would have: name counters, the CPU place, float32 default, and
    the generator as the dialect starts it (see random.py)."""
    names.reset()
    device.reset()
    _random.reset()
    dtypes.set_default_dtype("float32")


def __getattr__(name: str) -> Any:
    raise messages.missing("paddle", name)


__all__ = sorted({
    "CPUPlace", "CUDAPlace", "ParamAttr", "Size", "Tensor", "add", "all", "amax", "amin", "any", "arange", "argmax",
    "argmin", "assign", "bernoulli", "bool", "broadcast_to", "cast", "chunk", "clip", "clone", "concat",
    "create_parameter", "device", "divide", "divide_", "enable_grad", "expand", "flatten", "float16", "float32",
    "float64", "from_numpy", "full", "full_like", "gaussian", "get_default_dtype", "get_device", "get_rng_state",
    "int16", "int32", "int64", "int8", "is_compiled_with_cuda", "is_grad_enabled", "is_tensor", "logsumexp",
    "matmul", "max", "mean", "min", "multiply", "multiply_", "nn", "no_grad", "normal", "normal_", "ones",
    "ones_like", "optimizer", "pow", "pow_", "prod", "rand", "rand_like", "randint", "randint_like", "randn",
    "randn_like", "randperm", "reshape", "reshape_", "scale", "seed", "set_default_dtype", "set_device",
    "set_grad_enabled", "set_rng_state", "split", "squeeze", "squeeze_", "stack", "standard_normal", "std",
    "subtract", "subtract_", "sum", "t", "tensor", "to_tensor", "transpose", "transpose_", "uint8", "unbind",
    "uniform", "unsqueeze", "unsqueeze_", "utils", "var", "view", "zeros", "zeros_like",
    "__version__", *_elementwise_names, *_manipulation_names,
})
