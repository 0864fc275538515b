"""Contractions built from other ops: einsum (ATen's algorithm, so its graph, strides and memory are
torch's: permutes, diagonals and sums around one bmm per pair of operands), baddbmm and trace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.ops import linalg, pointwise, reduction, views
from engine.ops.core import record
from engine.ops.linalg import _product
from engine.tensor import Tensor

_LETTERS = 26
_TOTAL = 2 * _LETTERS
_ELLIPSIS = _TOTAL


def _subscript(label: str) -> int:
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + _LETTERS


def _label(subscript: int) -> str:
    return chr(subscript + ord("A")) if subscript < _LETTERS else chr(subscript - _LETTERS + ord("a"))


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list[int]) -> Tensor:
    """(left * right).sum(sum_dims, keepdim=True) by permutes, reshapes and one bmm."""
    if not sum_dims:
        return pointwise.mul(left, right)
    dim = left.ndim
    lro: list[int] = []
    lo: list[int] = []
    ro: list[int] = []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(dim):
        sl, sr = left._shape[i] != 1, right._shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left._shape[i] != right._shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left._shape[i]
            elif sl:
                left = reduction.sum(left, i, True)
            elif sr:
                right = reduction.sum(right, i, True)
        elif sl and sr:
            if left._shape[i] != right._shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left._shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left._shape[i]
        else:
            ro.append(i)
            ro_size *= right._shape[i]
    if lo and ro and ro[-1] < lo[0]:  # bmm then writes the output in its final memory order
        left, right, lo, ro, lo_size, ro_size = right, left, ro, lo, ro_size, lo_size
    out_size = ([left._shape[d] for d in lro] + [left._shape[d] for d in lo] + [1] * len(sum_dims)
                + [right._shape[d] for d in ro])
    lpermutation = lro + lo + sum_dims + ro
    rpermutation = lro + sum_dims + ro + lo
    opermutation = [-1] * len(out_size)
    for i, d in enumerate(lro + lo + sum_dims + ro):
        opermutation[d] = i
    left = views.reshape(views.permute(left, lpermutation), (lro_size, lo_size, sum_size))
    right = views.reshape(views.permute(right, rpermutation), (lro_size, sum_size, ro_size))
    result = linalg.bmm(left, right)
    return views.permute(views.view(result, out_size), opermutation)


def _parse(equation: str, operands: Sequence[Tensor]) -> tuple[list[list[int]], int]:
    """Each operand's subscripts (ELLIPSIS for `...`), checked against its rank; the widest ellipsis."""
    lhs = equation.split("->")[0]
    labels: list[list[int]] = [[] for _ in operands]
    current, seen_ellipsis, i = 0, False, 0
    while i < len(lhs):
        char = lhs[i]
        if char == ".":
            if seen_ellipsis:
                raise RuntimeError(f"einsum(): found '.' for operand {current} for which an ellipsis was already found")
            if not lhs.startswith("...", i):
                raise RuntimeError(f"einsum(): found '.' for operand {current} that is not part of any ellipsis")
            labels[current].append(_ELLIPSIS)
            seen_ellipsis = True
            i += 2
        elif char == ",":
            current += 1
            if current >= len(operands):
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            seen_ellipsis = False
        elif char != " ":
            if not (char.isascii() and char.isalpha()):
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            labels[current].append(_subscript(char))
        i += 1
    if current != len(operands) - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    ell_num_dim = 0
    for i, (operand, subscripts) in enumerate(zip(operands, labels)):
        named = len([s for s in subscripts if s != _ELLIPSIS])
        has_ellipsis = _ELLIPSIS in subscripts
        if has_ellipsis:
            ell_num_dim = max(ell_num_dim, operand.ndim - named)
        if (named > operand.ndim) if has_ellipsis else (named != operand.ndim):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) "
                + ("is more than the number of dimensions (" if has_ellipsis
                   else "does not match the number of dimensions (")
                + f"{operand.ndim}) for operand {i}" + ("" if has_ellipsis else " and no ellipsis was given"))
    return labels, ell_num_dim


