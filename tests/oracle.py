"""Run the same snippet against PyTorch and against the engine, and describe what it left.

Both sides go through exactly the same code: the engine's API *is* torch's API, so nothing here
knows which of the two it is talking to. A snippet is our own trusted test code, so `exec` is fine
here (and only here: the application never execs user code).

    out = run_snippet("x = torch.ones(2, 3)\\nv = x.t()", torch, torch.nn, torch.nn.functional)
    describe(out.namespace["v"])   # shape, stride, offset, dtype, version, grad_fn, values ...
    sharing_groups(out.namespace)  # [["v", "x"]]: names whose tensors share one storage
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import math
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# Names every snippet namespace starts with; they are never described.
PRELUDE_NAMES = frozenset({"torch", "nn", "F", "np"})

# C++ warnings end with the place in PyTorch's own build that raised them; that tail says nothing
# about behaviour and the engine has no such place.
_TRIGGERED_TAIL = re.compile(r"\s*\(Triggered internally at .*\)\s*$", re.S)

# Floats are compared to this relative / absolute tolerance (float32 kernels differ in the last
# bits between numpy and ATen).
REL_TOL = 1e-4
ABS_TOL = 1e-6


@dataclass
class Outcome:
    """What running a snippet did."""

    stdout: str
    error: tuple[str, str] | None  # (exception type name, str(exception)), or None
    warnings: list[str]  # "Category: message", PyTorch's "(Triggered internally at ...)" removed
    namespace: dict[str, Any] = field(repr=False)
    value: Any = None  # value of the last statement when it is an expression (like a REPL)


def clean_warning(category: str, message: str) -> str:
    return f"{category}: {_TRIGGERED_TAIL.sub('', message)}"


def _compile_repl(code: str):
    """Split code into (statements, last expression or None), as a REPL would run it."""
    tree = ast.parse(code, mode="exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    body = compile(tree, "<snippet>", "exec")
    return body, (compile(last, "<snippet>", "eval") if last is not None else None)


def make_namespace(torch_module, nn_module, F_module, extra: dict | None = None) -> dict:
    ns = {
        "__name__": "__snippet__",
        "__builtins__": builtins,
        "torch": torch_module,
        "nn": nn_module,
        "F": F_module,
        "np": np,
    }
    if extra:
        ns.update(extra)
    return ns


def run_snippet(code: str, torch_module, nn_module, F_module, extra: dict | None = None) -> Outcome:
    """Execute `code` in a fresh namespace where torch, nn, F and np are bound.

    Captures stdout, warnings and the exception (type name and message); the value of a final
    expression statement is kept in `Outcome.value`.
    """
    ns = make_namespace(torch_module, nn_module, F_module, extra)
    body, last = _compile_repl(code)
    buf = io.StringIO()
    error = None
    value = None
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(buf):
        warnings.simplefilter("always")
        try:
            exec(body, ns)
            if last is not None:
                value = eval(last, ns)
        except Exception as exc:  # every exception is part of the behaviour under test
            error = (type(exc).__name__, str(exc))
    warns = [clean_warning(w.category.__name__, str(w.message)) for w in caught]
    return Outcome(stdout=buf.getvalue(), error=error, warnings=warns, namespace=ns, value=value)


# --------------------------------------------------------------------------------------------
# describe: values -> comparable plain data
# --------------------------------------------------------------------------------------------


def is_tensor(v) -> bool:
    """Duck-typed: true for torch tensors and engine tensors alike (and their Parameters)."""
    return not isinstance(v, type) and callable(getattr(v, "_is_view", None)) and hasattr(v, "stride")


def _float(v: float):
    if math.isnan(v):
        return "nan"
    if math.isinf(v) or v == 0:
        return v + 0.0  # -0.0 -> 0.0
    return float(f"{v:.6g}")


def _plain(v):
    """Nested lists of Python scalars (from tolist()) with floats rounded."""
    if isinstance(v, list):
        return [_plain(e) for e in v]
    if isinstance(v, bool):
        return v
    if isinstance(v, float):
        return _float(v)
    return v


def grad_fn_name(t) -> str | None:
    """type(t.grad_fn).__name__ as repr shows it; '<Invalid>' when reading grad_fn raises."""
    try:
        fn = t.grad_fn
    except Exception:
        return "<Invalid>"
    return None if fn is None else type(fn).__name__


def _read(t, attr: str):
    """An attribute, or the error reading it raises (inference tensors have no `_version`; some
    views' `is_leaf` raises after their base was modified in place)."""
    try:
        return getattr(t, attr)
    except RuntimeError as exc:
        return f"<{type(exc).__name__}: {exc}>"


# torch's TORCH_WARN_ONCE messages: torch shows each once per process, so whether real torch shows one
# depends on what ran before in the test process; the comparison leaves them out on both sides.
WARN_ONCE_TEXTS = ("UserWarning: Tensor.T is deprecated on 0-D tensors", "UserWarning: The use of `x.T` on tensors",
                   "UserWarning: Tensor.H is deprecated on 0-D tensors", "UserWarning: Tensor.mT is deprecated on 0-D",
                   "UserWarning: Tensor.mH is deprecated on 0-D", "UserWarning: adjoint() is deprecated on 0-D",
                   "UserWarning: Casting complex values to real discards the imaginary part")


def drop_warn_once(warnings: list[str] | None) -> list[str] | None:
    """The warnings without torch's warn-once ones (see WARN_ONCE_TEXTS)."""
    if warnings is None:
        return None
    return [w for w in warnings if not w.startswith(WARN_ONCE_TEXTS)]


def describe_tensor(t, values: bool = True, grad: bool = True) -> dict:
    d = {
        "kind": type(t).__name__,
        "shape": list(t.shape),
        "stride": list(t.stride()),
        "storage_offset": t.storage_offset(),
        "dtype": str(t.dtype),
        "version": _read(t, "_version"),
        "requires_grad": t.requires_grad,
        "is_leaf": _read(t, "is_leaf"),
        "grad_fn": grad_fn_name(t),
        "is_view": t._is_view(),
        "is_contiguous": t.is_contiguous(),
    }
    if values:
        d["values"] = _plain(t.detach().tolist())
    if grad and (d["is_leaf"] is True or t.retains_grad):
        g = t.grad
        d["grad"] = None if g is None else describe_tensor(g, values=values, grad=False)
    return d


def describe(value, values: bool = True):
    """Turn a result into plain, comparable data.

    Tensors -> shape, stride, storage_offset, dtype name, _version, requires_grad, is_leaf,
    grad_fn class name, _is_view(), is_contiguous(), values (floats rounded) and the grad of a
    leaf. Tuples / lists (incl. torch.return_types) -> their items; torch.Size, dtypes, devices,
    ndarrays, numpy scalars, numbers, bools, strings and None -> themselves; functions and methods
    -> "function". Anything else (modules, autograd nodes ...) -> its type name. `values=False`
    leaves out tensor and array values (for results of random ops).
    """
    if is_tensor(value):
        return describe_tensor(value, values=values)
    tname = type(value).__name__
    if tname == "Size":
        return {"kind": "Size", "value": list(value)}
    if tname in ("dtype", "device"):
        return {"kind": tname, "value": str(value)}
    if isinstance(value, (tuple, list)):
        d = {"kind": "list" if isinstance(value, list) else "tuple",
             "items": [describe(v, values) for v in value]}
        if type(value) not in (tuple, list):
            d["type"] = tname  # e.g. torch.return_types.max
        return d
    if isinstance(value, np.ndarray):
        d = {"kind": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape)}
        if values:
            d["values"] = _plain(value.tolist())
        return d
    if isinstance(value, np.generic):
        return {"kind": "numpy scalar", "dtype": str(value.dtype),
                "value": _plain(value.item()) if values else None}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return _float(value)
    if tname in ("builtin_function_or_method", "function", "method", "method-wrapper", "_OpNamespace"):
        return {"kind": "function"}  # torch binds ops in C, the engine in Python: both are callables
    return {"kind": "object", "type": tname}


