"""What every op shares: type promotion, recording into the graph, and the in-place protocol.

An op module writes its forward with numpy, then calls `record` (out-of-place) or `apply_inplace`
(in-place) naming its node, what the node saves and its other fields; how the node differentiates is
the derivative table's business (engine.autograd.derivatives). The in-place protocol is where
PyTorch's rules live: the leaf / view-of-leaf / multi-output / no_grad-view checks, the overlap, cast
and broadcast checks, the version bump, and rebasing the graph with CopySlices when the target is a
view.
"""

from __future__ import annotations

import numbers
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine import dtypes, errors, geometry
from engine.autograd import grad_mode, graph
from engine.autograd import node as _node_module
from engine.autograd.copy_slices import CopySlices
from engine.autograd.node import (
    RAW_OUTPUT,
    Node,
    RawSave,
    _new_object,
    _node_types,
    make_saved,
    new_accumulator,
    new_node,
    node_type,
    raw_output,
    saved_input,
    saved_output,
)
from engine.quiet import quietly
from engine.tensor import (
    DEFAULT,
    INFERENCE_MODE,
    MULTI_OUTPUT,
    NO_GRAD_MODE,
    UNSHARED,
    Tensor,
    VersionCounter,
    ViewInfo,
)

Backward = Callable[..., Sequence[np.ndarray | None]]


# --------------------------------------------------------------------------- operands and dtypes
def is_tensor(x: object) -> bool:
    return isinstance(x, Tensor)


_HUGE = 2 ** 62  # a Python int within this is a Scalar without question (dtypes.check_scalar_int)


def result_type(*operands: Any) -> dtypes.dtype:
    """torch.result_type: dimensioned tensors outrank 0-dim tensors, which outrank Python scalars;
    a lower rank only matters when it brings a higher category (bool < int < float)."""
    if len(operands) == 2:  # the common cases, decided without the general walk
        a, b = operands
        if isinstance(a, Tensor):
            if isinstance(b, Tensor):
                if a.dtype is b.dtype:
                    return a.dtype
            elif (type(b) is float or (type(b) is int and -_HUGE < b < _HUGE)) and a.dtype.is_floating_point:
                return a.dtype  # a Python number never lifts a floating-point tensor's dtype
    ranks: list[dtypes.dtype | None] = [None, None, None]
    unsigned = False  # a Python int past int64 is a uint64 Scalar
    for x in operands:
        if isinstance(x, Tensor):
            rank, d = (0 if x._shape else 1), x.dtype
        elif isinstance(x, bool | np.bool_):
            rank, d = 2, dtypes.bool_
        elif isinstance(x, numbers.Integral):
            dtypes.check_scalar_int(x)
            rank, d = 2, dtypes.int64
            unsigned = unsigned or x >= 2 ** 63
        elif isinstance(x, numbers.Real):
            rank, d = 2, dtypes.get_default_dtype()
        elif isinstance(x, numbers.Complex):
            rank, d = 2, dtypes.default_complex()
        else:
            raise TypeError(f"unsupported operand type: {type(x).__name__}")
        ranks[rank] = d if ranks[rank] is None else dtypes.promote_types(ranks[rank], d)
    if unsigned and _combine_categories(ranks[0], ranks[1]) is dtypes.bool_ and ranks[2] is dtypes.int64:
        # the number brings the integer category to bool tensors: c10 promotes Bool with UInt64 and refuses
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                           "Bool and UInt64")
    result = _combine_categories(ranks[0], _combine_categories(ranks[1], ranks[2]))
    if result is None:
        raise TypeError("result_type needs at least one operand")
    return result


def _combine_categories(higher: dtypes.dtype | None, lower: dtypes.dtype | None) -> dtypes.dtype | None:
    """c10's combine_categories: a lower-ranked operand counts only when it brings a higher category;
    a complex one keeps a float's precision (float64 tensor * 1j is complex128)."""
    if higher is None:
        return lower
    if lower is None or higher.is_complex:
        return higher
    if lower.is_complex:
        return higher.to_complex() if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is dtypes.bool_ or lower.is_floating_point:
        return dtypes.promote_types(higher, lower)
    return higher


