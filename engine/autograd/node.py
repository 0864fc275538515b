"""Graph nodes: what an op records so backward can run, and the tensors it saved for that.

A Node is one recorded op. Its class carries PyTorch's name (`MulBackward0`) and, for ops in the
derivative table (engine/autograd/derivatives), the formulas that turn the gradient of its outputs
into gradients of its inputs, written in engine ops. The instance keeps its edges to the nodes of its
inputs (`next_functions`), the tensors it saved (SavedTensors, which remember the version they saw)
and the other values its formulas need (`_values`: dims, sizes, scalars), all readable as torch
exposes them (`grad_fn._saved_self`, `grad_fn._saved_dim`). Hooks (`register_hook`,
`register_prehook`, tensor hooks and retain_grad) hang off the node as in PyTorch.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine import errors, runtime
from engine.autograd import grad_mode, graph
from engine.autograd.hooks import HookDict, RemovableHandle, add_hook

Edge = tuple["Node | None", int]
Meta = tuple[tuple[int, ...], Any, Any]  # (shape, engine dtype, device) of each output
class Sequences:
    """The sequence numbers nodes take (torch's, newest first in backward) and the order the
    AccumulateGrad nodes are made in: a part of the engine's runtime."""

    __slots__ = ("accumulators", "nodes")

    def __init__(self) -> None:
        self.nodes = itertools.count()
        self.accumulators = itertools.count()


sequences: Sequences = runtime.slot(__name__, "sequences", Sequences)


class SavedTensor:
    """A tensor an op keeps for backward, checked against in-place changes when unpacked.

    An op's own output is saved as an alias without grad_fn (as PyTorch does, to avoid a cycle), made
    the first time it is read (`tensor`): until then the output's layout at save time is kept, which
    holds its memory as the alias would, so an op whose graph is never run or inspected does not pay
    for a tensor object. When unpacked while the backward itself is recorded (create_graph) the alias
    is handed out with the node as its grad_fn, so the second derivative flows through the op. An
    error about a saved output names the op that saved it (or, for an in-place op on a view, the
    view's node after the rebase while it lives: `view_grad_fn`); a saved input names its grad_fn at backward time.
    """

    # What backward reads of every saved tensor is a slot. `target` (set by a pack hook) and
    # `view_grad_fn` (by an in-place op on a view) live in the instance's __dict__ once set, the class
    # defaults below standing in until then: a recorded op fills two fields fewer and its SavedTensors
    # take no dict. A saved output is a _SavedOutput, which keeps its output_nr.
    __slots__ = ("__dict__", "_layout", "_tensor", "hooks", "is_output", "packed", "released", "version",
                 "was_leaf")

    output_nr = 0
    target: _GradientTarget | None = None  # where a packed input's gradient goes
    view_grad_fn: Callable[[], Node | None] | None = None  # a weak reference to the node a version error names
    # for an output rebased onto a view, while that node lives

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Only recording makes SavedTensors (saved_input, saved_output), as in torch."""
        if args or kwargs:
            raise TypeError("__init__(): incompatible constructor arguments. The following argument types are "
                            "supported:\n    1. torch._C._autograd.SavedTensor()\n\nInvoked with: "
                            + ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())]))
        raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")

    @property
    def tensor(self) -> Any:
        """The saved tensor: an input itself, an output's alias (made now if not yet), None once freed
        or packed by a hook."""
        tensor = self._tensor
        if tensor is None and self._layout is not None:
            tensor = self._tensor = _alias_of(self._layout)
            self._layout = None
        return tensor

    @tensor.setter
    def tensor(self, value: Any) -> None:
        self._tensor = value
        self._layout = None

    def _pack(self, tensor: Any) -> Any:
        """saved_tensors_hooks: the pack hook sees the tensor itself, under no_grad, and may not write
        it; as in PyTorch, only what it returns is kept (with where the tensor's gradient goes)."""
        with grad_mode.no_grad():
            packed = self.hooks[0](tensor)
        if tensor._vc.value != self.version:
            raise RuntimeError(errors.PACK_HOOK_INPLACE)
        self.target = None if self.is_output else _GradientTarget(tensor)
        self.tensor = None
        return packed

    def unpack(self, owner: Node, by_backward: bool = False) -> Any:
        """The saved tensor, checked. A node's own backward unpacks as torch's unpack() without a
        saved_for node (`by_backward`): a saved input that lost its history to detach_() is refused
        there, while the `_saved_x` getters and custom Functions' saved_tensors still hand it out."""
        if self.released:
            raise RuntimeError(errors.BACKWARD_TWICE)
        if self.hooks is not None:  # hooked tensors are not version-checked, exactly as in PyTorch
            return self._from_unpack_hook(owner)
        tensor = self._tensor
        if tensor is None:
            tensor = self.tensor
        if by_backward and not self.is_output and not self.was_leaf and tensor._grad_fn is None:
            raise RuntimeError(errors.SAVED_DETACHED_INPLACE)
        current = tensor._vc.value
        if current != self.version:
            raise RuntimeError(errors.VERSION_MISMATCH.format(core=self._mismatch_core(owner, current)))
        if self.is_output and grad_mode.state.enabled:
            return _placed_in_graph(tensor, owner, self.output_nr)
        return tensor

    def _from_unpack_hook(self, owner: Node) -> Any:
        from engine.tensor import Tensor

        value = self.hooks[1](self.packed)
        if not isinstance(value, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            + type(value).__name__)
        if self.is_output:
            return _placed_in_graph(value, owner, self.output_nr)
        target = self.target
        if target.grad_fn is None and target.accumulator is None:
            return value
        alias = value._alias()
        if target.grad_fn is not None:
            alias._grad_fn, alias._output_nr = target.grad_fn, target.output_nr
        else:  # a leaf: the alias feeds the leaf's own AccumulateGrad
            alias._requires_grad = True
            alias._accumulator = target.accumulator
        return alias

    def _mismatch_core(self, owner: Node, current: int) -> str:
        tensor = self.tensor
        view_fn = self.view_grad_fn() if self.view_grad_fn is not None else None
        producer = (view_fn or owner) if self.is_output else tensor._grad_fn_for_message()
        named = f", which is output 0 of {producer.forward_op_name()}," if producer is not None else ""
        return (
            f"[{tensor.dtype.message_name} {errors.shape_text(tensor.shape)}]{named} is at version "
            f"{current}; expected version {self.version} instead"
        )

    def release(self) -> None:
        self.released = True
        self._tensor = self._layout = self.packed = None  # the tensor setter's writes, without its call

    @property
    def data(self) -> Any:
        """What is stored: the pack hook's result, else the saved tensor itself (an input) or a
        detached alias (an output); None once freed."""
        if self.released:
            return None
        return self.packed if self.hooks is not None else self.tensor

    @property
    def unpack_hook(self) -> Any:
        return self.hooks[1] if self.hooks is not None else None

    def register_hooks(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        """`grad_fn._raw_saved_x.register_hooks(pack, unpack)`: hooks for this one saved tensor."""
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError("register_hooks(): incompatible function arguments. The following argument types are "
                            "supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: Callable, arg1: "
                            "Callable) -> None")
        if self.released:
            raise RuntimeError(errors.SAVED_HOOKS_AFTER_FREE)
        if self.hooks is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only "
                               "one pair of hooks is allowed at a time.")
        self.hooks = (pack_hook, unpack_hook)
        self.packed = self._pack(self.tensor)


class _SavedOutput(SavedTensor):
    """A saved output (relu's and sigmoid's `result`): its layout at save time until first read."""

    __slots__ = ("output_nr",)


_SavedOutput.__name__ = _SavedOutput.__qualname__ = "SavedTensor"  # one class to the user, as in torch


def saved_input(tensor: Any) -> SavedTensor:
    """What an op keeps of an input (torch's SavedVariable(t, is_output=false)): the tensor and the
    version it has now. Built without a class call: every recorded op that saves comes here."""
    if tensor._storage.inference:
        raise RuntimeError(errors.INFERENCE_SAVED)
    saved = _new_object(SavedTensor)
    saved._tensor = tensor
    saved._layout = None
    saved.version = tensor._vc.value
    saved.was_leaf = tensor._fn is None  # torch's is_leaf_: a saved non-leaf may not lose its history
    saved.is_output = False
    saved.released = False
    saved.hooks = saved.packed = None
    if graph.hooks.active:  # graph.current_hooks(), inlined
        _pack_now(saved, tensor)
    return saved


def saved_output(tensor: Any, output_nr: int = 0) -> SavedTensor:
    """What an op keeps of its output `output_nr` (torch's SavedVariable(t, is_output=true)), as
    saved_input: its layout now, the alias made when first read (see SavedTensor)."""
    if tensor._storage.inference:
        raise RuntimeError(errors.INFERENCE_SAVED)
    saved = _new_object(_SavedOutput)
    saved._tensor = None
    saved._layout = _layout_of(tensor)
    saved.version = tensor._vc.value
    saved.output_nr = output_nr
    saved.is_output = True
    saved.released = False
    saved.hooks = saved.packed = None
    if graph.hooks.active:
        _pack_now(saved, tensor)
    return saved


# A saved tensor as a recorded op keeps it when no saved-tensor hook is active (engine.ops.core._raw_saves:
# a list in pack order), each one (field, payload, version at save time, kind). An input's payload is the
# tensor and its kind whether it was a leaf; the result's (output 0 of its node, saved last) is its layout
# (as _SavedOutput keeps it, no cycle through the tensor), replaced by the alias made of it when backward
# first reads it, and its kind RAW_OUTPUT. A released entry's payload is None. Backward reads them straight
# (unpack_raw); the SavedTensor is made only when asked for (Node._saved: the `_saved_x` getters, the
# graph pane, hooks registered on it), so the many graphs that are only run, or only dropped, make none.
RawSave = tuple[str, Any, int, Any]
RAW_OUTPUT = "output"


def _layout_of(tensor: Any) -> tuple[Any, ...]:
    """What a saved output keeps of its tensor until an alias of it is needed (_alias_of)."""
    return (tensor._storage, tensor._offset, tensor._shape, tensor._stride, tensor.dtype, tensor._counter(), tensor._bits,
            tensor._np_cache)


def raw_output(field: str, tensor: Any) -> RawSave:
    """The raw save of output 0 of a node (see RawSave)."""
    return (field, _layout_of(tensor), tensor._vc.value, RAW_OUTPUT)


def _saved_from_raw(entry: RawSave) -> SavedTensor:
    """The SavedTensor of a raw entry, as saved_input or saved_output made it at save time (released
    since, if its payload is gone)."""
    _, payload, version, kind = entry
    if kind is RAW_OUTPUT:
        saved = _new_object(_SavedOutput)
        saved._tensor, saved._layout = (None, payload) if type(payload) is tuple else (payload, None)
        saved.output_nr = 0
        saved.is_output = True
    else:
        saved = _new_object(SavedTensor)
        saved._tensor = payload
        saved._layout = None
        saved.was_leaf = kind
        saved.is_output = False
    saved.version = version
    saved.released = payload is None
    saved.hooks = saved.packed = None
    return saved


def unpack_raw(node: Node, into: dict[str, Any]) -> bool:
    """A node's raw saves as its backward reads them (SavedTensor.unpack's answers: an input itself,
    an alias of an output, placed in the graph when the backward is recorded), put by field into
    `into`. False when one is not as saved (freed, changed in place, an input that lost its history):
    the SavedTensors' unpack then raises torch's error."""
    for field, payload, version, kind in node._raw:
        if payload is None:
            return False
        if kind is RAW_OUTPUT:
            if type(payload) is tuple:  # the layout: its alias is made once (as SavedTensor.tensor does)
                payload = _alias_of(payload)
                node._raw[-1] = (field, payload, version, kind)
            if payload._vc.value != version:
                return False
            tensor = _placed_in_graph(payload, node, 0) if grad_mode.state.enabled else payload
        else:
            tensor = payload
            if tensor._vc.value != version or (tensor._fn is None and not kind):
                return False
        into[field] = tensor
    return True


def _pack_now(saved: SavedTensor, tensor: Any) -> None:
    """A tensor saved while saved_tensors_hooks are active goes through the innermost pack hook."""
    saved.hooks = graph.hooks.active[-1]
    saved.packed = saved._pack(tensor)


_new_object = object.__new__


def _alias_of(layout: tuple[Any, ...]) -> Any:
    """Tensor._alias of an output as it was when saved (its layout may have changed in place since)."""
    storage, offset, shape, stride, dtype, vc, bits, np_cache = layout
    alias = _tensor_class()._make(storage, offset, shape, stride, dtype, vc)
    alias._bits = bits
    alias._np_cache = np_cache
    return alias


@functools.cache
def _tensor_class() -> Any:
    """engine.tensor.Tensor, which imports this module (so it is looked up once, not imported here)."""
    from engine.tensor import Tensor

    return Tensor


class _GradientTarget:
    """What a SavedTensor keeps of a saved input once a pack hook has taken its data: where the
    input's gradient goes (its grad_fn and output_nr, or a weak reference to its leaf's
    AccumulateGrad), so that the unpacked tensor rejoins the graph as PyTorch's SavedVariable does."""

    __slots__ = ("accumulator", "grad_fn", "output_nr")

    def __init__(self, tensor: Any) -> None:
        edge = tensor._gradient_edge() if tensor.requires_grad else None
        self.grad_fn = self.accumulator = None
        self.output_nr = 0
        if edge is not None and isinstance(edge[0], AccumulateGrad):
            self.accumulator = tensor._accumulator
        elif edge is not None:
            self.grad_fn, self.output_nr = edge


class SavedScalar(SavedTensor):
    """A Python number an op keeps as a wrapped 0-dim tensor (`x * 2` saves `other`), or a None a
    custom Function saved: never packed by saved-tensor hooks, but freed with the graph, so a second
    backward through it fails as in torch. A SavedTensor to the user, as in torch."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value
        self.released = False
        self.is_output = False
        self.tensor = None
        self.version = 0
        self.hooks = self.packed = None

    @property
    def data(self) -> Any:
        return None if self.released or self.value is None else self.wrapped()

    def register_hooks(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        if self.value is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        if self.released:
            raise RuntimeError(errors.SAVED_HOOKS_AFTER_FREE)
        self.hooks = (pack_hook, unpack_hook)  # a wrapped number is never packed: torch skips its hooks

    def unpack(self, owner: Node, by_backward: bool = False) -> Any:
        """The saved number: only its release is checked (it has no history to lose)."""
        if self.released:
            raise RuntimeError(errors.BACKWARD_TWICE)
        return self.value

    def wrapped(self) -> Any:
        """The value as torch shows `_saved_other`: a 0-dim int64, float64 or bool tensor."""
        from engine import dtypes
        from engine.ops.core import scalar_tensor

        if isinstance(self.value, bool):
            return scalar_tensor(self.value, dtypes.bool_)
        if isinstance(self.value, int):
            return scalar_tensor(self.value, dtypes.int64)
        return scalar_tensor(self.value, dtypes.float64)

    def release(self) -> None:
        self.released = True


SavedScalar.__name__ = SavedScalar.__qualname__ = "SavedTensor"  # one class to the user, as in torch


_NUMBERS = (bool, int, float, complex, np.generic)

# Saved fields torch keeps as int64_t / int[] (not Scalar): its Python accessor reads them as unsigned 64-bit,
# so a negative dim or index shows as its two's complement (`x[:, -2].grad_fn._saved_index` is 2**64 - 2).
INT64_FIELDS = frozenset({"dim", "dim0", "dim1", "dim2", "dims", "dimension", "index", "start", "end", "shifts",
                          "offset", "diagonal", "pad"})


def as_torch_shows(field: str, value: Any) -> Any:
    """A saved value as `grad_fn._saved_<field>` shows it in torch."""
    if field not in INT64_FIELDS:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return value % (1 << 64)
    if isinstance(value, tuple) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return tuple(v % (1 << 64) for v in value)
    return value


def make_saved(inputs: dict[str, Any], outputs: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """SavedTensors for input tensors (a Python number becomes a SavedScalar, a list one entry per
    tensor) and for outputs (given as tensor or (tensor, output_nr)), in that order."""
    saved: list[tuple[str, SavedTensor | SavedScalar]] = []
    for field, t in inputs.items():
        if t is None:
            continue
        if hasattr(t, "_vc"):  # a tensor, the usual entry: decided before the other kinds
            saved.append((field, saved_input(t)))
        elif isinstance(t, (list, tuple)):  # a list field keeps its None entries (index's untouched dims)
            saved.extend((field, saved_input(e) if e is not None else SavedScalar(None)) for e in t)
        elif isinstance(t, _NUMBERS):
            saved.append((field, SavedScalar(t)))
        else:
            saved.append((field, saved_input(t)))
    for field, t in outputs.items():
        nr = 0
        if isinstance(t, tuple):
            t, nr = t
        saved.append((field, saved_output(t, nr)))
    return tuple(saved)


def _placed_in_graph(tensor: Any, node: Node, output_nr: int) -> Any:
    """An alias of a saved output whose history is the node that saved it (for create_graph)."""
    alias = tensor._alias()
    alias._grad_fn, alias._output_nr = node, output_nr
    return alias


class NodeHooks:
    """What users hang on a node: pre-hooks, post-hooks, the tensor hooks of its outputs, metadata."""

    __slots__ = ("metadata", "post", "pre", "retains_grad", "tensor_pre")

    def __init__(self) -> None:
        self.pre = HookDict()
        self.post = HookDict()
        self.tensor_pre: list[tuple[int, HookDict]] = []  # (output_nr, the tensor's _backward_hooks)
        self.retains_grad: dict[int, Any] = {}  # output_nr -> weakref of the tensor retaining its grad
        self.metadata: dict[Any, Any] = {}


class Context:
    """What a derivative formula reads: the node's saved tensors (unpacked) and values by field
    name, and which of the node's inputs need a gradient (`grad_input_mask`, `needs(i)`)."""

    def __init__(self, grad_input_mask: tuple[bool, ...]) -> None:
        self.grad_input_mask = grad_input_mask

    def needs(self, i: int) -> bool:
        return self.grad_input_mask[i]


class Node:
    """One recorded op; its class names it and carries its derivative (see engine.autograd.derivatives)."""

    # `_saved` (a property below) is what the node keeps, as (field, SavedTensor) pairs: `_saves`, after the
    # saved tensors a recorded op keeps raw in `_raw` (RawSave) until something asks for their objects.
    __slots__ = ("__weakref__", "_backward", "_hooks", "_raw", "_rule", "_saves", "_values", "next_functions",
                 "output_meta", "sequence_nr")

    formula: Any = None  # the derivative table's entry for this node class (a Rule)
    _runs_without_grads = False  # a table node given no gradient at all gives none (torch's any_grad_defined)
    _checks_shapes = True  # torch's validate_outputs refuses a gradient its edge cannot take (Paddle's do not)

    def __init__(self, backward: Callable[..., Any] | None, next_functions: tuple[Edge, ...],
                 output_meta: tuple[Meta, ...], sequence_nr: int | None = None) -> None:
        self._backward = backward
        self._rule = self.formula  # kept per node: a dialect may re-class it under its own name
        self.next_functions = next_functions
        self.output_meta = output_meta
        self._saves: tuple[tuple[str, SavedTensor | SavedScalar], ...] = ()
        self._raw: list[RawSave] | None = None
        self._values: dict[str, Any] | None = None
        self._hooks: NodeHooks | None = None
        self.sequence_nr = next(sequences.nodes) if sequence_nr is None else sequence_nr

    # ----------------------------------------------------------------- identity
    def name(self) -> str:
        return type(self).__name__

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Graph nodes cannot be pickled or copied, as in PyTorch (`copy.deepcopy(y.grad_fn)`,
        or a node inside an optimizer's loaded param_groups)."""
        raise TypeError(f"cannot pickle '{type(self).__name__}' object")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def forward_op_name(self) -> str:
        """How the version-mismatch message names this node: `Mul`, `Pow1`, `MyFn` (a custom
        Function's `MyFnBackward`), `torch::autograd::CopySlices`."""
        name = type(self).__name__
        head, sep, digits = name.rpartition("Backward")
        if sep and (digits.isdigit() or not digits):
            return head if digits in ("0", "") else head + digits
        return self.name()

    @property
    def metadata(self) -> dict[Any, Any]:
        return self.hooks().metadata

    def _sequence_nr(self) -> int:
        return self.sequence_nr

    def _set_sequence_nr(self, sequence_nr: int) -> None:
        """Where backward runs this node among the others: the newest first."""
        self.sequence_nr = sequence_nr

    # ----------------------------------------------------------------- saved state
    @property
    def _saved(self) -> tuple[tuple[str, SavedTensor | SavedScalar], ...]:
        """The node's saved fields as (field, SavedTensor) pairs, in pack order; saves kept raw become
        their SavedTensors now, once."""
        raw = self._raw
        if raw is not None:
            self._saves = (*[(entry[0], _saved_from_raw(entry)) for entry in raw], *self._saves)
            self._raw = None
        return self._saves

    @_saved.setter
    def _saved(self, saved: tuple[tuple[str, SavedTensor | SavedScalar], ...]) -> None:
        self._saves = saved
        self._raw = None

    def save(self, inputs: dict[str, Any], outputs: dict[str, Any], values: dict[str, Any] | None = None) -> None:
        """Keep tensors for backward, in PyTorch's pack order (inputs as given, then outputs), and the
        node's other saved values."""
        self._saved = make_saved(inputs, outputs)
        if values:
            self._values = values

    @property
    def _saved_values(self) -> dict[str, Any]:
        """The node's non-tensor saved fields (the spelling ops recorded with numpy closures use)."""
        if self._values is None:
            self._values = {}
        return self._values

    def saved_entries(self) -> list[tuple[str, SavedTensor]]:
        """What this node keeps alive: inspection for the explorer's graph pane."""
        return [(field, s) for field, s in self._saved if not isinstance(s, SavedScalar)]

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_saved_"):
            return self._lookup_saved(attr[7:])
        if attr.startswith("_raw_saved_"):
            for field, saved in self._saved:
                if field == attr[11:]:
                    return saved
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")

    def _lookup_saved(self, field: str) -> Any:
        values = self._values
        if values is not None and field in values and not field.startswith("_"):
            return as_torch_shows(field, values[field])
        found = [saved for name, saved in self._saved if name == field]
        rule = self._rule
        if found:
            if any(s.released for s in found):
                raise RuntimeError(errors.BACKWARD_TWICE)
            shown = [(s.wrapped() if s.value is not None else None) if isinstance(s, SavedScalar) else s.unpack(self)
                     for s in found]
            return tuple(shown) if rule is not None and field in rule.lists else shown[0]
        if rule is not None and field in rule.saves:
            return () if field in rule.lists else None
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '_saved_{field}'")

    def __dir__(self) -> list[str]:
        fields = {f"_saved_{field}" for field, _ in self._saved}
        fields |= {f"_saved_{v}" for v in (self._values or ()) if not v.startswith("_")}
        if self._rule is not None:
            fields |= {f"_saved_{field}" for field in self._rule.saves}
            fields |= {f"_saved_{field}" for field in self._rule.values if not field.startswith("_")}
        return sorted(set(super().__dir__()) | fields)

    def release(self) -> None:
        raw = self._raw
        if raw is not None:  # the raw saves let go of their tensors, their fields, versions and kinds stay
            self._raw = [(field, None, version, kind) for field, _, version, kind in raw]
        for _, saved in self._saves:
            saved.release()

    # ----------------------------------------------------------------- backward
    def apply(self, grads: list[Any], grad_input_mask: tuple[bool, ...] | None = None) -> Sequence[Any]:
        """Gradients for each next_function from the gradients of this node's outputs (engine
        Tensors, None where undefined)."""
        if grad_input_mask is None:
            grad_input_mask = tuple(edge[0] is not None for edge in self.next_functions)
        rule = self._rule
        if rule is None or self._backward is not None:  # an op recorded with a numpy closure keeps it
            return self._apply_closure(grads)
        return rule.run(self, grads, grad_input_mask)

    def __call__(self, *grads: Any) -> Any:
        """`grad_fn(*grads)`: run this node alone on the given gradients (under the caller's grad
        mode, so with grad enabled the result has a graph); one result alone, several as a tuple."""
        from engine.tensor import Tensor

        if len(grads) != len(self.output_meta):
            raise TypeError(f"expected {len(self.output_meta)} arguments, got {len(grads)} instead")
        for i, grad in enumerate(grads):
            if grad is not None and not isinstance(grad, Tensor):
                raise TypeError(f"argument {i} is not a Variable")
        if isinstance(self, AccumulateGrad):
            from engine.autograd.engine import _accumulate

            _accumulate(self, grads[0])
            return ()
        if not self._runs_without_grads and all(g is None for g in grads):
            out: Sequence[Any] = [None] * len(self.next_functions)
        else:
            out = self.apply(list(grads))
        return out[0] if len(out) == 1 else tuple(out)

    def _apply_closure(self, grads: list[Any]) -> Sequence[Any]:
        """A node recorded with a numpy backward closure (the Paddle dialect's own nodes, checkpoint):
        first order only, its gradients are new tensors outside the graph."""
        saved = {field: s.unpack(self, True)._numpy_view() for field, s in self._saved if not isinstance(s, SavedScalar)}
        arrays = [None if g is None else g._numpy_view() for g in grads]
        if len(self.output_meta) == 1:
            results = self._backward(arrays[0], saved)
        else:
            filled = [a if a is not None else np.zeros(shape, dt.np) for a, (shape, dt, _) in
                      zip(arrays, self.output_meta)]
            results = self._backward(filled, saved)
        return [None if r is None else _closure_result(r) for r in results]

    # ----------------------------------------------------------------- hooks
    def hooks(self) -> NodeHooks:
        if self._hooks is None:
            self._hooks = NodeHooks()
        return self._hooks

    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """fn(grad_inputs, grad_outputs) after the node ran; it may return replacement grad_inputs."""
        return add_hook(self.hooks().post, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """fn(grad_outputs) before the node runs; it may return replacement grad_outputs."""
        return add_hook(self.hooks().pre, fn)

    def _register_tensor_hooks(self, output_nr: int, hooks: HookDict) -> None:
        self.hooks().tensor_pre.append((output_nr, hooks))


def new_node(cls: type[Node], backward: Callable[..., Any] | None, output_meta: tuple[Meta, ...],
             values: dict[str, Any] | None = None) -> Node:
    """cls(backward, (), output_meta) with its saved values, built without the class call's overhead
    (type.__call__ and __init__'s frame): every recorded op makes its node here, of a class keeping
    Node's constructor (every class node_type makes; not CopySlices or AccumulateGrad). The caller
    sets its next_functions right after: torch's generated code constructs the node, which takes its
    sequence number, before it collects the inputs' edges (which may regenerate a stale view's
    history, a node numbered after it)."""
    node = _new_object(cls)
    node._backward = backward
    node._rule = cls.formula
    node.next_functions = ()
    node.output_meta = output_meta
    node._saves = ()
    node._raw = None
    node._values = values or None
    node._hooks = None
    node.sequence_nr = next(sequences.nodes)
    return node


def _closure_result(result: Any) -> Any:
    from engine.tensor import Tensor

    array = np.asarray(result)
    return Tensor._wrap(np.array(array, copy=True) if array.base is not None or not array.flags.writeable else array)


_ACCUMULATE_SEQUENCE_NR = 2**64 - 1  # UINT64_MAX


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds incoming gradients into `leaf.grad`."""

    __slots__ = ("order", "variable")

    def __init__(self, variable: Any) -> None:
        # torch gives every AccumulateGrad the largest sequence number (it runs as soon as it is ready) and
        # takes none from the counter; `order` keeps the engine's choice among several ready ones stable
        super().__init__(None, (), ((variable._shape, variable.dtype, variable.device),), _ACCUMULATE_SEQUENCE_NR)
        self.variable = variable
        self.order = next(sequences.accumulators)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"


def new_accumulator(variable: Any) -> AccumulateGrad:
    """AccumulateGrad(variable), built without the class call's overhead (type.__call__ and two
    __init__ frames), as new_node builds the other nodes: a leaf gets a new one at the first op of
    every training step, its last one having died with the last graph."""
    node = _new_object(AccumulateGrad)
    node._backward = None
    node._rule = AccumulateGrad.formula
    node.next_functions = ()
    node.output_meta = ((variable._shape, variable.dtype, variable.device),)
    node._saves = ()
    node._raw = None
    node._values = None
    node._hooks = None
    node.sequence_nr = _ACCUMULATE_SEQUENCE_NR
    node.variable = variable
    node.order = next(sequences.accumulators)
    return node


class _QualifiedNode(Node):
    """Nodes PyTorch implements by hand: name() is qualified, the type name is not."""

    __slots__ = ()

    def name(self) -> str:
        return "torch::autograd::" + type(self).__name__


_node_types: dict[str, type[Node]] = {}
_QUALIFIED = {"CopySlices", "CopyBackwards", "AccumulateGrad", "Error", "NotImplemented", "DelayedError"}


def node_type(name: str) -> type[Node]:
    """The Node subclass named `name` (created once); its formula comes from the derivative table."""
    cls = _node_types.get(name)
    if cls is None:
        base = _QualifiedNode if name in _QUALIFIED else Node
        cls = _node_types[name] = type(name, (base,), {"__slots__": ()})
    return cls


def register_node(cls: type[Node]) -> type[Node]:
    """Install a hand-written node class under its own name (CopySlices, custom Functions)."""
    _node_types[cls.__name__] = cls
    return cls
