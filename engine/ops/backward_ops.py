"""The ops derivative formulas call that users rarely do: PyTorch's `*_backward` ops and Scalar overloads.

PyTorch computes many first derivatives with dedicated ops (`threshold_backward` for relu,
`select_backward` for select, `convolution_backward`...) and writes `grad * 2.0` in C++, which is
`mul.Scalar`, not the `mul.Tensor` a Python `grad * 2.0` calls. Each is an op here, recording the node
PyTorch records for it (`ThresholdBackwardBackward0`, `MulBackward1`), so that a gradient computed
with create_graph=True has the same history as in torch and can be differentiated again. Their own
derivatives are in the derivative table, next to the op they differentiate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import dtypes, errors
from engine.autograd import grad_mode
from engine.ops.core import array_of, record, result_type
from engine.quiet import quiet_binary
from engine.tensor import Tensor


def _new(result: Any, dtype: dtypes.dtype) -> Tensor:
    """A backward op's result: numpy's array (or the scalar a 0-dim computation gives) as a new tensor
    of `dtype`, a fresh array of that dtype adopted as it is."""
    if type(result) is not np.ndarray or result.dtype != dtype.np:
        result = np.asarray(result)
        if result.dtype != dtype.np:
            result = result.astype(dtype.np)
    return Tensor._wrap(result, dtype)


def new_empty_strided(like: Tensor, shape: Sequence[int], stride: Sequence[int]) -> Tensor:
    """`like.new_empty_strided(shape, stride)`: fresh memory in like's dtype (on the current device)."""
    return Tensor._empty_strided(tuple(shape), tuple(stride), like.dtype)


def diag_embed(self: Tensor) -> Tensor:
    """at::diag_embed(self): a batch of square matrices with self's last dimension on their diagonals
    (DiagEmbedBackward0, dim1=-2, dim2=-1 as torch keeps them, unsigned)."""
    n = self._shape[-1]
    result = np.zeros((*self._shape, n), self.dtype.np)
    index = np.arange(n)
    result[..., index, index] = self._numpy_view()
    out = _new(result, self.dtype)
    record("DiagEmbedBackward0", out, (self,), values={"dim1": (1 << 64) - 2, "dim2": (1 << 64) - 1, "offset": 0})
    return out


def new_zeros(like: Tensor, shape: Sequence[int]) -> Tensor:
    t = Tensor._empty(tuple(shape), like.dtype)
    t._storage.data.fill(0)
    return t


# --------------------------------------------------------------------------- C++ Scalar overloads
def _scalar_op(self: Tensor, other: Any, compute: Any, name: str, values: dict[str, Any] | None) -> Tensor:
    dt = result_type(self, other)
    out = _new(quiet_binary(compute, array_of(self, dt), dt.np.type(other)), dt)  # torch never warns of inf or nan
    if grad_mode.state.enabled:
        record(name, out, (self,), values=values)
    return out


def mul_scalar(self: Tensor, other: Any) -> Tensor:
    """at::mul(Tensor, Scalar): what `grad * 2.0` is in a C++ formula (MulBackward1)."""
    return _scalar_op(self, other, np.multiply, "MulBackward1", {"other": other})


def add_scalar(self: Tensor, other: Any) -> Tensor:
    """at::add(Tensor, Scalar) (AddBackward1)."""
    return _scalar_op(self, other, np.add, "AddBackward1", None)


def sub_scalar(self: Tensor, other: Any) -> Tensor:
    """at::sub(Tensor, Scalar) (SubBackward1)."""
    return _scalar_op(self, other, np.subtract, "SubBackward1", None)


def div_scalar(self: Tensor, other: Any) -> Tensor:
    """at::div(Tensor, Scalar) (DivBackward1)."""
    return _scalar_op(self, other, np.divide, "DivBackward1", {"other": other})


def add_scalar_(self: Tensor, other: Any) -> Tensor:
    """at::Tensor::add_(Scalar) (AddBackward1, in place)."""
    from engine.ops.core import apply_inplace

    def write(target: np.ndarray) -> None:
        np.add(target, target.dtype.type(other), out=target)

    return apply_inplace(self, write, "AddBackward1", ())


