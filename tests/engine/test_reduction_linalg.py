"""Reductions (engine/ops/reduction.py) and matrix products (engine/ops/linalg.py) against torch.

Every case runs the same code on real PyTorch 2.13 and on the engine, then compares values,
shapes, strides, dtypes, the graph (grad_fn and next_functions names, for matmul the whole tree),
repr, the gradients of a random upstream gradient, and the error raised when each input or output
is modified in place (`.mul_(1)`) before backward: that error names the tensor the op saved, so it
checks what each op saves. Tests taking the `torch` fixture (tests/conftest.py) skip without torch;
the finite-difference tests at the end run everywhere.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

import engine

INF = math.inf


# --------------------------------------------------------------------------- cases
class Case(NamedTuple):
    """`fn(lib, *tensors)` applied to inputs described by `specs` (kind letter, shape)."""

    id: str
    fn: Callable[..., Any]
    specs: tuple[str, ...]


# Kinds: f float32 requiring grad, t float32 with many ties, z float32 with zeros, d float64,
# F float32 without grad, T float32 transposed (non-contiguous), i int64, j int32, b bool.
GRAD_KINDS = set("ftzdT")


def values_for(kind: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    if kind in "fFT":
        return rng.standard_normal(shape).astype(np.float32)
    if kind == "t":
        return rng.integers(0, 3, shape).astype(np.float32)
    if kind == "z":
        return (rng.standard_normal(shape) * rng.integers(0, 2, shape)).astype(np.float32)
    if kind == "d":
        return rng.standard_normal(shape)
    if kind in "ij":
        return rng.integers(-4, 5, shape).astype(np.int64 if kind == "i" else np.int32)
    return rng.integers(0, 2, shape).astype(bool)


def parse(spec: str) -> tuple[str, tuple[int, ...]]:
    kind, _, dims = spec.partition(":")
    return kind, tuple(int(d) for d in dims.split(",") if d)


def build(lib: Any, specs: tuple[str, ...], seed: int = 0) -> tuple[list[Any], list[Any]]:
    """(inputs, leaves) for one case: grad kinds are `leaf.clone()` (non-leaves, so in-place edits
    are legal), T is a transposed clone."""
    rng = np.random.default_rng(seed)
    tensors, leaves = [], []
    for spec in specs:
        kind, shape = parse(spec)
        array = values_for(kind, shape[::-1] if kind == "T" else shape, rng)
        leaf = lib.tensor(array, requires_grad=kind in GRAD_KINDS)
        leaves.append(leaf)
        if kind == "T":
            tensors.append(leaf.clone().t())
        else:
            tensors.append(leaf.clone() if kind in GRAD_KINDS else leaf)
    return tensors, leaves


def C(id: str, fn: Callable[..., Any], *specs: str) -> Case:  # noqa: N802
    return Case(id, fn, specs)


X = "f:2,3,4"
REDUCTIONS = [
    C("sum()", lambda L, x: x.sum(), X),
    C("sum(1)", lambda L, x: x.sum(1), X),
    C("sum(-1, keepdim)", lambda L, x: x.sum(-1, keepdim=True), X),
    C("sum((0,2))", lambda L, x: L.sum(x, (0, 2)), X),
    C("sum(dim=None)", lambda L, x: x.sum(dim=None), X),
    C("sum(None, keepdim)", lambda L, x: x.sum(None, True), X),
    C("sum(dtype=f64)", lambda L, x: x.sum(dtype=L.float64), X),
    C("sum(1, dtype=f64)", lambda L, x: x.sum(1, dtype=L.float64), X),
    C("sum(axis=1, keepdims)", lambda L, x: x.sum(axis=1, keepdims=True), X),
    C("sum int", lambda L, x: x.sum(0), "i:3,4"),
    C("sum int32", lambda L, x: x.sum(), "j:5"),
    C("sum bool", lambda L, x: x.sum(1), "b:2,5"),
    C("sum 0-d", lambda L, x: x.sum(0), "f:"),
    C("sum transposed", lambda L, x: x.sum(0, keepdim=True), "T:3,4"),
    C("mean()", lambda L, x: x.mean(), X),
    C("mean(1)", lambda L, x: x.mean(1), X),
    C("mean((0,2), keepdim)", lambda L, x: x.mean((0, 2), keepdim=True), X),
    C("mean(dim=None)", lambda L, x: x.mean(dim=None), X),
    C("mean dtype", lambda L, x: L.mean(x, 0, dtype=L.float64), X),
    C("mean int dtype", lambda L, x: x.mean(dtype=L.float32), "i:3,4"),
    C("prod()", lambda L, x: x.prod(), "f:2,3"),
    C("prod(1)", lambda L, x: x.prod(1), X),
    C("prod(0, keepdim)", lambda L, x: x.prod(0, keepdim=True), X),
    C("prod() zeros", lambda L, x: x.prod(), "z:2,3"),
    C("prod(1) zeros", lambda L, x: x.prod(1), "z:4,3"),
    C("prod int", lambda L, x: x.prod(1), "i:2,3"),
    C("prod bool", lambda L, x: x.prod(), "b:4"),
    C("max()", lambda L, x: x.max(), X),
    C("max() ties", lambda L, x: x.max(), "t:3,4"),
    C("min()", lambda L, x: L.min(x), X),
    C("max(1)", lambda L, x: x.max(1), X),
    C("max(1) ties", lambda L, x: x.max(1), "t:3,4"),
    C("max(-1, keepdim)", lambda L, x: L.max(x, -1, keepdim=True), X),
    C("min(0)", lambda L, x: x.min(0), X),
    C("max(0) 0-d", lambda L, x: x.max(0), "f:"),
    C("max(axis=0)", lambda L, x: L.max(x, axis=0), X),
    C("max(1) int", lambda L, x: x.max(1), "i:3,4"),
    C("max(x, y)", lambda L, x, y: L.max(x, y), "f:2,3", "f:3"),
    C("min(x, y)", lambda L, x, y: x.min(y), "f:2,3", "f:2,3"),
    C("amax()", lambda L, x: x.amax(), X),
    C("amax(1)", lambda L, x: x.amax(1), X),
    C("amax(1) ties", lambda L, x: x.amax(1), "t:3,4"),
    C("amax((0,2), keepdim)", lambda L, x: L.amax(x, (0, 2), keepdim=True), X),
    C("amin(-1)", lambda L, x: x.amin(-1), X),
    C("amin() ties", lambda L, x: x.amin(), "t:3,4"),
    C("amax bool", lambda L, x: x.amax(0), "b:3,2"),
    C("argmax()", lambda L, x: x.argmax(), X),
    C("argmax(1, keepdim)", lambda L, x: x.argmax(1, keepdim=True), X),
    C("argmax(keepdim)", lambda L, x: x.argmax(keepdim=True), X),
    C("argmin(0) ties", lambda L, x: L.argmin(x, 0), "t:3,4"),
    C("var()", lambda L, x: x.var(), X),
    C("var(1)", lambda L, x: x.var(1), X),
    C("var(1, unbiased=False)", lambda L, x: x.var(1, unbiased=False), X),
    C("var(False)", lambda L, x: x.var(False), X),
    C("var((0,2), correction=0, keepdim)", lambda L, x: x.var((0, 2), correction=0, keepdim=True), X),
    C("var(keepdim)", lambda L, x: L.var(x, keepdim=True), X),
    C("std()", lambda L, x: x.std(), X),
    C("std(1, keepdim)", lambda L, x: x.std(1, keepdim=True), X),
    C("std(correction=2)", lambda L, x: L.std(x, correction=2), X),
    C("std() constant", lambda L, x: (x * 0).std(), "f:3"),
    C("var_mean()", lambda L, x: L.var_mean(x), X),
    C("var_mean(1)", lambda L, x: L.var_mean(x, 1), X),
    C("var_mean(1, keepdim, correction=0)", lambda L, x: L.var_mean(x, 1, keepdim=True, correction=0), X),
    C("std_mean((0,2))", lambda L, x: L.std_mean(x, (0, 2)), X),
    C("norm()", lambda L, x: x.norm(), X),
    C("norm(1)", lambda L, x: x.norm(1), X),
    C("norm(inf)", lambda L, x: x.norm(INF), X),
    C("norm(inf) ties", lambda L, x: x.norm(INF, dim=1), "t:3,4"),
    C("norm(-inf)", lambda L, x: x.norm(-INF), X),
    C("norm(0)", lambda L, x: x.norm(0), X),
    C("norm(3, dim=1)", lambda L, x: x.norm(3, dim=1), X),
    C("norm(1.5, dim=-1)", lambda L, x: L.norm(x, 1.5, -1), X),
    C("norm(0.5, dim=0)", lambda L, x: x.norm(0.5, dim=0), X),
    C("norm(dim=(0,2), keepdim)", lambda L, x: x.norm(dim=(0, 2), keepdim=True), X),
    C("norm('fro', dim=1)", lambda L, x: x.norm("fro", dim=1), X),
    C("norm(dtype=f64)", lambda L, x: L.norm(x, dtype=L.float64), X),
    C("norm() zeros", lambda L, x: (x * 0).norm(), "f:3"),
    C("logsumexp(1)", lambda L, x: x.logsumexp(1), X),
    C("logsumexp((0,2), keepdim)", lambda L, x: L.logsumexp(x, (0, 2), keepdim=True), X),
    C("logsumexp int", lambda L, x: x.logsumexp(0), "i:4"),
    C("all()", lambda L, x: x.all(), "b:2,3"),
    C("all(1)", lambda L, x: x.all(1), "b:2,3"),
    C("any((0,1), keepdim)", lambda L, x: L.any(x, (0, 1), keepdim=True), "b:2,3"),
    C("any float", lambda L, x: x.any(), "z:4"),
    C("count_nonzero()", lambda L, x: x.count_nonzero(), "z:3,4"),
    C("count_nonzero(1)", lambda L, x: L.count_nonzero(x, 1), "z:3,4"),
    C("count_nonzero((0,1))", lambda L, x: x.count_nonzero((0, 1)), "z:3,4"),
    C("cumsum(0)", lambda L, x: x.cumsum(0), X),
    C("cumsum(-1)", lambda L, x: L.cumsum(x, -1), X),
    C("cumsum(1, dtype=f64)", lambda L, x: x.cumsum(1, dtype=L.float64), X),
    C("cumsum int32", lambda L, x: x.cumsum(0), "j:5"),
    C("cumsum transposed", lambda L, x: x.cumsum(1), "T:3,4"),
    C("softmax(1)", lambda L, x: x.softmax(1), X),
    C("softmax(-1)", lambda L, x: L.softmax(x, -1), X),
    C("softmax(0, dtype=f64)", lambda L, x: x.softmax(0, dtype=L.float64), X),
    C("softmax 0-d", lambda L, x: x.softmax(0), "f:"),
    C("log_softmax(2)", lambda L, x: x.log_softmax(2), X),
    C("log_softmax(0)", lambda L, x: L.log_softmax(x, 0), X),
    C("softmax f64", lambda L, x: x.softmax(1), "d:2,3"),
]

LINALG = [
    C("mm", lambda L, a, b: L.mm(a, b), "f:2,3", "f:3,4"),
    C("mm self only", lambda L, a, b: a.mm(b), "f:2,3", "F:3,4"),
    C("mm mat2 only", lambda L, a, b: a.mm(b), "F:2,3", "f:3,4"),
    C("mm transposed", lambda L, a, b: a.mm(b), "T:2,3", "f:3,4"),
    C("mm int", lambda L, a, b: a.mm(b), "i:2,3", "i:3,2"),
    C("mm f64", lambda L, a, b: a.mm(b), "d:2,3", "d:3,4"),
    C("bmm", lambda L, a, b: L.bmm(a, b), "f:2,2,3", "f:2,3,4"),
    C("bmm mat2 only", lambda L, a, b: a.bmm(b), "F:2,2,3", "f:2,3,4"),
    C("dot", lambda L, a, b: L.dot(a, b), "f:3", "f:3"),
    C("dot self only", lambda L, a, b: a.dot(b), "f:3", "F:3"),
    C("dot int", lambda L, a, b: a.dot(b), "i:3", "i:3"),
    C("mv", lambda L, a, b: L.mv(a, b), "f:2,3", "f:3"),
    C("mv vec only", lambda L, a, b: a.mv(b), "F:2,3", "f:3"),
    C("outer", lambda L, a, b: L.outer(a, b), "f:2", "f:3"),
    C("ger", lambda L, a, b: a.ger(b), "f:2", "F:3"),
    C("addmm", lambda L, c, a, b: L.addmm(c, a, b), "f:4", "f:2,3", "f:3,4"),
    C("addmm alpha beta", lambda L, c, a, b: L.addmm(c, a, b, beta=0.5, alpha=2), "f:2,4", "f:2,3", "f:3,4"),
    C("addmm beta=0", lambda L, c, a, b: c.addmm(a, b, beta=0), "f:1", "f:2,3", "f:3,4"),
    C("addmm mat1 only", lambda L, c, a, b: L.addmm(c, a, b), "F:4", "f:2,3", "F:3,4"),
    C("addmm bias only", lambda L, c, a, b: L.addmm(c, a, b), "f:", "F:2,3", "F:3,4"),
]
MATMUL_SHAPES = [
    ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((2, 2, 3), (3,)), ((3,), (2, 3, 4)),
    ((2, 2, 3), (3, 4)), ((2, 3), (2, 3, 4)), ((2, 2, 3), (2, 3, 4)), ((2, 1, 2, 3), (5, 3, 4)),
    ((1, 2, 3), (4, 3, 5)), ((4, 2, 3), (1, 3, 5)), ((2, 3, 2, 3), (3, 4)),
]
for _a, _b in MATMUL_SHAPES:
    _sa, _sb = ",".join(map(str, _a)), ",".join(map(str, _b))
    LINALG.append(C(f"matmul {_a}@{_b}", lambda L, a, b: a @ b, f"f:{_sa}", f"f:{_sb}"))
    LINALG.append(C(f"matmul {_a}@{_b} only a", lambda L, a, b: L.matmul(a, b), f"f:{_sa}", f"F:{_sb}"))
    LINALG.append(C(f"matmul {_a}@{_b} only b", lambda L, a, b: a.matmul(b), f"F:{_sa}", f"f:{_sb}"))
LINALG.append(C("matmul transposed 3d@2d", lambda L, a, b: a.transpose(1, 2) @ b, "F:2,3,2", "F:3,4"))
LINALG.append(C("rmatmul via __rmatmul__", lambda L, a, b: b.__rmatmul__(a), "f:2,3", "f:3,2"))

CASES = REDUCTIONS + LINALG


# --------------------------------------------------------------------------- measuring a case
def outputs_of(result: Any) -> list[Any]:
    return list(result) if isinstance(result, tuple) else [result]


def tree(fn: Any) -> Any:
    """A grad_fn and everything below it, as nested (name, children)."""
    if fn is None:
        return None
    return type(fn).__name__, [tree(child) for child, _ in fn.next_functions]


def describe(t: Any) -> dict[str, Any]:
    fn = t.grad_fn
    return {
        "shape": tuple(t.shape), "stride": t.stride(), "dtype": str(t.dtype), "version": t._version,
        "requires_grad": t.requires_grad, "grad_fn": type(fn).__name__ if fn is not None else None,
        "next": [type(c).__name__ if c is not None else None for c, _ in fn.next_functions] if fn else None,
        "tree": tree(fn), "output_nr": t.output_nr, "repr": repr(t),
    }


def run(lib: Any, case: Case, seed: int = 0) -> dict[str, Any]:
    """Everything observable about one case: the result and the gradients it sends back."""
    inputs, leaves = build(lib, case.specs, seed)
    result = case.fn(lib, *inputs)
    outs = outputs_of(result)
    facts: dict[str, Any] = {
        "type": type(result).__name__, "repr": repr(result), "outs": [describe(o) for o in outs],
        "values": [o.detach().numpy().copy() for o in outs],
    }
    rng = np.random.default_rng(seed + 1)
    diff = [o for o in outs if o.requires_grad]
    if diff:
        upstream = [lib.tensor(rng.standard_normal(o.shape).astype(o.detach().numpy().dtype)) for o in diff]
        lib.autograd.backward(diff, upstream)
        facts["grads"] = [None if t.grad is None else t.grad.numpy().copy() for t in leaves]
    return facts


def assert_same_arrays(expected: list[Any], got: list[Any]) -> None:
    assert len(expected) == len(got)
    for e, g in zip(expected, got, strict=True):
        if e is None or g is None:
            assert e is None and g is None
            continue
        assert e.dtype == g.dtype and e.shape == g.shape
        if e.dtype.kind == "f":
            np.testing.assert_allclose(g, e, rtol=2e-5, atol=2e-6, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_matches_torch(torch: Any, case: Case) -> None:
    expected, got = run(torch, case), run(engine, case)
    assert got["type"] == expected["type"]
    assert_same_arrays(expected["values"], got["values"])
    assert_same_arrays(expected.get("grads", []), got.get("grads", []))
    for e, g in zip(expected["outs"], got["outs"], strict=True):
        e.pop("repr"), g.pop("repr")
        assert g == e
    assert got["repr"] == expected["repr"]


# --------------------------------------------------------------------------- version errors
def version_targets(case: Case) -> list[tuple[Case, int]]:
    """Each input, and each output that takes part in backward, as an in-place target."""
    outs = outputs_of(case.fn(engine, *build(engine, case.specs)[0]))
    if not any(o.requires_grad for o in outs):
        return []
    return [(case, i) for i in range(len(case.specs) + len(outs))]


VERSION_CASES = [target for case in CASES for target in version_targets(case)]


def version_outcome(lib: Any, case: Case, target: int) -> tuple[str, str] | None:
    """Modify input/output `target` in place after the op, then backward the outputs' sum."""
    inputs = build(lib, case.specs)[0]
    outs = outputs_of(case.fn(lib, *inputs))
    victim = (inputs + outs)[target]
    if victim.dtype == lib.bool:
        victim.copy_(victim.clone())
    else:
        victim.mul_(1)
    try:
        total = sum(o.sum() for o in outs if o.requires_grad)
        total.backward()
    except RuntimeError as exc:
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize(("case", "target"), VERSION_CASES,
                         ids=[f"{c.id}: modify #{i}" for c, i in VERSION_CASES])
