"""The backward pass: walk the graph from the roots, newest node first, and deliver gradients.

Gradients are engine tensors and every formula is written in engine ops, so the memory a backward
allocates goes through the allocator (and shows on the memory pane and the simulated device), and
with create_graph=True the backward records its own graph. The pass follows PyTorch's engine step by
step, because users can observe each step: which node runs when (hooks print), which gradient buffer
is summed in place or copied (the `.grad` version), which saved tensors are freed (a second backward
fails), which nodes autograd.grad skips.
"""

from __future__ import annotations

import heapq
import math
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import allocator as allocation
from engine import devices, errors, geometry
from engine.autograd import grad_mode
from engine.autograd.graph import GradientEdge
from engine.autograd.hooks import check_tensor_result, check_tuple_result
from engine.autograd.node import AccumulateGrad, Node
from engine.devices import CPU, on
from engine.quiet import begin_quiet, end_quiet
from engine.tensor import OWN_DTYPE, Tensor

_UNRESERVED = 1 << 16  # sums of up to this many elements skip the budget check, as add's do


class _Buffers:
    """The gradients waiting at each node (PyTorch's InputBuffers).

    PyTorch sums a second gradient into the first in place when nothing else holds the first (and it
    is not a view), and AccumulateGrad adopts ("steals") a gradient nothing else holds instead of
    copying it. Which happens is visible in `x.grad._version` and in whether `x.grad` shares memory
    with another gradient. PyTorch decides by the tensor's reference count (`use_count()`); so does
    this engine, by the Python object's (see `_held_elsewhere`): a gradient the caller passed in, one
    a custom Function's backward or a hook returned while keeping it, one autograd.grad captured, is
    held elsewhere and left untouched.
    """

    def __init__(self) -> None:
        self.slots: dict[Node, list[Any]] = {}
        self.quiet = False  # inside the pass's errstate: numpy sums here warn of nothing

    def add(self, node: Node, nr: int, grad: Any) -> None:
        slots = self.slots.get(node)
        if slots is None:
            slots = self.slots[node] = [None] * max(len(node.output_meta), nr + 1)
        old = slots[nr]
        if old is None:
            slots[nr] = grad
            return
        # held by the slot and by `old`: nothing else may hold it for the sum to go in place
        if old._view is None and not grad_mode.state.enabled and not _held_elsewhere(old, 2) and _dense(old):
            _add_into(old, grad)  # torch: old_var.add_(var)
            return
        slots[nr] = _summed(old, grad) if self.quiet else old + grad


def _summed(old: Any, grad: Any) -> Any:
    """`old + grad`, a new gradient. The usual pair (host tensors of one shape and dtype, each
    row-major or a broadcast number such as sum's expanded gradient, no graph to record) is summed
    in numpy straight into a row-major result, the layout TensorIterator gives it, allocated through
    the allocator as add's would be; any other pair goes through add itself."""
    if (grad_mode.state.enabled or type(old) is not Tensor or type(grad) is not Tensor or old.dtype is not grad.dtype
            or old._shape != grad._shape or old._bits or grad._bits or old._storage.device is not CPU
            or grad._storage.device is not CPU or devices.state.current is not CPU or grad_mode.state.inference):
        return old + grad
    shape = old._shape
    row_major = geometry.row_major_strides(shape)
    old_row, grad_row = old._stride == row_major, grad._stride == row_major
    if not ((old_row and (grad_row or not any(grad._stride))) or (grad_row and not any(old._stride))):
        return old + grad
    count = math.prod(shape)
    if count > _UNRESERVED:
        allocation.allocator.check(count * old.dtype.itemsize)  # the budget check add makes
    result = np.add(_operand(old), _operand(grad))
    return Tensor._adopt(result if type(result) is np.ndarray else np.array(result), old.dtype)


