"""torch.utils.checkpoint: trade compute for memory by recomputing a block's forward in backward.

Non-reentrant (use_reentrant=False): the block's graph is recorded as usual, but what its ops save
for backward is not kept: saved-tensor hooks keep a placeholder, and the first time backward needs
one, the block runs again (same inputs, same RNG state) to produce them. So the activations are
freed after forward and exist again, briefly, during backward: the memory pane shows both.

Reentrant (use_reentrant=True): the block runs under no_grad and its output gets one
CheckpointFunctionBackward node, whose backward reruns the block with grad and backpropagates
through that fresh graph.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from engine.autograd import grad_mode, graph
from engine.ops import random
from engine.tensor import Tensor

_EXPLICIT = ("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch "
             "2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
             "recommended, but if you need to preserve the current default behavior, you can pass "
             "use_reentrant=True. Refer to docs for more details on the differences between the two variants.")


def _detached_like(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """Fresh leaves standing for the block's tensor inputs in the recomputation."""
    return tuple(a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a for a in args)


class _Recomputation:
    """One checkpointed call: placeholders handed out in forward, filled by one rerun per backward that
    needs them (torch keys the rerun by graph task: a second autograd.grad through a create_graph
    gradient reruns the block again)."""

    def __init__(self, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                 rng_state: Tensor | None) -> None:
        self.function, self.args, self.kwargs, self.rng_state = function, args, kwargs, rng_state
        self.count = 0
        self.runs: dict[int, tuple[object, list[Tensor | None]]] = {}  # by backward: (its task, its rerun)

    def pack(self, tensor: Tensor) -> int:
        index = self.count
        self.count += 1
        return index

    def unpack(self, index: int) -> Tensor:
        """The recomputed tensor, handed over once per backward: backward's use of it is what keeps it alive."""
        from engine.autograd.engine import current_graph_task

        task = current_graph_task()
        run = self.runs.get(id(task))
        if run is None or run[0] is not task:
            run = (task, self._rerun())
            if task is not None:  # outside backward every unpack reruns, as torch's fresh graph id does
                self.runs[id(task)] = run
        recomputed = run[1]
        value = recomputed[index]
        if value is None:
            raise RuntimeError("torch.utils.checkpoint: Unpack is being triggered for a tensor that was already "
                               "unpacked once. If you are calling ctx.saved_tensors in backward, make sure to do "
                               "so only once. Otherwise please open an issue with details on your use case.")
        recomputed[index] = None
        return value

    def _rerun(self) -> list[Tensor | None]:
        saved: list[Tensor] = []

        def keep(tensor: Tensor) -> Tensor:
            saved.append(tensor)
            return tensor

        outer = random.get_rng_state() if self.rng_state is not None else None
        if self.rng_state is not None:
            random.set_rng_state(self.rng_state)
        try:
            with grad_mode.enable_grad(), graph.saved_tensors_hooks(keep, lambda t: t):
                self.function(*_detached_like(self.args), **self.kwargs)
        finally:
            if outer is not None:
                random.set_rng_state(outer)
        recomputed: list[Tensor | None] = list(saved)
        saved.clear()  # the recomputed graph's hooks still see this list: emptied, it keeps nothing alive
        return recomputed


def _non_reentrant(function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                   preserve_rng_state: bool) -> Any:
    run = _Recomputation(function, args, kwargs, random.get_rng_state() if preserve_rng_state else None)
    with graph.saved_tensors_hooks(run.pack, run.unpack):
        return function(*args, **kwargs)


def _reentrant(function: Callable[..., Any], args: tuple[Any, ...], preserve_rng_state: bool) -> Any:
    from engine.autograd.api import backward as run_backward
    from engine.ops.core import record

    if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", UserWarning, stacklevel=3)
    rng_state = random.get_rng_state() if preserve_rng_state else None
    with grad_mode.no_grad():
        output = function(*args)
    outputs = output if isinstance(output, tuple) else (output,)
    tensors = [a for a in args if isinstance(a, Tensor)]

    def backward(grads: Any, saved: dict[str, np.ndarray]) -> tuple[Any, ...]:
        grads = grads if isinstance(grads, list) else [grads]
        inputs = _detached_like(args)
        outer = random.get_rng_state()
        if rng_state is not None:
            random.set_rng_state(rng_state)
        try:
            with grad_mode.enable_grad():
                again = function(*inputs)
        finally:
            random.set_rng_state(outer)
        again = again if isinstance(again, tuple) else (again,)
        pairs = [(o, Tensor._wrap(np.array(g))) for o, g in zip(again, grads) if isinstance(o, Tensor) and o.requires_grad]
        if pairs:
            run_backward([o for o, _ in pairs], [g for _, g in pairs])
        return tuple(None if not (isinstance(i, Tensor) and i.requires_grad) or i.grad is None
                     else np.array(i.grad._numpy_view()) for i in inputs if isinstance(i, Tensor))

    detached = tuple(o.detach() if isinstance(o, Tensor) else o for o in outputs)
    node = record("CheckpointFunctionBackward", [o for o in detached if isinstance(o, Tensor)], tensors, backward)
    if node is not None:
        type(node).__repr__ = lambda self: f"<torch.autograd.function.CheckpointFunctionBackward object at {hex(id(self))}>"
    return detached if isinstance(output, tuple) else detached[0]


def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: bool | None = None,
               context_fn: Any = None, determinism_check: str = "default", debug: bool = False,
               preserve_rng_state: bool = True, **kwargs: Any) -> Any:
    if use_reentrant is None:
        warnings.warn(_EXPLICIT, UserWarning, stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return _reentrant(function, args, preserve_rng_state)
    return _non_reentrant(function, args, kwargs, preserve_rng_state)


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: bool | None = None,  # noqa: A002
                          **kwargs: Any) -> Any:
    """Checkpoint each of `segments` runs of consecutive modules, except the last, which runs plainly."""
    if use_reentrant is None:
        warnings.warn(_EXPLICIT, UserWarning, stacklevel=2)
        use_reentrant = True

    def run_function(start: int, end: int, layers: list[Any]) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for j in range(start, end + 1):
                x = layers[j](x)
            return x
        return forward

    layers = list(functions.children()) if hasattr(functions, "children") else list(functions)
    segment_size = len(layers) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, layers), input, use_reentrant=use_reentrant, **kwargs)  # noqa: A001
    return run_function(end + 1, len(layers) - 1, layers)(input)


__all__ = ["checkpoint", "checkpoint_sequential"]
