"""Python operators on tensors, each one the op PyTorch dispatches it to."""

from __future__ import annotations

from typing import Any

from engine import placement
from engine.ops import inplace_forms as inplace
from engine.ops import pointwise as pw
from engine.tensor import Tensor


def _iop(inplace: Any) -> Any:
    def op(self: Tensor, other: Any) -> Tensor:
        return inplace(self, other)
    return op


OPERATORS: dict[str, Any] = {
    "__add__": pw.add, "__radd__": lambda self, other: pw.add(self, other),
    "__sub__": pw.sub, "__rsub__": lambda self, other: pw.rsub(self, other),
    "__mul__": pw.mul, "__rmul__": lambda self, other: pw.mul(self, other),
    "__truediv__": pw.div, "__rtruediv__": pw.rdiv,
    "__floordiv__": pw.floor_divide, "__rfloordiv__": lambda self, other: pw.floor_divide(other, self),
    "__mod__": pw.remainder, "__rmod__": lambda self, other: pw.remainder(other, self),
    "__pow__": pw.pow, "__rpow__": lambda self, other: pw.pow(other, self),
    "__neg__": lambda self: pw.unary("neg", self), "__pos__": lambda self: self,
    "__abs__": lambda self: pw.unary("abs", self),
    "__eq__": pw.eq, "__ne__": pw.ne, "__lt__": pw.lt, "__le__": pw.le, "__gt__": pw.gt, "__ge__": pw.ge,
    "__and__": pw.bitwise_and, "__or__": pw.bitwise_or, "__xor__": pw.bitwise_xor,
    "__rand__": lambda self, other: pw.bitwise_and(other, self),
    "__ror__": lambda self, other: pw.bitwise_or(other, self),
    "__invert__": pw.bitwise_not,
    "__iadd__": _iop(inplace.add_), "__isub__": _iop(inplace.sub_), "__imul__": _iop(inplace.mul_),
    "__itruediv__": _iop(inplace.div_), "__ipow__": _iop(inplace.pow_), "__ifloordiv__": _iop(inplace.floor_divide_),
    "__imod__": _iop(inplace.remainder_), "__iand__": _iop(inplace.bitwise_and_), "__ior__": _iop(inplace.bitwise_or_),
    "__ixor__": _iop(inplace.bitwise_xor_),
}
for _name, _fn in OPERATORS.items():
    placement.install(_name, _fn)
Tensor.__hash__ = lambda self: id(self)  # __eq__ is elementwise, identity stays hashable
