"""Full backward hooks on a module (torch.utils.hooks.BackwardHook): the module's tensor inputs and
outputs pass through identity nodes named BackwardHookFunctionBackward, whose backward sees the
gradients flowing out of the module's outputs and into its inputs, and calls the hooks with both."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine.autograd import grad_mode
from engine.autograd.node import Node
from engine.ops.core import _mark_view, edges_of, needs_grad
from engine.tensor import DEFAULT, Tensor

_NO_INPUT_GRAD = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since no inputs "
    "require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details.")


class BackwardHookFunctionBackward(Node):
    """The identity node of a backward hook, printed as torch prints a custom Function's node."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<torch.autograd.function.BackwardHookFunctionBackward object at {hex(id(self))}>"


def _identity(tensors: Sequence[Tensor], on_grads: Callable[[list[np.ndarray | None]], Any]) -> tuple[Tensor, ...]:
    """Views of `tensors` sharing one BackwardHookFunctionBackward node whose backward passes the
    gradients through `on_grads` (which may replace them)."""
    outs = tuple(Tensor._make(t._storage, t._offset, t._shape, t._stride, t.dtype, t._vc) for t in tensors)
    for out, source in zip(outs, tensors):
        _mark_view(out, source, DEFAULT)

    def backward(grads: Any, saved: dict[str, np.ndarray]) -> Sequence[np.ndarray | None]:
        grads = list(grads) if isinstance(grads, list) else [grads]
        replaced = on_grads(grads)
        return tuple(replaced if replaced is not None else grads)

    node = BackwardHookFunctionBackward(backward, edges_of(tensors),
                                        tuple((o._shape, o.dtype, o._storage.device) for o in outs))
    for i, out in enumerate(outs):
        out._set_grad_fn(node, i)
    return outs


def _as_tensors(grads: Sequence[np.ndarray | None]) -> tuple[Tensor | None, ...]:
    return tuple(None if g is None else Tensor._wrap(np.array(g)) for g in grads)


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

        def on_grads(grads: list[np.ndarray | None]) -> list[np.ndarray | None]:
            wanted = [g if t.requires_grad else None for g, t in zip(grads, tensors)]
            with grad_mode.no_grad():
                result = self._call_hooks(_as_tensors(wanted))
            return [None if r is None else np.asarray(r._numpy_view()) for r in result]

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

        def on_grads(grads: list[np.ndarray | None]) -> None:
            self.grad_outputs = _as_tensors(grads)
            if not self.input_hooked:
                warnings.warn(_NO_INPUT_GRAD, UserWarning, stacklevel=2)
                with grad_mode.no_grad():
                    self._call_hooks((None,))

        wrapped = list(outputs)
        for i, out in zip(positions, _identity(tensors, on_grads)):
            wrapped[i] = out
        return tuple(wrapped) if isinstance(result, tuple) else wrapped[0]
