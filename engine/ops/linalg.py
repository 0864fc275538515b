"""Matrix products: mm, bmm, mv, dot, addmm, outer, and matmul's dispatch among them.

Each product saves only what the other operand's gradient needs (mm keeps mat2 when self requires
grad and self when mat2 does), because that decides which later in-place change breaks backward.

matmul is composite in PyTorch: it picks dot / mv / mm / bmm by the operands' ranks and folds or
expands batch dims with view ops, so its graph shows those nodes (UnsafeViewBackward0 over
MmBackward0 over ViewBackward0 ...). It is built here from the same view ops in the same order
(ATen's _matmul_impl), so graphs, saved tensors and version errors come out as PyTorch's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine import dtypes, errors, geometry
from engine.ops import views
from engine.ops.copying import contiguous
from engine.ops.core import check_internal_overlap, needs_grad, record
from engine.ops.pointwise import mul, resize_out, write_out
from engine.tensor import Tensor


# --------------------------------------------------------------------------- shared helpers
def _product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b; float16 goes through float32, as torch's CPU kernels accumulate it."""
    with np.errstate(all="ignore"):  # torch never warns about nan/inf products
        if a.dtype.itemsize == 2 and a.dtype != np.int16:  # float16 and bfloat16
            return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(a.dtype)
        if a.ndim >= 2 and b.ndim >= 2 and a.shape[-1] == 1 and a.dtype.kind == "f":
            return np.multiply(a, b)  # one product per element, as torch's kernel: a -0. stays -0.
        return np.matmul(a, b)


def _no_bool(kernel: str, dt: dtypes.dtype) -> None:
    if dt is dtypes.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _finish(name: str, op: str, result: np.ndarray, dt: dtypes.dtype, inputs: tuple[Tensor, ...],
            save: dict[str, Tensor], out: Tensor | None, values: dict[str, Any] | None = None) -> Tensor:
    """Wrap a product as a new tensor and record it, or honour `out=`."""
    result = np.asarray(result, dtype=dt.np, order="C")
    if out is not None:
        if out.dtype is not dt:
            if op == "dot":  # dot resizes out before it compares dtypes
                resize_out(out, result.shape)
                raise RuntimeError(f"result dtype {out.dtype.short} does not match input dtype {dt.short}")
            raise RuntimeError(f"Expected out tensor to have dtype {dt.cpp}, but got {out.dtype.cpp} instead")
        return write_out(out, result, op, inputs, after_resize=lambda: check_internal_overlap(out))
    tensor = Tensor._wrap(result, dt)
    record(name, tensor, inputs, None, save, None, values)
    return tensor


def _layouts(**tensors: Tensor) -> dict[str, tuple[int, ...]]:
    """The `<name>_sym_sizes` / `<name>_sym_strides` fields mm-like nodes keep."""
    values = {}
    for name, t in tensors.items():
        values[f"{name}_sym_sizes"] = t._shape
        values[f"{name}_sym_strides"] = t._stride
    return values


def _mm_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> RuntimeError:
    return RuntimeError(errors.MM_SHAPES.format(a0=a[0], a1=a[1], b0=b[0], b1=b[1]))


# --------------------------------------------------------------------------- the products
def mm(self: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:
    for t, name in ((self, "self"), (mat2, "mat2")):
        if t.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix")
    if self._shape[1] != mat2._shape[0]:
        raise _mm_shapes(self._shape, mat2._shape)
    if self.dtype is not mat2.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {self.dtype.cpp} "
                           f"!= {mat2.dtype.cpp}")
    _no_bool("addmm_impl_cpu_", self.dtype)
    return _finish("MmBackward0", "mm", _product(self._numpy_view(), mat2._numpy_view()), self.dtype,
                   (self, mat2), {"mat2": mat2, "self": self}, out, _layouts(mat2=mat2, self=self))


def bmm(self: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:
    for t, name in ((self, "batch1"), (mat2, "batch2")):
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    b, _, m = self._shape
    if mat2._shape[:2] != (b, m):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] but got: "
                           f"[{mat2._shape[0]}, {mat2._shape[1]}].")
    if self.dtype is not mat2.dtype:
        raise RuntimeError(f"expected scalar type {self.dtype.short} but found {mat2.dtype.short}")
    _no_bool("bmm", self.dtype)
    return _finish("BmmBackward0", "bmm", _product(self._numpy_view(), mat2._numpy_view()), self.dtype,
                   (self, mat2), {"mat2": mat2, "self": self}, out)


