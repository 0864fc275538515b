"""The backward pass: walk the graph from the roots, newest node first, and deliver gradients."""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import errors
from engine.autograd.node import AccumulateGrad, Edge, Node
from engine.devices import on
from engine.storage import Storage


def _root_edges(tensors: Sequence[Any], grads: Sequence[Any]) -> list[tuple[Edge, np.ndarray]]:
    roots = []
    for i, (tensor, grad) in enumerate(zip(tensors, grads)):
        edge = tensor._gradient_edge()
        if edge is None:
            raise RuntimeError(errors.NO_GRAD_FN.format(i=i))
        if grad is None:
            if tensor.numel() != 1:
                raise RuntimeError(errors.NON_SCALAR_BACKWARD)
            value = np.ones(tensor.shape, dtype=tensor.dtype.np)
        else:
            value = grad._numpy_view() if hasattr(grad, "_numpy_view") else np.asarray(grad)
            if tuple(value.shape) != tuple(tensor.shape):
                raise RuntimeError(errors.GRAD_SHAPE_MISMATCH.format(
                    i=i, got=_size_text(value.shape), want=_size_text(tensor.shape)))
            value = value.astype(tensor.dtype.np, copy=False)
        roots.append((edge, value))
    return roots


def _size_text(shape: Sequence[int]) -> str:
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


def _discover(roots: list[Node]) -> dict[Node, int]:
    """Every node reachable from the roots, with how many edges point at it."""
    dependencies: dict[Node, int] = {root: 0 for root in roots}
    stack = list(dependencies)
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            if child not in dependencies:
                dependencies[child] = 0
                stack.append(child)
            dependencies[child] += 1
    return dependencies


def _needed_for(targets: set[Node], dependencies: dict[Node, int]) -> set[Node]:
    """Nodes from which some target can be reached (autograd.grad runs only those)."""
    needed: dict[Node, bool] = {}

    def visit(node: Node) -> bool:
        if node in needed:
            return needed[node]
        needed[node] = node in targets
        hit = node in targets
        for child, _ in node.next_functions:
            if child is not None and visit(child):
                hit = True
        needed[node] = hit
        return hit

    for node in dependencies:
        visit(node)
    return {node for node, hit in needed.items() if hit}


_WRITTEN: dict[int, tuple[np.ndarray, int]] = {}


def written_in_place(grad: np.ndarray, times: int = 1) -> np.ndarray:
    """Mark a gradient a backward formula built with in-place ops (torch's zeros().scatter_(...)),
    so a leaf adopting it starts at the version PyTorch's would."""
    _WRITTEN[id(grad)] = (grad, times)
    return grad


class _GradFlow:
    """The gradients waiting at each node, and a model of the tensor identities PyTorch would use.

    PyTorch adds a second gradient into the first in place when nobody else holds the first,
    and AccumulateGrad adopts ("steals") a gradient nobody else holds instead of copying it. That is
    why `x.grad._version` is 0 after `(x * 2).sum().backward()` but 1 after `x.sum().backward()`
    (an expanded gradient must be copied) or `(x * x).sum().backward()` (summed in place). The
    arithmetic here never writes into an array; only the version bookkeeping mimics those writes.
    """

    def __init__(self) -> None:
        self.slots: dict[Node, list[np.ndarray | None]] = {}
        self.holders: dict[int, int] = {}
        self.bumps: dict[int, int] = {}
        self.alive: dict[int, np.ndarray] = {}  # keeps ids stable while the model refers to them
        self.foreign: set[int] = set()
        self.storages: dict[int, Storage] = {}

    def hold(self, grad: np.ndarray) -> None:
        self.holders[id(grad)] = self.holders.get(id(grad), 0) + 1
        self.alive[id(grad)] = grad

    def release(self, grad: np.ndarray) -> None:
        self.holders[id(grad)] -= 1

    def add(self, node: Node, nr: int, grad: np.ndarray) -> None:
        if not isinstance(grad, np.ndarray):  # numpy reduces 0-d results to scalars: a fresh tensor in torch
            grad = np.array(grad)
        slots = self.slots.get(node)
        if slots is None:
            slots = self.slots[node] = [None] * max(len(node.output_meta), nr + 1)
        written = _WRITTEN.pop(id(grad), None)
        if written is not None and written[0] is grad:
            self.bumps[id(grad)] = written[1]
        old = slots[nr]
        if old is None:
            slots[nr] = grad
            self.hold(grad)
            return
        total = np.asarray(old + grad)
        if self.holders.get(id(old), 0) == 1 and _owns_memory(old):  # torch: old.add_(new), else old + new
            self.bumps[id(total)] = self.bumps.get(id(old), 0) + 1
        self.release(old)
        slots[nr] = total
        self.hold(total)

    def take(self, node: Node) -> list[np.ndarray | None]:
        return self.slots.pop(node, None) or [None] * len(node.output_meta)

    def deliver(self, grad: np.ndarray, variable: Any) -> None:
        """Hand a leaf its gradient as PyTorch would: adopt the memory when nobody else holds it and
        it has the leaf's layout (the .grad then lives in the gradient's buffer: after `cat`, the
        leaves' grads are slices of one buffer), else copy it, which costs a version bump."""
        stealable = (self.holders.get(id(grad), 0) == 1 and _writable(grad) and grad.dtype == variable.dtype.np
                     and _layout_fits(grad, variable))
        root = _root_buffer(grad)
        if stealable and id(root) not in self.foreign and root.flags.c_contiguous and min(grad.strides, default=0) >= 0:
            storage = self.storages.get(id(root))
            if storage is None:
                storage = self.storages[id(root)] = Storage.wrap(root.reshape(-1))
            variable._accumulate_grad(grad, self.bumps.get(id(grad), 0), storage, root)
        else:
            variable._accumulate_grad(grad, self.bumps.get(id(grad), 0) if stealable else 1)

    def mark_foreign(self, grad: np.ndarray) -> None:
        """Memory the caller owns (a gradient passed to backward) is never adopted."""
        self.foreign.add(id(_root_buffer(grad)))
        self.alive[id(_root_buffer(grad))] = _root_buffer(grad)