def _operand(t: Any) -> Any:
    """A host tensor's values for a numpy sum: a broadcast number (every stride 0, as sum's gradient
    is) as the one number it repeats, which numpy broadcasts as it would the strided array (the same
    additions, so the same bits) without building that array; any other tensor as its numpy view (a
    small row-major one's cached view, the usual gradient, answered first)."""
    cache = t._np_cache
    if cache is not None and cache[2] is not None and cache[0] is t._storage.data and t._stride == cache[2] and \
            not t._bits:
        return cache[1]
    if not any(t._stride) and t._shape and 0 not in t._shape and not t._bits:
        data = t._storage.data
        if data.dtype == t.dtype.np:
            return data[t._offset]
    return t._numpy_view()


def _held_elsewhere(tensor: Any, engine_refs: int) -> bool:
    """Whether anything but the caller's `engine_refs` references holds `tensor` (torch's
    `use_count() > n`); getrefcount also counts this function's parameter and its own argument."""
    return sys.getrefcount(tensor) > engine_refs + 2


def _dense(t: Any) -> bool:
    """torch's is_non_overlapping_and_dense (a row-major tensor, the usual gradient, answers first; an
    empty tensor is contiguous, so dense)."""
    return t._stride == geometry.contiguous_strides(t._shape) or 0 in t._shape or \
        geometry.dense_permutation(t._shape, t._stride) is not None


def _add_into(target: Any, grad: Any) -> None:
    """`target.add_(grad)` with grad mode off, as the engine sums gradients: the common case (two host
    tensors of one shape and dtype in separate memory) straight in numpy, the version bumped as add_
    bumps it; anything else through add_ itself, with its checks."""
    storage, other = target._storage, grad._storage
    cache = target._np_cache  # a small row-major tensor's (the usual .grad) cached view, else None
    view = cache[1] if cache is not None and cache[2] is not None and cache[0] is storage.data and \
        target._stride == cache[2] and not target._bits else None
    if (grad._shape == target._shape and grad.dtype is target.dtype and other is not storage
            and (storage.device is CPU or storage.device.type == "cpu") and not storage.inference
            and (other.device is CPU or other.device.type == "cpu") and target._view is None
            and (view is not None or target._stride == geometry.row_major_strides(target._shape) or _dense(target))):
        if view is None:
            view = target._numpy_view()
        np.add(view, _operand(grad), view)  # out= given by position: numpy parses no keywords
        target._bump_version()  # add_'s version bump
    else:
        target.add_(grad)


def _discover(roots: list[Node]) -> dict[Node, int]:
    """Every node reachable from the roots, with how many edges point at it."""
    dependencies: dict[Node, int] = dict.fromkeys(roots, 0)
    stack = list(dependencies)
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is not None:
                if child in dependencies:
                    dependencies[child] += 1
                else:
                    dependencies[child] = 1
                    stack.append(child)
    return dependencies


def _needed(outputs: set[Node], dependencies: dict[Node, int]) -> set[Node]:
    """PyTorch's exec_info: the nodes that lie on a path to one of `outputs` (not counting the
    output itself, which only runs when another output lies beyond it)."""
    reaches: dict[Node, bool] = {}
    needed: set[Node] = set()
    stack: list[tuple[Node, int]] = [(root, 0) for root in dependencies if dependencies[root] == 0]
    while stack:
        node, i = stack.pop()
        if i == 0 and node in reaches:
            continue
        children = node.next_functions
        if i < len(children):
            stack.append((node, i + 1))
            child = children[i][0]
            if child is not None and child not in reaches:
                stack.append((child, 0))
            continue
        hit = any(child is not None and (child in outputs or reaches.get(child, False)) for child, _ in children)
        reaches[node] = hit
        if hit:
            needed.add(node)
    return needed


def _priority(node: Node) -> tuple[int, int]:
    """Leaves' AccumulateGrad first (oldest first), then the newest node, as PyTorch's ready queue."""
    if isinstance(node, AccumulateGrad):
        return (0, node.order)
    return (1, -node.sequence_nr)