def test_inplace_after_op_breaks_backward_as_in_torch(torch: Any, case: Case, target: int) -> None:
    assert version_outcome(engine, case, target) == version_outcome(torch, case, target)


def test_version_errors_name_saved_tensors(torch: Any) -> None:
    """Spot checks of the messages the reference records (torch-ops.md section 1c)."""
    hint = " is at version 1; expected version 0 instead"
    expect = {
        "max(1)": (2, "[torch.LongTensor [2, 4]]" + hint),
        "std()": (1, "[torch.FloatTensor []], which is output 0 of Std," + hint),
        "softmax(1)": (1, "[torch.FloatTensor [2, 3, 4]], which is output 0 of Softmax," + hint),
        "matmul (2, 2, 3)@(3, 4)": (0, "[torch.FloatTensor [4, 3]], which is output 0 of AsStrided," + hint),
        "matmul (2, 2, 3)@(2, 3, 4)": (0, "[torch.FloatTensor [2, 2, 3]], which is output 0 of AsStrided," + hint),
        "addmm": (1, "[torch.FloatTensor [2, 3]], which is output 0 of Mul," + hint),
    }
    by_id = {c.id: c for c in CASES}
    for case_id, (target, core) in expect.items():
        outcome = version_outcome(engine, by_id[case_id], target)
        assert outcome is not None and core in outcome[1], case_id


