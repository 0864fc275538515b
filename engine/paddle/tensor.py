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
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

import engine
from engine import geometry
from engine.autograd import grad_mode
from engine.ops.core import record
from engine.paddle import autograd, dtypes, items, messages, names, printing
from engine.paddle.device import place_of
from engine.tensor import Tensor as EngineTensor
from engine.tensor import VersionCounter

NAME = "paddle_name"  # keys of the Paddle state kept in the engine tensor's __dict__
STOP = "paddle_stop"
HAS_NODE = "paddle_accumulation"  # a leaf gets its GradNodeAccumulation when stop_gradient is set


def has_accumulation_node(t: EngineTensor) -> bool:
    """A leaf has its GradNodeAccumulation once stop_gradient was set on it, or once an op used it
    while it required grad (a gradient tensor, which requires grad, gets one when used, measured)."""
    return bool(t.__dict__.get(HAS_NODE)) or (t._requires_grad and t._accumulator is not None)
HOLDER = "paddle_holder"  # a tensor made from a DLPack capsule: same memory, its own allocation record
PERSISTABLE = "paddle_persistable"
IMPL = "paddle_impl"  # tensors made by detach() / .data: one Paddle tensor impl, so one layout and buffer


class ImplGroup:
    """Engine tensors that are one Paddle tensor impl (by identity: tensors compare elementwise)."""

    def __init__(self) -> None:
        self.members: dict[int, weakref.ref[EngineTensor]] = {}

    def add(self, t: EngineTensor) -> None:
        self.members[id(t)] = weakref.ref(t)

    def discard(self, t: EngineTensor) -> None:
        self.members.pop(id(t), None)

    def others(self, t: EngineTensor) -> list[EngineTensor]:
        alive = [ref() for ref in self.members.values()]
        return [o for o in alive if o is not None and o is not t]


def share_impl(source: EngineTensor, alias: EngineTensor) -> None:
    """Record that alias is the same Paddle tensor impl as source (what detach gives in Paddle:
    a later reshape_/unsqueeze_/initializer on either shows in both)."""
    group = source.__dict__.get(IMPL)
    if group is None:
        group = source.__dict__[IMPL] = ImplGroup()
        group.add(source)
    group.add(alias)
    alias.__dict__[IMPL] = group


def sync_aliases(t: EngineTensor) -> None:
    """Give every tensor sharing t's impl t's buffer, layout and dtype."""
    group = t.__dict__.get(IMPL)
    for other in group.others(t) if group is not None else ():
        other._storage, other.dtype = t._storage, t.dtype
        other._set_layout(t._shape, t._stride, t._offset)


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
    if tuple(t._stride) == geometry.contiguous_strides(t._shape) or t._offset or t._storage.data.size != t.numel():
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
        t._counter().value = version


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
    sync_aliases(t)
    return t


def copy_strided(t: EngineTensor, source: EngineTensor) -> None:
    """copy_: two dense tensors are copied as one block (overlap behaves as memmove: `t[1:].copy_(t[:-1])`
    shifts); otherwise element by element in t's row-major order, honouring both layouts, so when
    the two share memory a later element reads what an earlier one wrote (measured both ways)."""
    target, values = t._numpy_view(), source._numpy_view()
    dense = all(tuple(x._stride) == geometry.contiguous_strides(x._shape) for x in (t, source))
    if source._storage is not t._storage or dense:
        np.copyto(target, np.broadcast_to(values, target.shape), casting="unsafe")
        return
    for index in np.ndindex(*target.shape):
        target[index] = values[index]


def write_raw(t: EngineTensor, values: np.ndarray) -> None:
    """copy_ and set_value copy the values into t's memory in row-major order from t's first
    element, and t takes row-major strides there, whatever its strides were (measured: set_value
    on a transposed view writes the base in order and leaves the view contiguous); no autograd,
    no version bump."""
    flat = np.ascontiguousarray(values, dtype=t.dtype.np).reshape(-1)
    t._storage.data[t._offset:t._offset + flat.size] = flat
    if tuple(t._stride) != geometry.contiguous_strides(t._shape):
        t._set_layout(t._shape, geometry.contiguous_strides(t._shape), t._offset)
        sync_aliases(t)