def run_backward(tensors: Sequence[Any], grads: Sequence[Any], keep_graph: bool, create_graph: bool,
                 inputs: Sequence[Any] | None = None, allow_unused: bool = False,
                 accumulate: bool = True) -> list[Any]:
    """Run backward from `tensors` with the given root gradients (engine tensors).

    With `accumulate` (backward), gradients go into `.grad`, of only `inputs` when given; without it
    (autograd.grad), the gradients of `inputs` are captured and returned instead."""
    roots = []
    for i, tensor in enumerate(tensors):
        edge = (tensor.node, tensor.output_nr) if isinstance(tensor, GradientEdge) else tensor._gradient_edge()
        if edge is None:
            raise RuntimeError(errors.NO_GRAD_FN.format(i=i))
        roots.append(edge)
    grads = _validate_roots(roots, grads)
    buffers = _Buffers()
    if len(roots) == 1:  # the usual backward: one root, its gradient the first and only in its buffer
        node, nr = roots[0]
        dependencies = _discover([node])
        buffers.add(node, nr, grads[0])
    else:
        dependencies = _discover([node for node, _ in roots])
        for (node, nr), grad in zip(roots, grads):
            buffers.add(node, nr, grad)  # the caller still holds the root gradient: it is never summed into

    captures: dict[Node, list[tuple[int, int]]] = {}
    needed: set[Node] | None = None
    if inputs is not None:
        outputs: set[Node] = set()
        for i, tensor in enumerate(inputs):
            if isinstance(tensor, GradientEdge):
                edge = (tensor.node, tensor.output_nr)
            else:
                if accumulate:
                    tensor.retain_grad()  # a non-leaf input of backward(inputs=...) keeps its .grad from now on
                if not tensor.requires_grad:
                    raise RuntimeError(errors.INPUT_NO_GRAD)
                edge = tensor._gradient_edge()
            if edge is None or edge[0] not in dependencies:  # unreachable: its gradient stays undefined
                continue
            outputs.add(edge[0])
            if not accumulate:
                captures.setdefault(edge[0], []).append((edge[1], i))
        needed = _needed(outputs, dependencies)
        if accumulate:
            needed |= outputs
    captured: list[Any] = [None] * (len(inputs) if inputs is not None else 0)
    receives = None if needed is None else needed | set(captures)  # nodes whose gradient is wanted

    # only a root can wait for no gradient (every other node is reached through an edge); a lone root
    # waits for none, the graph having no cycle
    if len(roots) == 1:
        node = roots[0][0]
        ready = [(0, node.order, id(node), node) if isinstance(node, AccumulateGrad) else
                 (1, -node.sequence_nr, id(node), node)]  # _priority's
    else:
        starts = [node for node in dict.fromkeys(node for node, _ in roots) if dependencies[node] == 0]
        ready = [(*_priority(node), id(node), node) for node in starts]
        heapq.heapify(ready)
    callbacks: list[Any] = []
    _graph_tasks.append(callbacks)
    try:
        # grad mode is create_graph's (under inference mode nothing records all the same, as in torch)
        previous = grad_mode._set_grad(create_graph)
        quiet = begin_quiet()  # torch's kernels never warn of inf or nan (0 * inf in log's backward)
        try:
            buffers.quiet = True
            _drain(ready, buffers, dependencies, needed, captures, captured, receives, keep_graph)
        finally:
            end_quiet(quiet)
            grad_mode._restore_grad(previous)
        while callbacks:  # queue_callback's final callbacks, in order; one may queue another
            callbacks.pop(0)()
    finally:
        _graph_tasks.pop()
    if inputs is not None and not accumulate and not allow_unused:
        for i, found in enumerate(captured):
            if found is None:
                raise RuntimeError(errors.UNUSED_INPUT.format(i=i))
    return captured


# the final callbacks of each backward running (a reentrant backward runs inside another one)
_graph_tasks: list[list[Any]] = []


def current_graph_task() -> object | None:
    """The backward running now (torch's _current_graph_task_id), None outside backward."""
    return _graph_tasks[-1] if _graph_tasks else None


def queue_callback(callback: Any) -> None:
    """Variable._execution_engine.queue_callback: run `callback` when the current backward finishes."""
    if not _graph_tasks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _graph_tasks[-1].append(callback)