def _is_prelude(name: str, value) -> bool:
    return (name in PRELUDE_NAMES or name.startswith("_")
            or type(value).__name__ == "module" or isinstance(value, type))


def describe_namespace(ns: dict, values: bool = True) -> dict:
    """describe() of every name a snippet left behind (modules, classes and _names excluded)."""
    return {k: describe(v, values) for k, v in sorted(ns.items()) if not _is_prelude(k, v)}


def _named_tensors(ns: dict):
    """(name, tensor) for every tensor in ns, including items of tuples / lists ('parts[1]')."""
    for k, v in sorted(ns.items()):
        if _is_prelude(k, v):
            continue
        if is_tensor(v):
            yield k, v
        elif isinstance(v, (tuple, list)):
            for j, e in enumerate(v):
                if is_tensor(e):
                    yield f"{k}[{j}]", e


def sharing_groups(ns: dict) -> list[list[str]]:
    """Names (of two or more) whose tensors live in one storage, by untyped_storage().data_ptr().

    Tensors with an empty storage are left out (their data_ptr means nothing).
    """
    groups: dict[int, list[str]] = {}
    for name, t in _named_tensors(ns):
        st = t.untyped_storage()
        if st.nbytes() == 0:
            continue
        groups.setdefault(st.data_ptr(), []).append(name)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)