def mul_scalar_(self: Tensor, other: Any) -> Tensor:
    """at::Tensor::mul_(Scalar) (MulBackward1, in place)."""
    from engine.ops.core import apply_inplace

    def write(target: np.ndarray) -> None:
        np.multiply(target, target.dtype.type(other), out=target)

    return apply_inplace(self, write, "MulBackward1", (), values={"other": other})


def div_scalar_(self: Tensor, other: Any) -> Tensor:
    """at::Tensor::div_(Scalar) (DivBackward1, in place)."""
    from engine.ops.core import apply_inplace

    def write(target: np.ndarray) -> None:
        np.divide(target, target.dtype.type(other), out=target)

    return apply_inplace(self, write, "DivBackward1", (), values={"other": other})


def scalar_div(value: Any, tensor: Tensor) -> Tensor:
    """C++ `value / tensor`: empty_like(tensor).fill_(value).div_(tensor), a DivBackward0 in place."""
    from engine.ops.factories import empty_like

    return empty_like(tensor).fill_(value).div_(tensor)


def scalar_rsub(value: Any, tensor: Tensor) -> Tensor:
    """C++ `value - tensor`: empty_like(tensor).fill_(value).sub_(tensor), a SubBackward0 in place."""
    from engine.ops.factories import empty_like

    return empty_like(tensor).fill_(value).sub_(tensor)


# --------------------------------------------------------------------------- activations
_REDUCED = (dtypes.float16, dtypes.bfloat16)  # tanh_backward's kernel computes these in float32


def _gradient_values(grad: Tensor, shape: tuple[int, ...], dtype: dtypes.dtype) -> Any:
    """`array_of(grad, dtype)` for a pointwise backward op whose other operand has `shape`: a broadcast
    number of that shape (sum's gradient, expanded) as the one number it repeats, which numpy
    broadcasts to the same products without building the strided array."""
    grad_shape = grad._shape
    if grad_shape and not any(grad._stride) and grad_shape == shape and grad.dtype is dtype and not grad._bits \
            and 0 not in grad_shape:
        data = grad._storage.data
        if data.dtype == dtype.np:
            return data[grad._offset]
    return array_of(grad, dtype)


def threshold_backward(grad_output: Tensor, self: Tensor, threshold: float) -> Tensor:
    """relu's derivative: the gradient where self > threshold, else 0."""
    dt = result_type(grad_output, self)
    g = _gradient_values(grad_output, self._shape, dt)
    out = _new(np.where(array_of(self, dt) <= threshold, dt.np.type(0), g), dt)
    if grad_mode.state.enabled:  # a plain backward records nothing: no fields to gather
        record("ThresholdBackwardBackward0", out, (grad_output, self), save={"self": self},
               values={"threshold": threshold})
    return out


def hardtanh_backward(grad_output: Tensor, self: Tensor, min_val: float, max_val: float) -> Tensor:
    """hardtanh's derivative: the gradient where min_val < self < max_val, else 0."""
    dt = result_type(grad_output, self)
    x = array_of(self, dt)
    out = _new(np.where((x > min_val) & (x < max_val), array_of(grad_output, dt), dt.np.type(0)), dt)
    record("HardtanhBackwardBackward0", out, (grad_output, self), save={"self": self},
           values={"max_val": max_val, "min_val": min_val})
    return out


def sigmoid_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    dt = result_type(grad_output, output)
    out = sigmoid_backward_values(grad_output, array_of(output, dt), output._shape, dt)
    if grad_mode.state.enabled:
        record("SigmoidBackwardBackward0", out, (grad_output, output),
               save={"grad_output": grad_output, "output": output})
    return out


def sigmoid_backward_values(grad_output: Tensor, y: np.ndarray, shape: tuple[int, ...], dt: dtypes.dtype) -> Tensor:
    """sigmoid_backward's result from the output's values `y` (of `shape`, in dt), recording nothing:
    grad * (1 - y) * y, for bfloat16 computed in float32 and rounded once, as ATen's kernel does
    (float16 it computes in float16, op by op, as numpy does)."""
    g = _gradient_values(grad_output, shape, dt)
    if dt is dtypes.bfloat16:
        g, y = np.float32(g) if np.ndim(g) == 0 else g.astype(np.float32), y.astype(np.float32)
    return _new(g * (1 - y) * y, dt)


