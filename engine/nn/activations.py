"""The activations of torch.nn.functional beyond relu/sigmoid/tanh/gelu/leaky_relu.

Each records the node torch 2.13 records, with the fields it saves (SiluBackward0 keeps its input,
EluBackward1 of an in-place elu_ keeps its output, LogSigmoidBackward0 also the CPU kernel's buffer);
their derivatives are in engine/autograd/derivatives/pointwise.py, the numpy arithmetic in
engine/kernels/activation_more.py. Activations torch composes of other ops (softsign, tanhshrink,
softmin) are composed the same way here, so they record the same nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine import dtypes
from engine.geometry import wrap_dim
from engine.kernels import activation_more as act
from engine.ops import pointwise as pw
from engine.ops.core import apply_inplace, check_inplace_allowed, check_writable, record
from engine.tensor import Tensor

__all__ = ["hardshrink", "softshrink", "celu", "celu_", "elu", "elu_", "glu", "hardsigmoid", "hardswish", "logsigmoid", "mish", "prelu", "selu", "selu_", "silu", "softmin", "softplus", "softsign", "tanhshrink"]

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _check_float(x: Tensor, kernel: str) -> None:
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{x.dtype.short}'")


def _laid_out_like(result: np.ndarray, like: Tensor) -> np.ndarray:
    """The result in like's dtype and dim order, as TensorIterator lays out a unary op's output."""
    out = np.empty_like(like._numpy_view(), dtype=like.dtype.np)
    out[...] = result
    return out


def _unary(name: str, kernel: str, x: Tensor, compute: Callable[[np.ndarray], np.ndarray],
           values: dict[str, Any] | None = None) -> Tensor:
    _check_float(x, kernel)
    small = pw.small_untracked(x)  # a small row-major tensor without a node: its result adopted as it is
    if small is not None:
        return Tensor._adopt(compute(small[0]).astype(x.dtype.np, copy=False), x.dtype, small[1])
    out = Tensor._wrap(_laid_out_like(compute(x._numpy_view()), x), x.dtype)
    record(name, out, (x,), save={"self": x}, values=values)
    return out


def _unary_(name: str, kernel: str, x: Tensor, compute: Callable[[np.ndarray], np.ndarray], *,
            saves_result: bool, values: dict[str, Any] | None = None) -> Tensor:
    """The in-place form: a node that reads the input keeps a copy of it; one that reads the output keeps self."""
    _check_float(x, kernel)
    check_inplace_allowed(x)
    check_writable(x)

    def write(target: np.ndarray) -> None:
        target[...] = compute(target)

    return apply_inplace(x, write, name, (), check_autograd=False, values=values,
                         save_self_copy=None if saves_result else "self",
                         save_result="result" if saves_result else None)


# --------------------------------------------------------------------------- smooth ReLUs
def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002 - torch's argument names
    if inplace:
        return _unary_("SiluBackward0", "silu", input, act.silu, saves_result=False)
    return _unary("SiluBackward0", "silu", input, act.silu)


def mish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    if inplace:
        return _unary_("MishBackward0", "mish", input, act.mish, saves_result=False)
    return _unary("MishBackward0", "mish", input, act.mish)


def softplus(input: Tensor, beta: float = 1, threshold: float = 20) -> Tensor:  # noqa: A002
    return _unary("SoftplusBackward0", "softplus", input, lambda x: act.softplus(x, beta, threshold),
                  {"beta": beta, "threshold": threshold})


def _elu(x: Tensor, alpha: float, scale: float, input_scale: float, inplace: bool, name: str,
         values: dict[str, Any]) -> Tensor:
    def compute(v: np.ndarray) -> np.ndarray:
        return act.elu(v, alpha, scale, input_scale)

    if inplace:
        return _unary_(name.replace("0", "1"), "elu", x, compute, saves_result=True, values=values)
    return _unary(name, "elu", x, compute, values)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    return _elu(input, alpha, 1, 1, inplace, "EluBackward0",
                {"alpha": alpha, "input_scale": 1, "scale": 1})


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    return elu(input, alpha, True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return _elu(input, SELU_ALPHA, SELU_SCALE, 1, inplace, "EluBackward0",
                {"alpha": SELU_ALPHA, "input_scale": 1, "scale": SELU_SCALE})


def selu_(input: Tensor) -> Tensor:  # noqa: A002
    return selu(input, True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    return _elu(input, alpha, 1, 1 / alpha, inplace, "CeluBackward0", {"alpha": float(alpha)})


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    return celu(input, alpha, True)


# --------------------------------------------------------------------------- hard approximations
def hardswish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    if inplace:
        return _unary_("HardswishBackward0", "hardswish", input, act.hardswish, saves_result=False)
    return _unary("HardswishBackward0", "hardswish", input, act.hardswish)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    if inplace:
        return _unary_("HardsigmoidBackward0", "hardsigmoid", input, act.hardsigmoid, saves_result=False)
    return _unary("HardsigmoidBackward0", "hardsigmoid", input, act.hardsigmoid)


# --------------------------------------------------------------------------- log-sigmoid, GLU
def logsigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """log_sigmoid_forward: the output and a buffer (exp(-|x|)), which LogSigmoidBackward0 keeps."""
    _check_float(input, "log_sigmoid")
    value, buffer = act.log_sigmoid(input._numpy_view())
    out = Tensor._wrap(np.array(value, dtype=input.dtype.np, order="C"), input.dtype)  # the CPU kernel writes
    buffer_t = Tensor._wrap(np.array(buffer, dtype=input.dtype.np, order="C"), input.dtype)  # contiguous outputs
    record("LogSigmoidBackward0", out, (input,), save={"self": input}, save_outputs={"buffer": buffer_t})
    return out


def glu(input: Tensor, dim: int = -1) -> Tensor:  # noqa: A002
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, input.ndim)
    if input._shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input._shape[d]}")
    _check_float(input, "glu")
    value = act.glu(input._numpy_view(), d)
    first_half = np.split(input._numpy_view(), 2, axis=d)[0]  # TensorIterator lays the output out as the halves
    laid_out = np.empty_like(first_half)
    laid_out[...] = value
    out = Tensor._wrap(laid_out, input.dtype)
    record("GluBackward0", out, (input,), save={"self": input}, values={"dim": dim % (1 << 64), "_dim": d})
    return out


# --------------------------------------------------------------------------- PReLU
def prelu(input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002
    """torch.prelu: the weight viewed to broadcast along the channel dim (dim 1), then _prelu_kernel."""
    from engine.ops import views

    channels = input._shape[1] if input.ndim >= 2 else 1
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    if weight.numel() != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        if weight.numel() != channels:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
    if input.ndim >= 2:
        shape = [1] * input.ndim
        shape[1] = weight.numel()
        weight = views.reshape(weight, shape)
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype.short} and {weight.dtype.short}")
    _check_float(input, "prelu")
    value = act.prelu(input._numpy_view(), weight._numpy_view())
    out = Tensor._wrap(_laid_out_like(np.broadcast_to(value, input._shape), input), input.dtype)
    record("PreluKernelBackward0", out, (input, weight), save={"self": input, "weight": weight})
    return out


# --------------------------------------------------------------------------- composites, as torch composes them
def softsign(input: Tensor) -> Tensor:  # noqa: A002
    return pw.div(input, pw.add(pw.unary("abs", input), 1))


def tanhshrink(input: Tensor) -> Tensor:  # noqa: A002
    return pw.sub(input, pw.unary("tanh", input))


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3,  # noqa: A002
            dtype: dtypes.dtype | None = None) -> Tensor:
    from engine.nn.functional import softmax

    if dim is None:
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return softmax(pw.unary("neg", input), dim, dtype=dtype)


# --------------------------------------------------------------------------- shrinkage
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """x outside [-lambd, lambd], 0 inside (HardshrinkBackward0 keeps x and lambd)."""
    return _unary("HardshrinkBackward0", "hardshrink", input,
                  lambda x: np.where((x >= -lambd) & (x <= lambd), 0, x), {"lambd": lambd})


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """x moved lambd towards 0 outside [-lambd, lambd], 0 inside (SoftshrinkBackward0)."""
    if lambd < 0:
        limit = float(np.finfo(input.dtype.np).max) if input.dtype.is_floating_point else 0.0
        raise RuntimeError(f"lambda must be in range [0, {limit:.6g}] for input dtype {input.dtype.short}, but "
                           f"found {lambd:g}")
    return _unary("SoftshrinkBackward0", "softshrink", input,
                  lambda x: np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, x * 0)), {"lambd": lambd})