def identity_groups(ns: dict) -> list[list[str]]:
    """Names (of two or more) bound to the very same tensor object (`y is x`)."""
    groups: dict[int, list[str]] = {}
    for name, t in _named_tensors(ns):
        groups.setdefault(id(t), []).append(name)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)


def summarize(out: Outcome, values: bool = True) -> dict:
    """Everything compared between torch and the engine for one snippet run."""
    return {
        "stdout": out.stdout,
        "error": out.error,
        "warnings": out.warnings,
        "value": describe(out.value, values),
        "namespace": describe_namespace(out.namespace, values),
        "shares_storage": sharing_groups(out.namespace),
        "same_object": identity_groups(out.namespace),
    }


# --------------------------------------------------------------------------------------------
# comparison with a float tolerance
# --------------------------------------------------------------------------------------------


def reconcile(expected, actual):
    """Return `actual` with every float that is close to its counterpart in `expected` replaced
    by that counterpart, so that `assert expected == reconcile(expected, actual)` compares floats
    with a tolerance and still shows pytest's full structural diff when something differs."""
    if isinstance(expected, float) and isinstance(actual, float) and not isinstance(actual, bool):
        if math.isclose(expected, actual, rel_tol=REL_TOL, abs_tol=ABS_TOL):
            return expected
        return actual
    if isinstance(expected, dict) and isinstance(actual, dict):
        return {k: reconcile(expected[k], v) if k in expected else v for k, v in actual.items()}
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [reconcile(e, a) for e, a in zip(expected, actual, strict=True)]
    if isinstance(expected, tuple) and isinstance(actual, tuple) and len(expected) == len(actual):
        return tuple(reconcile(e, a) for e, a in zip(expected, actual, strict=True))
    return actual


def torch_and_engine(code: str) -> tuple[dict, dict]:
    """(torch's summary, the engine's) of one snippet, the engine's floats reconciled within the
    tolerance: the oracle tests' `expected, got = torch_and_engine(code); assert got == expected`
    (the assert stays in the test, where pytest shows its full diff)."""
    import torch
    import torch.nn.functional

    import engine
    import engine.nn.functional

    expected = summarize(run_snippet(code, torch, torch.nn, torch.nn.functional))
    got = summarize(run_snippet(code, engine, engine.nn, engine.nn.functional))
    return expected, reconcile(expected, got)
