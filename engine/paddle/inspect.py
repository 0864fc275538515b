"""What tensorscope reads from Paddle-dialect objects, without changing them.

A Paddle tensor is a facade over an engine tensor; everything about memory (storage, views,
versions, the graph and its saved tensors) is read from that engine tensor with engine.inspect.
What differs is only what the trace reports (shared/spec/TRACE.md): `requires_grad` is
`not stop_gradient`, `version` is `inplace_version` (the same counter), and `grad_fn` is the name
Paddle's `grad_fn.name()` gives (`GradNodeAccumulation` on a leaf whose stop_gradient was set,
None where Paddle gives None). Reading `.name` would give the tensor a name (`eager_tmp_N`) and so
change later error messages; `name()` here only peeks.
"""

from __future__ import annotations

from typing import Any

from engine.paddle.tensor import NAME, Tensor, has_accumulation_node
from engine.tensor import Tensor as EngineTensor


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def engine_tensor(obj: Any) -> EngineTensor | None:
    """The engine tensor behind a Paddle tensor (for engine.inspect), else None."""
    return obj._t if isinstance(obj, Tensor) else None


def is_parameter(obj: Any) -> bool:
    from engine.paddle.nn.layer import EagerParamBase

    return isinstance(obj, EagerParamBase)


def requires_grad(t: Tensor) -> bool:
    return not t.stop_gradient


def version(t: Tensor) -> int:
    return t.inplace_version


def grad_fn_name(t: Tensor) -> str | None:
    """Paddle's `t.grad_fn.name()`, or None where `t.grad_fn` is None."""
    et = t._t
    if et._grad_fn is not None:
        return et._grad_fn.name()
    return "GradNodeAccumulation" if has_accumulation_node(et) else None


def name(t: Tensor) -> str:
    """The tensor's name as Paddle's messages show it ('' until `.name` is first read)."""
    return t._t.__dict__.get(NAME, "")


def grad_of(t: Tensor) -> EngineTensor | None:
    return t._t._grad
