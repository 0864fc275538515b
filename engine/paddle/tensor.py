"""paddle.Tensor: a facade over one engine tensor, with Paddle's flags, names, copies and errors.

The engine tensor (`_t`) holds everything that is machinery: storage, layout, version counter and
autograd history. What is Paddle's own lives here:

- `stop_gradient` (default True) instead of requires_grad, settable on non-leaves too (the tensor
  then takes part in later ops as if detached; its own grad_fn stays);
- `inplace_version`, `name` (empty until read), `grad_fn` handles with Paddle's node names;
- which ops share memory (reshape, slicing, transpose, detach, unbind) and which copy
  (split, chunk, expand, numpy, to_tensor);
- in-place ops on a leaf that does not stop gradient *run*, then raise without bumping the
  version (`x[i] = v` refuses before writing); copy_/set_value write without bumping it.

Per-tensor Paddle state (the name, a non-leaf's stop_gradient) is kept on the engine tensor, so any
two facades over the same engine tensor agree.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

import numpy as np

import engine
from engine import geometry
from engine.autograd import grad_mode
from engine.ops.core import record
from engine.ops.views import as_strided_backward
from engine.paddle import autograd, dtypes, messages, names, printing
from engine.paddle.device import place_of
from engine.tensor import Tensor as EngineTensor
from engine.tensor import VersionCounter

NAME = "paddle_name"  # keys of the Paddle state kept in the engine tensor's __dict__
STOP = "paddle_stop"
HAS_NODE = "paddle_accumulation"  # a leaf gets its GradNodeAccumulation when stop_gradient is set


class Size(list):
    """paddle.Size: the list `x.shape` returns, printed `paddle.Size([2, 3])`."""

    def numel(self) -> int:
        return math.prod(self)

    def __repr__(self) -> str:
        return f"paddle.Size({list.__repr__(self)})"

    __str__ = __repr__


# ---------------------------------------------------------------------- helpers
def engine_operand(value: Any) -> Any:
    """What an engine op receives for a Paddle argument (tensors unwrapped, lists element-wise)."""
    if isinstance(value, Tensor):
        return value._operand()
    if isinstance(value, (list, tuple)):
        return type(value)(engine_operand(v) for v in value)
    return value


def wrap(t: EngineTensor, node: str | None = None, tensor_inputs: int | None = None) -> Tensor:
    """The facade of an engine op's fresh result, its new node named as Paddle names it (see
    autograd.adopt for `tensor_inputs`), laid out row-major as Paddle's kernels write it."""
    if node is not None:
        autograd.adopt(t._grad_fn, node, tensor_inputs)
    _row_major(t)
    return Tensor._wrap(t)


def _row_major(t: EngineTensor) -> None:
    """The engine, as PyTorch, gives an elementwise result its input's layout (a transposed input
    gives a transposed result); Paddle's results are always row-major. Rearrange a fresh dense
    result within its own storage, and the aliases its node saved of it, so sharing and
    contiguity (and so which later reshapes are views) are Paddle's."""
    if t.is_contiguous() or t._offset or t._storage.data.size != t.numel():
        return
    old, values = t._layout_key(), np.ascontiguousarray(t._numpy_view())
    t._storage.data[:] = values.reshape(-1)
    new = (t._shape, geometry.contiguous_strides(t._shape), 0)
    for alias in [t, *(saved.tensor for _, saved in (t._grad_fn._saved if t._grad_fn is not None else ()))]:
        if alias is not None and alias._storage is t._storage and alias._layout_key() == old:
            alias._set_layout(*new)


def quietly(t: EngineTensor, write: Callable[[], Any]) -> Any:
    """Run a write outside autograd that leaves t's version where it was (copy_, set_value,
    initializers, optimizer steps, and the in-place ops Paddle refuses after running)."""
    version = t._vc.value
    try:
        with grad_mode.no_grad():
            return write()
    finally:
        t._vc.value = version


def own_memory(t: EngineTensor) -> EngineTensor:
    """Give t a private copy of its data (and a version counter of its own): Paddle's split,
    chunk and expand copy where the engine, as PyTorch, returns views."""
    with engine.devices.on(t.device):
        fresh = EngineTensor._empty(t._shape, t.dtype)
    np.copyto(fresh._numpy_view(), t._numpy_view())
    t._storage = fresh._storage
    t._set_layout(fresh._shape, fresh._stride, 0)
    t._vc = VersionCounter()
    t._view = None
    return t


