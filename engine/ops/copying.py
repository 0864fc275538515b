"""Copies and writes: clone, contiguous, dtype conversion, copy_, fill_ and zero_.

A copy gets a new Storage and a new version counter; copy_/fill_/zero_ write into self's memory.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from engine import dtypes, geometry
from engine.devices import CPU, device, on, resolve
from engine.kernels import iterated_copy
from engine.ops.core import (
    apply_inplace,
    check_inplace_allowed,
    check_no_partial_overlap,
    check_writable,
    record,
)
from engine.ops.pointwise import small_untracked
from engine.quiet import quietly
from engine.tensor import Tensor


def clone(self: Tensor, *, memory_format: Any = None, contiguous: bool = False) -> Tensor:
    """A new storage in torch.preserve_format: a dense layout is kept as it is, any other gets dense
    strides in the same dim order."""
    if memory_format is None:
        small = small_untracked(self)  # an exactly row-major small tensor without a node: its values copied
        if small is not None and self._stride == small[1]:  # (a dense layout's size-1 dims keep their strides)
            out = Tensor._adopt(small[0].copy(), self.dtype, small[1])
            if self._storage.inference and not out._storage.inference:
                out._bump_version()  # as below
            return out
    if contiguous or memory_format == "contiguous_format":
        stride = geometry.contiguous_strides(self._shape)
    else:
        stride = geometry.like_strides(self._shape, self._stride)
    out = Tensor._empty_strided(self._shape, stride, self.dtype)
    np.copyto(out._numpy_view(), self._numpy_view())
    if self._storage.inference and not out._storage.inference:
        out._bump_version()  # an inference tensor skips autograd: clone's inner copy_ counts on the new tensor
    record("CloneBackward0", out, (self,))
    return out


def contiguous(self: Tensor, memory_format: Any = None) -> Tensor:
    if self._stride == geometry.row_major_strides(self._shape) or self.is_contiguous():  # the first: a cached lookup
        return self
    return clone(self, contiguous=True)


def _copy_to(self: Tensor, dtype: dtypes.dtype, target: device, copy: bool = False) -> Tensor:
    """A copy in another dtype and/or on another device (ToCopyBackward0); self when nothing changes."""
    if dtype is self.dtype and target == self.device and not copy:
        return self
    with on(target):
        out = Tensor._empty_strided(self._shape, geometry.like_strides(self._shape, self._stride), dtype)
    # a value out of the new dtype's range becomes inf (or C++'s cast of it), silently as in torch
    source = dtypes.through_float(_cast_source(self._numpy_view(), dtype), dtype)
    quietly(np.copyto, out._numpy_view(), source, casting="unsafe")
    if dtype.is_differentiable:
        record("ToCopyBackward0", out, (self,), values={"_dtype": self.dtype, "_device": self.device})
    return out


def _cast_source(values: np.ndarray, dtype: dtypes.dtype) -> np.ndarray:
    """Complex values going into a real dtype keep their real part, with torch's warning."""
    if values.dtype.kind == "c" and not dtype.is_complex:
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=4)
        return values.real
    return values


