"""torch.autograd.backward and torch.autograd.grad: their arguments checked and defaulted as torch does."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from engine import errors, runtime
from engine.autograd.engine import run_backward
from engine.autograd.graph import GradientEdge
from engine.devices import on
from engine.tensor import Tensor


class Warned:
    """Which warn-once warnings this runtime has given (torch's TORCH_WARN_ONCE): a part of the
    engine's runtime."""

    __slots__ = ("create_graph",)

    def __init__(self) -> None:
        self.create_graph = False


warned: Warned = runtime.slot(__name__, "warned", Warned)


def _as_tuple(value: Any) -> tuple[Any, ...]:
    if isinstance(value, (Tensor, GradientEdge)):
        return (value,)
    return tuple(value)


def _output_meta(out: Any) -> tuple[tuple[int, ...], Any, Any]:
    """(shape, dtype, device) of an output: a tensor, or a GradientEdge (its node's input metadata)."""
    if isinstance(out, GradientEdge):
        return out.node.output_meta[out.output_nr]
    return out._shape, out.dtype, out.device


def _grads_tuple(grads: Any, length: int) -> tuple[Any, ...]:
    if grads is None:
        return (None,) * length
    if isinstance(grads, Tensor):
        return (grads,)
    return tuple(grads)


def _make_grads(outputs: tuple[Any, ...], grads: tuple[Any, ...], batched: bool = False) -> list[Any]:
    """torch.autograd's _make_grads: check given gradients, make ones for scalar outputs."""
    from engine.ops.factories import ones, ones_like
    from engine.tensor import Size, Tensor

    made = []
    for i, (out, grad) in enumerate(zip(outputs, grads)):
        shape, dtype, device = _output_meta(out)
        if isinstance(grad, Tensor):
            first = grad[0] if batched else grad
            if first._shape != shape:
                if batched:  # torch prints the shape of grad[0] without its first dimension
                    raise RuntimeError(errors.BATCHED_GRAD_SHAPE.format(i=i, got=Size(first._shape[1:]),
                                                                        want=Size(shape)))
                raise RuntimeError(errors.GRAD_SHAPE_MISMATCH.format(i=i, got=Size(grad._shape), want=Size(shape)))
            made.append(grad)
        elif grad is None:
            edge = isinstance(out, GradientEdge)
            if edge or out.requires_grad:
                if not (all(n == 1 for n in shape) if edge else out.numel() == 1):
                    raise RuntimeError(errors.NON_SCALAR_BACKWARD)
                if not dtype.is_floating_point:
                    raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {dtype}")
                if device.type == "cpu" and not shape:  # the usual loss: a 0-dim ones, laid out as ones_like would
                    root = Tensor._empty((), dtype)
                    root._storage.data.fill(1)
                    made.append(root)
                elif device.type == "cpu":
                    made.append(ones(shape, dtype=dtype) if edge else ones_like(out))
                else:
                    with on(device):  # the root gradient lives where its output does
                        made.append(ones(shape, dtype=dtype) if edge else ones_like(out))
            else:
                made.append(None)
        else:
            raise TypeError("gradients can be either Tensors or None, but got " + type(grad).__name__)
    return made


def _root_grads(outputs: tuple[Any, ...], grads: list[Any]) -> list[Any]:
    """validate_outputs on the roots: a root without history fails, a gradient is cast to its output."""
    for i, (out, grad) in enumerate(zip(outputs, grads)):
        if isinstance(out, GradientEdge):
            dtype = out.node.output_meta[out.output_nr][1]
        elif out._gradient_edge() is None:
            raise RuntimeError(errors.NO_GRAD_FN.format(i=i))
        else:
            dtype = out.dtype
        if grad is not None and grad.dtype is not dtype:
            grads[i] = grad.to(dtype)
    return grads


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, grad_variables: Any = None, inputs: Any = None) -> None:
    """Accumulate gradients of `tensors` into the `.grad` of the leaves they depend on (only of
    `inputs`, when given)."""
    if grad_variables is not None:
        warnings.warn("'grad_variables' is deprecated. Use 'grad_tensors' instead.", FutureWarning, stacklevel=2)
        if grad_tensors is None:
            grad_tensors = grad_variables
    if inputs is not None and len(_as_tuple(inputs)) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    outputs = _as_tuple(tensors)
    targets = _as_tuple(inputs) if inputs is not None else None
    grads = _make_grads(outputs, _grads_tuple(grad_tensors, len(outputs)))
    if retain_graph is None:
        retain_graph = create_graph
    grads = _root_grads(outputs, grads)
    if create_graph and not warned.create_graph:
        warned.create_graph = True
        warnings.warn(errors.CREATE_GRAPH_CYCLE, UserWarning, stacklevel=3)
    run_backward(outputs, grads, keep_graph=bool(retain_graph), create_graph=bool(create_graph), inputs=targets,
                 allow_unused=True, accumulate=True)


