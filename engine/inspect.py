"""What tensorscope reads from the engine, as an explicit API instead of private attributes.

Storage identity and coverage, version counters, views, and the autograd graph with each saved
tensor's saved and current version. Everything here only reads; nothing changes engine state.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from engine import allocator as allocation
from engine import geometry, printing
from engine.autograd.node import AccumulateGrad, Node
from engine.tensor import UNSHARED, Tensor


def storage_id(t: Tensor) -> int:
    """Identity of the memory block t lives in: equal ids mean shared memory."""
    return t._storage.id


def storage_nbytes(t: Tensor) -> int:
    return t._storage.nbytes


def storage_numel(t: Tensor) -> int:
    """How many elements of t's dtype its storage holds."""
    return t._storage.nbytes // t.dtype.itemsize


def covered_span(t: Tensor) -> tuple[int, int]:
    """First and last storage element t can touch (inclusive); (0, -1) for an empty tensor."""
    if t.numel() == 0:
        return 0, -1
    low = t._offset + sum((n - 1) * s for n, s in zip(t._shape, t._stride) if s < 0)
    high = t._offset + sum((n - 1) * s for n, s in zip(t._shape, t._stride) if s > 0)
    return low, high


def covered_elements(t: Tensor, limit: int = 1 << 16) -> tuple[int, ...] | None:
    """The storage elements t covers (sorted, unique), or None when there are more than `limit`."""
    if t.numel() > limit:
        return None
    return _covered(t._shape, t._stride, t._offset)


@functools.lru_cache(maxsize=4096)
def _covered(shape: tuple[int, ...], stride: tuple[int, ...], offset: int) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unique(geometry.storage_indices(shape, stride, offset)))


def version(t: Tensor) -> int | None:
    """The version counter; None for an inference tensor, which has none."""
    return None if t._storage.inference else t._version


def shares_version_counter(a: Tensor, b: Tensor) -> bool:
    return a is b or (a._vc is b._vc and a._vc is not UNSHARED)  # UNSHARED: each such tensor's own


class SavedInfo(NamedTuple):
    """One tensor a node keeps for backward; stale when its version moved since it was saved.
    (Named tuples, as NodeInfo: a graph is read whole at every step, and these are made fast.)"""

    field: str
    saved_version: int
    current_version: int | None
    is_output: bool
    released: bool
    tensor: Tensor | None
    shape: tuple[int, ...]
    dtype: str

    @property
    def stale(self) -> bool:
        return self.current_version is not None and self.current_version != self.saved_version


class NodeInfo(NamedTuple):
    node: Node
    name: str
    next_functions: tuple[tuple[Node | None, int], ...]
    saved: tuple[SavedInfo, ...]
    variable: Tensor | None  # the leaf an AccumulateGrad feeds


def saved_tensors(node: Node) -> tuple[SavedInfo, ...]:
    infos = []
    for field, saved in node.saved_entries():
        tensor = saved.tensor
        infos.append(SavedInfo(
            field=field, saved_version=saved.version,
            current_version=None if tensor is None else tensor._version,
            is_output=saved.is_output, released=saved.released, tensor=tensor,
            shape=tuple(tensor._shape) if tensor is not None else (), dtype=tensor.dtype.name if tensor is not None else ""))
    return tuple(infos)


def node_info(node: Node) -> NodeInfo:
    return NodeInfo(node=node, name=type(node).__name__, next_functions=tuple(node.next_functions),
                    saved=saved_tensors(node), variable=node.variable if isinstance(node, AccumulateGrad) else None)


def graph(roots: Iterable[Tensor]) -> list[NodeInfo]:
    """Every node reachable from the roots' grad_fns, roots first, each once."""
    order: list[NodeInfo] = []
    seen: set[int] = set()
    queue: deque[Node] = deque()
    for t in roots:
        try:
            fn = t.grad_fn
        except RuntimeError:
            fn = t._grad_fn
        if fn is not None:
            queue.append(fn)
    while queue:
        node = queue.popleft()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node_info(node))
        queue.extend(child for child, _ in node.next_functions if child is not None)
    return order


