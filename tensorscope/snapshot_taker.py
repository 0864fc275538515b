"""Taking a Snapshot after every step, at the cost of what the step changed.

A step's Snapshot describes every named tensor and array, the memory they live in, the autograd
graph behind them, and the memory figures. Describing a tensor from scratch (its values as plain
lists, its printed summary, the storage elements it covers) costs with its size, so each record is
kept with the *observed state* it was made from (`engine.inspect.observed_state`: layout, version,
flags, and the bytes of the elements the record shows) and is made again only when that state
changed. Unchanged records, storages, graph nodes and whole maps are the previous Snapshot's own
objects (structural sharing), so an unchanged step keeps almost nothing new in memory.

A field added to ObjectInfo must be a function of that state (or the state must grow with it):
`tests/tensorscope/test_incremental_snapshots.py` compares every step of random programs and of
the bundled scenarios with the step described from scratch.

The taker reads the engine only through `engine.inspect` and keeps no engine object alive between
steps (storage labels and graph nodes are held weakly), so memory figures are never distorted.
Storage labels are handed out in the same order as a description from scratch would: a taker that
shares the labels but no records (`SnapshotTaker(labels=...)`) describes the same step equally.
"""

from __future__ import annotations

import math
import sys
import weakref
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import numpy as np

import engine
import engine.inspect as inspect
from engine.nn import Module
from tensorscope.interpreter import ErrorInfo
from tensorscope.snapshot import (
    COVERAGE_LIMIT,
    VALUES_LIMIT,
    MemoryInfo,
    NodeInfo,
    ObjectInfo,
    SavedInfo,
    Snapshot,
    StorageInfo,
)


class StorageLabels:
    """`S0`, `S1`, … for memory named objects live in, in order of first appearance across a run; a
    re-allocated block gets a new one. Memory that only the graph, a `.grad` or a module's parameter
    holds is `G0`, `G1`, … until a top-level name refers to it.

    Memory is identified by its root numpy buffer, so a tensor and the array bridged to it by
    `from_numpy`/`.numpy()` get the same label."""

    def __init__(self) -> None:
        self._labels: dict[int, tuple[weakref.ref, str]] = {}
        self._counts = {"S": 0, "G": 0}

    def label(self, root: np.ndarray, named: bool = True) -> str:
        known = self._labels.get(id(root))
        if known is not None and known[0]() is root and (known[1][0] == "S" or not named):
            return known[1]
        prefix = "S" if named else "G"
        text = f"{prefix}{self._counts[prefix]}"
        self._counts[prefix] += 1
        self._labels[id(root)] = (weakref.ref(root), text)
        return text


def root_buffer(array: np.ndarray) -> np.ndarray:
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _round(value: Any) -> Any:
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return float(f"{value:.6g}")
    return value


NUMBER_KINDS = "biuf"  # bool, int, unsigned, float: kept as numbers
TEXT_KINDS = "U"  # str: kept as strings


def plain_values(array: np.ndarray) -> Any:
    """Nested lists of numbers, floats rounded to 6 significant digits (the trace's contract);
    str arrays as strings. Only for the kinds `keeps_values` accepts."""
    if array.dtype.kind == "f" and array.dtype.itemsize > 8:
        array = array.astype(np.float64)  # long double: Python has no such float
    values = array.tolist()

    def walk(item: Any) -> Any:
        return [walk(x) for x in item] if isinstance(item, list) else _round(item)

    return walk(values)


def keeps_values(array: np.ndarray) -> bool:
    """Whether an array's elements become plain JSON values (numbers, bools, strings)."""
    return not array.dtype.hasobject and array.dtype.kind in NUMBER_KINDS + TEXT_KINDS


def array_summary(array: np.ndarray) -> str:
    """The printed text of an array whose values are not kept. numpy prints complex, bytes,
    datetimes and records itself; objects are only named by type, since printing them would run
    their own code."""
    if array.dtype.hasobject:
        kinds = sorted({type(item).__name__ for item in array.flat[:VALUES_LIMIT]})
        more = ", …" if array.size > VALUES_LIMIT else ""
        return (f"array of {array.size} Python object{'s' if array.size != 1 else ''}"
                + (f" ({', '.join(kinds)}{more})" if kinds else "") + ": values not shown")
    return np.array2string(array, threshold=VALUES_LIMIT, edgeitems=SUMMARY_EDGE_ITEMS)