def tanh_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    dt = result_type(grad_output, output)
    y, g = array_of(output, dt), _gradient_values(grad_output, output._shape, dt)
    if dt in _REDUCED:  # computed in float32 and rounded once, as ATen's kernel does
        g, y = np.float32(g) if np.ndim(g) == 0 else g.astype(np.float32), y.astype(np.float32)
    out = _new(g * (1 - y * y), dt)
    if grad_mode.state.enabled:
        record("TanhBackwardBackward0", out, (grad_output, output),
               save={"grad_output": grad_output, "output": output})
    return out


def gelu_backward(grad_output: Tensor, self: Tensor, approximate: str = "none") -> Tensor:
    from engine.kernels import activation

    dt = result_type(grad_output, self)
    out = _new(activation.gelu_backward(array_of(grad_output, dt), array_of(self, dt), approximate), dt)
    record("GeluBackwardBackward0", out, (grad_output, self), save={"grad_output": grad_output, "self": self},
           values={"approximate": approximate})
    return out


def leaky_relu_backward(grad_output: Tensor, self: Tensor, negative_slope: float, self_is_result: bool) -> Tensor:
    if self_is_result and negative_slope < 0:  # leaky_relu_ saved its result, whose sign no longer says the input's
        raise RuntimeError(errors.LEAKY_RELU_INPLACE_NEGATIVE_SLOPE)
    dt = result_type(grad_output, self)
    g = array_of(grad_output, dt)
    out = _new(np.where(array_of(self, dt) > 0, g, g * dt.np.type(negative_slope)), dt)
    record("LeakyReluBackwardBackward0", out, (grad_output, self), save={"self": self},
           values={"negative_slope": negative_slope})
    return out


def softplus_backward(grad_output: Tensor, self: Tensor, beta: float, threshold: float) -> Tensor:
    from engine.kernels import activation_more as act

    dt = result_type(grad_output, self)
    out = _new(act.softplus_backward(array_of(grad_output, dt), array_of(self, dt), beta, threshold), dt)
    record("SoftplusBackwardBackward0", out, (grad_output, self), save={"grad_output": grad_output, "self": self},
           values={"beta": beta, "threshold": threshold})
    return out


def elu_backward(grad_output: Tensor, alpha: float, scale: float, input_scale: float, is_result: bool,
                 self_or_result: Tensor) -> Tensor:
    """ELU's, SELU's and CELU's derivative, from the input or (after elu_) from the output."""
    from engine.kernels import activation_more as act

    dt = result_type(grad_output, self_or_result)
    out = _new(act.elu_backward(array_of(grad_output, dt), alpha, scale, input_scale, is_result,
                                array_of(self_or_result, dt)), dt)
    record("EluBackwardBackward0", out, (grad_output, self_or_result),
           save={"grad_output": grad_output, "self_or_result": self_or_result},
           values={"alpha": alpha, "input_scale": input_scale, "is_result": is_result, "scale": scale})
    return out


def hardswish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    from engine.kernels import activation_more as act

    dt = result_type(grad_output, self)
    out = _new(act.hardswish_backward(array_of(grad_output, dt), array_of(self, dt)), dt)
    record("HardswishBackwardBackward0", out, (grad_output, self), save={"grad_output": grad_output, "self": self})
    return out


def hardsigmoid_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """Its own derivative is not implemented in torch: the node is NotImplemented."""
    from engine.kernels import activation_more as act

    dt = result_type(grad_output, self)
    out = _new(act.hardsigmoid_backward(array_of(grad_output, dt), array_of(self, dt)), dt)
    record("NotImplemented", out, (grad_output, self), values={"_op": "hardsigmoid_backward"})
    return out