def layout_op(x: Tensor, node: str, compute: Callable[[EngineTensor], Any],
              backward: Callable[..., Any], copy: bool = False) -> Any:
    """A shape/view op recorded as ONE Paddle node: compute the result(s) with the engine outside
    autograd, make them plain tensors (sharing x's memory and version counter, or copies), then
    record `node` with `backward(grad(s), saved)` -> (input grad,)."""
    source = x._operand()
    with grad_mode.no_grad():
        out = compute(source)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    for o in outs:
        o._view, o._requires_grad = None, False
        if copy:
            own_memory(o)
    record(node, outs if isinstance(out, (list, tuple)) else out, (source,), backward)
    if outs:
        autograd.adopt(outs[0]._grad_fn, node)
    wrapped = [Tensor._wrap(o) for o in outs]
    return wrapped if isinstance(out, (list, tuple)) else wrapped[0]


def shape_arg(shape: Any) -> list[int]:
    if isinstance(shape, Tensor):
        return [int(v) for v in shape.tolist()]
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    return [int(s.item()) if isinstance(s, Tensor) else int(s) for s in shape]


# ---------------------------------------------------------------------- the Tensor
class Tensor:
    """paddle.Tensor over an engine tensor."""

    __slots__ = ("__weakref__", "_t")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        from engine.paddle.creation import to_tensor

        self._t = to_tensor(*args, **kwargs)._t if args else engine.empty(0)

    @classmethod
    def _wrap(cls, t: EngineTensor) -> Tensor:
        out = object.__new__(cls)
        out._t = t
        return out

    # ------------------------------------------------------------ autograd state
    def _operand(self) -> EngineTensor:
        """The engine tensor ops should see: a detached alias once stop_gradient was set on a
        non-leaf, so no gradient flows through it."""
        t = self._t
        if t.__dict__.get(STOP) and t._grad_fn is not None:
            return t._alias()
        return t

    @property
    def stop_gradient(self) -> bool:
        t = self._t
        if t._grad_fn is not None and STOP in t.__dict__:
            return t.__dict__[STOP]
        return not t.requires_grad

    @stop_gradient.setter
    def stop_gradient(self, value: bool) -> None:
        t = self._t
        if t._grad_fn is None:
            t._requires_grad = not value
            t.__dict__[HAS_NODE] = True
        else:
            t.__dict__[STOP] = bool(value)

    @property
    def requires_grad(self) -> bool:
        return not self.stop_gradient

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.stop_gradient = not value

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        self.stop_gradient = not requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        return self._t._grad_fn is None

    def _needs_leaf_check(self) -> bool:
        return grad_mode.state.enabled and self.is_leaf and not self.stop_gradient

    @property
    def grad_fn(self) -> autograd.GradNode | None:
        t = self._t
        if t._grad_fn is not None:
            return autograd.handle(t._grad_fn)
        if t.__dict__.get(HAS_NODE):
            return autograd.handle(autograd.accumulation_node(t))
        return None

    @property
    def grad(self) -> Tensor | None:
        g = self._t._grad
        return None if g is None else Tensor._wrap(g)

    @property
    def inplace_version(self) -> int:
        return self._t._vc.value

    def _inplace_version(self) -> int:
        return self._t._vc.value

    def backward(self, grad_tensor: Tensor | None = None, retain_graph: bool = False) -> None:
        autograd.backward(self, grad_tensor, retain_graph)

    def clear_grad(self) -> None:
        """Paddle zero-fills an existing gradient (in place, version unchanged)."""
        g = self._t._grad
        if g is not None:
            quietly(g, lambda: g.zero_())

    clear_gradient = clear_grad

    def detach(self) -> Tensor:
        return Tensor._wrap(self._t._alias())

    # ------------------------------------------------------------ metadata
    @property
    def name(self) -> str:
        d = self._t.__dict__
        if not d.get(NAME):
            d[NAME] = names.eager_tmp()
        return d[NAME]

    @name.setter
    def name(self, value: str) -> None:
        self._t.__dict__[NAME] = str(value)

    def _message_name(self) -> str:
        return self._t.__dict__.get(NAME, "")

    @property
    def shape(self) -> Size:
        return Size(self._t._shape)

    @property
    def dtype(self) -> dtypes.DataType:
        return dtypes.of_engine(self._t.dtype)

    @property
    def place(self) -> Any:
        return place_of(self._t)

    @property
    def ndim(self) -> int:
        return self._t.ndim

    def dim(self) -> int:
        return self._t.ndim

    ndimension = dim

    @property
    def size(self) -> int:
        return self._t.numel()

    def numel(self) -> Tensor:
        return Tensor._wrap(engine.tensor(self._t.numel(), dtype=engine.int64))

    def is_contiguous(self) -> bool:
        return self._t.is_contiguous()

    @property
    def strides(self) -> list[int]:
        return list(self._t._stride)

    def data_ptr(self) -> int:
        return self._t.data_ptr()

    def _is_shared_buffer_with(self, other: Tensor) -> bool:
        return self._t._storage is other._t._storage

    # ------------------------------------------------------------ values
    def numpy(self) -> np.ndarray:
        """A copy: Paddle's numpy() never shares memory with the tensor."""
        return np.array(self._t._numpy_view(), copy=True)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        values = self.numpy()
        return values if dtype is None else values.astype(dtype)

    def tolist(self) -> Any:
        return self._t._numpy_view().tolist()

    def item(self, *args: Any) -> Any:
        return self._t._numpy_view().item(*args)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        return int(self.item())

    def __bool__(self) -> bool:
        if self._t.numel() != 1:
            raise AssertionError("When Variable is used as the condition of if/while , Variable can only "
                                 "contain one element.")
        return bool(self.item())

    def __len__(self) -> int:
        if not self._t._shape:
            raise AssertionError("len() of a 0-D tensor is wrong")
        return self._t._shape[0]

    def __iter__(self) -> Any:
        return (self[i] for i in range(len(self)))

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return printing.format_tensor(self._t._numpy_view(), list(self._t._shape), self.dtype.name,
                                      repr(self.place), self.stop_gradient)

    __str__ = __repr__

    # ------------------------------------------------------------ copies and placement
    def contiguous(self) -> Tensor:
        """Paddle makes the tensor itself contiguous: it gets memory and a version counter of its
        own (starting again at 0), keeps its grad_fn, and is returned (measured)."""
        if not self._t.is_contiguous():
            own_memory(self._t)
        return self

    def cpu(self) -> Tensor:
        if self._t.is_cpu:
            return self
        raise NotImplementedError("Tensor.cpu() of a GPU tensor is not measured for the Paddle dialect yet")

    def copy_(self, other: Tensor, blocking: bool = True) -> Tensor:
        """Copy other's values in; no autograd, and the version stays (measured in 3.3.1)."""
        quietly(self._t, lambda: self._t.copy_(other._t))
        return Tensor._wrap(self._t)

    def set_value(self, value: Any) -> None:
        """Overwrite the values (a numpy array or a Tensor of the same shape); version unchanged."""
        source = value._t if isinstance(value, Tensor) else engine.from_numpy(np.array(value, dtype=self._t.dtype.np))
        quietly(self._t, lambda: self._t.copy_(source))

    # ------------------------------------------------------------ arithmetic
    def __add__(self, other: Any) -> Tensor:
        if isinstance(other, Tensor):
            return ops.add(self, other)
        return wrap(engine.add(self._operand(), other), "ScaleGradNode", 1)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Tensor:
        if isinstance(other, Tensor):
            return ops.subtract(self, other)
        return wrap(engine.sub(self._operand(), other), "ScaleGradNode", 1)

    def __rsub__(self, other: Any) -> Tensor:
        return wrap(engine.rsub(self._operand(), other), "ScaleGradNode", 1)

    def __mul__(self, other: Any) -> Tensor:
        if isinstance(other, Tensor):
            return ops.multiply(self, other)
        return wrap(engine.mul(self._operand(), other), "ScaleGradNode", 1)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Tensor:
        if isinstance(other, Tensor):
            return ops.divide(self, other)
        return wrap(engine.div(self._operand(), other), "DivScaleGradNode", 1)

    def __rtruediv__(self, other: Any) -> Tensor:
        """`2 / x`: Paddle makes 2 a tensor (which stops gradient) and divides."""
        from engine.paddle.creation import full_like

        return ops.divide(full_like(self, other), self)

    def __pow__(self, exponent: Any) -> Tensor:
        return ops.pow(self, exponent)

    def __neg__(self) -> Tensor:
        return wrap(engine.neg(self._operand()), "ScaleGradNode")

    def __matmul__(self, other: Tensor) -> Tensor:
        return ops.matmul(self, other)

    def _compare(self, other: Any, op: Callable[..., EngineTensor]) -> Tensor:
        return Tensor._wrap(op(self._operand(), engine_operand(other)))

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return self._compare(other, engine.eq)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return self._compare(other, engine.ne)

    def __lt__(self, other: Any) -> Tensor:
        return self._compare(other, engine.lt)

    def __le__(self, other: Any) -> Tensor:
        return self._compare(other, engine.le)

    def __gt__(self, other: Any) -> Tensor:
        return self._compare(other, engine.gt)

    def __ge__(self, other: Any) -> Tensor:
        return self._compare(other, engine.ge)

    # ------------------------------------------------------------ indexing
    def __getitem__(self, index: Any) -> Tensor:
        index = engine_operand(index)
        source = self._t
        with grad_mode.no_grad():
            view = source[index]
        if view._storage is not source._storage:  # advanced indexing gathers a copy
            return wrap(self._operand()[index], "IndexElementwiseGetGradNode")
        node = "UnsqueezeGradNode" if index is None else "SliceGradNode"
        backward = as_strided_backward(source._layout_key(), view._layout_key())
        return layout_op(self, node, lambda s: view, backward)

    def __setitem__(self, index: Any, value: Any) -> None:
        """Paddle checks the leaf rule *before* writing here, unlike the in-place ops."""
        if self._needs_leaf_check():
            raise ValueError(messages.LEAF_SETITEM.format(name=self._message_name()))
        target = self._operand()
        before = target._grad_fn
        target[engine_operand(index)] = engine_operand(value)
        if target._grad_fn is not before:
            if isinstance(value, Tensor):
                autograd.adopt(target._grad_fn, "SetValueWithTensorGradNode")
            else:  # the engine wraps a Python value in a tensor operand; Paddle's node has no edge for it
                autograd.adopt(target._grad_fn, "SetValueGradNode", 1)
            _link_former_leaf(target, before)

    # ------------------------------------------------------------ in-place ops
    def _inplace(self, node: str, write: Callable[..., Any], *args: Any, save_out: bool = False,
                 **kwargs: Any) -> Tensor:
        """Run an engine in-place op with Paddle's rules (see the module docstring)."""
        operands = engine_operand(args)
        if self._needs_leaf_check():
            t = self._t
            quietly(t, lambda: write(t, *operands, **kwargs))  # Paddle writes, then refuses
            raise ValueError(messages.LEAF_INPLACE.format(name=self._message_name()))
        target = self._operand()
        before = target._grad_fn
        write(target, *operands, **kwargs)
        if target._grad_fn is not before:
            autograd.adopt(target._grad_fn, node, 1 + builtins.sum(isinstance(a, Tensor) for a in args))
            _link_former_leaf(target, before)
            if save_out:
                autograd.save_also(target._grad_fn, outputs={"out": target})
        return self


def _link_former_leaf(t: EngineTensor, before: Any) -> None:
    """An in-place op that makes a leaf which stops gradient part of the graph (its operand needs
    a gradient) points the leaf's own edge at its GradNodeAccumulation, as Paddle does: backward
    then fills the (now non-leaf) tensor's .grad with the gradient of its old value."""
    node = t._grad_fn
    if before is None and node.next_functions and node.next_functions[0][0] is None:
        node.next_functions = ((autograd.accumulation_node(t), 0), *node.next_functions[1:])


# The math, shape and in-place methods are the module functions of ops.py and inplace.py, attached
# there (Paddle's Tensor methods are its functions too).
from engine.paddle import inplace, ops  # noqa: E402,F401
