"""torch.autograd.functional: vjp, jvp, jacobian, hessian, hvp and vhp, built on autograd.grad.

As in PyTorch: inputs are detached and made to require grad (views of themselves with
create_graph=True), `func` runs with grad enabled, and results are detached unless create_graph.
Forward-mode jvp is the double-vjp trick PyTorch uses here too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.autograd import grad_mode
from engine.autograd.api import grad as autograd_grad


def _as_tuple(value: Any, arg: str, fn: str) -> tuple[bool, tuple[Any, ...]]:
    from engine.tensor import Tensor

    is_tuple = isinstance(value, (tuple, list))
    values = tuple(value) if is_tuple else (value,)
    for i, v in enumerate(values):
        if not isinstance(v, Tensor):
            if is_tuple:
                raise TypeError(f"The {arg} given to {fn} must be either a Tensor or a tuple of Tensors but the value "
                                f"at index {i} has type {type(v)}.")
            raise TypeError(f"The {arg} given to {fn} must be either a Tensor or a tuple of Tensors but the given "
                            f"{arg} has type {type(v)}.")
    return is_tuple, values


def _tuple_postprocess(values: Any, is_tuple: bool | tuple[bool, bool]) -> Any:
    if isinstance(is_tuple, tuple):
        if not is_tuple[1]:
            values = tuple(v[0] for v in values)
        if not is_tuple[0]:
            values = values[0]
        return values
    return values if is_tuple else values[0]


def _preprocess(inputs: tuple[Any, ...], create_graph: bool) -> tuple[Any, ...]:
    prepared = []
    for t in inputs:
        if create_graph and t.requires_grad:
            prepared.append(t.view_as(t))
        else:
            prepared.append(t.detach().requires_grad_(True))
    return tuple(prepared)


def _postprocess(values: Any, create_graph: bool) -> Any:
    from engine.tensor import Tensor

    if isinstance(values, Tensor):
        return values if create_graph else values.detach()
    return tuple(_postprocess(v, create_graph) for v in values)


def _grad(outputs: Sequence[Any], inputs: Sequence[Any], grad_outputs: Sequence[Any] | None,
          create_graph: bool, retain_graph: bool | None = None) -> tuple[Any, ...]:
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs or [None] * len(outputs)) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return autograd_grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=retain_graph,
                         create_graph=create_graph, allow_unused=True)


def _fill_zeros(grads: Sequence[Any], refs: Sequence[Any]) -> tuple[Any, ...]:
    from engine.ops.factories import zeros_like

    return tuple(zeros_like(r) if g is None else g for g, r in zip(grads, refs))


def _scalar_outputs(outputs: tuple[Any, ...], fn: str) -> None:
    for out in outputs:
        if out.numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {fn} should contain a single element")


def vjp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), v^T J)."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _preprocess(inputs, create_graph)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
        else:
            _scalar_outputs(outputs, "vjp")
        grads = _fill_zeros(_grad(outputs, inputs, v, create_graph), inputs)
    return (_tuple_postprocess(_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_postprocess(grads, create_graph), is_inputs_tuple))


def jvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), J v), by differentiating a vjp with respect to its cotangent."""
    from engine.ops.factories import zeros_like

    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _preprocess(inputs, create_graph)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
        elif any(t.numel() != 1 for t in inputs):
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        cotangents = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, cotangents, create_graph=True)
        result = _fill_zeros(_grad(grad_inputs, cotangents, v, create_graph), outputs)
    return (_tuple_postprocess(_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_postprocess(result, create_graph), is_outputs_tuple))


def jacobian(func: Callable[..., Any], inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """The Jacobian, one reverse pass per output element (`vectorize` gives the same values)."""
    from engine.ops.factories import zeros
    from engine.ops.indexing import stack

    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _preprocess(inputs, create_graph)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        jacobians = []
        for out in outputs:
            rows: list[list[Any]] = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(flat.numel()):
                element = flat[j]
                grads = _grad([element], inputs, None, create_graph, retain_graph=True)
                for k, (g, inp) in enumerate(zip(grads, inputs)):
                    rows[k].append(zeros(inp._shape, dtype=inp.dtype) if g is None else g)
            jacobians.append(tuple(
                (stack(r, 0) if r else zeros((0, *inp._shape), dtype=inp.dtype)).view(*out._shape, *inp._shape)
                for r, inp in zip(rows, inputs)))
    return _tuple_postprocess(_postprocess(tuple(jacobians), create_graph), (is_outputs_tuple, is_inputs_tuple))


def hessian(func: Callable[..., Any], inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar function: the Jacobian of its gradient."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def single_output(*inp: Any) -> Any:
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if is_out_tuple or t_out[0].numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        return t_out[0].squeeze() if t_out[0].ndim else t_out[0]

    def jac_func(*inp: Any) -> Any:
        return jacobian(single_output, inp, create_graph=True)

    result = jacobian(jac_func, inputs, create_graph=create_graph)
    return _tuple_postprocess(result, (is_inputs_tuple, is_inputs_tuple))


def vhp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), v^T H)."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _preprocess(inputs, create_graph)
        if v is not None:
            _, v = _as_tuple(v, "v", "vhp")
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vhp")
        if is_outputs_tuple or outputs[0].numel() != 1:
            raise RuntimeError("The function given to vhp should return a single Tensor")
        jac = _grad(outputs, inputs, None, create_graph=True)
        grads = _fill_zeros(_grad(jac, inputs, v, create_graph), inputs)
    return (_postprocess(outputs[0], create_graph), _tuple_postprocess(_postprocess(grads, create_graph),
                                                                       is_inputs_tuple))


def hvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), H v), by the double-backward trick."""
    from engine.ops.factories import zeros_like

    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _preprocess(inputs, create_graph)
        if v is not None:
            _, v = _as_tuple(v, "v", "hvp")
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "hvp")
        if is_outputs_tuple or outputs[0].numel() != 1:
            raise RuntimeError("The function given to hvp should return a single Tensor")
        jac = _grad(outputs, inputs, None, create_graph=True)
        grad_jac = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _grad(jac, inputs, grad_jac, create_graph=True)
        grads = _fill_zeros(_grad(double_back, grad_jac, v, create_graph), inputs)
    return (_postprocess(outputs[0], create_graph), _tuple_postprocess(_postprocess(grads, create_graph),
                                                                       is_inputs_tuple))