def _drain(ready: list[Any], buffers: _Buffers, dependencies: dict[Node, int], needed: set[Node] | None,
           captures: dict[Node, list[tuple[int, int]]], captured: list[Any], receives: set[Node] | None,
           keep_graph: bool) -> None:
    """Run each node once all the gradients it waits for have arrived (a plain loop: it runs per node;
    the buffer's first gradient and the ready queue's priority are inlined, as they run per edge).

    The common node (one that runs and whose gradients are not captured, no hooks on it, a
    derivative-table node or a leaf's AccumulateGrad, on the host) takes a direct path: `_evaluate`'s
    steps without the checks that would find nothing to do."""
    pop, push, add, slots = heapq.heappop, heapq.heappush, buffers.add, buffers.slots
    every_node, mode, kinds = needed is None, grad_mode.state, _DIRECT
    while ready:
        node = pop(ready)[3]
        incoming = slots.pop(node, None)  # its gradients, taken
        kind = kinds[type(node)] if node._hooks is None and (
            every_node or (node in needed and node not in captures)) else None
        if kind is _LEAF and node.output_meta[0][2] is CPU and not node.variable._backward_hooks:
            if incoming is not None:
                _accumulate(node, incoming[0])
            continue
        edges = node.next_functions
        if kind is _TABLE and node._backward is None and node.output_meta[0][2] is CPU and \
                (rule := node._rule) is not None:  # read once: every node is of its own class, so no load is cached
            if incoming is not None and (incoming[0] is not None or len(incoming) > 1 and
                                         any(g is not None for g in incoming)):
                if receives is None and len(edges) == 1:
                    mask: tuple[bool, ...] = (edges[0][0] is not None,)
                elif receives is None and len(edges) == 2:
                    mask = (edges[0][0] is not None, edges[1][0] is not None)
                else:
                    mask = _mask(edges, receives)
                direct = rule.direct  # the formulas written out, for a plain pass (see the table's `direct`)
                if direct is None or mode.enabled or node._saves or len(incoming) != 1 or \
                        (outgoing := direct(node, incoming[0], mask)) is None:
                    outgoing = rule.run(node, incoming, mask)
                if len(outgoing) != len(edges):
                    _validate(node, outgoing)  # refuses it
                # validate_outputs has nothing to do when each gradient is as its edge expects (nearly
                # always); the loop holds no gradient once done (when one is freed shows in the memory)
                conforms = False
                for i, (child, nr) in enumerate(edges):
                    grad = outgoing[i]
                    if grad is not None and child is not None:
                        meta = child.output_meta[nr]
                        if grad._shape != meta[0] or grad.dtype is not meta[1] or (
                                isinstance(child, AccumulateGrad) and child.variable._grad_dtype is not OWN_DTYPE):
                            conforms = True
                            break
                grad = None
                if conforms:
                    _validate(node, outgoing)
            else:
                outgoing: list[Any] = [None] * len(edges)
            incoming = None  # torch's call_function holds its inputs until validate_outputs is done
            if not keep_graph and (node._raw is not None or node._saves):  # Node.release, when it has saves
                node.release()
        else:
            given = _run_node(node, incoming or [None] * len(node.output_meta), needed, captures, captured, receives,
                              keep_graph)
            incoming = None
            outgoing = list(given) if given else [None] * len(edges)  # a list of ours, whatever a hook returned
            given = None
        i = -1
        for child, nr in edges:
            i += 1
            if child is None:
                continue
            grad = outgoing[i]
            if grad is not None:
                outgoing[i] = None  # moved into the buffer, as torch std::moves it
                if receives is None or child in receives:
                    if nr == 0 and child not in slots and len(child.output_meta) == 1:
                        slots[child] = [grad]
                    else:
                        add(child, nr, grad)
                grad = None
            left = dependencies[child] - 1
            dependencies[child] = left
            if left == 0:  # the ready queue's order: leaves' AccumulateGrad first (oldest first), then the newest
                if type(child) is AccumulateGrad or isinstance(child, AccumulateGrad):
                    push(ready, (0, child.order, id(child), child))
                else:
                    push(ready, (1, -child.sequence_nr, id(child), child))