def _real_for(grad: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A complex gradient flowing to a real input is its real part (torch's handle_r_to_c)."""
    return grad.real if grad.dtype.kind == "c" and np.dtype(dtype).kind != "c" else grad


def to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """`.to(dtype)`, `.to(device)`, `.to(device, dtype)`, `.to(other)`, with keyword forms."""
    target_dtype = kwargs.get("dtype")
    target_device = kwargs.get("device")
    for arg in args:
        if isinstance(arg, dtypes.dtype):
            target_dtype = arg
        elif isinstance(arg, Tensor):
            target_dtype, target_device = arg.dtype, arg.device
        elif isinstance(arg, (str, device, int)):
            target_device = arg
    where = resolve(target_device) if target_device is not None else self.device
    return _copy_to(self, target_dtype or self.dtype, where, kwargs.get("copy", False))


def _caster(target: dtypes.dtype) -> Any:
    def cast(self: Tensor, memory_format: Any = None) -> Tensor:
        return _copy_to(self, target, self.device)
    return cast


def cpu(self: Tensor, memory_format: Any = None) -> Tensor:
    return _copy_to(self, self.dtype, CPU)


def cuda(self: Tensor, device: Any = None, non_blocking: bool = False, memory_format: Any = None) -> Tensor:
    return _copy_to(self, self.dtype, resolve("cuda" if device is None else device))


def copy_(self: Tensor, src: Tensor | float, non_blocking: bool = False) -> Tensor:
    """Write src into self (broadcast, any dtype cast allowed); recorded as CopyBackwards, unless self's
    dtype cannot carry a gradient (torch's copy_ ands requires_grad with isDifferentiableType)."""
    differentiable = self.dtype.is_differentiable
    check_inplace_allowed(self, *((src,) if differentiable else ()))
    if not isinstance(src, Tensor):
        src = Tensor._wrap(np.array(src, dtype=self.dtype.np), self.dtype)
    # torch's copy_ returns at once when src is the very same data (same memory, layout, dtype and
    # bits): no overlap check, nothing written (x[::2] = b into b's own expansion)
    same = src is self or (src._storage is self._storage and src._offset == self._offset
                           and src._stride == self._stride and src._shape == self._shape
                           and src.dtype is self.dtype and src._bits == self._bits)
    if not same:
        check_writable(self, None, (src._shape,))
    source_array = dtypes.through_float(_cast_source(src._numpy_view(), self.dtype), self.dtype) if not same \
        else src._numpy_view()

    in_order = not same and src._storage is self._storage and src.dtype is self.dtype and \
        not (src._bits or self._bits) and self.numel() <= iterated_copy.GRAIN_SIZE

    def write(target: np.ndarray) -> None:
        if same:
            return
        if in_order and np.shares_memory(target, source_array):  # a later element reads an earlier write
            iterated_copy.copy_in_order(target, source_array)
            return
        with np.errstate(invalid="ignore", over="ignore"):  # NaN into an integer: as C++ casts it
            np.copyto(target, source_array, casting="unsafe")

    if not differentiable:  # nothing recorded, but the overlap with src still refused
        check_no_partial_overlap(self, src)
    return apply_inplace(self, write, "CopyBackwards", (src,) if differentiable else (), check_autograd=False,
                         values={"_dtype": src.dtype, "_device": src.device})


def fill_(self: Tensor, value: Tensor | float) -> Tensor:
    """A number may fill an expanded tensor (every element gets the same value); a 0-dim tensor
    value goes through torch's overlap check like any other write."""
    check_inplace_allowed(self, value)
    check_writable(self, internal_overlap=isinstance(value, Tensor))
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.ndim} dimensions.")
        held = np.array(value._numpy_view())  # torch copies from a clone of a value that aliases self

        def write(target: np.ndarray) -> None:  # a copy_: cast as C casts (an int64 wraps into int32)
            with np.errstate(invalid="ignore", over="ignore"):
                np.copyto(target, held, casting="unsafe")

        # so no overlap can be refused there
        return apply_inplace(self, write, "FillBackward3", (value,), check_autograd=False,
                             check_overlap=value._storage is not self._storage)
    scalar = dtypes.checked_scalar(value, self.dtype, single=self.numel() == 1)
    return apply_inplace(self, lambda t: t.fill(scalar), "FillBackward2", (), check_autograd=False)


def zero_(self: Tensor) -> Tensor:
    check_inplace_allowed(self)
    check_writable(self, internal_overlap=False)
    return apply_inplace(self, lambda t: t.fill(0), "ZeroBackward0", (), check_autograd=False)


METHODS = {
    "clone": clone, "contiguous": contiguous, "to": to, "cpu": cpu, "cuda": cuda, "copy_": copy_, "fill_": fill_,
    "zero_": zero_, "float": _caster(dtypes.float32), "double": _caster(dtypes.float64),
    "half": _caster(dtypes.float16), "long": _caster(dtypes.int64), "int": _caster(dtypes.int32),
    "short": _caster(dtypes.int16), "char": _caster(dtypes.int8), "byte": _caster(dtypes.uint8),
    "bool": _caster(dtypes.bool_), "bfloat16": _caster(dtypes.bfloat16),
}
def detach(input: Tensor) -> Tensor:  # noqa: A002 - torch's argument name
    return input.detach()


FUNCTIONS = {"clone": clone, "detach": detach}