def array_of(x: Any, dtype: dtypes.dtype) -> Any:
    """The numpy value of an operand in the computation dtype (scalars stay Python scalars)."""
    if isinstance(x, Tensor):
        arr = x._numpy_view()
        return arr if arr.dtype == dtype.np else arr.astype(dtype.np)
    if (type(x) is float or type(x) is int) and not -65504.0 <= x <= 65504.0:
        return quietly(_number_in, x, dtype)  # beyond float16's range a float dtype's number is inf, silently
    return _number_in(x, dtype)


def _number_in(x: Any, dtype: dtypes.dtype) -> Any:
    try:
        return dtype.np.type(x)
    except OverflowError:  # an int beyond an integer dtype wraps as C++ casts it (int8 + 300 adds 44)
        return np.array(x).astype(dtype.np)


def scalar_tensor(value: Any, dtype: dtypes.dtype) -> Tensor:
    return Tensor._wrap(np.array(value, dtype=dtype.np), dtype)


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum a broadcast gradient back to an operand's shape."""
    if grad.shape == tuple(shape):
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and grad.shape[i + lead] != 1)
    if not axes:
        return grad.reshape(shape)
    if grad.dtype.itemsize == 2 and grad.dtype.kind in "fV":  # half floats accumulate in float32, as ATen's sum
        return grad.sum(axis=axes, keepdims=True, dtype=np.float32).astype(grad.dtype).reshape(shape)
    return grad.sum(axis=axes, keepdims=True).reshape(shape)


# --------------------------------------------------------------------------- recording
def needs_grad(*inputs: Any) -> bool:
    if not grad_mode.state.enabled:
        return False
    for t in inputs:  # noqa: SIM110 - a plain loop beats any(genexpr) on every op's hot path
        if isinstance(t, Tensor) and t.requires_grad:
            return True
    return False


_NO_EDGE = (None, 0)


def edge_of(t: Any) -> tuple[Node | None, int]:
    """Where the gradient of one input goes: its grad_fn, its leaf's AccumulateGrad, or nowhere
    (`_NO_EDGE`: a number, or a tensor that does not require grad)."""
    if isinstance(t, Tensor):
        fn = t._fn
        if fn is not None:
            view = t._view
            if view is None or view.attr_version == t._vc.value:
                return (fn, t._output_nr)  # a current history: _gradient_edge's answer, inlined
        elif t._view is None and t._accumulator is not None:
            acc = t._accumulator()  # a leaf whose AccumulateGrad lives: _gradient_edge's answer, inlined
            if acc is not None and t._requires_grad:
                return (acc, 0)
            if acc is None and t._requires_grad and type(t) is Tensor:
                # its AccumulateGrad died with the last graph (a training step's leaves): _gradient_edge's
                # new one, made here (a dialect's tensor class answers grad_fn itself, so goes there)
                acc = new_accumulator(t)
                t._accumulator = weakref.ref(acc)
                return (acc, 0)
        edge = t._gradient_edge()
        return edge if edge is not None else _NO_EDGE
    return _NO_EDGE


def edges_of(inputs: Sequence[Any]) -> tuple[tuple[Node | None, int], ...]:
    """The next_functions of a node taking `inputs`. One or two inputs (most ops) take no loop, and
    the commonest input, a tensor with a history that is no view (an op's result), is answered
    here from its own fields without edge_of's call."""
    if len(inputs) == 2:
        a, b = inputs
        if type(a) is Tensor and type(b) is Tensor and a._view is None and b._view is None:
            fn_a, fn_b = a._fn, b._fn
            if fn_a is not None and fn_b is not None:
                return ((fn_a, a._output_nr), (fn_b, b._output_nr))
        return (edge_of(a), edge_of(b))
    if len(inputs) == 1:
        t = inputs[0]
        if type(t) is Tensor and t._view is None:
            fn = t._fn
            if fn is not None:
                return ((fn, t._output_nr),)
        return (edge_of(t),)
    return tuple([edge_of(t) for t in inputs])


def _needed_saves(cls: type[Node], edges: tuple[tuple[Node | None, int], ...], save: dict[str, Any]) -> dict[str, Any]:
    """Keep only the tensors a formula of an input with an edge will read (the derivative table says
    which input reads which field): PyTorch's generated code saves a field when should_compute_output
    holds for one of its readers, i.e. when that input's gradient goes somewhere."""
    rule = cls.formula
    if rule is None or not rule.save_when:
        return save
    save_when = rule.save_when
    kept = {}
    for field, value in save.items():
        readers = save_when.get(field)
        if readers is None or _read_by_one_with_edge(readers, edges):
            kept[field] = value
    return kept