def _mask(edges: tuple[tuple[Node | None, int], ...], receives: set[Node] | None) -> tuple[bool, ...]:
    """Which of a node's inputs need a gradient (torch's grad_input_mask): those with an edge, and
    under autograd.grad / backward(inputs=) only those whose gradient is wanted."""
    if receives is not None:
        return tuple([child is not None and child in receives for child, _ in edges])
    if len(edges) == 1:
        return (edges[0][0] is not None,)
    if len(edges) == 2:
        return (edges[0][0] is not None, edges[1][0] is not None)
    return tuple([child is not None for child, _ in edges])


def _run_node(node: Node, incoming: list[Any], needed: set[Node] | None, captures: dict[Node, list[tuple[int, int]]],
              captured: list[Any], receives: set[Node] | None, keep_graph: bool) -> Sequence[Any]:
    """A node in general: captured for autograd.grad, skipped when not needed, evaluated on its
    device with all its hooks."""
    if needed is None:
        runs = True
    else:
        runs = node in needed
        if runs or node in captures:
            seen = incoming if runs else _tensor_pre_hooks(node, incoming)
            for nr, index in captures.get(node, ()):
                captured[index] = seen[nr]
            seen = None
    if not runs:
        return ()
    meta = node.output_meta
    device = meta[0][2] if meta else None
    if device is not None and device is not CPU and device.type != "cpu":
        with on(device):
            return _evaluate(node, incoming, keep_graph, receives)
    return _evaluate(node, incoming, keep_graph, receives)


_TABLE, _LEAF = "table", "leaf"


class _DirectKinds(dict):
    """Which node classes the direct path may run: derivative-table nodes whose class keeps Node's
    own apply and release (not a custom Function's, CopySlices' or a dialect's), and AccumulateGrad
    itself (a leaf on the host: the path does not enter a device); found once per class."""

    def __missing__(self, cls: type) -> str | None:
        if cls is AccumulateGrad:
            kind: str | None = _LEAF
        elif issubclass(cls, AccumulateGrad):  # a dialect's leaf sink (Paddle's GradNodeAccumulation)
            kind = None
        elif cls.apply is Node.apply and cls.release is Node.release and not cls._runs_without_grads:
            kind = _TABLE
        else:
            kind = None
        self[cls] = kind
        return kind


_DIRECT = _DirectKinds()


def _evaluate(node: Node, incoming: list[Any], keep_graph: bool, receives: set[Node] | None) -> Sequence[Any]:
    """PyTorch's call_function: tensor pre-hooks (and retain_grad), node pre-hooks, the node itself,
    the check of what it returned, post-hooks; then its saved tensors are freed unless retained."""
    hooks = node._hooks
    accumulates = isinstance(node, AccumulateGrad)
    if hooks is not None or (accumulates and node.variable._backward_hooks):  # else the pre-hooks have nothing to do
        incoming = _tensor_pre_hooks(node, incoming)
    if hooks is not None:
        for hook in list(hooks.pre.values()):
            result = hook(tuple(incoming))
            if result is not None:
                incoming[:] = check_tuple_result(incoming, result, hook)
        result = None  # what a hook returned is held by `incoming` alone (the steal below counts holders)
    if accumulates:
        _accumulate(node, incoming[0])
        outgoing: list[Any] = []
    elif not node._runs_without_grads and (incoming[0] is None if len(incoming) == 1
                                           else all(g is None for g in incoming)):
        outgoing = [None] * len(node.next_functions)
    else:
        edges = node.next_functions
        if len(edges) == 1:  # most nodes: the mask without a comprehension
            child = edges[0][0]
            mask: tuple[bool, ...] = (child is not None and (receives is None or child in receives),)
            child = None
        elif receives is None:
            mask = tuple([child is not None for child, _ in edges])
        else:
            mask = tuple([child is not None and child in receives for child, _ in edges])
        outgoing = _validate(node, list(node.apply(incoming, mask)))
    if not keep_graph:
        node.release()
    if hooks is not None and hooks.post:
        for hook in list(hooks.post.values()):
            result = hook(tuple(outgoing), tuple(incoming))
            if result is not None:
                outgoing = check_tuple_result(outgoing, result, hook)
    return outgoing