def _root_buffer(array: np.ndarray) -> np.ndarray:
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _writable(grad: np.ndarray) -> bool:
    return grad.flags.writeable and (grad.size <= 1 or 0 not in grad.strides)


def _owns_memory(grad: np.ndarray) -> bool:
    """torch sums into a buffered gradient in place only when no view shares its storage."""
    return _writable(grad) and grad.base is None


def _layout_fits(grad: np.ndarray, variable: Any) -> bool:
    """PyTorch adopts a gradient only in the variable's own layout. A negative stride is numpy's way
    of a flip that PyTorch computes into fresh memory, so it counts as fitting."""
    element = tuple(s // grad.itemsize for s in grad.strides)
    if any(s < 0 for s in element):
        return True
    return all(n <= 1 or a == b for n, a, b in zip(grad.shape, element, variable._stride))


def _priority(node: Node) -> tuple[int, int]:
    """Leaves' AccumulateGrad first (oldest first), then the newest node, as PyTorch's ready queue."""
    if isinstance(node, AccumulateGrad):
        return (0, node.sequence_nr)
    return (1, -node.sequence_nr)


def run_backward(tensors: Sequence[Any], grads: Sequence[Any], retain_graph: bool,
                 inputs: Sequence[Any] | None = None,
                 allow_unused: bool = False) -> list[tuple[np.ndarray, int] | None]:
    """Run backward from `tensors`. With `inputs` (autograd.grad), return their gradients (each with
    the version PyTorch's tensor would have) instead of accumulating into `.grad`."""
    roots = _root_edges(tensors, grads)
    dependencies = _discover([edge[0] for edge, _ in roots])
    flow = _GradFlow()
    for ((node, nr), value), given in zip(roots, grads):
        flow.add(node, nr, value)
        if given is not None:
            flow.hold(value)  # the caller still holds the gradient it passed
            flow.mark_foreign(value)

    captures: dict[Edge, int] = {}
    needed: set[Node] | None = None
    if inputs is not None:
        for i, tensor in enumerate(inputs):
            edge = tensor._gradient_edge()
            if edge is None or edge[0] not in dependencies:
                if not allow_unused:
                    raise RuntimeError(errors.UNUSED_INPUT.format(i=i))
                continue
            captures[edge] = i
        needed = _needed_for({node for node, _ in captures}, dependencies)
    captured: list[tuple[np.ndarray, int] | None] = [None] * (len(inputs) if inputs is not None else 0)

    ready = [(_priority(node), id(node), node) for node, count in dependencies.items() if count == 0]
    heapq.heapify(ready)
    executed: list[Node] = []
    try:
        while ready:
            _, _, node = heapq.heappop(ready)
            incoming = flow.take(node)
            for (target, nr), index in captures.items():
                if target is node and incoming[nr] is not None:
                    captured[index] = (incoming[nr], flow.bumps.get(id(incoming[nr]), 0))
            outgoing: Sequence[np.ndarray | None] = ()
            if isinstance(node, AccumulateGrad):
                if needed is None and incoming[0] is not None:
                    with on(node.variable.device):  # a leaf's .grad lives on its device
                        flow.deliver(incoming[0], node.variable)
            elif needed is None or node in needed:
                _retain_grads(node, incoming)
                if any(g is not None for g in incoming):
                    outgoing = node.apply(incoming)
                executed.append(node)
            for (child, nr), grad in zip(node.next_functions, outgoing or [None] * len(node.next_functions)):
                if child is None:
                    continue
                if grad is not None:
                    flow.add(child, nr, grad)
                dependencies[child] -= 1
                if dependencies[child] == 0:
                    heapq.heappush(ready, (_priority(child), id(child), child))
            for grad in incoming:
                if grad is not None:
                    flow.release(grad)
    finally:
        if not retain_graph:
            for node in executed:
                node.release()
    return captured


def _retain_grads(node: Node, incoming: list[np.ndarray | None]) -> None:
    if not node._retained:
        return
    for nr, ref in node._retained.items():
        tensor = ref()
        if tensor is not None and incoming[nr] is not None:
            with on(tensor.device):
                tensor._accumulate_grad(incoming[nr], 0)  # retain_grad keeps a clone