def log_sigmoid_backward(grad_output: Tensor, self: Tensor, buffer: Tensor) -> Tensor:
    from engine.kernels import activation_more as act

    dt = result_type(grad_output, self)
    out = _new(act.log_sigmoid_backward(array_of(grad_output, dt), array_of(self, dt), buffer._numpy_view()), dt)
    record("LogSigmoidBackwardBackward0", out, (grad_output, self),
           save={"buffer": buffer, "grad_output": grad_output, "self": self})
    return out


def glu_backward(grad_output: Tensor, self: Tensor, dim: int) -> Tensor:
    from engine.kernels import activation_more as act

    dt = result_type(grad_output, self)
    d = dim % self.ndim
    out = _new(act.glu_backward(array_of(grad_output, dt), array_of(self, dt), d), dt)
    record("GluBackwardBackward0", out, (grad_output, self), save={"grad_output": grad_output, "self": self},
           values={"dim": dim % (1 << 64), "_dim": d})
    return out


def prelu_kernel_backward(grad_output: Tensor, self: Tensor, weight: Tensor) -> list[Tensor]:
    """_prelu_kernel_backward: the input's gradient and the weight's, both in the broadcast shape (the
    engine sums the weight's to its own shape, as torch's does: a SumBackward1 under create_graph)."""
    from engine.kernels import activation_more as act

    dt = result_type(grad_output, self)
    gx, gw = act.prelu_backward(array_of(grad_output, dt), array_of(self, dt), array_of(weight, dt))
    outs = [_new(gx, dt), _new(np.array(gw, order="C"), dt)]
    record("PreluKernelBackwardBackward0", outs, (grad_output, self, weight),
           save={"grad_output": grad_output, "self": self, "weight": weight})
    return outs


def shrink_backward(grad_output: Tensor, self: Tensor, lambd: float, name: str) -> Tensor:
    """hardshrink_backward / softshrink_backward: the gradient outside [-lambd, lambd], 0 inside."""
    dt = result_type(grad_output, self)
    x = array_of(self, dt)
    out = _new(np.where((x >= -lambd) & (x <= lambd), dt.np.type(0), array_of(grad_output, dt)), dt)
    record(name, out, (grad_output, self), save={"self": self}, values={"lambd": lambd})
    return out


def sum_to_size(grad: Tensor, shape: Sequence[int]) -> Tensor:
    """at::sum_to: sum the broadcast dims away (keepdim), then view to `shape` if dims were added."""
    shape = tuple(shape)
    if not shape:
        return grad.sum()
    lead = grad.ndim - len(shape)
    dims = list(range(lead)) + [i for i in range(lead, grad.ndim) if shape[i - lead] == 1 and grad._shape[i] != 1]
    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad.view(shape) if lead > 0 else grad


def expandable(shape: Sequence[int], target: Sequence[int]) -> bool:
    """Whether `shape` broadcasts to `target` (a gradient of that shape can be summed back to it)."""
    if len(shape) > len(target):
        return False
    return all(s == t or s == 1 for s, t in zip(reversed(shape), reversed(target)))



# --------------------------------------------------------------------------- softmax
def softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: dtypes.dtype) -> Tensor:
    """_softmax_backward_data: output * (grad - sum(grad * output, dim))."""
    from engine.kernels import activation

    result = activation.softmax_backward(grad_output._numpy_view(), output._numpy_view(), dim)
    out = _new(result, input_dtype if input_dtype is not output.dtype else output.dtype)
    record("SoftmaxBackwardDataBackward0", out, (grad_output, output),
           save={"grad_output": grad_output, "output": output}, values={"dim": dim, "_input_dtype": input_dtype})
    return out


def log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: dtypes.dtype) -> Tensor:
    """_log_softmax_backward_data: grad - exp(output) * sum(grad, dim)."""
    from engine.kernels import activation

    result = activation.log_softmax_backward(grad_output._numpy_view(), output._numpy_view(), dim)
    out = _new(result, input_dtype if input_dtype is not output.dtype else output.dtype)
    record("LogSoftmaxBackwardDataBackward0", out, (grad_output, output),
           save={"grad_output": grad_output, "output": output}, values={"dim": dim, "_input_dtype": input_dtype})
    return out