def _tensor_pre_hooks(node: Node, incoming: list[Any]) -> list[Any]:
    """Hooks registered on the tensors this node produced, then their retain_grad. What the hooks
    return replaces the gradient in `incoming` itself (torch moves it), so nothing else holds it."""
    if isinstance(node, AccumulateGrad):
        hooks = node.variable._backward_hooks
        if hooks:
            incoming[0] = _run_tensor_hooks(hooks, incoming[0])
        return incoming
    node_hooks = node._hooks
    if node_hooks is None:
        return incoming
    if node_hooks.tensor_pre:
        for nr, hooks in node_hooks.tensor_pre:
            incoming[nr] = _run_tensor_hooks(hooks, incoming[nr])
    for nr, ref in list(node_hooks.retains_grad.items()):
        tensor = ref()
        if tensor is not None and incoming[nr] is not None:
            _retain(tensor, incoming[nr])
    return incoming


def _run_tensor_hooks(hooks: dict[int, Any], grad: Any) -> Any:
    for hook in list(hooks.values()):
        result = hook(grad)
        if result is not None and result is not grad:
            grad = check_tensor_result(grad, result, hook)
    return grad


def _retain(tensor: Any, grad: Any) -> None:
    """retain_grad's hook: a contiguous clone the first time, then `tensor.grad + grad`."""
    with on(tensor.device):
        if tensor._grad is None:
            tensor._grad = grad.clone(memory_format="contiguous_format")
        else:
            tensor._grad = tensor._grad + grad


def _validate(node: Node, grads: list[Any]) -> list[Any]:
    """PyTorch's validate_outputs: one gradient per edge, each summed to / cast to what its edge expects.
    A gradient of the very shape and dtype its edge expects (nearly all of them) passes at once."""
    edges = node.next_functions
    if len(grads) != len(edges):
        raise RuntimeError(f"Function {node.name()} returned an invalid number of gradients - expected "
                           f"{len(edges)}, but got {len(grads)}")
    i = -1
    for child, nr in edges:
        i += 1
        grad = grads[i]
        if child is None or grad is None:
            continue
        meta = child.output_meta[nr]
        if grad._shape == meta[0] and grad.dtype is meta[1] and (
                not isinstance(child, AccumulateGrad) or child.variable._grad_dtype is OWN_DTYPE):
            continue
        _conform(node, grads, i, child, nr)
    return grads


def _conform(node: Node, grads: list[Any], i: int, child: Node, nr: int) -> None:
    """validate_outputs for one gradient that is not what its edge expects: summed to the edge's
    shape where it expands to the gradient's, cast to its dtype (a leaf's grad_dtype, read as it
    arrives), a complex gradient of a real input taken as its real part; refused otherwise."""
    grad = grads[i]
    shape, dtype, _ = child.output_meta[nr]
    if grad._shape != shape:
        from engine.ops.backward_ops import expandable, sum_to_size

        if not expandable(shape, grad._shape):
            if not node._checks_shapes:
                return
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - got "
                               f"{errors.shape_text(grad._shape)} but expected shape compatible with "
                               f"{errors.shape_text(shape)}")
        grad = grads[i] = sum_to_size(grad, shape)
    if isinstance(child, AccumulateGrad):
        dtype = child.variable._gradient_dtype(dtype)
        if dtype is None:
            return
    if grad.dtype is not dtype:
        if grad.dtype.is_complex and not dtype.is_complex:  # torch's formulas take handle_r_to_c's real part
            from engine.ops.complex_ops import real

            grad = real(grad)
        grads[i] = grad if grad.dtype is dtype else grad.to(dtype)