def replace_buffer(t: EngineTensor, values: np.ndarray, dtype: Any) -> None:
    """Give t a fresh buffer holding `values` (shape and dtype included); its version stays.
    What Paddle's initializers, `copy_` of another shape and `assign(..., output=)` of another
    dtype do: views taken before no longer see t."""
    with engine.devices.on(t.device):
        fresh = EngineTensor._empty(tuple(values.shape), dtype)
    np.copyto(fresh._numpy_view(), values, casting="unsafe")
    t._storage, t.dtype = fresh._storage, fresh.dtype
    t._set_layout(fresh._shape, fresh._stride, 0)
    sync_aliases(t)


def layout_op(x: Tensor, node: str, compute: Callable[[EngineTensor], Any],
              backward: Callable[..., Any], copy: bool = False) -> Any:
    """A shape/view op recorded as ONE Paddle node: compute the result(s) with the engine outside
    autograd, make them plain tensors (sharing x's memory and version counter, or copies), then
    record `node` with `backward(grad(s), saved)` -> (input grad,)."""
    source = x._operand()
    with grad_mode.no_grad():
        out = compute(source)
    if out is source:  # the engine (as PyTorch) may hand back its input itself; Paddle makes a new tensor
        with grad_mode.no_grad():
            out = source._alias()
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    for o in outs:
        o._view, o._requires_grad = None, False
        if copy:
            own_memory(o)
        elif o._storage is not source._storage:  # a layout that could not be viewed was copied, yet
            o._vc = source._counter()  # Paddle's copy keeps the input's version counter (measured)
    record(node, outs if isinstance(out, (list, tuple)) else out, (source,), backward)
    if outs:
        autograd.adopt(outs[0]._grad_fn, node)
    wrapped = [Tensor._wrap(o) for o in outs]
    return wrapped if isinstance(out, (list, tuple)) else wrapped[0]