# --------------------------------------------------------------------------- views
def _scattered(grad: Tensor, sizes: Sequence[int], region: tuple[Any, ...], name: str,
               values: dict[str, Any]) -> Tensor:
    """A zero tensor of `sizes` with grad written into `region` (select/slice backward)."""
    result = np.zeros(tuple(sizes), grad.dtype.np)
    result[region] = grad._numpy_view()
    out = _new(result, grad.dtype)
    record(name, out, (grad,), values=values)
    return out


def select_backward(grad: Tensor, sizes: Sequence[int], dim: int, index: int) -> Tensor:
    d = dim % len(sizes)
    return _scattered(grad, sizes, (slice(None),) * d + (index,), "SelectBackwardBackward0",
                      {"dim": dim, "index": index})


def slice_backward(grad: Tensor, sizes: Sequence[int], dim: int, start: int, end: int, step: int) -> Tensor:
    d = dim % len(sizes)
    begin, stop, _ = slice(start, end, step).indices(sizes[d])
    return _scattered(grad, sizes, (slice(None),) * d + (slice(begin, stop, step),), "SliceBackwardBackward0",
                      {"dim": dim, "end": end, "start": start, "step": step})


def diagonal_backward(grad: Tensor, sizes: Sequence[int], offset: int, dim1: int, dim2: int) -> Tensor:
    result = np.zeros(tuple(sizes), grad.dtype.np)
    view = np.diagonal(result, offset, dim1 % result.ndim, dim2 % result.ndim)  # read-only: rebuild it writable
    target = np.ndarray(view.shape, result.dtype, buffer=result, offset=view.ctypes.data - result.ctypes.data,
                        strides=view.strides)
    target[...] = grad._numpy_view()
    out = _new(result, grad.dtype)
    record("DiagonalBackwardBackward0", out, (grad,), values={"dim1": dim1, "dim2": dim2, "offset": offset})
    return out


def unfold_backward(grad: Tensor, sizes: Sequence[int], dim: int, size: int, step: int) -> Tensor:
    """Sum each window's gradient back onto the elements it covers."""
    sizes = tuple(sizes)
    d = dim % max(len(sizes), 1)
    result = np.zeros(sizes, grad.dtype.np)
    g = grad._numpy_view()
    count = g.shape[d] if sizes else 1
    for w in range(count):
        window = np.take(g, w, axis=d) if sizes else g
        window = np.moveaxis(window, -1, d) if sizes else window
        if sizes:
            target = result[(slice(None),) * d + (slice(w * step, w * step + size),)]
            target += window
        else:
            result += window.sum()
    out = _new(result, grad.dtype)
    record("UnfoldBackwardBackward0", out, (grad,), values={"dim": dim, "size": size, "step": step})
    return out


# --------------------------------------------------------------------------- nn layers
def _outputs(arrays: Sequence[Any], dtype: dtypes.dtype) -> list[Tensor | None]:
    return [None if a is None else _new(a, dtype) for a in arrays]


def convolution_backward(grad_output: Tensor, input: Tensor, weight: Tensor, bias_sizes: Any,  # noqa: A002
                         stride: Any, padding: Any, dilation: Any, groups: int,
                         output_mask: Sequence[bool], transposed: bool = False,
                         output_padding: Any = (0, 0)) -> list[Tensor | None]:
    from engine.kernels import conv

    need = (output_mask[0], output_mask[1], output_mask[2] and bias_sizes is not None)
    arrays = grad_output._numpy_view(), input._numpy_view(), weight._numpy_view()
    if transposed:
        grads = conv.conv_transpose2d_backward(*arrays, stride, padding, groups, dilation, need)
    elif weight.ndim == 3:
        grads = conv.conv1d_backward(*arrays, stride, padding, dilation, groups, need)
    else:
        grads = conv.conv2d_backward(*arrays, stride, padding, dilation, groups, need)
    outs = _outputs(grads, grad_output.dtype)
    output_padding = (0,) * (weight.ndim - 2) if not transposed else tuple(output_padding)
    record("ConvolutionBackwardBackward0", outs, (grad_output, input, weight),
           save={"grad_output": grad_output, "input": input, "weight": weight},
           values={"dilation": dilation, "groups": groups, "output_padding": output_padding,
                   "padding": padding, "stride": stride, "transposed": transposed})
    return outs