def _read_by_one_with_edge(readers: tuple[int, ...], edges: tuple[tuple[Node | None, int], ...]) -> bool:
    """Whether an input whose formula reads a field has an edge (the field is kept only then)."""
    for i in readers:  # noqa: SIM110 - a plain loop: this runs for every recorded op that saves
        if edges[i][0] is not None:
            return True
    return False


def record(name: str, outputs: Tensor | Sequence[Tensor], inputs: Sequence[Any], backward: Backward | None = None,
           save: dict[str, Any] | None = None, save_outputs: dict[str, Tensor] | None = None,
           values: dict[str, Any] | None = None) -> Node | None:
    """Attach a node named `name` to `outputs` when grad mode is on and an input requires grad.

    `inputs` are the node's differentiable inputs (its next_functions, in order; a Python number
    stands for a wrapped scalar operand and gets no edge). The node's formulas come from the
    derivative table (engine.autograd.derivatives); `save` / `save_outputs` are the input / output
    tensors it keeps (version-checked when backward unpacks them), `values` its other saved fields.
    `backward(grad, saved)`, a numpy closure, is the older way for ops not yet in the table.
    """
    if not needs_grad(*inputs):
        return None
    return attach_node(name, outputs, inputs, backward, save, save_outputs, values)


def attach_node(name: str, outputs: Tensor | Sequence[Tensor], inputs: Sequence[Any], backward: Backward | None = None,
                save: dict[str, Any] | None = None, save_outputs: dict[str, Tensor] | None = None,
                values: dict[str, Any] | None = None) -> Node:
    """record() once the caller knows an input requires grad in grad mode."""
    if isinstance(outputs, Tensor):  # one output, most ops
        if not save_outputs:
            return _attach_to_result(name, outputs, inputs, backward, save, None, values)
        if len(save_outputs) == 1:
            ((field, saved),) = save_outputs.items()
            if saved is outputs:
                return _attach_to_result(name, outputs, inputs, backward, save, field, values)
        outs: tuple[Tensor, ...] = (outputs,)
    else:
        outs = tuple(outputs)
    cls = _node_types.get(name) or node_type(name)
    node = new_node(cls, backward, tuple([_META_OF_NONE if o is None else (o._shape, o.dtype, o._storage.device)
                                          for o in outs]), values)
    node.next_functions = edges = edges_of(inputs)
    for i, out in enumerate(outs):
        if out is not None:  # a backward op's output it did not compute (output_mask)
            out._set_grad_fn(node, i)
    if save or save_outputs:
        node._saves = _saved_fields(cls, edges, outs, save, save_outputs)
    return node


def _attach_to_result(name: str, out: Tensor, inputs: Sequence[Any], backward: Backward | None,
                      save: dict[str, Any] | None, save_result: str | None, values: dict[str, Any] | None) -> Node:
    """attach_node for one output (what nearly every op records), saving it as `save_result` if
    named: the node and its saved fields are built straight, without the general path's loops."""
    cls = _node_types.get(name) or node_type(name)
    node = _new_object(cls)  # new_node's fields, set here (test_recording checks every field is set)
    node._backward = backward
    node._rule = cls.formula
    node.output_meta = ((out._shape, out.dtype, out._storage.device),)
    node._saves = ()
    node._raw = None
    node._values = values or None
    node._hooks = None
    node.sequence_nr = next(_node_module.sequences.nodes)  # before edges_of, as new_node's caller
    node.next_functions = edges = edges_of(inputs)
    if out._fn is None:  # a fresh result: _set_grad_fn without the hooks an old history had
        out._fn = node
        out._output_nr = 0
        if out._view is not None:
            out._view.attr_version = out._vc.value
    else:
        out._set_grad_fn(node, 0)
    if save or save_result is not None:
        raw = _raw_saves(cls, edges, save, save_result, out)
        if raw is not None:
            node._raw = raw
        elif save:
            saved = _saved_inputs(cls, edges, save)
            node._saves = (*saved, (save_result, saved_output(out))) if save_result is not None else saved
        else:
            node._saves = ((save_result, saved_output(out)),)
    return node