def check_inplace_broadcast(x: Tensor, *others: Any) -> None:
    """Paddle's in-place binary ops refuse an operand that would broadcast x to a bigger shape."""
    shapes = [list(x._t._shape), *(list(o._t._shape) for o in others if isinstance(o, Tensor))]
    out = list(geometry.broadcast_shapes(*shapes))
    if out != shapes[0]:
        raise ValueError(f"The shape of broadcast output {out} is different from that of inplace tensor "
                         f"{x.shape!r} in the Inplace operation.")


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
        if has_accumulation_node(t):
            return autograd.handle(autograd.accumulation_node(t))
        return None

    @property
    def grad(self) -> Tensor | None:
        g = self._t._grad
        return None if g is None else Tensor._wrap(g)

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        """`x.grad = None` drops the gradient; a tensor is copied in (Paddle checks no shape). Only
        a leaf's gradient can be set."""
        if not self.is_leaf:
            raise SystemError(messages.GRAD_OF_NON_LEAF)
        self._t.__dict__.pop(autograd.CLEARED, None)
        if value is None:
            self._t._grad = None
            return
        copy = engine.tensor(value.numpy(), dtype=value._t.dtype, device=str(value._t.device))
        copy._requires_grad = True
        self._t._grad = copy

    def _grad_ivar(self) -> Tensor | None:
        return self.grad

    def gradient(self) -> np.ndarray | None:
        """The gradient as a numpy array (a copy), or None."""
        g = self._t._grad
        return None if g is None else np.array(g._numpy_view(), copy=True)

    def retain_grads(self) -> None:
        """Keep a non-leaf's gradient after backward; on a leaf it only gives it its
        GradNodeAccumulation (measured, whatever its stop_gradient)."""
        t = self._t
        if t._grad_fn is None:
            t.__dict__[HAS_NODE] = True
        if t._grad_fn is not None and not self.stop_gradient and not t._retains_grad:
            t._retains_grad = True
            t._set_grad_fn(t._grad_fn, t._output_nr)

    def _bump_inplace_version(self) -> None:
        self._t._bump_version()

    @property
    def inplace_version(self) -> int:
        return self._t._vc.value

    def _inplace_version(self) -> int:
        return self._t._vc.value

    def backward(self, grad_tensor: Tensor | None = None, retain_graph: bool = False) -> None:
        autograd.backward(self, grad_tensor, retain_graph)

    def clear_gradient(self, *args: Any, **ignored: Any) -> None:
        """Paddle zero-fills an existing gradient (in place, version unchanged), or, given a false
        positional argument, drops it; keywords are ignored (measured: `clear_gradient(set_to_zero=False)`
        zero-fills). A leaf's zero-filled gradient is "fake empty": the next backward replaces it
        (see autograd.py)."""
        set_to_zero = bool(args[0]) if len(args) == 1 else True
        g = self._t._grad
        if not set_to_zero:
            self._t._grad = None
            self._t.__dict__.pop(autograd.CLEARED, None)
        elif g is not None:
            quietly(g, lambda: g.zero_())
            if self.is_leaf:
                self._t.__dict__[autograd.CLEARED] = True

    def clear_grad(self) -> None:
        """The alias of clear_gradient(), without its argument."""
        self.clear_gradient()

    clear_grad.__qualname__ = "monkey_patch_tensor.<locals>.clear_grad"

    def detach(self) -> Tensor:
        """A tensor over the same memory and impl that stops gradient, named at once."""
        alias = self._t._alias()
        share_impl(self._t, alias)
        alias.__dict__[NAME] = names.eager_in_tmp()
        return Tensor._wrap(alias)

    @property
    def data(self) -> Tensor:
        """A tensor over the same memory and impl that stops gradient (unnamed, unlike detach's)."""
        alias = self._t._alias()
        share_impl(self._t, alias)
        return Tensor._wrap(alias)

    @data.setter
    def data(self, value: Any) -> None:
        """`x.data = y` makes x hold y's memory (y's buffer, layout and version counter, so views of
        x taken before no longer follow it); other values are written as set_value does."""
        if not isinstance(value, Tensor):
            self.set_value(value)
            return
        t, source = self._t, value._t
        t._storage, t.dtype, t._vc = source._storage, source.dtype, source._counter()
        t._set_layout(source._shape, source._stride, source._offset)
        group = t.__dict__.pop(IMPL, None)  # x is now y's tensor: its old detached aliases stay behind
        if group is not None:
            group.discard(t)
        share_impl(source, t)

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
        """Paddle's rule: the strides are exactly the row-major ones (a size-1 dimension's stride
        counts too, unlike PyTorch's rule); an empty tensor is contiguous."""
        t = self._t
        if t.numel() == 0:
            return True
        return tuple(t._stride) == geometry.contiguous_strides(t._shape)

    @property
    def strides(self) -> list[int]:
        """Element strides, as Paddle's `strides` and `get_strides()` give them."""
        return list(self._t._stride)

    def get_strides(self) -> list[int]:
        return self.strides

    def stride(self) -> list[int]:
        return self.strides

    @property
    def offset(self) -> int:
        """Paddle's offset counts bytes from the start of the allocation (PyTorch's counts elements)."""
        return self._t._offset * self._t.dtype.itemsize

    def _offset(self) -> int:
        return self.offset

    def element_size(self) -> int:
        return self._t.dtype.itemsize

    @property
    def persistable(self) -> bool:
        return bool(self._t.__dict__.get(PERSISTABLE, False))

    @persistable.setter
    def persistable(self, value: bool) -> None:
        self._t.__dict__[PERSISTABLE] = bool(value)

    def data_ptr(self) -> int:
        return self._t.data_ptr()

    def _is_shared_buffer_with(self, other: Tensor) -> bool:
        """Same allocation: the same storage, reached the same way (a DLPack import shares the
        memory through an allocation record of its own, so Paddle says False there)."""
        a, b = self._t, other._t
        return a._storage is b._storage and a.__dict__.get(HOLDER) is b.__dict__.get(HOLDER)

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
        if not self.is_contiguous():
            own_memory(self._t)
        return self

    def cpu(self) -> Tensor:
        if self._t.is_cpu:
            return self
        raise NotImplementedError("Tensor.cpu() of a GPU tensor is not measured for the Paddle dialect yet")

    def copy_(self, other: Tensor, blocking: bool = True) -> Tensor:
        """Copy other's values in; no autograd, and the version stays (measured in 3.3.1). A source
        of another shape or dtype makes the tensor take its shape and dtype (a fresh buffer)."""
        t = self._t
        if tuple(other._t._shape) != tuple(t._shape) or other._t.dtype is not t.dtype:
            replace_buffer(t, other._t._numpy_view(), other._t.dtype)
            return Tensor._wrap(t)
        quietly(t, lambda: copy_strided(t, other._t))
        return Tensor._wrap(t)

    def set_value(self, value: Any) -> None:
        """Overwrite the values with a numpy array or Tensor of the same shape; version unchanged."""
        if not isinstance(value, (Tensor, np.ndarray)):
            raise AssertionError("Variable set_value function, arguments type only support Variable, numpy, "
                                 "Tensor, dict, string.")
        shape = tuple(value._t._shape) if isinstance(value, Tensor) else value.shape
        if tuple(shape) != tuple(self._t._shape):
            raise AssertionError(f"Variable Shape not match, Variable [ {self.name} ] need tensor with shape "
                                 f"{self.shape!r} but load set tensor with shape {shape}")
        values = value._t._numpy_view() if isinstance(value, Tensor) else np.asarray(value)
        write_raw(self._t, values)

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
        items.check(index, source._shape, writing=False)
        if items.has_negative_step(index):
            return _reversed_slice(self, index)
        with grad_mode.no_grad():
            view = source[index]
        if view._storage is not source._storage:  # advanced indexing gathers a copy
            return wrap(self._operand()[index], "IndexElementwiseGetGradNode")
        entries = index if isinstance(index, tuple) else (index,)
        stepped = any(isinstance(e, slice) and e.step not in (None, 1) for e in entries)
        node = "UnsqueezeGradNode" if index is None else "StridedSliceGradNode" if stepped else "SliceGradNode"
        backward = as_strided_backward(source._layout_key(), view._layout_key())
        return layout_op(self, node, lambda s: view, backward)

    def __setitem__(self, index: Any, value: Any) -> None:
        """Paddle checks the leaf rule *before* writing here, unlike the in-place ops."""
        if self._needs_leaf_check():
            raise ValueError(messages.LEAF_SETITEM.format(name=self._message_name()))
        target = self._operand()
        before = target._grad_fn
        index, operand = engine_operand(index), engine_operand(value)
        items.check(index, target._shape, writing=True)
        rewritten = items.rewrite(index, target._shape, operand)
        if rewritten is not None:
            index, operand = rewritten
        if isinstance(operand, (EngineTensor, np.ndarray)) and operand.ndim:
            with grad_mode.no_grad():
                region = target[index]._shape
            operand = items.squeeze_leading(operand, region)
        if isinstance(operand, np.ndarray):
            operand = engine.tensor(operand, dtype=target.dtype)
        if isinstance(operand, EngineTensor) and operand._storage is target._storage:
            operand = snapshot(operand)  # Paddle reads the value before writing (overlap is fine)
        target[index] = operand
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
            sync_aliases(t)
            raise ValueError(messages.LEAF_INPLACE.format(name=self._message_name()))
        target = self._operand()
        before = target._grad_fn
        operands = tuple(snapshot(o) if _overlaps(o, target) else o
                         for o in operands)  # Paddle reads an overlapping operand before writing
        write(target, *operands, **kwargs)
        if target is not self._t:  # a detached operand: a layout change is the tensor's own too
            self._t._storage, self._t.dtype = target._storage, target.dtype
            self._t._set_layout(target._shape, target._stride, target._offset)
        sync_aliases(self._t)
        if target._grad_fn is not before:
            autograd.adopt(target._grad_fn, node, 1 + builtins.sum(isinstance(a, Tensor) for a in args))
            _link_former_leaf(target, before)
            if save_out:
                autograd.save_also(target._grad_fn, outputs={"out": target})
        return self