# --------------------------------------------------------------------------- errors and warnings
ERRORS = [
    ("sum dim out of range", lambda L: L.ones(2, 3).sum(dim=2)),
    ("sum repeated dim", lambda L: L.ones(2, 3).sum((1, -1))),
    ("sum 0-d dim 1", lambda L: L.ones(()).sum(1)),
    ("mean of int", lambda L: L.arange(6).mean()),
    ("mean of bool with dim", lambda L: L.ones(2, dtype=L.bool).mean(0)),
    ("mean int dtype", lambda L: L.ones(3).mean(dtype=L.int64)),
    ("max of empty", lambda L: L.ones(0).max()),
    ("min of empty dim", lambda L: L.ones(0, 3).min(0)),
    ("amax of empty", lambda L: L.ones(0).amax()),
    ("amin empty dim", lambda L: L.ones(0, 2).amin(0)),
    ("argmax of empty", lambda L: L.ones(0).argmax()),
    ("argmax empty dim", lambda L: L.ones(0, 3).argmax(0)),
    ("argmax bool", lambda L: L.ones(2, dtype=L.bool).argmax()),
    ("var of int", lambda L: L.arange(4).var()),
    ("norm of int", lambda L: L.arange(3).norm()),
    ("norm inf of empty", lambda L: L.ones(0).norm(INF)),
    ("norm unknown order", lambda L: L.ones(3, 3).norm("foo")),
    ("softmax of int (last dim)", lambda L: L.arange(3).softmax(0)),
    ("softmax of int (dim 0)", lambda L: L.arange(6).view(2, 3).softmax(0)),
    ("log_softmax of int", lambda L: L.arange(3).log_softmax(0)),
    ("cumsum dim out of range", lambda L: L.ones(2).cumsum(1)),
    ("matmul 2d shape", lambda L: L.ones(2, 3) @ L.ones(4, 5)),
    ("matmul 1d sizes", lambda L: L.ones(3) @ L.ones(4)),
    ("matmul 0-d", lambda L: L.tensor(1.0) @ L.ones(3)),
    ("matmul 1d@2d shape", lambda L: L.ones(2) @ L.ones(3, 4)),
    ("matmul 2d@1d shape", lambda L: L.ones(2, 3) @ L.ones(2)),
    ("matmul 3d@1d shape", lambda L: L.ones(2, 2, 3) @ L.ones(2)),
    ("matmul 3d@2d shape", lambda L: L.ones(2, 2, 3) @ L.ones(4, 4)),
    ("matmul batch mismatch", lambda L: L.ones(2, 2, 3) @ L.ones(3, 3, 4)),
    ("matmul inner mismatch", lambda L: L.ones(2, 2, 3) @ L.ones(2, 4, 4)),
    ("matmul dtypes", lambda L: L.ones(2, 3) @ L.ones(3, 4, dtype=L.float64)),
    ("matmul long@float", lambda L: L.ones(2, 3, dtype=L.int64) @ L.ones(3, 4)),
    ("mm not a matrix", lambda L: L.mm(L.ones(2, 3), L.ones(3))),
    ("mm self not a matrix", lambda L: L.mm(L.ones(2, 2, 3), L.ones(3, 4, dtype=L.float64))),
    ("mm shape before dtype", lambda L: L.mm(L.ones(2, 3), L.ones(4, 5, dtype=L.float64))),
    ("mm bool", lambda L: L.ones(2, 3, dtype=L.bool).mm(L.ones(3, 2, dtype=L.bool))),
    ("bmm 2d", lambda L: L.bmm(L.ones(2, 3), L.ones(3, 4))),
    ("bmm batch2 2d", lambda L: L.bmm(L.ones(2, 2, 3), L.ones(3, 4))),
    ("bmm sizes", lambda L: L.bmm(L.ones(2, 2, 3), L.ones(3, 3, 4))),
    ("bmm dtype", lambda L: L.bmm(L.ones(2, 2, 3), L.ones(2, 3, 4, dtype=L.float64))),
    ("bmm bool", lambda L: L.bmm(L.ones(1, 2, 3, dtype=L.bool), L.ones(1, 3, 2, dtype=L.bool))),
    ("dot 2d", lambda L: L.ones(2, 3).dot(L.ones(3))),
    ("dot dtype before size", lambda L: L.ones(3).dot(L.ones(4, dtype=L.float64))),
    ("dot bool", lambda L: L.ones(3, dtype=L.bool).dot(L.ones(3, dtype=L.bool))),
    ("mv dims", lambda L: L.ones(3).mv(L.ones(3))),
    ("mv size", lambda L: L.ones(2, 3).mv(L.ones(2))),
    ("mv dtype", lambda L: L.ones(2, 3, dtype=L.float64).mv(L.ones(3))),
    ("mv bool", lambda L: L.ones(2, 3, dtype=L.bool).mv(L.ones(3, dtype=L.bool))),
    ("outer 2d self", lambda L: L.outer(L.ones(2, 3), L.ones(3))),
    ("outer 2d vec2", lambda L: L.outer(L.ones(3), L.ones(2, 2))),
    ("addmm mat1 3d", lambda L: L.addmm(L.ones(4), L.ones(2, 2, 3), L.ones(3, 4))),
    ("addmm mat2 1d", lambda L: L.addmm(L.ones(2), L.ones(2, 3), L.ones(3))),
    ("addmm shapes", lambda L: L.addmm(L.ones(3), L.ones(2, 3), L.ones(2, 3))),
    ("addmm bias", lambda L: L.addmm(L.ones(3), L.ones(2, 3), L.ones(3, 4))),
    ("addmm bias rows", lambda L: L.addmm(L.ones(3, 4), L.ones(2, 3), L.ones(3, 4))),
    ("addmm bias dims", lambda L: L.addmm(L.ones(1, 2, 2), L.ones(2, 3), L.ones(3, 2))),
    ("addmm self dtype", lambda L: L.addmm(L.ones(2, dtype=L.float64), L.ones(2, 3), L.ones(3, 2))),
    ("addmm mat1 dtype", lambda L: L.addmm(L.ones(2), L.ones(2, 3, dtype=L.float64), L.ones(3, 2))),
    ("addmm dtype before shape", lambda L: L.addmm(L.ones(4), L.ones(2, 3), L.ones(4, 4, dtype=L.float64))),
    ("sum out= needs a dim", lambda L: L.sum(L.ones(2, 3), out=L.empty(()))),
    ("sum dtype out= needs a dim", lambda L: L.sum(L.ones(2, 3), dtype=L.float64, out=L.empty(()))),
    ("prod out= needs a dim", lambda L: L.prod(L.ones(2, 3), out=L.empty(()))),
    ("out= with grad (sum)", lambda L: L.sum(L.ones(2, 3, requires_grad=True), 1, out=L.empty(2))),
    ("out= with grad (norm)", lambda L: L.norm(L.ones(2, 3, requires_grad=True), dim=1, out=L.empty(2))),
    ("out= with grad (max dim)",
     lambda L: L.max(L.ones(2, 3, requires_grad=True), 1, out=(L.empty(2), L.empty(2, dtype=L.int64)))),
    ("out= with grad (max(a, b))",
     lambda L: L.max(L.ones(2, requires_grad=True), L.ones(2), out=L.empty(2))),
    ("out= with grad (matmul)", lambda L: L.matmul(L.ones(2, 3, requires_grad=True), L.ones(3), out=L.empty(2))),
    ("out= with grad (mm)", lambda L: L.mm(L.ones(2, 3, requires_grad=True), L.ones(3, 4), out=L.empty(2, 4))),
    ("softmax out= then backward", lambda L: L.softmax(L.ones(2, 3, requires_grad=True), 1,
                                                       out=L.empty(2, 3)).sum().backward()),
    ("var no degrees of freedom", lambda L: L.ones(1).var()),
    ("std_mean no degrees of freedom", lambda L: L.std_mean(L.ones(2, 3), 1, correction=3)),
]