def _validate_roots(roots: list[tuple[Node, int]], grads: Sequence[Any]) -> list[Any]:
    """validate_outputs on the root gradients, against what each root's node expects (which a `.data =`
    may have left behind the tensor's new shape): summed to it where it expands, else refused."""
    grads = list(grads)
    for i, ((node, nr), grad) in enumerate(zip(roots, grads)):
        if grad is None:
            continue
        shape, dtype, _ = node.output_meta[nr]
        if grad._shape != shape:
            from engine.ops.backward_ops import expandable, sum_to_size

            if not expandable(shape, grad._shape):
                raise RuntimeError(f"invalid gradient at index {i} - got {errors.shape_text(grad._shape)} but expected "
                                   f"shape compatible with {errors.shape_text(shape)}")
            grad = grads[i] = sum_to_size(grad, shape)
        if isinstance(node, AccumulateGrad):
            dtype = node.variable._gradient_dtype(dtype)
        if dtype is not None and grad.dtype is not dtype:
            grads[i] = grad.to(dtype)
    return grads


def _accumulate(node: AccumulateGrad, grad: Any) -> None:
    """AccumulateGrad::apply: steal, copy or add the gradient into the leaf's .grad."""
    if grad is None:
        return
    variable = node.variable
    if variable._view is not None or variable._fn is not None:  # else grad_fn and requires_grad are its slots
        # torch's, not the Paddle dialect's GradNodeAccumulation (which goes on accumulating into a former leaf):
        # a leaf (a view made a leaf by requires_grad_) whose base has since taken a history is refused
        if type(node) is AccumulateGrad and variable.grad_fn is not None:
            raise RuntimeError("leaf variable has been moved into the graph interior")
        if not variable.requires_grad:
            return
    elif not variable._requires_grad:  # requires_grad_(False) since the graph was built
        return
    device = variable._storage.device
    if device is CPU or device.type == "cpu":
        current = variable._grad
        if current is not None and not grad_mode.state.enabled:
            _add_into(current, grad)  # the usual step: a leaf's gradient summed into its .grad in place
        else:
            _accumulate_into(variable, grad)
    else:
        with on(device):
            _accumulate_into(variable, grad)
    hook = variable._post_accumulate_grad_hooks
    if hook:
        for fn in list(hook.values()):
            if fn(variable) is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def _accumulate_into(variable: Any, grad: Any) -> None:
    current = variable._grad
    if current is None:
        # held by the incoming list, the caller's `grad` and ours: anything more, and torch copies it
        if (not grad_mode.state.enabled and not _held_elsewhere(grad, 3)
                and _obeys_layout_contract(grad, variable)):
            variable._grad = grad.detach()
        else:
            variable._grad = _clone_obey_contract(grad, variable)
    elif not grad_mode.state.enabled:
        _add_into(current, grad)
    else:
        variable._grad = current + grad


def _obeys_layout_contract(grad: Any, variable: Any) -> bool:
    stride = variable._stride
    if grad._stride == stride and stride == geometry.row_major_strides(variable._shape):
        return True  # the usual pair: both row-major (dense, and no size-1 dim has stride 0)
    if _dense(variable):
        # torch walks the gradient's dims, and where a `.data =` or squeeze_ took dims away from the leaf
        # it reads the stale slots of the leaf's inline strides (geometry.inline_strides); a gradient laid
        # out otherwise is copied, and then may not fit
        if len(grad._shape) > len(stride):
            stride = geometry.inline_strides(stride, variable._stale_strides)
        for idx, (size, g_stride) in enumerate(zip(grad._shape, grad._stride)):
            if size != 1 and g_stride != (stride[idx] if idx < len(stride) else 0):
                return False
            if size == 1 and g_stride == 0:
                return False
        return True
    return grad.is_contiguous()


def _clone_obey_contract(grad: Any, variable: Any) -> Any:
    """The variable's strides when it is dense (new_empty_strided + copy_), else a contiguous clone."""
    from engine.ops.backward_ops import new_empty_strided

    if _dense(variable):
        return new_empty_strided(grad, variable._shape, variable._stride).copy_(grad)
    return grad.clone(memory_format="contiguous_format")