def grad_fn_name(t: Tensor) -> str | None:
    """`type(t.grad_fn).__name__`, or 'Invalid' where reading grad_fn raises (as torch prints it)."""
    try:
        fn = t.grad_fn
    except RuntimeError:
        return "Invalid"
    return None if fn is None else type(fn).__name__


def memory() -> dict[str, Any]:
    allocator = allocation.allocator
    return {"live_bytes": allocator.live_bytes, "peak_bytes": allocator.peak_bytes,
            "live_storages": allocator.live_count}


def storage_buffer(t: Tensor) -> np.ndarray:
    """The flat numpy buffer behind t's storage (to relate it to ndarrays sharing the memory)."""
    return t._storage.data


def grad_of(t: Tensor) -> Tensor | None:
    """`t.grad` without the non-leaf warning (inspection must not change what the user sees)."""
    return t._grad


def safe_grad_fn(t: Tensor) -> Node | None:
    """`t.grad_fn`, or the stored one where reading it would raise (a no_grad view modified later)."""
    try:
        return t.grad_fn
    except RuntimeError:
        return t._grad_fn


def is_leaf(t: Tensor) -> bool:
    return safe_grad_fn(t) is None


def observed_state(t: Tensor, values_limit: int) -> tuple[Any, ...]:
    """Everything a description of t depends on, read without describing it: its class, dtype,
    device, layout, version, autograd flags, and its elements as bytes (all of them up to
    `values_limit`, past it only those its printed text shows). Equal states mean equal
    descriptions, however the memory was written (an op, a `.data` alias, a numpy array over it),
    so a description can be kept until the state changes; the cost does not grow with t's size."""
    values = t._numpy_view()
    shown = values if values.size <= values_limit else printing.shown_values(values)
    try:
        fn = t.grad_fn
        fn_name = None if fn is None else type(fn).__name__
    except RuntimeError:
        fn, fn_name = t._grad_fn, "Invalid"
    storage = t._storage
    return (type(t), t.dtype, storage.device, storage.inference, t._shape, t._stride, t._offset, t._vc.value,
            t.requires_grad, fn is None, fn_name, t._view is not None, shown.tobytes())


def view_identity(t: Tensor) -> tuple[int, int, tuple[tuple[int, ...], tuple[int, ...], int]]:
    """Equal for two tensors exactly when `same_tensor_view` holds between them (while both live)."""
    return id(t._storage), id(t) if t._vc is UNSHARED else id(t._vc), t._layout_key()


def same_tensor_view(a: Tensor, b: Tensor) -> bool:
    """Whether b is a (or an alias of a) with the same memory, layout and version counter, as a
    saved output is an alias of the tensor the op returned."""
    return a is b or (a._storage is b._storage and shares_version_counter(a, b) and a._layout_key() == b._layout_key())


def values(t: Tensor) -> np.ndarray:
    """t's elements as a numpy array over its memory (read-only use; no autograd involved)."""
    return t._numpy_view()


def cuda_memory() -> dict[str, int] | None:
    """The simulated device's caching-allocator figures, or None when the device is off or unused."""
    from engine import cuda

    if not cuda.is_initialized():
        return None
    return {"allocated": cuda.memory_allocated(), "max_allocated": cuda.max_memory_allocated(),
            "reserved": cuda.memory_reserved(), "max_reserved": cuda.max_memory_reserved()}


def device_name(t: Tensor) -> str:
    """Where t's memory lives, as torch prints `t.device`: `cpu` or `cuda:0`."""
    return str(t._storage.device)


def on_device(t: Tensor) -> bool:
    """Whether t lives on the simulated CUDA device (its memory is the device's, not the host's)."""
    return t._storage.device.type == "cuda"