def _overlaps(operand: Any, target: EngineTensor) -> bool:
    """The operand reads target's memory through another layout (x.add_(x.t())); the very same
    layout (x.multiply_(x)) reads each element before it is written."""
    return (isinstance(operand, EngineTensor) and operand._storage is target._storage
            and operand._layout_key() != target._layout_key())


def snapshot(t: EngineTensor) -> EngineTensor:
    """t's values in memory of their own, on t's place in the graph: gradient flows to t's node,
    or into t itself when t is a leaf that needs one."""
    with engine.devices.on(t.device):
        copy = EngineTensor._wrap(np.array(t._numpy_view(), copy=True), t.dtype)
    if t._grad_fn is not None:
        copy._set_grad_fn(t._grad_fn, t._output_nr)
    elif t._requires_grad:
        sink = autograd.accumulation_node(t)
        copy._requires_grad = True
        copy._accumulator = weakref.ref(sink)
        copy.__dict__["paddle_sink"] = sink  # alive as long as the copy
    return copy


def _reversed_slice(x: Tensor, index: Any) -> Tensor:
    """A slice with a negative step. Paddle returns a view with negative strides, which the engine
    does not model: here it is a copy of the same values under the same node (StridedSliceGradNode)."""
    source = x._operand()
    values = np.ascontiguousarray(source._numpy_view()[index])
    with engine.devices.on(source.device):
        out = EngineTensor._wrap(values, source.dtype)
    shape = source._shape

    def backward(grad: np.ndarray, saved: dict) -> tuple[np.ndarray]:
        full = np.zeros(shape, dtype=grad.dtype)
        full[index] = grad
        return (full,)
    record("StridedSliceGradNode", out, (source,), backward)
    return wrap(out, "StridedSliceGradNode")


