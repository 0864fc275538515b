"""torch.autograd.backward and torch.autograd.grad."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.autograd.engine import run_backward


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate gradients of `tensors` into the `.grad` of the leaves they depend on."""
    tensors = _as_list(tensors)
    grads = _as_list(grad_tensors) or [None] * len(tensors)
    if create_graph:
        raise RuntimeError("create_graph=True (higher-order gradients) is not supported by the tensorscope "
                           "engine: its backward formulas run on plain arrays")
    retain = bool(retain_graph)
    run_backward(tensors, grads, retain_graph=retain)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool | None = None,
         materialize_grads: bool = False) -> tuple[Any, ...]:
    """Gradients of `outputs` with respect to `inputs`, returned rather than accumulated."""
    from engine.tensor import Tensor

    if create_graph:
        raise RuntimeError("create_graph=True (higher-order gradients) is not supported by the tensorscope "
                           "engine: its backward formulas run on plain arrays")
    outputs = _as_list(outputs)
    inputs_list: Sequence[Any] = _as_list(inputs)
    grads = _as_list(grad_outputs) or [None] * len(outputs)
    retain = create_graph if retain_graph is None else retain_graph
    captured = run_backward(outputs, grads, retain_graph=retain, inputs=inputs_list,
                            allow_unused=bool(allow_unused) or materialize_grads)
    results = []
    for tensor, found in zip(inputs_list, captured):
        if found is None:
            results.append(Tensor._wrap(0 * tensor._numpy_view()) if materialize_grads else None)
        else:
            value, version = found
            result = Tensor._wrap(np.array(value, dtype=tensor.dtype.np, copy=True), tensor.dtype)
            result._vc.value = version
            results.append(result)
    return tuple(results)