def _raw_saves(cls: type[Node], edges: tuple[tuple[Node | None, int], ...], save: dict[str, Any] | None,
               save_result: str | None, out: Tensor) -> list[RawSave] | None:
    """The input tensors a formula will read (`_needed_saves`), then the result if saved, kept raw
    (node.RawSave) when no saved-tensor hook is active: the node makes their SavedTensors only when
    something asks for them (Node._saved), while backward reads them straight (node.unpack_raw).
    None for an entry that is no tensor or an inference tensor, or under a pack hook (which runs
    now): saved_input's and saved_output's way then."""
    if graph.hooks.active:
        return None
    if not save:  # the result alone (relu, sigmoid, exp...)
        return None if out._storage.inference else [raw_output(save_result, out)]
    for fn, _ in edges:  # if every input's gradient goes somewhere, every field is read
        if fn is None:
            save = _needed_saves(cls, edges, save)
            break
    raw = []
    for field, t in save.items():
        if type(t) is not Tensor or t._storage.inference:
            return None
        raw.append((field, t, t._vc.value, t._fn is None))
    if save_result is not None:
        if out._storage.inference:
            return None
        raw.append(raw_output(save_result, out))
    return raw


def _saved_inputs(cls: type[Node], edges: tuple[tuple[Node | None, int], ...],
                  save: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The saved fields of the inputs a formula will read (`_needed_saves`): a tensor, the usual
    entry, becomes its SavedTensor here; other kinds (numbers, lists) go through make_saved."""
    if _NO_EDGE in edges:  # else every input's gradient goes somewhere, and every field is read
        save = _needed_saves(cls, edges, save)
    saved = []
    for field, t in save.items():
        if type(t) is Tensor:
            saved.append((field, saved_input(t)))
        elif t is not None:
            saved.extend(make_saved({field: t}, {}))
    return tuple(saved)


def _saved_fields(cls: type[Node], edges: tuple[tuple[Node | None, int], ...], outs: tuple[Tensor, ...],
                  save: dict[str, Any] | None, save_outputs: dict[str, Tensor] | None) -> tuple[tuple[str, Any], ...]:
    """The saved inputs (`_saved_inputs`), then the outputs; a non-differentiable output (indices)
    is saved like an input, a tensor without history."""
    saved = _saved_inputs(cls, edges, save) if save else ()
    if save_outputs:
        outputs_saved = []
        for field, t in save_outputs.items():
            nr = _index_of(outs, t)
            if nr is None:
                saved += make_saved({field: t}, {})
            else:
                outputs_saved.append((field, saved_output(t, nr)))
        saved += tuple(outputs_saved)
    return saved


def wrap_result(name: str, result: Any, dtype: dtypes.dtype, inputs: tuple[Any, ...],
            save: dict[str, Any] | None = None, values: dict[str, Any] | None = None,
            save_result: str | None = None, backward: Backward | None = None) -> Tensor:
    """A numpy result as a new tensor of `dtype`, recorded as node `name` (see `record`) when an
    input requires grad (`backward`: a numpy closure, for a node not in the derivative table yet). A
    fresh C-contiguous result of the right dtype, what most ops produce, is adopted as it is;
    needs_grad is inlined, and so is requires_grad for inputs that are not views (most results
    need no node, and most inputs answer that from their own fields, without a property call)."""
    if type(result) is np.ndarray and result.base is None and (result.dtype is dtype.np or result.dtype == dtype.np) \
            and result.flags.c_contiguous:
        tensor = Tensor._adopt(result, dtype)
    else:
        tensor = Tensor._wrap(result, dtype)
    if grad_mode.state.enabled:
        for t in inputs:
            if isinstance(t, Tensor) and (t._requires_grad or t._fn is not None or
                                          (t._view is not None and t.requires_grad)):
                _attach_to_result(name, tensor, inputs, backward, save, save_result, values)
                break
    return tensor


def adopt_recorded(name: str, result: np.ndarray, dtype: dtypes.dtype, inputs: tuple[Any, ...],
                   save: dict[str, Any] | None = None, values: dict[str, Any] | None = None,
                   save_result: str | None = None, stride: tuple[int, ...] | None = None) -> Tensor:
    """wrap_result for a short path that knows both what wrap_result would ask: its result is a fresh
    row-major array of dtype's type (adopted as it is; `stride`: its row-major strides, when at hand)
    and an input requires grad in grad mode (the node is recorded). `inputs[0]` is a tensor.

    The commonest recording, one or two inputs that are results of ops (no views: their edge is
    their own grad_fn) and saves kept raw, builds the node, its edges and its saves here in one
    step, as new_node, edges_of and _raw_saves would (test_recording checks the two ways give the
    same node); any other case takes _attach_to_result."""
    tensor = Tensor._adopt(result, dtype, stride)
    if len(inputs) == 2:
        a, b = inputs
        fn = a._fn
        if type(b) is Tensor:
            other_fn = b._fn
            if fn is None or other_fn is None or a._view is not None or b._view is not None:
                return _attach_general(name, tensor, inputs, save, save_result, values)
            edges = ((fn, a._output_nr), (other_fn, b._output_nr))
        elif (type(b) is int or type(b) is float) and fn is not None and a._view is None:
            edges = ((fn, a._output_nr), _NO_EDGE)
        else:
            return _attach_general(name, tensor, inputs, save, save_result, values)
    else:
        a = inputs[0]
        fn = a._fn
        if fn is None or a._view is not None or len(inputs) != 1:
            return _attach_general(name, tensor, inputs, save, save_result, values)
        edges = ((fn, a._output_nr),)
    raw = None
    if save is not None or save_result is not None:
        if graph.hooks.active or tensor._storage.inference:
            return _attach_general(name, tensor, inputs, save, save_result, values)
        raw = []
        if save is not None:
            if edges[-1] is _NO_EDGE:  # a number operand: which fields are read is the table's business
                return _attach_general(name, tensor, inputs, save, save_result, values)
            for field, t in save.items():
                if type(t) is not Tensor or t._storage.inference:
                    return _attach_general(name, tensor, inputs, save, save_result, values)
                raw.append((field, t, t._vc.value, t._fn is None))
        if save_result is not None:  # raw_output's entry, of a fresh result (offset 0, no conj/neg bits)
            vc = tensor._vc
            if vc is UNSHARED:  # the saved output shares the result's counter: it gets one of its own
                vc = tensor._vc = VersionCounter()
            raw.append((save_result, (tensor._storage, 0, tensor._shape, tensor._stride, dtype, vc, 0,
                                      tensor._np_cache), 0, RAW_OUTPUT))
    cls = _node_types.get(name) or node_type(name)
    node = _new_object(cls)  # new_node's fields, set here
    node._backward = None
    node._rule = cls.formula
    node.next_functions = edges
    node.output_meta = ((tensor._shape, dtype, tensor._storage.device),)
    node._saves = ()
    node._raw = raw
    node._values = values or None
    node._hooks = None
    node.sequence_nr = next(_node_module.sequences.nodes)
    tensor._fn = node
    return tensor


def _attach_general(name: str, tensor: Tensor, inputs: tuple[Any, ...], save: dict[str, Any] | None,
                    save_result: str | None, values: dict[str, Any] | None) -> Tensor:
    """adopt_recorded's other cases: _attach_to_result records the node."""
    _attach_to_result(name, tensor, inputs, None, save, save_result, values)
    return tensor


_META_OF_NONE = ((), None, None)


def _index_of(outs: tuple[Tensor, ...], t: Tensor) -> int | None:
    for i, o in enumerate(outs):
        if o is t:
            return i
    return None


# --------------------------------------------------------------------------- in-place protocol
def check_inplace_allowed(self: Tensor, *others: Any) -> None:
    """PyTorch's check_inplace: which tensors autograd refuses to let you modify, and why. It acts
    when grad mode is on and self or any operand (`others`) requires grad."""
    if not grad_mode.state.enabled:
        return
    view = self._view
    self_requires = self._requires_grad or self._fn is not None or (view is not None and self.requires_grad)
    if not self_requires:
        for o in others:  # a plain loop: every in-place op checks here
            if isinstance(o, Tensor) and o.requires_grad:
                break
        else:
            return
    if view is not None:
        self._check_rebase(view, indirect=False)
        if self_requires and view.base.is_leaf:
            raise RuntimeError(errors.VIEW_OF_LEAF_INPLACE)
        if self_requires and self.is_leaf:
            raise RuntimeError(errors.LEAF_INPLACE)
    elif self_requires and self._fn is None:  # is_leaf: a tensor that is no view has the grad_fn it recorded
        raise RuntimeError(errors.LEAF_INPLACE)
    for o in others:  # then torch collects the node's edges, before any kernel check: a stale view fails here
        if isinstance(o, Tensor) and o._view is not None:
            _ = o.grad_fn


def check_writable(self: Tensor, result_dtype: dtypes.dtype | None = None,
                   operand_shapes: Sequence[tuple[int, ...]] = (), *, internal_overlap: bool = True) -> None:
    """The checks every in-place write makes, in TensorIterator's order: overlap (fill_ and zero_ skip
    it), broadcast into self's shape, then the cast of the result into self's dtype."""
    if internal_overlap:
        check_internal_overlap(self)
    if operand_shapes and not (len(operand_shapes) == 1 and operand_shapes[0] in ((), self._shape)):
        broadcast = geometry.broadcast_shapes(self._shape, *operand_shapes)
        if broadcast != self._shape:
            raise RuntimeError(errors.INPLACE_BROADCAST.format(
                self=errors.shape_text(self._shape), broadcast=errors.shape_text(broadcast)))
    if result_dtype is not None and not dtypes.can_cast(result_dtype, self.dtype):
        raise RuntimeError(errors.CAST.format(src=result_dtype.short, dst=self.dtype.short))


def check_internal_overlap(self: Tensor) -> None:
    """torch's assert_no_internal_overlap: a written tensor whose elements share memory (expand)."""
    if geometry.has_internal_overlap(self._shape, self._stride):
        raise RuntimeError(errors.INTERNAL_OVERLAP)


def overlap_status(a: Tensor, b: Tensor) -> str:
    """torch's get_overlap_status: "full" (same elements, same layout), "partial", "no", or
    "too hard" (a layout that is not dense, where torch does not decide)."""
    if a is b:
        return "full"
    if a.numel() == 0 or b.numel() == 0:
        return "no"
    if geometry.dense_permutation(a._shape, a._stride) is None or \
            geometry.dense_permutation(b._shape, b._stride) is None:
        return "too hard"
    if a._storage is not b._storage:
        return "no"
    a_begin, b_begin = a.data_ptr(), b.data_ptr()
    a_end, b_end = a_begin + a.nbytes, b_begin + b.nbytes
    if (a_begin, a_end) == (b_begin, b_end):
        return "full" if a._stride == b._stride else "partial"
    return "partial" if a_begin < b_end and b_begin < a_end else "no"


def check_no_partial_overlap(self: Tensor, other: Any) -> None:
    """torch refuses a write whose input shares some, but not all, of the written memory."""
    if isinstance(other, Tensor) and overlap_status(self, other) == "partial":
        raise RuntimeError(errors.PARTIAL_OVERLAP)


def check_no_overlap(self: Tensor, other: Any) -> None:
    """torch's assert_no_overlap (gathers into out=): the input may not share any written memory."""
    if isinstance(other, Tensor) and overlap_status(self, other) in ("partial", "full"):
        raise RuntimeError(errors.PARTIAL_OVERLAP)


def check_out_overlap(out: Tensor, inputs: Sequence[Any]) -> None:
    """TensorIterator's check for out=: out may not overlap itself nor partly overlap an input."""
    check_internal_overlap(out)
    for other in inputs:
        check_no_partial_overlap(out, other)


def bump_written(t: Tensor) -> None:
    """The version bump after a write; an inference tensor has no counter, and outside inference
    mode torch finds that out only now, after the write, and refuses."""
    if t._storage.inference:
        if not grad_mode.state.inference:
            raise RuntimeError(errors.INFERENCE_INPLACE)
    else:
        t._bump_version()


def apply_inplace(self: Tensor, write: Callable[[np.ndarray], None], name: str, inputs: Sequence[Any] = (),
                  backward: Backward | None = None, save: dict[str, Any] | None = None,
                  save_self_copy: str | None = None, save_result: str | None = None,
                  check_autograd: bool = True, values: dict[str, Any] | None = None, layout_op: bool = False,
                  check_overlap: bool = True) -> Tensor:
    """Write into self's memory, bump its version once, and rewrite the graph as PyTorch does.

    `inputs` are the op's differentiable operands after self; `save_self_copy` names the field under
    which a clone of self *before* the write is saved (mul_, div_, clamp_...); `save_result` saves
    self after it (relu_, sigmoid_, exp_...), which is why a later in-place change of self breaks
    their backward. `values` are the node's non-tensor fields. An in-place view op (`layout_op`: t_,
    transpose_, squeeze_, ...) changes no memory: even on a view, its node simply becomes self's
    grad_fn, fed by self's former history (no CopySlices).
    """
    if check_autograd:
        check_inplace_allowed(self, *inputs)
    if check_overlap:  # ops with an overlap rule of their own check it themselves (index_put_)
        for other in inputs:
            check_no_partial_overlap(self, other)
    tracked = grad_mode.state.enabled and (  # needs_grad(self, *inputs), self's requires_grad read off its fields
        self._requires_grad or self._fn is not None or (self._view is not None and self.requires_grad) or
        needs_grad(*inputs))
    if tracked:
        cls = _node_types.get(name) or node_type(name)
        node = new_node(cls, backward, (), values)  # its output's layout is known after the write (t_)
        node.next_functions = edges = (edge_of(self), *edges_of(inputs))  # before the write: no rebase yet
        base_edge = edge_of(self._view.base) if self._view is not None else None
        saved_before = _saved_before_write(cls, self, edges, save, save_self_copy) \
            if save or save_self_copy is not None else ()
    quietly(self._write, write)  # torch never warns about nan/inf results
    bump_written(self)
    if not tracked:
        return self
    node.output_meta = ((self._shape, self.dtype, self._storage.device),)
    node._saves = saved_before
    view_fn = None
    if self._view is None:
        self._set_grad_fn(node, 0, move_retains_grad=not layout_op)
    elif layout_op:
        self._set_grad_fn(node, 0, move_retains_grad=False)
        self._view.attr_version = self._vc.value
    else:
        rebase_view(self, node, base_edge)
        view_fn = self.grad_fn  # torch rebuilds the view's history at once (AsStridedBackward0)
    if save_result:
        saved_result = saved_output(self)
        if view_fn is not None:
            # a version error names the view's node after the rebase while it lives (torch keeps a weak
            # pointer to it: once the view's history is rebuilt again it names the op that saved)
            saved_result.view_grad_fn = weakref.ref(view_fn)
        node._saves = (*node._saves, (save_result, saved_result))
    return self


def _saved_before_write(cls: type[Node], self: Tensor, edges: tuple[tuple[Node | None, int], ...],
                        save: dict[str, Any] | None, save_self_copy: str | None) -> tuple[tuple[str, Any], ...]:
    """What an in-place op saves before it writes: the operands its formulas read, and a clone of
    self (made now, with its history) where a formula reads self's old value; versions (and pack
    hooks) are taken now."""
    saved_inputs = _needed_saves(cls, edges, dict(save)) if save else {}
    if save_self_copy is not None and _needed_saves(cls, edges, {save_self_copy: self}):
        from engine.ops.copying import clone

        saved_inputs[save_self_copy] = clone(self)
    return make_saved(saved_inputs, {}) if saved_inputs else ()


def rebase_view(view: Tensor, fn: Node, base_edge: tuple[Node | None, int]) -> None:
    """In-place on a view: the base's history becomes CopySlices(fn), the view's AsStrided of it."""
    base = view._view.base
    base._set_grad_fn(CopySlices(base, view, fn, base_edge), 0)


# --------------------------------------------------------------------------- views
def make_view(source: Tensor, shape: Sequence[int], stride: Sequence[int], offset: int, name: str,
              backward: Backward | None = None, values: dict[str, Any] | None = None,
              dtype: dtypes.dtype | None = None, bits: int | None = None) -> Tensor:
    """A tensor over source's memory sharing its version counter, recorded as view op `name`; it
    keeps source's conj/neg bits unless given others, and source's dtype unless given another
    (view_as_real, real, imag)."""
    vc = source._vc if source._vc is not UNSHARED else source._counter()
    out = Tensor._make(source._storage, offset, shape if type(shape) is tuple else tuple(shape),
                       stride if type(stride) is tuple else tuple(stride), dtype or source.dtype, vc)
    out._bits = source._bits if bits is None else bits
    _mark_view(out, source, DEFAULT)
    if out._view is not None and out.dtype is not out._view.base.dtype:
        out._view.replay_layout = out._layout_key()
    # A view of an inference tensor is a plain inference tensor; in no_grad mode a view records no
    # node, and requires grad when its root base does (Tensor.requires_grad).
    if grad_mode.state.enabled and not source._storage.inference and \
            (source._requires_grad or source._fn is not None or source.requires_grad):
        _attach_to_result(name, out, (source,), backward, None, None, values)
    return out


def make_view_chain(source: Tensor, shape: tuple[int, ...], stride: tuple[int, ...], offset: int,
                    steps: Sequence[tuple[str, tuple[int, ...], dict[str, Any]]]) -> Tensor:
    """The last view of a chain of view ops on `source` (x[1:3, ::2]: two slices), made in one step
    and recorded as torch records the chain when source requires grad in grad mode: one node per op
    (`steps`: its name, output shape and values), each taking the one before, the last the view's.
    The chain's intermediate views would be seen by nothing (the same base, version counter and view
    metadata as the last one), so they are not made."""
    vc = source._vc if source._vc is not UNSHARED else source._counter()
    out = Tensor._make(source._storage, offset, shape, stride, source.dtype, vc)
    out._bits = source._bits
    _mark_view(out, source, DEFAULT)
    if out._view is not None and out.dtype is not out._view.base.dtype:
        out._view.replay_layout = out._layout_key()
    dtype, device = source.dtype, source._storage.device
    node = None
    for name, step_shape, values in steps:
        step = new_node(_node_types.get(name) or node_type(name), None, ((step_shape, dtype, device),), values)
        step.next_functions = (edge_of(source),) if node is None else ((node, 0),)
        node = step
    if node is not None:
        out._grad_fn = node
        out._output_nr = 0
        if out._view is not None:
            out._view.attr_version = out._vc.value
    return out


def make_multi_views(source: Tensor, layouts: Sequence[tuple[tuple[int, ...], tuple[int, ...], int]],
                     name: str, backward: Backward | None = None,
                     values: dict[str, Any] | None = None) -> tuple[Tensor, ...]:
    """split/chunk/unbind: views PyTorch forbids modifying in place while they require grad."""
    outs = tuple(Tensor._make(source._storage, off, tuple(shape), tuple(stride), source.dtype, source._counter())
                 for shape, stride, off in layouts)
    op_name = name[: name.index("Backward")]
    for i, out in enumerate(outs):
        out._bits = source._bits
        _mark_view(out, source, MULTI_OUTPUT, op_name, i)
    record(name, outs, (source,), backward, values=values)
    return outs


def _mark_view(out: Tensor, source: Tensor, meta: str, op_name: str = "", output_nr: int = 0) -> None:
    """Record out as a view of source's root base, with PyTorch's creation meta: made in no_grad
    mode, by a multi-output op (`op_name`'s output `output_nr`), or the default way; a view of a view
    inherits a non-default meta unless it is itself made in no_grad mode (propagate_creation_meta)."""
    if source._storage.inference:  # inference tensors keep no autograd metadata: their views are not views
        return
    parent = source._view
    root = parent.base if parent is not None else source
    if grad_mode.state.inference:
        meta = INFERENCE_MODE
    elif not grad_mode.state.enabled:
        meta = NO_GRAD_MODE
    if parent is not None and (meta == DEFAULT or parent.creation_meta == INFERENCE_MODE):
        meta, op_name, output_nr = parent.creation_meta, parent.op_name, parent.output_nr
    # ViewInfo(root, meta, source._vc.value, op_name, output_nr), its fields set here without the class
    # call: every view op comes here (test_recording checks the two ways give the same fields)
    info = _new_object(ViewInfo)
    info.base = root
    info.creation_meta = meta
    info.attr_version = source._vc.value
    info.op_name = op_name
    info.output_nr = output_nr
    info.replay_layout = None
    out._view = info