def max_pool2d_with_indices_backward(grad_output: Tensor, self: Tensor, kernel_size: Any, stride: Any,
                                     padding: Any, dilation: Any, ceil_mode: bool, indices: Tensor) -> Tensor:
    from engine.kernels import pool

    out = _new(pool.max_pool2d_backward(grad_output._numpy_view(), indices._numpy_view(), self._shape),
               grad_output.dtype)
    record("MaxPool2DWithIndicesBackwardBackward0", out, (grad_output, self), save={"indices": indices},
           values={"_self_shape": self._shape, "_self_dtype": self.dtype})
    return out


def avg_pool2d_backward(grad_output: Tensor, self: Tensor, kernel_size: Any, stride: Any, padding: Any,
                        ceil_mode: bool, count_include_pad: bool, divisor_override: int | None) -> Tensor:
    from engine.kernels import pool

    array = pool.avg_pool2d_backward(grad_output._numpy_view(), self._shape, kernel_size, stride or None, padding,
                                     ceil_mode, count_include_pad, divisor_override)
    out = _new(array, grad_output.dtype)
    record("AvgPool2DBackwardBackward0", out, (grad_output, self),
           values={"ceil_mode": ceil_mode, "count_include_pad": count_include_pad,
                   "divisor_override": divisor_override, "kernel_size": kernel_size, "padding": padding,
                   "stride": stride, "_self_shape": self._shape, "_self_dtype": self.dtype})
    return out


def adaptive_avg_pool2d_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    from engine.kernels import pool

    out = _new(pool.adaptive_avg_pool2d_backward(grad_output._numpy_view(), self._shape), grad_output.dtype)
    record("AdaptiveAvgPool2DBackwardBackward0", out, (grad_output, self),
           values={"grad_output_sym_argsize_minus_1": grad_output._shape[-1],
                   "grad_output_sym_argsize_minus_2": grad_output._shape[-2],
                   "_self_shape": self._shape, "_self_dtype": self.dtype})
    return out


def native_batch_norm_backward(grad_out: Tensor, input: Tensor, weight: Tensor | None,  # noqa: A002
                               running_mean: Tensor | None, running_var: Tensor | None, save_mean: Tensor,
                               save_invstd: Tensor, train: bool, eps: float,
                               output_mask: Sequence[bool]) -> list[Tensor | None]:
    from engine.kernels import norm

    def np_of(t: Tensor | None) -> Any:
        return None if t is None else t._numpy_view()

    gx, gw, gb = norm.batch_norm_backward(grad_out._numpy_view(), input._numpy_view(), np_of(weight),
                                          save_mean._numpy_view(), save_invstd._numpy_view(), train,
                                          np_of(running_mean), np_of(running_var), eps)
    outs = _outputs([gx if output_mask[0] else None, gw if output_mask[1] else None,
                     gb if output_mask[2] else None], input.dtype)
    record("NativeBatchNormBackwardBackward0", outs, (grad_out, input, weight, save_mean, save_invstd),
           save={"grad_out": grad_out, "input": input, "running_mean": running_mean, "running_var": running_var,
                 "save_invstd": save_invstd, "save_mean": save_mean, "weight": weight},
           values={"eps": eps, "train": train})
    return outs


def native_layer_norm_backward(grad_out: Tensor, input: Tensor, normalized_shape: Sequence[int],  # noqa: A002
                               mean: Tensor, rstd: Tensor, weight: Tensor | None, bias: Tensor | None,
                               output_mask: Sequence[bool]) -> list[Tensor | None]:
    from engine.kernels import norm

    gx, gw, gb = norm.layer_norm_backward(grad_out._numpy_view(), input._numpy_view(), tuple(normalized_shape),
                                          mean._numpy_view(), rstd._numpy_view(),
                                          None if weight is None else weight._numpy_view())
    outs = _outputs([gx if output_mask[0] else None, gw if output_mask[1] and weight is not None else None,
                     gb if output_mask[2] and bias is not None else None], input.dtype)
    record("NativeLayerNormBackwardBackward0", outs, (grad_out, input, mean, rstd, weight, bias),
           save={"grad_out": grad_out, "input": input, "mean": mean, "rstd": rstd, "weight": weight},
           values={"normalized_shape": tuple(normalized_shape)})
    return outs


