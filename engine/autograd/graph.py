"""torch.autograd.graph: saved-tensor hooks, version bumps, and the graph's node type.

While saved_tensors_hooks are active, what an op saves for backward goes through `pack_hook` at save
time and comes back through `unpack_hook` when backward (or `grad_fn._saved_x`) reads it. PyTorch
skips the version check of tensors saved under hooks (a later in-place change goes unnoticed and the
gradient is silently wrong); the engine does the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from engine import runtime


class HooksState:
    """The saved-tensor hooks in force (innermost last) and the disabling messages: a part of the
    engine's runtime."""

    __slots__ = ("active", "disabled")

    def __init__(self) -> None:
        self.active: list[tuple[Callable[[Any], Any], Callable[[Any], Any]]] = []
        self.disabled: list[str] = []


hooks: HooksState = runtime.slot(__name__, "hooks", HooksState)


def current_hooks() -> tuple[Callable[[Any], Any], Callable[[Any], Any]] | None:
    return hooks.active[-1] if hooks.active else None


class saved_tensors_hooks:  # noqa: N801 - torch's name
    """Context manager: pack every tensor saved for backward with `pack_hook`, unpack with `unpack_hook`."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        if hooks.disabled:
            raise RuntimeError(hooks.disabled[-1])
        hooks.active.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc: object) -> None:
        if hooks.active:  # an extra __exit__ (say from inside an unpack hook) is tolerated, as in torch
            hooks.active.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    """Saved tensors move to the CPU (`tensor.cpu()`: the same tensor when it is there already) and back
    to their device when backward needs them: what this saves on the simulated GPU shows on its pane."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Any) -> tuple[Any, Any]:
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            from engine.ops.factories import empty

            packed = empty(tensor.size(), dtype=tensor.dtype)
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed: tuple[Any, Any]) -> Any:
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:  # noqa: N801
    """Within it, entering saved_tensors_hooks raises RuntimeError(error_message)."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        if hooks.active:  # torch refuses to disable hooks that are in force, with the same message
            raise RuntimeError(self.error_message)
        hooks.disabled.append(self.error_message)

    def __exit__(self, *exc: object) -> None:
        hooks.disabled.pop()


def increment_version(tensor: Any) -> None:
    """Bump the version counter of a tensor (or of each in an iterable), as an in-place op would."""
    from engine.tensor import Tensor

    for t in ([tensor] if isinstance(tensor, Tensor) else tensor):
        t._bump_version()


class GradientEdge(NamedTuple):
    """Where a tensor's gradient goes: a node and which of its inputs."""

    node: Any
    output_nr: int
    ownership_token: Any = None


def get_gradient_edge(tensor: Any) -> GradientEdge:
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    edge = tensor._gradient_edge()
    token = None
    from engine.autograd.function import BackwardCFunction

    if isinstance(edge[0], BackwardCFunction):  # torch keeps a custom Function's graph alive by a view's node
        from engine.autograd import grad_mode

        with grad_mode.enable_grad():
            token = tensor.view_as(tensor).grad_fn
    return GradientEdge(edge[0], edge[1], ownership_token=token)


def __getattr__(name: str) -> Any:
    if name == "Node":  # the base of every grad_fn (engine.autograd.node imports this module)
        from engine.autograd.node import Node

        return Node
    raise AttributeError(f"module 'torch.autograd.graph' has no attribute '{name}'")


