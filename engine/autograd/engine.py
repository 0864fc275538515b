"""The backward pass: walk the graph from the roots, newest node first, and deliver gradients."""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import errors
from engine.autograd.node import AccumulateGrad, Edge, Node


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


def run_backward(tensors: Sequence[Any], grads: Sequence[Any], retain_graph: bool,
                 inputs: Sequence[Any] | None = None, allow_unused: bool = False) -> list[np.ndarray | None]:
    """Run backward from `tensors`. With `inputs` (autograd.grad), return their gradients instead of
    accumulating into `.grad`."""
    roots = _root_edges(tensors, grads)
    dependencies = _discover([edge[0] for edge, _ in roots])
    buffers: dict[Node, list[np.ndarray | None]] = {}
    for (node, nr), value in roots:
        _add(buffers, node, nr, value)

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
    captured: list[np.ndarray | None] = [None] * (len(inputs) if inputs is not None else 0)

    ready = [(-node.sequence_nr, id(node), node) for node, count in dependencies.items() if count == 0]
    heapq.heapify(ready)
    executed: list[Node] = []
    try:
        while ready:
            _, _, node = heapq.heappop(ready)
            incoming = buffers.pop(node, None) or [None] * len(node.output_meta)
            for (target, nr), index in captures.items():
                if target is node:
                    captured[index] = incoming[nr]
            outgoing: Sequence[np.ndarray | None] = ()
            if needed is None or (node in needed and not isinstance(node, AccumulateGrad)):
                _retain_grads(node, incoming)
                if any(g is not None for g in incoming):
                    outgoing = node.apply(incoming)
                executed.append(node)
            for (child, nr), grad in zip(node.next_functions, outgoing or [None] * len(node.next_functions)):
                if child is None:
                    continue
                if grad is not None:
                    _add(buffers, child, nr, grad)
                dependencies[child] -= 1
                if dependencies[child] == 0:
                    heapq.heappush(ready, (-child.sequence_nr, id(child), child))
    finally:
        if not retain_graph:
            for node in executed:
                node.release()
    return captured


def _add(buffers: dict[Node, list[np.ndarray | None]], node: Node, nr: int, grad: np.ndarray) -> None:
    slots = buffers.get(node)
    if slots is None:
        slots = buffers[node] = [None] * max(len(node.output_meta), nr + 1)
    slots[nr] = grad if slots[nr] is None else slots[nr] + grad


def _retain_grads(node: Node, incoming: list[np.ndarray | None]) -> None:
    if not node._retained:
        return
    for nr, ref in node._retained.items():
        tensor = ref()
        if tensor is not None and incoming[nr] is not None:
            tensor._accumulate_grad(incoming[nr])
