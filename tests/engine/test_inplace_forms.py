"""The generated in-place forms (`op_` made from `op` in engine/ops/inplace_forms.py) against torch 2.13.

Each statement writes into a fresh tensor (or fails): the value, dtype, version and identity of the
result, or the exception's type and text, must be torch's. A second table checks what autograd
records: the node class (the out-of-place op's), its number of edges and its saved fields.
"""

from __future__ import annotations

import pytest

import engine

WRITES = [
    # arithmetic, with the out-of-place op's dtype rule and checks
    "f.add_(1, alpha=2)", "f.add_(y)", "f.sub_(f[0], alpha=0.5)", "f.mul_(True)", "f.multiply_(2)", "f.subtract_(y)",
    "f.div_(y)", "f.divide_(y)", "f.true_divide_(y)", "f.div_(y, rounding_mode='floor')",
    "f.div_(y, rounding_mode='trunc')", "f.div_(y, rounding_mode=None)", "f.pow_(y)", "f.pow_(2)", "f.remainder_(y)",
    "f.floor_divide_(y)", "x.add_(1.5)", "x.div_(2)", "x.true_divide_(2)", "x.pow_(0.5)", "x.remainder_(1.5)",
    "x.floor_divide_(1.5)", "b.add_(1)", "b.mul_(b)", "b.sub_(b)",
    # bitwise and logic
    "x.bitwise_and_(1.5)", "x.bitwise_or_(3)", "x.bitwise_xor_(x)", "f.bitwise_and_(f)", "x.logical_and_(x)",
    "x.logical_or_(f)", "b.logical_xor_(b)", "x.__iand__(6)", "x.__ior__(y.long())", "x.__ixor__(1)", "f.__iand__(1)",
    "x.__ilshift__(1)", "x.__irshift__(1)",
    # elementwise specs
    "x.atan2_(x)", "x.fmod_(1.5)", "f.fmod_(y)", "x.copysign_(x)", "f.copysign_(-1)", "x.hypot_(x)", "f.hypot_(y)",
    "x.lerp_(x, 0.5)", "f.lerp_(y, y)", "f.lerp_(f.flip(0), 0.25)", "f.addcmul_(y, y, value=2)", "f.addcdiv_(y, y)",
    "x.addcmul_(x, x)", "x.lt_(1.5)", "f.eq_(y)", "f.ne_(2.0)", "f.ge_(x)",
    # the in-place protocol: overlap, broadcast, then the cast, in TensorIterator's order
    "e.add_(1)", "e.mul_(y)", "f.add_(z)", "x.add_(z)", "f[:3].add_(f[1:])", "f[:3].mul_(f[1:])", "f.add_(f)",
    "f.atan2_(f[1:])", "x.__iadd__(1)", "f.__itruediv__(2)", "f.__imod__(3)", "f.__ifloordiv__(2)", "f.__ipow__(2)",
    # clamp_: number bounds check the cast first (naming the C++ type), tensor bounds as any binary op
    "x.clamp_(0.5)", "e.clamp_(0.5)", "f.clamp_(y, y)", "f.clamp_(max=y)", "x.clamp_(y)", "f.clamp_(z)",
    "f.clamp_(f[1:])", "f.clamp_min_(y)", "f.clamp_max_(y)", "x.clamp_min_(0.5)", "f.clamp_()", "f.clamp_(0.5, y)",
    "f.clip_(0, 1)", "x.clamp_(y.long())",
]


def _write(T, statement: str):
    x = T.arange(4)
    f = T.arange(4).double() + 0.5
    y = T.full((4,), 1.5, dtype=T.float32)
    z = T.zeros(2, 4)
    e = T.zeros(3).expand(4, 3)
    b = T.tensor([True, False, True, True])
    try:
        result = eval(statement, {"x": x, "f": f, "y": y, "z": z, "e": e, "b": b})  # noqa: S307 - our statements
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return type(error).__name__, str(error)
    return str(result), str(result.dtype), result._version, any(result is t for t in (x, f, b))


@pytest.mark.parametrize("statement", WRITES)
def test_an_inplace_write_as_torch(torch, statement):
    assert _write(engine, statement) == _write(torch, statement)


RECORDS = [
    "a.clone().add_(1)", "a.clone().add_(b, alpha=2)", "a.clone().sub_(1)", "a.clone().mul_(2)", "a.clone().mul_(b)",
    "a.clone().div_(2)", "a.clone().div_(b)", "a.clone().div_(b, rounding_mode='floor')", "a.clone().pow_(2)",
    "a.clone().pow_(b)", "a.clone().remainder_(2)", "a.clone().remainder_(b)", "a.clone().floor_divide_(b)",
    "a.clone().floor_divide_(2)", "a.clone().fmod_(2)", "a.clone().fmod_(b)", "a.clone().atan2_(b)",
    "a.clone().hypot_(b)", "a.clone().copysign_(b)", "a.clone().copysign_(2)", "a.clone().lerp_(b, 0.3)",
    "a.clone().lerp_(b, b)", "a.clone().addcmul_(b, b)", "a.clone().addcdiv_(b, b, value=2)", "a.clone().lt_(b)",
    "a.clone().eq_(1)", "a.clone().true_divide_(b)", "a.clone().multiply_(b)", "a.clone().subtract_(b)",
    "a.clone().clamp_(0.1, 0.5)", "a.clone().clamp_(b, b)", "a.clone().clamp_(b)", "a.clone().clamp_min_(b)",
    "a.clone().clamp_max_(b)", "torch.clamp(a, max=b)", "torch.clamp_max(a, b)",
]


def _record(T, statement: str):
    T.manual_seed(0)
    a = T.randn(3, dtype=T.float64, requires_grad=True)
    b = T.rand(3, dtype=T.float64, requires_grad=True) + 0.5
    fn = eval(statement, {"a": a, "b": b, "torch": T}).grad_fn  # noqa: S307 - our statements
    saved = sorted(name for name in dir(fn) if name.startswith("_saved_") and name != "_saved_values")
    return fn.name(), len(fn.next_functions), saved


@pytest.mark.parametrize("statement", RECORDS)
def test_an_inplace_write_records_the_out_of_place_node_as_torch(torch, statement):
    assert _record(engine, statement) == _record(torch, statement)
