"""Record the reference trace of a script with real PyTorch, in TRACE.md's format.

A test tool: it runs our own trusted test scripts statement by statement with `exec` (the
application never does), so that `tensorscope replay FILE --json` can be compared with what real
torch does to the same names: shapes, strides, storage sharing, versions, grad_fn, values, output
and errors. Memory figures are the engine's model and are not recorded here.

    python -m tests.torch_trace tests/data/seeds/001_02_from_numpy_shares_memory.py
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import math
import re
import sys
import warnings
from typing import Any

import numpy as np

_TRIGGERED = re.compile(r"\s*\(Triggered internally at .*\)\s*$", re.S)


def _round(value: Any) -> Any:
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return float(f"{value:.6g}")
    return value


def _plain(values: Any) -> Any:
    return [_plain(v) for v in values] if isinstance(values, list) else _round(values)


class _Labels:
    """S0, S1, … by first appearance; the storages are kept alive so an address is never reused."""

    def __init__(self) -> None:
        self.by_address: dict[Any, str] = {}
        self.keep: list[Any] = []

    def label(self, address: Any, keep: Any) -> str:
        if address not in self.by_address:
            self.by_address[address] = f"S{len(self.by_address)}"
            self.keep.append(keep)
        return self.by_address[address]


def _array_root(array: np.ndarray) -> np.ndarray:
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _read(value: Any, attr: str) -> Any:
    """An attribute, or "<error>" where reading it raises (inference tensors have no version)."""
    try:
        return getattr(value, attr)
    except RuntimeError:
        return "<error>"


def _storage_key(storage: Any) -> Any:
    """Where a storage's memory is; memory-less storages (data_ptr 0) are told apart by identity."""
    address = storage.data_ptr()
    if address:
        return address
    return ("empty", getattr(storage, "_cdata", None) or id(getattr(storage, "_storage", storage)))


def _version(tensor: Any) -> int | None:
    """t._version; None for an inference tensor, which keeps no version counter."""
    try:
        return tensor._version
    except RuntimeError:
        return None


def _describe(torch: Any, value: Any, labels: _Labels) -> dict[str, Any]:
    if isinstance(value, np.ndarray):
        root = _array_root(value)
        return {"kind": "ndarray", "shape": list(value.shape), "dtype": value.dtype.name,
                "storage": labels.label(root.__array_interface__["data"][0], root),
                "values": _plain(value.tolist()) if value.size <= 1000 else None}
    storage = value.untyped_storage()
    try:
        fn = value.grad_fn
        grad_fn = None if fn is None else type(fn).__name__
    except RuntimeError:
        grad_fn = "Invalid"
    is_leaf = _read(value, "is_leaf")  # raises for a view whose base changed after a no_grad view
    with warnings.catch_warnings():  # .grad of a non-leaf warns, and still holds what it held
        warnings.simplefilter("ignore")
        try:
            grad = value.grad
        except RuntimeError:
            grad = None
    return {
        "kind": "tensor", "shape": list(value.shape), "stride": list(value.stride()),
        "storage_offset": value.storage_offset(), "dtype": str(value.dtype).replace("torch.", ""),
        "storage": labels.label(_storage_key(storage), storage), "version": _version(value),
        "requires_grad": value.requires_grad, "is_leaf": is_leaf, "grad_fn": grad_fn,
        "is_view": value._is_view(),
        "values": _plain(value.detach().tolist()) if value.numel() <= 1000 else None,
        "grad": None if grad is None else _plain(grad.tolist()),
    }


def record(source: str, bound: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Run `source` with real torch, one top-level statement at a time, like `replay --json`.

    `bound` pre-binds names (the fuzzer binds `torch` to real torch or to the engine, so that one
    program runs against both); the tensor type is then the one `bound["torch"]` provides.
    """
    import torch

    if bound and "torch" in bound:
        torch = bound["torch"]
    namespace: dict[str, Any] = {"__name__": "__main__", **(bound or {})}
    labels = _Labels()
    lines = source.splitlines()
    steps = []
    for index, node in enumerate(ast.parse(source).body):
        first = node.decorator_list[0].lineno if getattr(node, "decorator_list", None) else node.lineno
        text = "\n".join(line.rstrip() for line in lines[first - 1: node.end_lineno])
        out = io.StringIO()
        error = None
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
            warnings.simplefilter("always")
            try:
                if isinstance(node, ast.Expr):
                    value = eval(compile(ast.Expression(node.value), "<trace>", "eval"), namespace)  # noqa: S307
                    if value is not None:
                        print(repr(value))
                else:  # as typed at Python's prompt: expression statements in a module-level block echo
                    exec(compile(ast.Interactive([node]), "<trace>", "single"), namespace)  # noqa: S102
            except Exception as exc:  # noqa: BLE001 - the trace records every user-visible error
                error = {"type": type(exc).__name__, "message": str(exc)}
        printed = out.getvalue()
        objects = {name: _describe(torch, value, labels) for name, value in sorted(namespace.items())
                   if isinstance(value, (torch.Tensor, np.ndarray)) and not name.startswith("__")}
        steps.append({
            "step": index, "source": text, "error": error,
            "output": printed[:-1] if printed.endswith("\n") else (printed or None),
            "objects": objects,
            "warnings": [f"{w.category.__name__}: {_TRIGGERED.sub('', str(w.message))}" for w in caught],
        })
    return steps


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as script:
        source = script.read()
    for step in record(source):
        print(json.dumps(step))