def einsum(equation: str, *operands: Any) -> Tensor:
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    labels, ell_num_dim = _parse(equation, operands)
    count = [0] * _TOTAL
    for subscripts in labels:
        for s in subscripts:
            if s != _ELLIPSIS:
                count[s] += 1
    perm_index_of = [-1] * _TOTAL
    perm_index = ell_index = 0
    ell_in_output = False
    if "->" not in equation:
        perm_index, ell_in_output = ell_num_dim, True
        for s in range(_TOTAL):
            if count[s] == 1:
                perm_index_of[s] = perm_index
                perm_index += 1
    else:
        rhs = equation.split("->", 1)[1]
        lhs_length = equation.index("->")
        i = 0
        while i < len(rhs):
            char = rhs[i]
            if char == ".":
                if ell_in_output:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
                if not rhs.startswith("...", i):
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
                ell_index, ell_in_output = perm_index, True
                perm_index += ell_num_dim
                i += 2
            elif char != " ":
                if not (char.isascii() and char.isalpha()):
                    raise RuntimeError(f"einsum(): invalid subscript given at index {lhs_length + 2 + i} in the "
                                       "equation string, subscripts must be in [a-zA-Z]")
                s = _subscript(char)
                if not (count[s] > 0 and perm_index_of[s] == -1):
                    why = ("appears more than once in the output" if perm_index_of[s] > -1
                           else "does not appear in the equation for any input operand")
                    raise RuntimeError(f"einsum(): output subscript {char} {why}")
                perm_index_of[s] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for s in range(_TOTAL):
        if count[s] > 0 and perm_index_of[s] == -1:
            perm_index_of[s] = perm_index
            perm_index += 1

    label_size = [1] * _TOTAL
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops: list[Tensor] = []
    for i, operand in enumerate(operands):
        op = operand
        permutation = [-1] * perm_index
        dim = 0
        for s in labels[i]:
            if s == _ELLIPSIS:
                covered = operand.ndim - (len(labels[i]) - 1)
                for j in range(ell_num_dim - covered, ell_num_dim):
                    if op._shape[dim] != 1:
                        if ell_sizes[j] not in (1, op._shape[dim]):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size "
                                f"{op._shape[dim]} which does not broadcast with previously seen ellipsis with "
                                f"size {ell_sizes[j]} for the respective dimension")
                        ell_sizes[j] = op._shape[dim]
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_index_of[s]] == -1:
                if op._shape[dim] != 1:
                    if label_size[s] not in (1, op._shape[dim]):
                        raise RuntimeError(
                            f"einsum(): subscript {_label(s)} has size {op._shape[dim]} for operand {i} which does "
                            f"not broadcast with previously seen size {label_size[s]}")
                    label_size[s] = op._shape[dim]
                    dim_counts[perm_index_of[s]] += 1
                permutation[perm_index_of[s]] = dim
                dim += 1
            else:
                previous = permutation[perm_index_of[s]]
                if op._shape[dim] != op._shape[previous]:
                    raise RuntimeError(
                        f"einsum(): subscript {_label(s)} is repeated for operand {i} but the sizes don't match, "
                        f"{op._shape[dim]} != {op._shape[previous]}")
                op = views.movedim(views.diagonal(op, 0, previous, dim), -1, previous)
        for k, value in enumerate(permutation):
            if value == -1:
                op = views.unsqueeze(op, dim)
                permutation[k] = dim
                dim += 1
        ops.append(views.permute(op, permutation))

    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims: list[int] = []
        a_sum: list[int] = []
        b_sum: list[int] = []
        for dim in range(out_num_dim, perm_index):
            sa, sb = a._shape[dim] != 1, b._shape[dim] != 1
            if sa and sb:
                if a._shape[dim] != b._shape[dim]:
                    raise RuntimeError("non-broadcast dimensions must match")
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if sa:
                    a_sum.append(dim)
                    dim_counts[dim] = 0
                elif sb:
                    b_sum.append(dim)
                    dim_counts[dim] = 0
        if a_sum:
            a = reduction.sum(a, a_sum, True)
        if b_sum:
            b = reduction.sum(b, b_sum, True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))

    result = ops[0]
    if perm_index - out_num_dim > 0:
        if len(operands) > 1:
            return views.view(result, result._shape[:out_num_dim])
        return reduction.sum(result, list(range(out_num_dim, perm_index)))
    return result


def baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1,
            out: Tensor | None = None) -> Tensor:
    """beta * self + alpha * (batch1 @ batch2), batch by batch; with beta == 0 self is ignored."""
    for t, name in ((batch1, "batch1"), (batch2, "batch2")):
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    b, n, m = batch1._shape
    if batch2._shape[:2] != (b, m):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] but got: "
                           f"[{batch2._shape[0]}, {batch2._shape[1]}].")
    if not (self.dtype is batch1.dtype is batch2.dtype):
        raise RuntimeError(f"expected scalar type {self.dtype.short} but found {batch2.dtype.short}")
    shape = (b, n, batch2._shape[2])
    bias = views.expand(self.detach(), shape)._numpy_view()
    result = _product(batch1._numpy_view(), batch2._numpy_view())
    if alpha != 1:
        result = result * alpha
    if beta != 0:
        result = result + (bias * beta if beta != 1 else bias)
    result = np.ascontiguousarray(result, dtype=self.dtype.np)
    if out is not None:
        return pointwise.write_out(out, result, "baddbmm", (self, batch1, batch2))
    tensor = Tensor._wrap(result, self.dtype)
    record("BaddbmmBackward0", tensor, (self, batch1, batch2), save={"batch1": batch1, "batch2": batch2}, values={"alpha": alpha, "beta": beta})
    return tensor


def trace(self: Tensor) -> Tensor:
    if self.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.ndim}")
    x = self._numpy_view()
    dt = reduction._sum_dtype(self.dtype)

    result = Tensor._wrap(np.asarray(np.trace(x, dtype=dt.np), dtype=dt.np), dt)
    record("TraceBackward0", result, (self,), values={"self_sym_sizes": self._shape})
    return result


METHODS = {"baddbmm": baddbmm, "trace": trace}
FUNCTIONS = {"einsum": einsum, "baddbmm": baddbmm, "trace": trace}