def nll_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                      ignore_index: int, total_weight: Tensor, name: str = "NllLossBackwardBackward0") -> Tensor:
    """nll_loss's (or nll_loss2d's, recorded as NllLoss2DBackwardBackward0) input gradient."""
    from engine.kernels import loss

    array = loss.nll_loss_backward(grad_output._numpy_view(), self._numpy_view(), target._numpy_view(),
                                   None if weight is None else weight._numpy_view(), _REDUCTIONS[reduction],
                                   ignore_index, total_weight._numpy_view())
    out = _new(array, self.dtype)
    record(name, out, (grad_output, self), save={"target": target, "weight": weight},
           values={"ignore_index": ignore_index % (1 << 64), "reduction": reduction, "_ignore_index": ignore_index})
    return out


def mse_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    from engine.kernels import loss

    x, y = np.broadcast_arrays(self._numpy_view(), target._numpy_view())
    gx, _ = loss.mse_loss_backward(grad_output._numpy_view(), x, y, _REDUCTIONS[reduction])
    out = _new(gx, self.dtype)
    record("MseLossBackwardBackward0", out, (grad_output, self, target),
           save={"grad_output": grad_output, "self": self, "target": target}, values={"reduction": reduction})
    return out


def binary_cross_entropy_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None,
                                  reduction: int) -> Tensor:
    from engine.kernels import loss

    gx, _ = loss.binary_cross_entropy_backward(grad_output._numpy_view(), self._numpy_view(), target._numpy_view(),
                                               None if weight is None else weight._numpy_view(),
                                               _REDUCTIONS[reduction])
    out = _new(gx, self.dtype)
    record("BinaryCrossEntropyBackwardBackward0", out, (grad_output, self, target),
           save={"grad_output": grad_output, "self": self, "target": target, "weight": weight},
           values={"reduction": reduction})
    return out


def binary_cross_entropy_target_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None,
                                         reduction: int) -> Tensor:
    """d bce / d target = -logit(self) * grad (times weight, over n for 'mean'), in engine ops so that it
    is differentiable (torch: at::logit(self).neg_().mul_(grad)...)."""
    from engine.ops.special import logit

    grad_target = logit(self).neg_()
    grad_target.mul_(grad_output)
    if weight is not None:
        grad_target.mul_(weight)
    if reduction == REDUCTION["mean"]:
        grad_target = div_scalar(grad_target, target.numel())
    return grad_target


def _pointwise_loss_backward(name: str, grad_output: Tensor, self: Tensor, target: Tensor, reduction: int,
                             field: str, bound: float, compute: Any) -> Tensor:
    x = self._numpy_view().astype(np.float64)
    d = x - target._numpy_view().astype(np.float64)
    norm = 1.0 / d.size if reduction == REDUCTION["mean"] else 1.0
    g = np.broadcast_to(grad_output._numpy_view().astype(np.float64), d.shape)
    out = _new(np.array(compute(d, bound) * norm * g, order="C"), self.dtype)
    record(name, out, (grad_output, self, target),
           save={"grad_output": grad_output, "self": self, "target": target},
           values={field: bound, "reduction": reduction})
    return out


def smooth_l1_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int,
                            beta: float) -> Tensor:
    """d/dself: d / beta inside (-beta, beta), the sign of d outside."""
    return _pointwise_loss_backward("SmoothL1LossBackwardBackward0", grad_output, self, target, reduction, "beta",
                                    beta, lambda d, b: np.where(d < -b, -1.0, np.where(d > b, 1.0, d / b)))


