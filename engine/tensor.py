"""Tensor: a strided window onto a Storage, with a version counter and autograd metadata.

Ops live in engine/ops and are attached to Tensor there; this module holds what every op relies on:
the layout, the version counter shared by a base and its views, the view bookkeeping PyTorch uses to
rebase the graph after an in-place change (CopySlices / AsStridedBackward0), and gradient edges.
"""

from __future__ import annotations

import copy
import math
import operator
import warnings
import weakref
from typing import Any

import numpy as np

from engine import allocator as allocation
from engine import devices, dtypes, errors, geometry
from engine.autograd import grad_mode
from engine.autograd.node import Node, new_accumulator, node_type
from engine.devices import CPU, device
from engine.storage import Storage, UntypedStorage, hold_for_numpy

# How a view was made (PyTorch's CreationMeta): decides whether it may be modified in place.
DEFAULT = "default"
NO_GRAD_MODE = "no_grad_mode"
INFERENCE_MODE = "inference_mode"
MULTI_OUTPUT = "multi_output"
IN_CUSTOM_FUNCTION = "in_custom_function"  # returned by a custom autograd.Function

CONJ_BIT, NEG_BIT = 1, 2


class VersionCounter:
    """One counter shared by a tensor, its views and its detach()ed aliases.

    It starts at the class's 0, so making one runs no Python __init__; the first bump gives the
    instance a value of its own."""

    value = 0


class _UnsharedCounter:
    """The counter an op's fresh result starts with, one object for all of them: version 0, shared
    with no other tensor yet, never written (`value` is read-only here). Most results are read and
    dropped without ever being viewed, saved or changed in place, so they never need a counter of
    their own; `Tensor._counter` gives a tensor one when it is first shared or written."""

    __slots__ = ()
    value = 0

    def __reduce__(self) -> str:
        return "UNSHARED"  # copy, deepcopy and pickle keep the one placeholder


UNSHARED = _UnsharedCounter()


class ViewInfo:
    """Why a tensor is a view: its root base, how it was made, and the version its grad_fn matches."""

    __slots__ = ("attr_version", "base", "creation_meta", "op_name", "output_nr", "replay_layout")

    def __init__(self, base: Tensor, creation_meta: str, attr_version: int, op_name: str = "",
                 output_nr: int = 0) -> None:
        self.base = base
        self.creation_meta = creation_meta
        self.attr_version = attr_version
        self.op_name = op_name  # a multi-output or custom Function view: the op that made it
        self.output_nr = output_nr
        # a view in another dtype than its base (view_as_real...) is rebuilt by replaying the ops that
        # made it (torch's view_fn), with the geometry it had then: an in-place view op since does not count
        self.replay_layout: tuple[tuple[int, ...], tuple[int, ...], int] | None = None


_new_object = object.__new__

SMALL = 1 << 16
"""Elements of a small tensor: its ops skip the memory-budget check and take the short paths (see
`_np_cache`)."""
_row_major: dict[tuple[int, ...], tuple[int, ...]] = {}  # shape -> row-major strides, for _adopt