def _link_former_leaf(t: EngineTensor, before: Any) -> None:
    """An in-place op that makes a leaf which stops gradient part of the graph (its operand needs
    a gradient) points the leaf's own edge at its GradNodeAccumulation, as Paddle does: backward
    then fills the (now non-leaf) tensor's .grad with the gradient of its old value."""
    node = t._grad_fn
    if before is None and node.next_functions and node.next_functions[0][0] is None:
        node.next_functions = ((autograd.accumulation_node(t), 0), *node.next_functions[1:])


def as_strided_backward(input_layout: tuple[Any, ...], view_layout: tuple[Any, ...]) -> Callable[..., Any]:
    """A view node's numpy backward: scatter-add the view's gradient onto its input by storage position."""
    def backward(grad: np.ndarray, saved: dict) -> tuple[np.ndarray]:
        positions = geometry.positions_within(input_layout, view_layout)
        result = np.zeros(math.prod(input_layout[0]), dtype=grad.dtype)
        np.add.at(result, positions.reshape(-1), grad.reshape(-1))
        return (result.reshape(input_layout[0]),)
    return backward


# The math, shape and in-place methods are the module functions of ops.py and inplace.py, attached
# there (Paddle's Tensor methods are its functions too).
from engine.paddle import inplace, ops  # noqa: E402,F401