def without_grad(lib: Any, fn: Callable[[], Any]) -> Any:
    with lib.no_grad():
        return fn()


def outcome_of(lib: Any, fn: Callable[[Any], Any]) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = fn(lib)
            result: Any = repr(value) if value is not None else None
        except Exception as exc:  # noqa: BLE001 - the exception is what is compared
            result = (type(exc).__name__, str(exc))
    texts = [f"{w.category.__name__}: {str(w.message).split(' (Triggered internally')[0]}" for w in caught]
    return result, texts


@pytest.mark.parametrize(("label", "fn"), ERRORS, ids=[label for label, _ in ERRORS])
def test_errors_and_warnings_match_torch(torch: Any, label: str, fn: Callable[[Any], Any]) -> None:
    assert outcome_of(engine, fn) == outcome_of(torch, fn)


# --------------------------------------------------------------------------- out=, printing, misc
OUT_SNIPPETS = [
    ("sum out", lambda L: (L.sum(L.ones(2, 3), 1, out=(o := L.empty(2))), o._version)),
    ("sum out float into int64", lambda L: (L.sum(L.ones(2, 3), 1, out=(o := L.empty(2, dtype=L.int64))), o._version)),
    ("mean out float64", lambda L: L.mean(L.ones(2, 3), 1, out=L.empty(2, dtype=L.float64))),
    ("amax out", lambda L: L.amax(L.arange(6.0).view(2, 3), 1, out=L.empty(2))),
    ("max dim out", lambda L: (r := L.max(L.arange(6.0).view(2, 3), 1, out=(L.empty(2), L.empty(2, dtype=L.int64))),
                               type(r).__name__, r.values._version)),
    ("argmax out", lambda L: L.argmax(L.arange(6.0).view(2, 3), 1, out=L.empty(2, dtype=L.int64))),
    ("cumsum out", lambda L: L.cumsum(L.arange(6.0).view(2, 3), 1, out=L.empty(2, 3))),
    ("matmul out 1d@2d", lambda L: (L.matmul(L.ones(3), L.ones(3, 4), out=(o := L.empty(0))), o._version)),
    ("matmul out 3d@3d", lambda L: (L.matmul(L.ones(2, 2, 3), L.ones(2, 3, 4), out=(o := L.empty(2, 2, 4))),
                                    o._version)),
    ("matmul out resized", lambda L: L.matmul(L.ones(3), L.ones(3, 4), out=L.empty(4))),
    ("max(a, b) out", lambda L: (L.max(L.ones(2), L.zeros(2), out=(o := L.empty(2))), o._version)),
    ("mm out", lambda L: L.mm(L.ones(2, 3), L.ones(3, 4), out=L.empty(2, 4))),
    ("addmm out", lambda L: L.addmm(L.ones(4), L.ones(2, 3), L.ones(3, 4), out=L.empty(2, 4))),
    ("dot out", lambda L: L.dot(L.ones(3), L.ones(3), out=L.empty(()))),
    ("softmax out with grad input", lambda L: L.softmax(L.ones(2, 3, requires_grad=True), 1, out=L.empty(2, 3))),
    ("return_types repr", lambda L: L.max(L.tensor([[1.0, 5.0], [7.0, 2.0]]), dim=1)),
    ("return_types fields", lambda L: (lambda r: (r.values, r.indices, len(r), type(r).__module__))(
        L.min(L.tensor([[1.0, 5.0], [7.0, 2.0]]), 0))),
    ("var_mean is a plain tuple", lambda L: type(L.var_mean(L.ones(2, 3), 1)).__name__),
    ("var_mean output_nr", lambda L: [t.output_nr for t in L.var_mean(L.ones(2, 3, requires_grad=True), 1)]),
    ("1d@2d result version", lambda L: (L.ones(3) @ L.ones(3, 4))._version),
    ("sum under no_grad", lambda L: without_grad(L, lambda: L.ones(2, requires_grad=True).sum())),
    ("max ties share gradient", lambda L: (lambda x: (x.max().backward(), x.grad)[1])(
        L.tensor([1.0, 3.0, 3.0], requires_grad=True))),
    ("max dim ties pick one", lambda L: (lambda x: (x.max(0)[0].backward(), x.grad)[1])(
        L.tensor([1.0, 3.0, 3.0], requires_grad=True))),
    ("norm(0) leaves no gradient", lambda L: (lambda x: (x.norm(0).backward(), x.grad)[1])(
        L.tensor([1.0, 0.0, 3.0], requires_grad=True))),
    ("prod with two zeros", lambda L: (lambda x: (x.prod().backward(), x.grad)[1])(
        L.tensor([0.0, 2.0, 0.0], requires_grad=True))),
    ("var backward without dof", lambda L: (lambda x: (x.var(correction=3).backward(), x.grad)[1])(
        L.tensor([1.0, 2.0], requires_grad=True))),
    ("float16 sum and matmul", lambda L: (L.ones(3, dtype=L.float16).sum(),
                                          L.ones(2, 3, dtype=L.float16) @ L.ones(3, dtype=L.float16))),
]