def _remember_row_major(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides of `shape`, kept for the next result of that shape (a dict lookup costs
    less than geometry's lru_cache call; a program with ever new shapes starts the table afresh)."""
    if len(_row_major) >= 4096:
        _row_major.clear()
    stride = _row_major[shape] = geometry.row_major_strides(shape)
    return stride


_byte_strides: dict[tuple[tuple[int, ...], int], tuple[int, ...]] = {}  # (strides, itemsize) -> numpy's strides


def _remember_byte_strides(stride: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """numpy's byte strides of element strides, kept for the next view laid out alike (every fresh
    strided view builds its numpy array once: an expanded gradient, a slice, a transpose)."""
    if len(_byte_strides) >= 4096:
        _byte_strides.clear()
    byte_strides = _byte_strides[stride, itemsize] = tuple([s * itemsize for s in stride])
    return byte_strides


_autograd_api: Any = None  # engine.autograd.api once loaded: Tensor.backward reads it, not an import, per call


def _load_autograd_api() -> Any:
    """engine.autograd.api, imported when first needed (it imports this module)."""
    global _autograd_api
    from engine.autograd import api

    _autograd_api = api
    return api


class Size(tuple):
    """torch.Size: a tuple of ints that prints as `torch.Size([2, 3])`."""

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        return math.prod(self)

    def __add__(self, other: tuple) -> Size:  # type: ignore[override]
        return Size(tuple(self) + tuple(other))

    def __getitem__(self, index: Any) -> Any:
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item




OWN_DTYPE = "own dtype"  # grad_dtype never set: gradients take the tensor's dtype, whatever it becomes


class Tensor:
    """A strided view of a Storage that behaves like torch.Tensor."""

    _backward_hooks: Any = None  # register_hook's hooks (set per tensor, in its __dict__)
    _post_accumulate_grad_hooks: Any = None
    _grad_dtype: Any = OWN_DTYPE  # Tensor.grad_dtype once set (a dtype, or None for any), in the tensor's __dict__

    # `_fn` holds grad_fn as recorded; ops read and write it as `_grad_fn` (see the property below the class).
    # `_np_cache` is None or (the storage's buffer it was made over, the numpy view of the stored values,
    # the row-major strides of the view's shape if the view is C-contiguous with at most SMALL elements,
    # else None): the short paths of small ops read the last field instead of asking numpy for the
    # view's flags and size, and lay their result out with those strides.
    __slots__ = ("__dict__", "__weakref__", "_accumulator", "_bits", "_fn", "_grad", "_np_cache", "_offset",
                 "_output_nr", "_requires_grad", "_retains_grad", "_shape", "_storage", "_stride",
                 "_vc", "_view", "dtype")

    # ----------------------------------------------------------------- construction
    def __new__(cls, *args: Any, **kwargs: Any) -> Tensor:
        """`torch.Tensor(2, 3)` / `torch.Tensor([1, 2])`: the legacy constructor (default dtype)."""
        from engine.ops.factories import legacy_new

        return legacy_new(dtypes.get_default_dtype(), *args, **kwargs)

    @classmethod
    def _make(cls, storage: Storage, offset: int, shape: tuple[int, ...], stride: tuple[int, ...],
              dtype: dtypes.dtype, vc: VersionCounter | None = None) -> Tensor:
        """The one constructor every op uses: layout over a storage, no autograd history."""
        t = _new_object(cls)
        t._storage = storage
        t._offset = offset
        t._shape = shape
        t._stride = stride
        t.dtype = dtype
        t._vc = vc if vc is not None else UNSHARED
        t._requires_grad = False
        t._fn = None
        t._output_nr = 0
        t._grad = None
        t._retains_grad = False
        t._view = None
        t._accumulator = None
        t._np_cache = None
        t._bits = 0  # CONJ_BIT | NEG_BIT: torch's lazy conjugate and negative views
        return t

    @classmethod
    def _empty(cls, shape: tuple[int, ...], dtype: dtypes.dtype) -> Tensor:
        storage = Storage.allocate(math.prod(shape), dtype.np)
        return cls._make(storage, 0, tuple(shape), geometry.contiguous_strides(shape), dtype)

    @classmethod
    def _empty_strided(cls, shape: tuple[int, ...], stride: tuple[int, ...], dtype: dtypes.dtype) -> Tensor:
        """Fresh memory laid out with the given (dense) strides."""
        span = 1 + sum((n - 1) * st for n, st in zip(shape, stride)) if 0 not in shape else 0
        storage = Storage.allocate(span, dtype.np)
        return cls._make(storage, 0, tuple(shape), tuple(stride), dtype)

    @classmethod
    def _wrap(cls, array: Any, dtype: dtypes.dtype | None = None) -> Tensor:
        """A new tensor owning the result of a numpy computation, adopted without a copy when it is
        a fresh dense array (keeping numpy's layout, which follows its inputs as torch's does)."""
        if dtype is None:
            dtype = dtypes.from_numpy_dtype(np.asarray(array).dtype)
        elif type(array) is np.ndarray and array.base is None and array.dtype == dtype.np and \
                array.flags.c_contiguous:
            return cls._adopt(array, dtype)
        if not isinstance(array, np.ndarray) or array.dtype != dtype.np or array.base is not None:
            array = np.array(array, dtype=dtype.np)
        if array.flags.c_contiguous:
            return cls._adopt(array, dtype)
        order = sorted(range(array.ndim), key=lambda d: -array.strides[d])
        dense = array.transpose(order)
        if not dense.flags.c_contiguous:  # not a permuted dense block: lay it out row-major
            return cls._wrap(np.ascontiguousarray(array), dtype)
        stride = tuple(s // array.itemsize for s in array.strides)
        return cls._make(Storage.wrap(dense.reshape(-1)), 0, array.shape, stride, dtype)

    @staticmethod
    def _adopt(array: np.ndarray, dtype: dtypes.dtype, stride: tuple[int, ...] | None = None) -> Tensor:
        """A new tensor owning `array`, a fresh C-contiguous numpy result of dtype's type: what most
        ops return, so it is built without the general checks. A view of the array becomes the
        cached numpy view, so the next op reading this tensor does not rebuild one (a view, not the
        array: code that copies arrays with a base must not mistake it for a fresh result).

        Making and freeing a result is most of a small op's cost, so this sets _make's fields itself
        and makes a host storage as Storage.wrap would, with Allocator.register written out (its calls
        cost more than their work); Storage.__del__ writes out the free. `stride`: the row-major strides
        of the array's shape, when the caller has them at hand (an operand's `_np_cache`)."""
        shape = array.shape
        flat = array.ravel()
        if devices.state.current is CPU:
            owner = allocation.allocator
            storage = _new_object(Storage)
            storage.data = flat
            storage.nbytes = nbytes = flat.nbytes
            storage.id = storage_id = next(owner.ids)
            owner.live_count += 1
            live = owner.live_bytes = owner.live_bytes + nbytes
            if live > owner.peak_bytes:
                owner.peak_bytes = live
            if owner.listeners:
                owner.announce("alloc", storage_id, nbytes)
            storage.device = CPU
            storage.owner = owner
            storage.inference = grad_mode.state.inference
        else:
            storage = Storage.wrap(flat)
        t = _new_object(Tensor)
        t._storage = storage
        t._offset = 0
        t._shape = shape
        if stride is None:
            stride = _row_major.get(shape)
            if stride is None:
                stride = _remember_row_major(shape)
        t._stride = stride
        t.dtype = dtype
        t._vc = UNSHARED
        t._requires_grad = False
        t._fn = None
        t._output_nr = 0
        t._grad = None
        t._retains_grad = False
        t._view = None
        t._accumulator = None
        # flat is 1-D: its len() is its size, and a quicker call than numpy's size attribute
        t._np_cache = (flat, array.view(), stride if len(flat) <= SMALL else None)
        t._bits = 0
        return t

    # ----------------------------------------------------------------- layout
    def _numpy_view(self) -> np.ndarray:
        """This tensor as a numpy array over the same memory: writes go straight to the storage.
        A lazy conjugate or negative view (conj(), the imag of one) reads as a computed array
        instead; writes to it go through `_write` (the in-place and out= paths do). Every op reads
        its operands here, so the cached view is looked up first, without _raw_view's call."""
        cache = self._np_cache
        if cache is not None and cache[0] is self._storage.data and not self._bits:
            return cache[1]
        if self._bits:
            raw = self._raw_view()
            value = np.conj(raw) if self._bits & CONJ_BIT else raw
            return np.negative(value) if self._bits & NEG_BIT else value
        return self._raw_view()

    def _write(self, write: Any) -> None:
        """Run `write(array)` on this tensor's values, storing them back through its conj/neg bits."""
        if not self._bits:
            write(self._raw_view())
            return
        logical = np.array(self._numpy_view())
        write(logical)
        physical = np.conj(logical) if self._bits & CONJ_BIT else logical
        np.copyto(self._raw_view(), np.negative(physical) if self._bits & NEG_BIT else physical)

    def _raw_view(self) -> np.ndarray:
        """The stored values, whatever the conj/neg bits say about them."""
        data = self._storage.data
        cache = self._np_cache
        if cache is not None and cache[0] is data:
            return cache[1]
        np_dtype = self.dtype.np  # the storage's bytes seen as this tensor's dtype (view(dtype), set_)
        itemsize = np_dtype.itemsize
        shape, stride = self._shape, self._stride
        if 0 in shape:
            array = np.empty(shape, dtype=np_dtype)
        else:
            byte_strides = _byte_strides.get((stride, itemsize))
            if byte_strides is None:
                byte_strides = _remember_byte_strides(stride, itemsize)
            # ndarray's arguments (shape, dtype, buffer, offset, strides) given by position: numpy parses
            # them by keyword at several times the cost
            array = np.ndarray(shape, np_dtype, data, self._offset * itemsize, byte_strides)
        small = array.size <= SMALL and array.flags.c_contiguous
        self._np_cache = (data, array, geometry.row_major_strides(self._shape) if small else None)
        return array

    # the stride slots past its rank that torch's TensorImpl still holds from an earlier layout (None
    # while there is none: see geometry.inline_strides); AccumulateGrad reads them after `.data =`
    _stale_strides: tuple[int, ...] | None = None

    def _set_layout(self, shape: tuple[int, ...], stride: tuple[int, ...], offset: int) -> None:
        """Change this tensor's own geometry (t_, squeeze_, as_strided_, resize_, set_)."""
        self._stale_strides = geometry.inline_strides(self._stride, self._stale_strides)[len(stride):]
        self._shape, self._stride, self._offset = tuple(shape), tuple(stride), offset
        self._np_cache = None

    @property
    def shape(self) -> Size:
        return Size(self._shape)

    def size(self, dim: int | None = None) -> Size | int:
        if dim is None:
            return Size(self._shape)
        return self._shape[geometry.wrap_dim(dim, len(self._shape))]

    def stride(self, dim: int | None = None) -> tuple[int, ...] | int:
        if dim is None:
            return self._stride
        return self._stride[geometry.wrap_dim(dim, len(self._shape))]

    def storage_offset(self) -> int:
        return self._offset

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    ndimension = dim

    def numel(self) -> int:
        return math.prod(self._shape)

    nelement = numel

    def element_size(self) -> int:
        return self.dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self.dtype.itemsize

    def is_contiguous(self, memory_format: object = None) -> bool:
        return geometry.is_contiguous(self._shape, self._stride)

    def untyped_storage(self) -> UntypedStorage:
        return UntypedStorage(self._storage)

    def data_ptr(self) -> int:
        if self._storage.nbytes == 0 or 0 in self._shape:
            return 0  # no elements: torch's null pointer
        return self._storage.data_ptr + self._offset * self.dtype.itemsize

    @property
    def device(self) -> device:
        return self._storage.device

    @property
    def is_cuda(self) -> bool:
        return self._storage.device.type == "cuda"

    is_sparse = False
    is_quantized = False
    is_meta = False
    layout = "torch.strided"

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    def is_conj(self) -> bool:
        return bool(self._bits & CONJ_BIT)

    def is_neg(self) -> bool:
        return bool(self._bits & NEG_BIT)

    # ----------------------------------------------------------------- versions and views
    @property
    def _version(self) -> int:
        if self._storage.inference:
            raise RuntimeError(errors.INFERENCE_VERSION)
        return self._vc.value

    def is_inference(self) -> bool:
        return self._storage.inference

    def _bump_version(self) -> None:
        vc = self._vc
        if vc is UNSHARED:
            vc = self._vc = VersionCounter()
        vc.value += 1

    def _counter(self) -> VersionCounter:
        """This tensor's version counter, to share with another tensor or to write: a fresh result's
        UNSHARED placeholder is first replaced by a counter of its own (still at 0). Reading a
        version needs no call: `_vc.value` is right either way."""
        vc = self._vc
        if vc is UNSHARED:
            vc = self._vc = VersionCounter()
        return vc

    def _is_view(self) -> bool:
        return self._view is not None

    @property
    def _base(self) -> Tensor | None:
        return self._view.base if self._view is not None else None

    def _alias(self) -> Tensor:
        """Same memory, layout and version counter; no autograd history (what detach() returns). The
        numpy view is shared too: it is the same window (a saved output read by backward needs it)."""
        alias = Tensor._make(self._storage, self._offset, self._shape, self._stride, self.dtype,
                             self._vc if self._vc is not UNSHARED else self._counter())
        alias._bits = self._bits
        alias._np_cache = self._np_cache
        return alias

    def _layout_key(self) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        return self._shape, self._stride, self._offset

    # ----------------------------------------------------------------- autograd metadata
    @property
    def requires_grad(self) -> bool:
        if self._requires_grad or self._fn is not None:
            return True
        return self._view is not None and self._view.base.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if self._fn is not None:  # C++'s is_leaf: the stored grad_fn, no view regeneration
            raise RuntimeError(errors.REQUIRES_GRAD_NON_LEAF if flag else errors.REQUIRES_GRAD_NON_LEAF_FALSE)
        if flag and not self.dtype.is_differentiable:
            raise RuntimeError(errors.REQUIRES_GRAD_DTYPE_ATTR)
        self._requires_grad = bool(flag)

    @requires_grad.deleter
    def requires_grad(self) -> None:
        raise RuntimeError("requires_grad must be a bool")

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if self._fn is not None:  # a non-leaf already requires grad: asking for it again is a no-op
            if requires_grad:
                return self
            raise RuntimeError(errors.REQUIRES_GRAD_NON_LEAF_FALSE)
        if requires_grad and not self.dtype.is_differentiable:
            raise RuntimeError(errors.REQUIRES_GRAD_DTYPE_METHOD)
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def grad_fn(self) -> Node | None:
        view = self._view
        if view is not None and view.attr_version != self._vc.value:
            return self._regenerate_view_grad_fn(view)
        return self._fn

    @property
    def output_nr(self) -> int:
        return self._output_nr

    def _regenerate_view_grad_fn(self, view: ViewInfo) -> Node | None:
        """After its base (or another view of it) changed in place, a view's history becomes
        AsStridedBackward0 of the base's new history, as in PyTorch; a view that may not be rebased
        (made in no_grad mode or by a multi-output op) raises instead, whatever the grad mode."""
        base = view.base
        if self._fn is None and not base.requires_grad:
            return None
        self._check_rebase(view, indirect=True)
        base_edge = base._gradient_edge() or (None, 0)
        base_layout = base._layout_key()
        if base.dtype.is_complex and not self.dtype.is_complex:
            # a real view of complex memory: torch replays view_as_real on the base, then as_strided
            shape, stride, offset = base_layout
            base_layout = ((*shape, 2), (*(2 * st for st in stride), 1), 2 * offset)
            complex_np = base.dtype.np

            def parts_backward(grad: np.ndarray, saved: dict) -> tuple[np.ndarray]:
                return ((grad[..., 0] + 1j * grad[..., 1]).astype(complex_np),)

            real_node = node_type("ViewAsRealBackward0")(parts_backward, (base_edge,),
                                                         ((base_layout[0], self.dtype, self.device),))
            layout = view.replay_layout or self._layout_key()
            if layout == base_layout:
                self._set_grad_fn(real_node, 0)
                view.attr_version = self._vc.value
                return real_node
            base_edge = (real_node, 0)
        else:
            layout = self._layout_key()
        node = node_type("AsStridedBackward0")(None, (base_edge,), ((layout[0], self.dtype, self.device),))
        node._values = {"size": layout[0], "stride": layout[1], "storage_offset": layout[2], "_geometry": base_layout}
        self._set_grad_fn(node, 0)
        view.attr_version = self._vc.value
        return node

    def _check_rebase(self, view: ViewInfo, indirect: bool) -> None:
        """PyTorch's handle_view_on_rebase: only views made the default way may take a new history."""
        if view.creation_meta == DEFAULT:
            return
        fn = self._fn
        raise RuntimeError(errors.view_rebase(view.creation_meta, None if fn is None else fn.forward_op_name(),
                                              self._output_nr, indirect))

    def _grad_fn_for_message(self) -> Node | None:
        """grad_fn as a version-mismatch message names it; never raises."""
        try:
            return self.grad_fn
        except RuntimeError:
            return self._fn

    def _set_grad_fn(self, node: Node | None, output_nr: int, move_retains_grad: bool = True) -> None:
        """A new history: hooks registered so far stay with the old node (they see the gradient of the
        old value), a retain_grad moves to the new one, as in PyTorch. An in-place view op
        (`move_retains_grad` False: t_, transpose_...) leaves it on the old node, which then receives
        .grad in the old layout; the next history change finds it missing and fails as torch does."""
        old, old_nr = self._fn, self._output_nr
        self._fn = node
        self._output_nr = output_nr
        if self._view is not None:  # torch's set_gradient_edge: this history is current for the view's version
            self._view.attr_version = self._vc.value
        if old is not None and old is not node:
            if self._backward_hooks is not None:
                self._backward_hooks = None
            if self._retains_grad and node is not None and move_retains_grad:
                ref = old.hooks().retains_grad.pop(old_nr, None) if old._hooks is not None else None
                if ref is None:
                    raise RuntimeError(errors.RETAIN_GRAD_STRANDED)
                node.hooks().retains_grad[output_nr] = ref

    def _gradient_edge(self) -> tuple[Node, int] | None:
        """Where gradients for this tensor go: its grad_fn, or its leaf's AccumulateGrad."""
        fn = self.grad_fn
        if fn is not None:
            return fn, self._output_nr
        if self._requires_grad:
            acc = self._accumulator() if self._accumulator is not None else None
            if acc is None:
                acc = new_accumulator(self)
                self._accumulator = weakref.ref(acc)
            return acc, 0
        return None

    @property
    def grad(self) -> Tensor | None:
        """torch warns of a non-leaf's unset .grad, judging the leaf by the history as recorded (C++'s
        is_leaf: a stale view is not regenerated here)."""
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            warnings.warn(errors.NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(value).__name__}")
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            want = self._gradient_dtype()
            if want is not None and value.dtype is not want:
                raise RuntimeError(errors.GRAD_ASSIGN_DTYPE.format(got=value.dtype.cpp, want=want.short))
            if value.device.type != self.device.type:
                raise RuntimeError(f"attempting to assign a gradient with device type '{value.device.type}' to a "
                                   f"tensor with device type '{self.device.type}'. Please ensure that the gradient "
                                   "and the tensor are on the same device")
            if value._shape != self._shape:
                raise RuntimeError(errors.GRAD_ASSIGN_SIZE.format(
                    got=errors.shape_text(value._shape), want=errors.shape_text(self._shape)))
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def grad_dtype(self) -> dtypes.dtype | None:
        """The dtype this leaf's gradients are cast to (None: whatever arrives); its own dtype unless set."""
        if not self.is_leaf:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        return self._gradient_dtype()

    @grad_dtype.setter
    def grad_dtype(self, value: dtypes.dtype | None) -> None:
        if value is not None and not isinstance(value, dtypes.dtype):
            raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}")
        if self._grad_fn is not None:  # C++'s is_leaf, as the setter asks it (the getter asks Python's)
            if self._grad is None and not self._retains_grad:  # torch reads .grad on the way, with its warning
                warnings.warn(errors.NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and self._grad is not None and self._grad.dtype is not value:
            raise RuntimeError(f"Cannot set grad_dtype to '{value.short}' because there is already a gradient with "
                               f"dtype '{self._grad.dtype.cpp}'. Please clear the gradient (.grad = None) before "
                               "changing grad_dtype, or ensure the new grad_dtype matches the existing gradient's dtype.")
        self._grad_dtype = value

    def _gradient_dtype(self, own: dtypes.dtype | None = None) -> dtypes.dtype | None:
        """What `.grad =` must be, and what backward casts this leaf's incoming gradient to (None: any).
        Unless set, it is the leaf's dtype; an AccumulateGrad passes `own`, the dtype the leaf had when
        it was made (a `.data =` of another dtype since gives the leaf a new one)."""
        chosen = self._grad_dtype
        if chosen is OWN_DTYPE:
            return own if own is not None else self.dtype
        return chosen

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Keep this non-leaf's gradient in `.grad` (a hook on its grad_fn that follows in-place ops)."""
        if not self.requires_grad:
            raise RuntimeError(errors.RETAIN_GRAD_NO_GRAD)
        if self._grad_fn is None or self._retains_grad:  # torch's C++ is_leaf: the history as recorded, not
            return                                       # regenerated (a stale multi-output view passes)
        self.grad_fn.hooks().retains_grad[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook: Any) -> Any:
        """hook(grad) runs when this tensor's gradient is computed; it may return a replacement."""
        from engine.autograd.hooks import HookDict, add_hook

        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._backward_hooks is None:
            self._backward_hooks = HookDict()
            fn = self.grad_fn
            if fn is not None:
                fn._register_tensor_hooks(self._output_nr, self._backward_hooks)
        return add_hook(self._backward_hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Any) -> Any:
        """hook(tensor) runs on a leaf after its .grad was updated; it must return None."""
        from engine.autograd.hooks import HookDict, add_hook

        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_accumulate_grad_hooks is None:
            self._post_accumulate_grad_hooks = HookDict()
        return add_hook(self._post_accumulate_grad_hooks, hook)

    def backward(self, gradient: Tensor | None = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None) -> None:
        api = _autograd_api or _load_autograd_api()
        if gradient is None and not create_graph and inputs is None:
            api.backward_of(self, bool(retain_graph))
        else:
            api.backward([self], [gradient], retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)

    # ----------------------------------------------------------------- python protocol
    def __repr__(self) -> str:
        from engine.printing import format_tensor

        try:
            fn = self.grad_fn
            fn_name = type(fn).__name__ if fn is not None else None
        except RuntimeError:
            fn_name = "Invalid"
        return format_tensor(self._numpy_view(), self.dtype.name, requires_grad=self.requires_grad,
                             grad_fn_name=fn_name, device=None if self.is_cpu else str(self.device))

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        """torch's: a 0-d tensor formats as its number (f"{loss}" is `0.25`); any other only with an
        empty spec (its repr)."""
        if self.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self) -> Any:
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError(errors.BOOL_AMBIGUOUS)
        return bool(self._numpy_view().reshape(()))

    def _warn_scalar_of_graph(self) -> None:
        """float(), int() and complex() of a tensor requiring grad: torch's once-per-process warning."""
        if self.requires_grad:
            from engine.warn_once import warn_once

            warn_once("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                      "Consider using tensor.detach() first.", stacklevel=4)

    def __float__(self) -> float:
        self._warn_scalar_of_graph()
        return float(self.item())

    def __int__(self) -> int:
        self._warn_scalar_of_graph()
        return int(self.item())

    def __complex__(self) -> complex:
        self._warn_scalar_of_graph()
        return complex(self.item())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __hash__(self) -> int:
        return id(self)

    def item(self) -> Any:
        if self.numel() != 1:
            raise RuntimeError(errors.ITEM_MULTI.format(n=self.numel()))
        return self._numpy_view().reshape(()).item()

    def tolist(self) -> Any:
        return self._numpy_view().tolist()

    def numpy(self, force: bool = False) -> np.ndarray:
        from engine.autograd import grad_mode

        if self.requires_grad and not force and grad_mode.is_grad_enabled():
            raise RuntimeError(errors.NUMPY_REQUIRES_GRAD)
        if force:  # detach().resolve_conj().resolve_neg().numpy(): memory is shared unless a bit is set
            if not self._bits:
                hold_for_numpy(self._storage)
            return self._numpy_view()
        if self.is_conj():
            raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj()"
                               ".numpy() instead.")
        if self.is_neg():
            raise RuntimeError("Can't call numpy() on Tensor that has negative bit set. Use tensor.resolve_neg()"
                               ".numpy() instead.")
        hold_for_numpy(self._storage)
        return self._numpy_view()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __copy__(self) -> Tensor:
        """copy.copy: torch rebuilds the tensor from its reduce tuple, `empty(0).set_(storage, ...)`: the
        same memory and layout, a leaf with self's requires_grad, a version counter of its own at 1."""
        copied = Tensor._make(self._storage, self._offset, self._shape, self._stride, self.dtype)
        copied._bits = self._bits
        copied._requires_grad = self.requires_grad
        copied._counter().value = 1
        return copied

    def __reduce_ex__(self, protocol: int) -> Any:
        raise TypeError("tensors cannot be pickled in this engine")

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        """copy.deepcopy: leaves only; views of one storage stay views of one new storage."""
        if id(self) in memo:
            return memo[id(self)]
        if not self.is_leaf:
            raise RuntimeError(errors.DEEPCOPY_NON_LEAF)
        storage = memo.get(id(self._storage))
        if storage is None:
            storage = Storage.allocate(self._storage.data.size, self._storage.data.dtype)
            storage.data[...] = self._storage.data
            memo[id(self._storage)] = storage
        new = Tensor._make(storage, self._offset, self._shape, self._stride, self.dtype)
        new._counter().value = 1  # torch builds the copy with set_()
        if self.requires_grad:
            new._requires_grad = True
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        new.__dict__.pop("_grad_dtype", None)  # torch's copy starts with the default grad_dtype
        memo[id(self)] = new
        return new

    @property
    def data(self) -> Tensor:
        """Same memory, its own version counter, no history: the old escape hatch around autograd."""
        data = Tensor._make(self._storage, self._offset, self._shape, self._stride, self.dtype)
        data._bits = self._bits
        return data

    @data.setter
    def data(self, other: Tensor) -> None:
        if not isinstance(other, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(other).__name__}")
        if self.requires_grad and not (other.dtype.is_floating_point or other.dtype.is_complex):
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        if other.dtype is not self.dtype or other.device != self.device:
            self._accumulator = None  # torch's set_data: a leaf of another type gets a new AccumulateGrad
        self._storage = other._storage
        self.dtype = other.dtype
        self._set_layout(other._shape, other._stride, other._offset)
        self._stale_strides = other._stale_strides  # set_data copies the other's slots, stale ones too

    @data.deleter
    def data(self) -> None:
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    def detach(self) -> Tensor:
        return self._alias()

    def detach_(self) -> Tensor:
        if self._view is not None:
            raise RuntimeError(errors.DETACH_VIEW)
        self._fn = None
        self._requires_grad = False
        return self

    @property
    def is_cpu(self) -> bool:
        return self._storage.device.type == "cpu"

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:
        """No argument: the legacy type name ('torch.FloatTensor'); else this tensor in that type (a
        dtype, a legacy class such as torch.DoubleTensor, or its name), itself when it already is."""
        if dtype is None:
            return f"torch.{self.dtype.legacy}"
        if isinstance(dtype, str):
            name = dtype.removeprefix("torch.")
            found = next((d for d in (*dtypes.ALL, *dtypes.COMPLEX) if d.legacy == name), None)
            if found is None:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = found
        target = getattr(dtype, "dtype", dtype)
        return self if target is self.dtype else self.to(target)

    def type_as(self, other: Tensor) -> Tensor:
        return self.type(other.type())

    def get_device(self) -> int:
        return -1 if self.is_cpu else 0


def _refuse_grad_fn_deletion(self: Tensor) -> None:
    raise RuntimeError("Deletion of _grad_fn not allowed. Detach tensor instead!")


# torch refuses `del t._grad_fn`. A __delattr__ would say so too, but it routes every attribute write on
# every tensor through Python (several times slower, and an op's result sets a dozen), so `_grad_fn` is a
# property over the slot `_fn`, read and written by C-level accessors.
Tensor._grad_fn = property(operator.attrgetter("_fn"), Tensor._fn.__set__, _refuse_grad_fn_deletion)


class Parameter(Tensor):
    """nn.Parameter: a leaf that requires grad and prints as `Parameter containing:`."""

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = Tensor._empty((0,), dtypes.get_default_dtype())
        p = object.__new__(cls)
        for slot in Tensor.__slots__:
            if slot not in ("__dict__", "__weakref__"):
                object.__setattr__(p, slot, None)
        p._storage, p._offset, p._shape, p._stride = data._storage, data._offset, data._shape, data._stride
        p.dtype = data.dtype
        p._vc = data._counter()
        p._requires_grad = bool(requires_grad)
        p._output_nr = 0
        p._retains_grad = False
        p._bits = 0
        if requires_grad and not data.dtype.is_differentiable:
            raise RuntimeError(errors.REQUIRES_GRAD_DTYPE_FACTORY)
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) not in memo:
            from engine.ops.copying import clone

            memo[id(self)] = Parameter(clone(self.data), self._requires_grad)
        return memo[id(self)]

    def __repr__(self) -> str:
        from engine.printing import format_parameter

        if not self._requires_grad:
            return "Parameter containing:\n" + super().__repr__()
        return format_parameter(self._numpy_view(), self.dtype.name,
                                device=None if self.is_cpu else str(self.device))

    __str__ = __repr__