SUMMARY_EDGE_ITEMS = 3
VALUES_REMEMBERED = 256  # plain value lists shared by content (a clone shares its source's)


def array_state(array: np.ndarray) -> Any:
    """What an ndarray's record depends on beyond its shape, dtype and memory: its elements as
    bytes, past VALUES_LIMIT only the edge items numpy's summary prints (with numpy's print
    options, which shape that text). Object arrays are described afresh every step: their items
    can change without their bytes changing."""
    if array.dtype.hasobject:
        return object()  # equal to nothing
    if array.size <= VALUES_LIMIT:
        return array.tobytes()
    index = [np.r_[0:SUMMARY_EDGE_ITEMS, n - SUMMARY_EDGE_ITEMS:n] if n > 2 * SUMMARY_EDGE_ITEMS else np.arange(n)
             for n in array.shape]
    return array[np.ix_(*index)].tobytes(), tuple(sorted(np.get_printoptions().items(), key=lambda item: item[0]))


def named_objects(namespace: dict[str, Any]) -> list[tuple[str, Any]]:
    """Top-level tensors and ndarrays by name, sorted; then the parameters and buffers of modules
    (`model.0.weight`), so labels of top-level names follow the trace's numbering rule."""
    found: list[tuple[str, Any]] = []
    members: list[tuple[str, Any]] = []
    paddle = _paddle_inspect()
    for name in sorted(namespace):
        value = namespace[name]
        if isinstance(value, (engine.Tensor, np.ndarray)) or (paddle is not None and paddle.is_tensor(value)):
            found.append((name, value))
        elif isinstance(value, Module):
            members.extend(_module_members(name, value))
        elif paddle is not None and isinstance(value, _paddle_layer()):
            members.extend(_layer_members(name, value, paddle))
    return found + members


def _paddle_inspect() -> Any:
    """engine.paddle.inspect, once a Paddle-dialect program has imported paddle (else None)."""
    if "engine.paddle" not in sys.modules:
        return None
    import engine.paddle.inspect

    return engine.paddle.inspect


def _module_members(name: str, module: Module) -> list[tuple[str, Any]]:
    """A module's parameters and buffers; a user's Module subclass may have broken these methods,
    and looking must never fail because of it."""
    try:
        found = [(f"{name}.{sub}", p) for sub, p in Module.named_parameters(module)]
        found.extend((f"{name}.{sub}", b) for sub, b in Module.named_buffers(module))
    except Exception:  # noqa: BLE001 - user code; the module simply shows no members
        return []
    return [(member, value) for member, value in found if isinstance(value, engine.Tensor)]


def _paddle_layer() -> type:
    from engine.paddle.nn.layer import Layer

    return Layer


def _layer_members(name: str, layer: Any, paddle: Any) -> list[tuple[str, Any]]:
    """A Paddle layer's parameters and buffers (`fc.weight`, `bn._mean`), as a torch module's."""
    layer_class = _paddle_layer()
    try:
        found = [(f"{name}.{sub}", p) for sub, p in layer_class.named_parameters(layer)]
        found.extend((f"{name}.{sub}", b) for sub, b in layer_class.named_buffers(layer))
    except Exception:  # noqa: BLE001 - user code; the layer simply shows no members
        return []
    return [(member, value) for member, value in found if paddle.is_tensor(value)]


def shared(new: dict[str, Any], old: dict[str, Any] | None) -> dict[str, Any]:
    """`old` itself when `new` holds the very same items in the same order, else `new`."""
    if old is None or len(new) != len(old):
        return new
    for (key, value), (old_key, old_value) in zip(new.items(), old.items(), strict=True):
        if key != old_key or (value is not old_value and value != old_value):
            return new
    return old