@pytest.mark.parametrize(("label", "fn"), OUT_SNIPPETS, ids=[label for label, _ in OUT_SNIPPETS])
def test_out_and_printing_match_torch(torch: Any, label: str, fn: Callable[[Any], Any]) -> None:
    assert outcome_of(engine, fn) == outcome_of(torch, fn)


def test_outputs_of_reductions_are_contiguous_and_new(torch: Any) -> None:
    """Reductions and products never alias their input: a new storage and version counter."""
    x = engine.arange(24.0).view(2, 3, 4).permute(2, 0, 1)
    for out in (x.sum(1, keepdim=True), x.cumsum(0), x.softmax(2), x.amax(0), x[0] @ x[1].t()):
        assert out.is_contiguous() and out._version == 0
        assert out.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()


# --------------------------------------------------------------------------- torch-free checks
def numeric_gradient(f: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(x)
    for index in np.ndindex(*x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        grad[index] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad


FD_CASES = [
    ("sum", lambda t: t.sum(1)), ("mean", lambda t: t.mean((0, 1), keepdim=True)), ("prod", lambda t: t.prod(0)),
    ("prod all", lambda t: t.prod()), ("amax", lambda t: t.amax(1)), ("max dim", lambda t: t.max(1)[0]),
    ("min", lambda t: t.min()), ("var", lambda t: t.var(1)), ("std", lambda t: t.std(0, correction=0)),
    ("var_mean", lambda t: sum(u * (k + 1) for k, u in enumerate(engine.var_mean(t, 1)))),
    ("std_mean", lambda t: sum(u * (k + 1) for k, u in enumerate(engine.std_mean(t)))),
    ("norm 2", lambda t: t.norm(dim=1)), ("norm 1", lambda t: t.norm(1)), ("norm 3", lambda t: t.norm(3, dim=0)),
    ("norm 1.5", lambda t: t.norm(1.5)), ("norm 0.5", lambda t: t.norm(0.5, dim=1)),
    ("norm inf", lambda t: t.norm(INF, dim=1)), ("logsumexp", lambda t: t.logsumexp(1)),
    ("cumsum", lambda t: t.cumsum(1)), ("softmax", lambda t: t.softmax(0)), ("log_softmax", lambda t: t.log_softmax(1)),
    ("matmul 3d@2d", lambda t: t.view(1, 3, 4) @ engine.arange(8.0, dtype=engine.float64).view(4, 2)),
    ("matmul 2d@3d", lambda t: engine.ones(2, 3, dtype=engine.float64) @ t.view(1, 3, 4)),
    ("mm", lambda t: t.mm(t.t())), ("bmm", lambda t: engine.bmm(t.view(1, 3, 4), t.view(1, 4, 3))),
    ("mv", lambda t: t.mv(t[0])), ("dot", lambda t: t[0].dot(t[1])), ("outer", lambda t: engine.outer(t[0], t[1])),
    ("addmm", lambda t: engine.addmm(t[0, :3], t, t.t(), beta=0.5, alpha=1.5)),
]


@pytest.mark.parametrize(("label", "fn"), FD_CASES, ids=[label for label, _ in FD_CASES])
def test_gradient_matches_finite_differences(label: str, fn: Callable[[Any], Any]) -> None:
    rng = np.random.default_rng(7)
    base = rng.uniform(0.5, 2.0, (3, 4)) * rng.choice([-1.0, 1.0], (3, 4))
    weights = None

    def scalar(values: np.ndarray) -> float:
        nonlocal weights
        out = fn(engine.tensor(values))
        array = out.numpy()
        if weights is None:
            weights = rng.standard_normal(array.shape)
        return float((array * weights).sum())

    scalar(base)
    x = engine.tensor(base, requires_grad=True)
    out = fn(x)
    out.backward(engine.tensor(weights))
    np.testing.assert_allclose(x.grad.numpy(), numeric_gradient(scalar, base), rtol=1e-5, atol=1e-7)


def test_graph_names_without_torch() -> None:
    x = engine.ones(2, 2, 3, requires_grad=True).clone()
    y = engine.ones(3, 4, requires_grad=True).clone()
    assert tree((x @ y).grad_fn)[0] == "UnsafeViewBackward0"
    assert [type(n).__name__ for n, _ in (x @ y).grad_fn.next_functions[0][0].next_functions] == [
        "ViewBackward0", "CloneBackward0"]
    assert type(x.sum().grad_fn).__name__ == "SumBackward0"
    assert type(x.sum(dim=None).grad_fn).__name__ == "SumBackward1"
    values, indices = x.max(1)
    assert type(values.grad_fn).__name__ == "MaxBackward0" and indices.grad_fn is None
    assert repr(engine.max(engine.tensor([[1.0, 5.0], [7.0, 2.0]]), dim=1)) == (
        "torch.return_types.max(\nvalues=tensor([5., 7.]),\nindices=tensor([1, 0]))")


def test_saved_tensors_depend_on_which_inputs_need_grad() -> None:
    a, b = engine.ones(2, 3, requires_grad=True).clone(), engine.ones(3, 4)
    assert [f for f, _ in engine.mm(a, b).grad_fn.saved_entries()] == ["mat2"]
    assert [f for f, _ in engine.mm(b.t(), a.t()).grad_fn.saved_entries()] == ["self"]
    assert [f for f, _ in engine.addmm(engine.ones(4), a, b).grad_fn.saved_entries()] == ["mat2"]
    assert engine.sum(a).grad_fn.saved_entries() == []
    assert [f for f, _ in a.max(1).values.grad_fn.saved_entries()] == ["indices"]
    assert [f for f, _ in a.std(1).grad_fn.saved_entries()] == ["self", "result"]
    with engine.no_grad():
        assert a.softmax(1).grad_fn is None
