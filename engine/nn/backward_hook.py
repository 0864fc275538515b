"""Full backward hooks on a module (torch.utils.hooks.BackwardHook): the module's tensor inputs and
outputs pass through identity nodes named BackwardHookFunctionBackward, whose backward sees the
gradients flowing out of the module's outputs and into its inputs, and calls the hooks with both."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from engine.autograd import grad_mode
from engine.autograd.derivatives import rule
from engine.autograd.node import Node
from engine.ops.core import _mark_view, edges_of, needs_grad
from engine.tensor import DEFAULT, Tensor

_NO_INPUT_GRAD = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since no inputs "
    "require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details.")


def _zeros(shape: tuple[int, ...], dtype: Any) -> Tensor:
    t = Tensor._empty(shape, dtype)
    t._storage.data.fill(0)
    return t


def _pass_through(c: Any, grads: list[Tensor | None]) -> Sequence[Tensor | None]:
    """The identity's backward: the gradients themselves (so create_graph keeps their history), undefined
    ones as zeros (a custom Function materializes them), unless a hook replaces them."""
    grads = [g if g is not None else _zeros(shape, dtype) for g, (shape, dtype) in zip(grads, c._meta)]
    replaced = c._on_grads(grads)
    return list(replaced if replaced is not None else grads)


class BackwardHookFunctionBackward(Node):
    """The identity node of a backward hook, printed as torch prints a custom Function's node."""

    __slots__ = ()
    formula = rule("self", _pass_through, grads_list=True)

    def __repr__(self) -> str:
        return f"<torch.autograd.function.BackwardHookFunctionBackward object at {hex(id(self))}>"


def _identity(tensors: Sequence[Tensor], on_grads: Callable[[list[Tensor]], Any]) -> tuple[Tensor, ...]:
    """Views of `tensors` sharing one BackwardHookFunctionBackward node whose backward passes the
    gradients through `on_grads` (which may replace them)."""
    outs = tuple(Tensor._make(t._storage, t._offset, t._shape, t._stride, t.dtype, t._counter()) for t in tensors)
    for out, source in zip(outs, tensors):
        _mark_view(out, source, DEFAULT)

    node = BackwardHookFunctionBackward(None, edges_of(tensors),
                                        tuple((o._shape, o.dtype, o._storage.device) for o in outs))
    node._values = {"_on_grads": on_grads, "_meta": [(o._shape, o.dtype) for o in outs]}
    for i, out in enumerate(outs):
        out._set_grad_fn(node, i)
    return outs


class BackwardHook:
    """One module call's wiring: the output node records grad_output, the input node calls hooks."""

    def __init__(self, module: Any, hooks: list[Callable[..., Any]]) -> None:
        self.module, self.hooks = module, hooks
        self.grad_outputs: tuple[Tensor | None, ...] | None = None
        self.input_hooked = False

    def _call_hooks(self, grad_inputs: tuple[Tensor | None, ...]) -> tuple[Tensor | None, ...]:
        for hook in self.hooks:
            result = hook(self.module, grad_inputs, self.grad_outputs)
            if result is not None:
                grad_inputs = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        return grad_inputs

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in positions]
        if not (tensors and needs_grad(*tensors)):
            return args
        self.input_hooked = True

        def on_grads(grads: list[Tensor]) -> list[Tensor | None]:
            wanted = tuple(g if t.requires_grad else None for g, t in zip(grads, tensors))
            with grad_mode.no_grad():
                result = self._call_hooks(wanted)
            return list(result)

        wrapped = list(args)
        for i, out in zip(positions, _identity(tensors, on_grads)):
            wrapped[i] = out
        return tuple(wrapped)

    def setup_output_hook(self, result: Any) -> Any:
        outputs = result if isinstance(result, tuple) else (result,)
        positions = [i for i, o in enumerate(outputs) if isinstance(o, Tensor)]
        tensors = [outputs[i] for i in positions]
        if not (tensors and needs_grad(*tensors)):
            return result

        def on_grads(grads: list[Tensor]) -> None:
            self.grad_outputs = tuple(g.detach() for g in grads)
            if not self.input_hooked:
                warnings.warn(_NO_INPUT_GRAD, UserWarning, stacklevel=2)
                with grad_mode.no_grad():
                    self._call_hooks((None,))

        wrapped = list(outputs)
        for i, out in zip(positions, _identity(tensors, on_grads)):
            wrapped[i] = out
        return tuple(wrapped) if isinstance(result, tuple) else wrapped[0]