def dot(self: Tensor, tensor: Tensor, *, out: Tensor | None = None) -> Tensor:
    if self.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.ndim}D and {tensor.ndim}D tensors")
    if self.dtype is not tensor.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {self.dtype.short} and "
                           f"{tensor.dtype.short}")
    if self._shape != tensor._shape:
        raise RuntimeError(errors.DOT_SIZES.format(n=self._shape[0], m=tensor._shape[0]))
    _no_bool("dot", self.dtype)
    return _finish("DotBackward0", "dot", _product(self._numpy_view(), tensor._numpy_view()), self.dtype,
                   (self, tensor), {"self": self, "tensor": tensor}, out)


def mv(self: Tensor, vec: Tensor, *, out: Tensor | None = None) -> Tensor:
    if self.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.ndim}, {vec.ndim}")
    n, m = self._shape
    if vec._shape[0] != m:
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{m}), vec ({vec._shape[0]})")
    if self.dtype is not vec.dtype:
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           f"{vec.dtype.short}, {self.dtype.short}, and {vec.dtype.short}")
    _no_bool("addmv_impl_cpu", self.dtype)
    return _finish("MvBackward0", "mv", _product(self._numpy_view(), vec._numpy_view()), self.dtype,
                   (self, vec), {"self": self, "vec": vec}, out)