class SnapshotTaker:
    """Builds Snapshots for one run, keeping storage labels stable from step to step and every
    record that did not change."""

    def __init__(self, labels: StorageLabels | None = None) -> None:
        self.labels = labels or StorageLabels()
        self._records: dict[str, tuple[tuple[Any, ...], ObjectInfo]] = {}  # last step's, by name
        self._nodes: dict[int, tuple[weakref.ref | None, tuple[Any, ...], NodeInfo]] = {}  # last step's, by node
        self._previous: Snapshot | None = None
        self._values: dict[tuple[Any, ...], Any] = {}  # (shape, dtype, bytes) -> plain values

    def afresh(self) -> SnapshotTaker:
        """A taker with this one's storage labels and nothing else remembered: what it takes is
        the step described from scratch (to check that keeping records changes nothing)."""
        return SnapshotTaker(labels=self.labels)

    def values_of(self, array: np.ndarray, content: bytes | None = None) -> Any:
        """plain_values, remembered by content: tensors with equal values share one list."""
        key = (array.shape, array.dtype.str, array.tobytes() if content is None else content)
        found = self._values.get(key)
        if found is None:
            if len(self._values) >= VALUES_REMEMBERED:
                self._values.clear()
            found = self._values[key] = plain_values(array)
        return found

    def take(self, step: int, source: str, namespace: dict[str, Any], output: str | None,
             error: ErrorInfo | None, warnings: tuple[str, ...], peak_bytes: int) -> Snapshot:
        previous = self._previous
        objects: dict[str, ObjectInfo] = {}
        records: dict[str, tuple[tuple[Any, ...], ObjectInfo]] = {}
        storages: dict[str, list[Any]] = {}  # label -> [nbytes, dtype, numel, viewers]
        tensors: dict[str, engine.Tensor] = {}
        bound = list(named_objects(namespace))
        for name, value in bound:  # memory a name holds takes its S label before any record is made, so
            if "." not in name:  # a grad described earlier in the loop (`b = a.grad`) already shows it
                if isinstance(value, np.ndarray):
                    self.labels.label(root_buffer(value))
                else:
                    self.storage_label(value if isinstance(value, engine.Tensor) else value._t)
        for name, value in bound:
            top_level = "." not in name  # module members label like memory no name refers to (G…)
            if type(value) is np.ndarray or isinstance(value, np.ndarray):
                state, info = self._array(name, value)
                entry = storages.get(info.storage)
                if entry is None:
                    root = root_buffer(value)
                    storages[info.storage] = [root.nbytes, info.dtype, root.size, [name]]
                else:
                    entry[3].append(name)
            else:
                tensor = value if isinstance(value, engine.Tensor) else value._t
                tensors[name] = tensor
                state, info = self._tensor(name, value, tensor, top_level)
                entry = storages.get(info.storage)
                if entry is None:
                    storages[info.storage] = [0, info.dtype, 0, [name]]
                else:
                    entry[3].append(name)
                entry = storages[info.storage]
                entry[0], entry[2] = inspect.storage_nbytes(tensor), inspect.storage_numel(tensor)
            records[name] = (state, info)
            objects[name] = info
        self._records = records
        graph = self._graph(inspect.graph(tensors.values()), tensors, previous)
        old_storages = previous.storages if previous is not None else {}
        storage_infos = {}
        for label, (nbytes, dtype, numel, viewers) in storages.items():
            old = old_storages.get(label)
            if (old is None or old.nbytes != nbytes or old.numel != numel or old.dtype != dtype
                    or old.viewers != tuple(viewers)):
                old = StorageInfo(label, nbytes, dtype, numel, tuple(viewers))
            storage_infos[label] = old
        memory = self._memory(tensors, objects, graph.saved_tensors, peak_bytes, previous)
        snapshot = Snapshot(step, source, output, error, warnings,
                            shared(objects, previous.objects if previous else None),
                            shared(storage_infos, previous.storages if previous else None),
                            graph.nodes, memory)
        self._previous = snapshot
        return snapshot

    # ------------------------------------------------------------------ objects
    def storage_label(self, tensor: engine.Tensor, named: bool = True) -> str:
        return self.labels.label(root_buffer(inspect.storage_buffer(tensor)), named)

    def _tensor(self, name: str, value: Any, t: engine.Tensor,
                top_level: bool) -> tuple[tuple[Any, ...], ObjectInfo]:
        """The record of an engine tensor or a Paddle-dialect one (`value`, over engine tensor t),
        the previous one when its state is the same."""
        label = self.storage_label(t, top_level)
        grad = inspect.grad_of(t)
        grad_state = None
        if grad is not None:
            grad_state = (self.storage_label(grad, named=False), inspect.observed_state(grad, VALUES_LIMIT))
        state = (label, inspect.observed_state(t, VALUES_LIMIT), grad_state)
        if value is not t:
            paddle = _paddle_inspect()
            state += (paddle.requires_grad(value), paddle.version(value), paddle.grad_fn_name(value),
                      bool(value.is_leaf), paddle.is_parameter(value))
        known = self._records.get(name)
        if known is not None and known[0] == state:
            return known
        info = self._describe_tensor(name, t, label, grad, grad_state, state[1][-1], state[1][-3])
        if value is not t:
            info = self._paddle_flags(info, value)
        return state, info

    def _describe_tensor(self, name: str, t: engine.Tensor, label: str, grad: engine.Tensor | None,
                         grad_state: tuple[Any, ...] | None, content: bytes, grad_fn: str | None) -> ObjectInfo:
        """`grad_fn` as observed_state read it: reading it again may give another answer (a view's
        history rebuilt on that first read, which may have failed)."""
        values, summary = self._tensor_values(t, content)
        return ObjectInfo(
            name=name, kind="tensor", shape=tuple(t.shape), dtype=t.dtype.name, storage=label,
            values=values, summary=summary, stride=tuple(t.stride()), storage_offset=t.storage_offset(),
            version=inspect.version(t), requires_grad=t.requires_grad, is_leaf=inspect.is_leaf(t),
            grad_fn=grad_fn, is_view=t._is_view(), is_parameter=isinstance(t, engine.nn.Parameter),
            grad=None if grad is None else self._tensor_values(grad, grad_state[1][-1])[0],
            grad_storage=None if grad_state is None else grad_state[0],
            covered=inspect.covered_span(t), elements=inspect.covered_elements(t, COVERAGE_LIMIT),
            numel=t.numel(), nbytes=t.numel() * t.element_size(), device=inspect.device_name(t))

    def _paddle_flags(self, info: ObjectInfo, value: Any) -> ObjectInfo:
        """A Paddle-dialect tensor: memory from its engine tensor, flags as Paddle reports them
        (requires_grad is `not stop_gradient`, the version is `inplace_version`, grad_fn Paddle's name)."""
        paddle = _paddle_inspect()
        return replace(info, requires_grad=paddle.requires_grad(value), version=paddle.version(value),
                       grad_fn=paddle.grad_fn_name(value), is_leaf=bool(value.is_leaf),
                       is_parameter=paddle.is_parameter(value))

    def _array(self, name: str, array: np.ndarray) -> tuple[tuple[Any, ...], ObjectInfo]:
        label = self.labels.label(root_buffer(array))
        state = ("ndarray", array.shape, array.dtype, label, array_state(array))
        known = self._records.get(name)
        if known is not None and known[0] == state:
            return known
        kept = array.size <= VALUES_LIMIT and keeps_values(array)
        return state, ObjectInfo(
            name=name, kind="ndarray", shape=tuple(array.shape), dtype=array.dtype.name, storage=label,
            values=self.values_of(array, state[-1] if kept else None) if kept else None,
            summary=None if kept else array_summary(array),
            numel=int(array.size), nbytes=int(array.nbytes))

    def _tensor_values(self, t: engine.Tensor, content: bytes) -> tuple[Any, str | None]:
        if t.numel() <= VALUES_LIMIT:
            return self.values_of(inspect.values(t), content), None
        return None, repr(t.detach())

    # ------------------------------------------------------------------ graph
    def _graph(self, nodes: list[inspect.NodeInfo], tensors: dict[str, engine.Tensor],
               previous: Snapshot | None) -> _Graph:
        """The graph's records; a node whose record came out the same as last step keeps it."""
        if not nodes:
            self._nodes = {}
            return _Graph((), [])
        ids = {id(info.node): f"N{i}" for i, info in enumerate(nodes)}
        outputs: dict[int, list[str]] = {}
        by_identity: dict[int, str] = {}
        by_view: dict[tuple[Any, ...], list[str]] = {}
        for name, t in tensors.items():
            fn = inspect.safe_grad_fn(t)
            if fn is not None:
                outputs.setdefault(id(fn), []).append(name)
            by_identity.setdefault(id(t), name)
            by_view.setdefault(inspect.view_identity(t), []).append(name)
        known = self._nodes
        kept: dict[int, tuple[weakref.ref | None, tuple[Any, ...], NodeInfo]] = {}
        result = []
        saved_tensors: list[engine.Tensor] = []
        for info in nodes:
            node = info.node
            saved = tuple(self._saved(s, by_view) for s in info.saved)
            saved_tensors.extend(s.tensor for s in info.saved if s.tensor is not None)
            key = (ids[id(node)], info.name,
                   tuple((ids.get(id(child)) if child is not None else None, nr) for child, nr in info.next_functions),
                   saved, None if info.variable is None else by_identity.get(id(info.variable)),
                   tuple(outputs.get(id(node), ())))
            before = known.get(id(node))
            if before is not None and before[0] is not None and before[0]() is node and before[1] == key:
                ref, record = before[0], before[2]
            else:
                ref = _weak(node)
                record = NodeInfo(key[0], key[1], key[2], tuple(SavedInfo(*fields) for fields in saved), key[4], key[5])
            kept[id(node)] = (ref, key, record)
            result.append(record)
        self._nodes = kept
        graph = tuple(result)
        before_graph = previous.graph if previous is not None else ()
        if len(graph) == len(before_graph) and all(a is b for a, b in zip(graph, before_graph, strict=True)):
            graph = before_graph
        return _Graph(graph, saved_tensors)

    def _saved(self, saved: inspect.SavedInfo, by_view: dict[tuple[Any, ...], list[str]]) -> tuple[Any, ...]:
        """A saved tensor's record, as the fields of SavedInfo (a tuple is cheap to compare)."""
        names: tuple[str, ...] = ()
        storage = None
        if saved.tensor is not None:
            names = tuple(by_view.get(inspect.view_identity(saved.tensor), ()))
            storage = self.storage_label(saved.tensor, named=False)
        return (saved.field, saved.saved_version, saved.current_version, saved.released, saved.is_output, names,
                saved.shape, storage)

    # ------------------------------------------------------------------ memory
    def _memory(self, tensors: dict[str, engine.Tensor], objects: dict[str, ObjectInfo],
                saved_tensors: Iterable[engine.Tensor], peak_bytes: int, previous: Snapshot | None) -> MemoryInfo:
        """Live bytes of storages reachable from names, grads and the graph's saved tensors, on the
        host and on the simulated device (the labels of named tensors and their grads are their
        records')."""
        by_storage: dict[str, int] = {}  # host memory: live and peak count these
        on_device: dict[str, int] = {}  # the simulated device's: its allocator counts them

        def count(t: engine.Tensor, label: str) -> None:
            place = on_device if inspect.on_device(t) else by_storage
            place.setdefault(label, inspect.storage_nbytes(t))

        for name, t in tensors.items():
            info = objects[name]
            count(t, info.storage)
            if info.grad_storage is not None:
                count(inspect.grad_of(t), info.grad_storage)
        for saved in saved_tensors:
            count(saved, self.storage_label(saved, named=False))
        allocated = sum(by_storage.values())
        before = previous.memory if previous is not None else None
        memory = MemoryInfo(allocated, max(peak_bytes, allocated),
                            shared(by_storage, before.by_storage if before else None), inspect.cuda_memory(),
                            shared(on_device, before.device_by_storage if before else None))
        if before is not None and memory == before:
            return before
        return memory


def _weak(node: Any) -> weakref.ref | None:
    """A weak reference to a graph node, None for a node type that takes none (then it is not kept)."""
    try:
        return weakref.ref(node)
    except TypeError:
        return None


class _Graph:
    """One step's graph records and the tensors its nodes saved (for the memory figures)."""

    __slots__ = ("nodes", "saved_tensors")

    def __init__(self, nodes: tuple[NodeInfo, ...], saved_tensors: list[engine.Tensor]) -> None:
        self.nodes = nodes
        self.saved_tensors = saved_tensors
