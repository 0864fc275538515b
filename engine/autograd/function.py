"""torch.autograd.Function: user-defined ops with their own forward and backward.

`MyFn.apply(x)` runs `forward` without recording, then records one node named `MyFnBackward`
whose backward calls the user's `backward` with tensors; a version error names it `MyFn`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.autograd import grad_mode


class FunctionCtx:
    """The `ctx` both static methods receive: what forward saves for backward."""

    def __init__(self) -> None:
        self.to_save: tuple[Any, ...] = ()
        self.needs_input_grad: tuple[bool, ...] = ()
        self._saved: list[tuple[Any, Any]] = []  # (SavedTensor or None, value) in save order
        self._node: Any = None

    def save_for_backward(self, *tensors: Any) -> None:
        self.to_save = tensors

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        if self._node is None:
            return self.to_save
        return tuple(value if saved is None else saved.unpack(self._node) for saved, value in self._saved)

    def mark_dirty(self, *tensors: Any) -> None:
        """Accepted for compatibility; in-place custom functions are not modelled further."""

    def mark_non_differentiable(self, *tensors: Any) -> None:
        """Accepted for compatibility."""

    def set_materialize_grads(self, value: bool) -> None:
        """Accepted for compatibility: gradients are always materialised here."""


class Function:
    """Subclass with `forward(ctx, *args)` and `backward(ctx, *grads)` staticmethods; call `apply`."""

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        from engine.ops.core import needs_grad, record
        from engine.tensor import Tensor

        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with grad_mode.no_grad():
            result = cls.forward(ctx, *args, **kwargs)
        outputs = result if isinstance(result, tuple) else (result,)
        tensors_in = [a for a in args if isinstance(a, Tensor)]
        if not needs_grad(*tensors_in):
            return result
        outs = tuple(o for o in outputs if isinstance(o, Tensor))

        def backward(grads: Any, saved: dict[str, np.ndarray]) -> tuple[Any, ...]:
            grad_list = grads if isinstance(grads, list) else [grads]
            with grad_mode.no_grad():
                returned = cls.backward(ctx, *(Tensor._wrap(np.array(g)) for g in grad_list))
            returned = returned if isinstance(returned, tuple) else (returned,)
            by_input = []
            for arg, grad in zip(args, returned):
                if isinstance(arg, Tensor):
                    by_input.append(None if grad is None else np.asarray(grad._numpy_view()))
            return tuple(by_input)

        name = f"{cls.__name__}Backward"
        saved_inputs = {f"saved{i}": t for i, t in enumerate(ctx.to_save) if isinstance(t, Tensor)}
        node = record(name, outs, tensors_in, backward, saved_inputs)
        if node is not None:
            by_field = dict(node._saved)
            ctx._saved = [(by_field.get(f"saved{i}"), value) for i, value in enumerate(ctx.to_save)]
            ctx._node = node
        return result

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")