def outer(self: Tensor, vec2: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Composite in torch: a column view of self times vec2 (MulBackward0 over ViewBackward0)."""
    for t, name in ((self, "self"), (vec2, "vec2")):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return mul(views.reshape(self, (-1, 1)), vec2, out=out)


def addmm(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1,
          out: Tensor | None = None) -> Tensor:
    """beta * self + alpha * (mat1 @ mat2); with beta == 0, self is ignored (NaNs included)."""
    for t, name in ((mat1, "mat1"), (mat2, "mat2")):
        if t.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {t.ndim}-D tensor")
    for t, name in ((self, "self"), (mat1, "mat1")):
        if t.dtype is not mat2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {t.dtype.short} and "
                               f"{mat2.dtype.short}")
    if mat1._shape[1] != mat2._shape[0]:
        raise _mm_shapes(mat1._shape, mat2._shape)
    bias = views.expand(self.detach(), (mat1._shape[0], mat2._shape[1]))._numpy_view()
    _no_bool("addmm_impl_cpu_", self.dtype)
    half = self.dtype.itemsize == 2 and self.dtype.is_floating_point  # one rounding, after the bias (as ATen)
    a, b = mat1._numpy_view(), mat2._numpy_view()
    result = np.matmul(a.astype(np.float32), b.astype(np.float32)) if half else _product(a, b)
    if half:
        bias = bias.astype(np.float32)
    if alpha != 1:
        result = result * alpha
    if beta != 0:
        result = result + (bias * beta if beta != 1 else bias)
    return _finish("AddmmBackward0", "addmm", result, self.dtype, (self, mat1, mat2), {"mat1": mat1, "mat2": mat2},
                   out, {"alpha": alpha, "beta": beta, **_layouts(mat1=mat1, mat2=mat2)})


# --------------------------------------------------------------------------- matmul
def _unsafe_view(source: Tensor, shape: Sequence[int]) -> Tensor:
    """at::_unsafe_view: reshape a fresh contiguous result without marking it a view of it."""
    shape = tuple(shape)
    out = Tensor._make(source._storage, source._offset, shape, geometry.contiguous_strides(shape), source.dtype)
    record("UnsafeViewBackward0", out, (source,), values={"self_sym_sizes": source._shape})
    return out


def _should_fold(t1: Tensor, t2: Tensor) -> bool:
    """ATen's should_fold: fold the batch of the larger operand into mm/mv rows when its smaller
    partner needs a gradient (a smaller backward), or when folding needs no copy."""
    first_larger = t1.ndim >= t2.ndim
    if first_larger:
        shape, stride, small = t1._shape, t1._stride, t2
    else:  # the layout of t2.mT
        shape = t2._shape[:-2] + (t2._shape[-1], t2._shape[-2])
        stride = t2._stride[:-2] + (t2._stride[-1], t2._stride[-2])
        small = t1
    if not (len(shape) >= 3 and small.ndim <= 2):
        return False
    if small.requires_grad:
        return True
    if t1.ndim == 2:
        return False
    if 0 in shape:
        return True
    return all(stride[i] == stride[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _folded(t1: Tensor, t2: Tensor) -> Tensor:
    """N-D with a matrix or vector: one mm/mv over the larger operand's rows, then reshaped."""
    transpose = t2.ndim > t1.ndim
    big = views.mT(t2) if transpose else t1
    small = (views.t(t1) if t1.ndim == 2 else t1) if transpose else t2
    output_shape = list(big._shape[:-1])
    folded = views.reshape(big, (math.prod(output_shape), big._shape[-1]))
    if small.ndim == 2:
        output_shape.append(small._shape[1])
        output = _unsafe_view(mm(folded, small), output_shape)
        return contiguous(views.mT(output)) if transpose else output
    return _unsafe_view(mv(folded, small), output_shape)


def _batched(t1: Tensor, t2: Tensor) -> Tensor:
    """Broadcast the batch dims, expand both operands to them and run one bmm."""
    d1, d2 = t1.ndim, t2.ndim
    n, m1 = (t1._shape[-2] if d1 > 1 else 1), t1._shape[-1]
    m2, p = (t2._shape[-2], t2._shape[-1]) if d2 > 1 else (t2._shape[0], 1)
    batch1, batch2 = t1._shape[:max(d1 - 2, 0)], t2._shape[:max(d2 - 2, 0)]
    if d1 == 3 and d2 == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and t1.requires_grad:
            return _matmul(views.squeeze(t1, 0), t2)
        if batch2[0] == 1 and t2.requires_grad:
            return _matmul(t1, views.squeeze(t2, 0))
    batch = geometry.broadcast_shapes(batch1, batch2)
    count = math.prod(batch)
    e1 = views.reshape(views.expand(t1, batch + (n, m1)), (count, n, m1))
    if d2 == 1:
        e2 = views.unsqueeze(views.reshape(views.expand(t2, batch + (m2,)), (count, m2)), 2)
    else:
        e2 = views.reshape(views.expand(t2, batch + (m2, p)), (count, m2, p))
    output_shape = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    product = bmm(e1, e2)
    return _unsafe_view(views.squeeze(product, -1) if d2 == 1 else product, output_shape)


def _matmul(t1: Tensor, t2: Tensor) -> Tensor:
    d1, d2 = t1.ndim, t2.ndim
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return dot(t1, t2)
    if d1 == 2 and d2 == 1:
        return mv(t1, t2)
    if d1 == 1 and d2 == 2:
        return views.squeeze_(mm(views.unsqueeze(t1, 0), t2), 0)
    if d1 == 2 and d2 == 2:
        return mm(t1, t2)
    if _should_fold(t1, t2):
        return _folded(t1, t2)
    return _batched(t1, t2)


def matmul(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    from engine import amp

    for t, (name, position) in ((self, ("input", 1)), (other, ("other", 2))):
        if not isinstance(t, Tensor):
            raise TypeError(f"matmul(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type(t).__name__}")
    self, other = amp.cast_inputs(self, other)
    if out is None:
        return _matmul(self, other)
    if needs_grad(self, other, out):
        raise RuntimeError(errors.OUT_REQUIRES_GRAD.format(op="matmul"))
    result = _matmul(self, other)._numpy_view()
    dt = dtypes.from_numpy_dtype(result.dtype)
    if out.dtype is not dt:  # the kernel matmul picks checks out's dtype; dot and bmm resize out first
        if self.ndim == 1 and other.ndim == 1:
            resize_out(out, ())
            raise RuntimeError(f"result dtype {out.dtype.short} does not match input dtype {dt.short}")
        if self.ndim >= 3 or other.ndim >= 3:
            resize_out(out, result.shape)
        raise RuntimeError(f"Expected out tensor to have dtype {dt.cpp}, but got {out.dtype.cpp} instead")
    if self.ndim == 1 and other.ndim == 2:  # torch writes the (1, p) mm result, then squeeze_(0)s out
        return views.squeeze_(write_out(out, result.reshape(1, -1), "matmul", (),
                                        after_resize=lambda: check_internal_overlap(out)), 0)
    return write_out(out, result, "matmul", (), after_resize=lambda: check_internal_overlap(out))


def _rmatmul(self: Tensor, other: Tensor) -> Tensor:
    return matmul(other, self)


METHODS: dict[str, Callable[..., Any]] = {
    "matmul": matmul, "mm": mm, "bmm": bmm, "dot": dot, "mv": mv, "outer": outer, "ger": outer,
    "addmm": addmm, "__matmul__": matmul, "__rmatmul__": _rmatmul,
}
FUNCTIONS: dict[str, Callable[..., Any]] = {
    name: METHODS[name] for name in ("matmul", "mm", "bmm", "dot", "mv", "outer", "ger", "addmm")
}