def huber_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, reduction: int, delta: float) -> Tensor:
    """d/dself: d inside [-delta, delta], delta times the sign of d outside."""
    return _pointwise_loss_backward("HuberLossBackwardBackward0", grad_output, self, target, reduction, "delta",
                                    delta, lambda d, b: np.where(d < -b, -b, np.where(d > b, b, d)))


def upsample_backward(grad_output: Tensor, mode: str, output_size: Sequence[int], input_size: Sequence[int],
                      align_corners: bool | None, scales: Sequence[float | None]) -> Tensor:
    """upsample_{nearest,linear,bilinear}*_backward: the transposed interpolation; its own derivative is the
    forward op (UpsampleNearest2DBackwardBackward0...)."""
    from engine.kernels import upsample
    from engine.nn.upsampling import matrices

    spatial = len(output_size)
    precision = np.float64 if grad_output.dtype.itemsize >= 8 else np.float32
    ms = matrices(input_size[2:], output_size, mode != "nearest", bool(align_corners), scales, precision)
    out = _new(np.array(upsample.interpolate_backward(grad_output._numpy_view(), ms), order="C"), grad_output.dtype)
    name = {"nearest": f"UpsampleNearest{spatial}DBackwardBackward0", "linear": "UpsampleLinear1DBackwardBackward0",
            "bilinear": "UpsampleBilinear2DBackwardBackward0"}[mode]
    values: dict[str, Any] = {"output_size": tuple(output_size), "_mode": mode}
    if mode != "nearest":
        values["align_corners"] = bool(align_corners)
    if spatial == 1:
        values["scales"] = scales[0]
    else:
        values["scales_h"], values["scales_w"] = scales
    record(name, out, (grad_output,), values=values)
    return out


def masked_scatter_backward(grad_output: Tensor, mask: Tensor, sizes: Sequence[int]) -> Tensor:
    """The source's gradient of masked_scatter: grad's masked elements in order, zero-padded to the
    source's size (MaskedScatterBackwardBackward0)."""
    import math

    grad, chosen = np.broadcast_arrays(grad_output._numpy_view(), mask._numpy_view())
    selected = grad[chosen]
    flat = np.zeros(math.prod(sizes), dtype=grad_output.dtype.np)
    flat[:selected.size] = selected[:flat.size]
    out = _new(flat.reshape(tuple(sizes)), grad_output.dtype)
    record("MaskedScatterBackwardBackward0", out, (grad_output,), save={"mask": mask},
           values={"_grad_output_info": grad_output._shape})
    return out


_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}
REDUCTION = {"none": 0, "mean": 1, "sum": 2}


def embedding_dense_backward(grad_output: Tensor, indices: Tensor, num_weights: int, padding_idx: int,
                             scale_grad_by_freq: bool) -> Tensor:
    """The weight's gradient of an embedding: grad_output's rows summed into the rows they were read from."""
    idx = indices._numpy_view().reshape(-1)
    flat = grad_output._numpy_view().reshape(-1, grad_output._shape[-1])
    if padding_idx >= 0:
        flat, idx = flat[idx != padding_idx], idx[idx != padding_idx]
    if scale_grad_by_freq:
        flat = flat / np.bincount(idx, minlength=num_weights)[idx][:, None]
    grad = np.zeros((num_weights, grad_output._shape[-1]), dtype=grad_output.dtype.np)
    np.add.at(grad, idx, flat)
    out = _new(grad, grad_output.dtype)
    record("EmbeddingDenseBackwardBackward0", out, (grad_output,), save={"indices": indices},
           values={"padding_idx": padding_idx})
    return out


def adaptive_max_pool2d_backward(grad_output: Tensor, self: Tensor, indices: Tensor) -> Tensor:
    from engine.kernels import pool

    out = _new(pool.adaptive_max_pool2d_backward(grad_output._numpy_view(), indices._numpy_view(), self._shape),
               grad_output.dtype)
    record("AdaptiveMaxPool2DBackwardBackward0", out, (grad_output, self), save={"indices": indices},
           values={"_self_shape": self._shape, "_self_dtype": self.dtype})
    return out