def backward_of(tensor: Any, keep_graph: bool) -> None:
    """`loss.backward()` / `loss.backward(retain_graph=True)`: backward() of one tensor given no
    gradient. A 0-dim floating-point host tensor requiring grad (the usual loss) passes every check of
    _make_grads and _root_grads, and gets its 0-dim ones, without their general walk."""
    if tensor._shape or not tensor.requires_grad or not tensor.dtype.is_floating_point or \
            tensor._storage.device.type != "cpu":
        backward((tensor,), None, retain_graph=keep_graph)
        return
    root = Tensor._adopt(np.array(1, tensor.dtype.np), tensor.dtype)  # a fresh 0-dim result, as an op's
    run_backward((tensor,), [root], keep_graph=keep_graph, create_graph=False, inputs=None, allow_unused=True,
                 accumulate=True)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple[Any, ...]:
    """Gradients of `outputs` with respect to `inputs`, returned rather than accumulated."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    keys = None
    if type(inputs) is dict:  # noqa: E721 - torch checks the exact type: a dict in, a dict out
        keys, inputs = list(inputs.keys()), tuple(inputs.values())
    elif isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `grad()` must be a dict, not {type(inputs).__name__}. Other Mapping "
                        "types are not supported.")
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", FutureWarning,
                      stacklevel=2)
    grads = _make_grads(outputs, _grads_tuple(grad_outputs, len(outputs)), batched=is_grads_batched)
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        result = _batched_grad(outputs, inputs, grads, bool(retain_graph), create_graph, bool(allow_unused))
    else:
        grads = _root_grads(outputs, grads)
        result = tuple(run_backward(outputs, grads, keep_graph=bool(retain_graph), create_graph=bool(create_graph),
                                    inputs=inputs, allow_unused=bool(allow_unused), accumulate=False))
    if materialize_grads:
        if any(r is None and isinstance(i, GradientEdge) for r, i in zip(result, inputs)):
            raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
        result = tuple(r if r is not None else _zeros_on_device(i, bool(create_graph)) for r, i in zip(result, inputs))
    if keys is not None:
        return dict(zip(keys, result, strict=True))  # type: ignore[return-value]
    return result


def _zeros_on_device(like: Any, requires_grad: bool) -> Any:
    from engine.ops.factories import zeros_like

    with on(like.device):
        return zeros_like(like, requires_grad=requires_grad)


def _batched_grad(outputs: tuple[Any, ...], inputs: tuple[Any, ...], grads: list[Any], retain_graph: bool,
                  create_graph: bool, allow_unused: bool) -> tuple[Any, ...]:
    """is_grads_batched: one backward per row of the batched grad_outputs, results stacked (torch
    vectorises this with vmap; values agree, the rows are computed one by one here, then laid out as
    vmap lays them out: see _vmapped)."""
    grads = _root_grads(outputs, grads)  # cast once, as vmap casts the whole batched grad_output
    count = next(g._shape[0] for g in grads if g is not None)
    fed: list[list[Any]] = []
    rows: list[tuple[Any, ...]] = []
    for b in range(count):
        fed.append([None if g is None else g[b] for g in grads])
        keep_graph = retain_graph or b < count - 1  # torch's one vmapped backward frees the graph once, at the end
        rows.append(tuple(run_backward(outputs, list(fed[b]), keep_graph=keep_graph, create_graph=create_graph,
                                       inputs=inputs, allow_unused=allow_unused, accumulate=False)))
    return tuple(None if rows[0][k] is None else _vmapped([row[k] for row in rows], grads, fed)
                 for k in range(len(inputs)))


def _vmapped(rows: list[Any], grads: list[Any], fed: list[list[Any]]) -> Any:
    """The per-row gradients as one tensor, laid out as torch's vmap leaves them: the batched
    grad_output itself where each row is its row, handed through (CloneBackward); where each row is
    the same view of its row (a formula that only reshaped, transposed or expanded the gradient:
    `t()`, `view`, SumBackward's expand), that view of the whole batched grad_output, the batch dim
    striding over it; where each row is the same view of a new tensor of its own (a sum with keepdim,
    then a view), that view of those tensors stacked; otherwise, and when the rows have a graph of their
    own, the rows stacked. (Ops vmap runs through its per-row fallback, flip or cumsum, give torch a
    view of the stacked rows where the engine gives the stack itself.)"""
    from engine.ops.indexing import stack

    for j, whole in enumerate(grads):
        if whole is not None and all(row is given[j] for row, given in zip(rows, fed)):
            return whole
    first = rows[0]
    if len(rows) < 2 or first._view is None or any(r.requires_grad for r in rows):
        return stack(rows)
    shape, stride = first._shape, first._stride
    if any(r._view is None or r._shape != shape or r._stride != stride for r in rows):
        return stack(rows)
    bases = [r._view.base for r in rows]
    base = bases[0]
    if all(b is base for b in bases):
        step = rows[1]._offset - first._offset
        if any(b._offset - a._offset != step for a, b in zip(rows, rows[1:])):
            return stack(rows)
        return base.as_strided((len(rows), *shape), (step, *stride), first._offset)
    offset = first._offset - base._offset
    if len({id(b) for b in bases}) < len(bases) or any(
            b._view is not None or b._shape != base._shape or not b.is_contiguous() or r._offset - b._offset != offset
            for r, b in zip(rows, bases)):
        return stack(rows)
    return stack(bases).as_strided((len(rows), *shape), (base.numel(), *stride), offset)
