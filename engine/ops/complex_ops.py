"""Complex tensors' views and bits: conj() as a lazy conjugate view (torch's conj bit), the imag of a
conjugate as a lazy negative view (the neg bit), resolve_conj/resolve_neg, view_as_real and
view_as_complex (the same bytes read as pairs of floats or as complex numbers), .real/.imag (selects
of view_as_real, as torch builds them), torch.complex and torch.polar.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine.ops.copying import clone
from engine.ops.core import apply_inplace, make_view, record
from engine.ops.pointwise import write_out
from engine.ops.views import select
from engine.tensor import CONJ_BIT, NEG_BIT, Tensor


def _flip_bit(self: Tensor, bit: int, name: str) -> Tensor:
    return make_view(self, self._shape, self._stride, self._offset, name, bits=self._bits ^ bit)


def conj(self: Tensor) -> Tensor:
    """A real tensor is its own conjugate; a complex one gets a view with the conj bit flipped."""
    if not self.dtype.is_complex:
        return self
    return _flip_bit(self, CONJ_BIT, "ConjBackward0")


def _neg_view(self: Tensor) -> Tensor:
    return _flip_bit(self, NEG_BIT, "NegViewBackward0")


def resolve_conj(self: Tensor) -> Tensor:
    return clone(self) if self.is_conj() else self


def resolve_neg(self: Tensor) -> Tensor:
    return clone(self) if self.is_neg() else self


def conj_physical(self: Tensor, *, out: Tensor | None = None) -> Tensor:
    if out is not None:
        return write_out(out, np.conj(self._numpy_view()), "conj_physical", (self,))
    if not self.dtype.is_complex:
        return self
    result = Tensor._wrap(np.conj(self._numpy_view()), self.dtype)
    record("ConjPhysicalBackward0", result, (self,))
    return result


def conj_physical_(self: Tensor) -> Tensor:
    if not self.dtype.is_complex:
        return self
    return apply_inplace(self, lambda a: np.conjugate(a, out=a), "ConjPhysicalBackward1")


def view_as_real(self: Tensor) -> Tensor:
    if not self.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if self.is_conj():
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
                           "tensor so you can view it as real, use self.resolve_conj(); however, be warned that the "
                           "resulting tensor will NOT alias the original.")
    return make_view(self, (*self._shape, 2), (*(2 * st for st in self._stride), 1), 2 * self._offset,
                     "ViewAsRealBackward0", dtype=self.dtype.to_real())


def view_as_complex(self: Tensor) -> Tensor:
    if self.dtype.name not in ("float32", "float64", "float16"):
        raise RuntimeError("view_as_complex is only supported for float, double and half tensors, but got a tensor "
                           f"of scalar type: {self.dtype.short}")
    if self.dtype is dtypes.float16:
        raise RuntimeError("view_as_complex of a half tensor (complex32) is not supported by this engine")
    if self.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if self._shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if self._stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(st % 2 for st in self._stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self._offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return make_view(self, self._shape[:-1], tuple(st // 2 for st in self._stride[:-1]), self._offset // 2,
                     "ViewAsComplexBackward0", dtype=self.dtype.to_complex())


def real(self: Tensor) -> Tensor:
    if not self.dtype.is_complex:
        return self
    source = conj(self) if self.is_conj() else self
    return select(view_as_real(source), -1, 0)


def imag(self: Tensor) -> Tensor:
    if not self.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    if self.is_conj():
        return select(_neg_view(view_as_real(conj(self))), -1, 1)
    return select(view_as_real(self), -1, 1)


def _set_real(self: Tensor, value: Any) -> None:
    real(self).copy_(value)


def _set_imag(self: Tensor, value: Any) -> None:
    imag(self).copy_(value)


def _complex_parts_dtype(real_part: Tensor, imag_part: Tensor) -> dtypes.dtype:
    a, b = real_part.dtype, imag_part.dtype
    if a.name not in ("float32", "float64", "float16") or b.name not in ("float32", "float64", "float16"):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {a.short} and "
                           f"{b.short}")
    if a is not b:
        raise RuntimeError(f"Expected object of scalar type {a.short} but got scalar type {b.short} for second "
                           "argument")
    return a.to_complex()


def complex(real: Tensor, imag: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A001 - torch's name
    dt = _complex_parts_dtype(real, imag)
    result = (real._numpy_view() + 1j * imag._numpy_view()).astype(dt.np)
    if out is not None:
        return write_out(out, result, "complex", (real, imag))
    t = Tensor._wrap(result, dt)
    record("ComplexBackward0", t, (real, imag))
    return t


def polar(abs: Tensor, angle: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002 - torch's names
    dt = _complex_parts_dtype(abs, angle)
    r, theta = abs._numpy_view(), angle._numpy_view()
    result = (r * np.cos(theta) + 1j * (r * np.sin(theta))).astype(dt.np)
    if out is not None:
        return write_out(out, result, "polar", (abs, angle))
    t = Tensor._wrap(result, dt)
    record("PolarBackward0", t, (abs, angle), save_outputs={"result": t})
    return t


def is_complex(self: Tensor) -> bool:
    return self.dtype.is_complex


def is_conj(self: Tensor) -> bool:
    return self.is_conj()


def is_neg(self: Tensor) -> bool:
    return self.is_neg()


METHODS = {
    "conj": conj, "_conj": conj, "_neg_view": _neg_view, "resolve_conj": resolve_conj, "resolve_neg": resolve_neg,
    "conj_physical": conj_physical, "conj_physical_": conj_physical_,
}
FUNCTIONS = {
    **METHODS, "view_as_real": view_as_real, "view_as_complex": view_as_complex, "real": real, "imag": imag,
    "complex": complex, "polar": polar, "is_complex": is_complex, "is_conj": is_conj, "is_neg": is_neg,
}
Tensor.real = property(real, _set_real)
Tensor.imag = property(imag, _set_imag)
