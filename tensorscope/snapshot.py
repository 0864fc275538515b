"""Snapshot: everything a person would want to see after one statement, as immutable plain data.

A Snapshot is taken from the interpreter's namespace through `engine.inspect` (never private engine
attributes) and holds no engine objects, so renderers (trace, text report, REPL, the explorer) can
keep old ones for time travel. Large tensors are summarised, never copied.
"""

from __future__ import annotations

import math
import sys
import weakref
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

import engine
import engine.inspect as inspect
from engine.nn import Module
from tensorscope.interpreter import ErrorInfo

VALUES_LIMIT = 1000  # torch prints every element up to this many; beyond it we keep a summary
COVERAGE_LIMIT = 4096  # exact element lists for storages up to this size, spans beyond


@dataclass(frozen=True)
class ObjectInfo:
    """A named tensor or ndarray (module parameters appear as `model.fc.weight`)."""

    name: str
    kind: str  # "tensor" | "ndarray"
    shape: tuple[int, ...]
    dtype: str
    storage: str
    values: Any  # nested lists (numel <= VALUES_LIMIT), else None
    summary: str | None = None  # torch-style printed text when values are not kept
    stride: tuple[int, ...] = ()
    storage_offset: int = 0
    version: int = 0
    requires_grad: bool = False
    is_leaf: bool = True
    grad_fn: str | None = None
    is_view: bool = False
    is_parameter: bool = False
    grad: Any = None
    grad_storage: str | None = None
    covered: tuple[int, int] = (0, -1)  # first and last storage element it can touch
    elements: tuple[int, ...] | None = None  # every storage element it covers, when small enough
    numel: int = 0
    nbytes: int = 0
    device: str = "cpu"  # where its memory is: "cpu", or "cuda:0" for the simulated device


@dataclass(frozen=True)
class StorageInfo:
    label: str
    nbytes: int
    dtype: str
    numel: int
    viewers: tuple[str, ...]  # names of the objects living in this memory


@dataclass(frozen=True)
class SavedInfo:
    field: str
    saved_version: int
    current_version: int | None
    released: bool
    is_output: bool
    names: tuple[str, ...]  # the user's names for the saved tensor, if any
    shape: tuple[int, ...]
    storage: str | None

    @property
    def stale(self) -> bool:
        return self.current_version is not None and self.current_version != self.saved_version


@dataclass(frozen=True)
class NodeInfo:
    id: str  # "N0", "N1"... within one snapshot
    name: str
    next: tuple[tuple[str | None, int], ...]
    saved: tuple[SavedInfo, ...]
    variable: str | None  # for AccumulateGrad: the leaf's name
    outputs: tuple[str, ...]  # names of tensors whose grad_fn this node is


@dataclass(frozen=True)
class MemoryInfo:
    allocated_bytes: int
    peak_bytes: int
    by_storage: dict[str, int] = field(default_factory=dict)
    cuda: dict[str, int] | None = None  # the simulated device: allocated, max_allocated, reserved, max_reserved
    device_by_storage: dict[str, int] = field(default_factory=dict)  # the simulated device's storages, as by_storage


@dataclass(frozen=True)
class Snapshot:
    step: int
    source: str
    output: str | None
    error: ErrorInfo | None
    warnings: tuple[str, ...]
    objects: dict[str, ObjectInfo]
    storages: dict[str, StorageInfo]
    graph: tuple[NodeInfo, ...]
    memory: MemoryInfo

    def stale_saved(self) -> list[tuple[NodeInfo, SavedInfo]]:
        return [(node, saved) for node in self.graph for saved in node.saved if saved.stale]


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
    return np.array2string(array, threshold=VALUES_LIMIT, edgeitems=3)


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


class SnapshotTaker:
    """Builds Snapshots for one run, keeping storage labels stable from step to step."""

    def __init__(self) -> None:
        self.labels = StorageLabels()
        self._values: dict[tuple[Any, ...], Any] = {}  # (shape, dtype, bytes) -> plain values

    def values_of(self, array: np.ndarray) -> Any:
        """plain_values, remembered by content: most tensors do not change from step to step."""
        key = (array.shape, array.dtype.str, array.tobytes())
        found = self._values.get(key)
        if found is None:
            if len(self._values) > 4096:
                self._values.clear()
            found = self._values[key] = plain_values(array)
        return found

    def take(self, step: int, source: str, namespace: dict[str, Any], output: str | None,
             error: ErrorInfo | None, warnings: tuple[str, ...], peak_bytes: int) -> Snapshot:
        objects: dict[str, ObjectInfo] = {}
        storages: dict[str, dict[str, Any]] = {}
        tensors: dict[str, engine.Tensor] = {}
        for name, value in named_objects(namespace):
            top_level = "." not in name  # module members label like memory no name refers to (G…)
            if isinstance(value, engine.Tensor):
                info = self._tensor(name, value, top_level)
                tensors[name] = value
            elif isinstance(value, np.ndarray):
                info = self._array(name, value)
            else:
                info, tensors[name] = self._paddle_tensor(name, value, top_level), value._t
                value = value._t
            objects[name] = info
            entry = storages.setdefault(info.storage, {"nbytes": 0, "dtype": info.dtype, "numel": 0, "viewers": []})
            entry["viewers"].append(name)
            if isinstance(value, engine.Tensor):
                entry["nbytes"] = inspect.storage_nbytes(value)
                entry["numel"] = inspect.storage_numel(value)
            elif entry["nbytes"] == 0:
                root = root_buffer(value)
                entry.update(nbytes=root.nbytes, numel=root.size)
        nodes = inspect.graph(tensors.values())
        graph = self._graph(nodes, tensors)
        storage_infos = {label: StorageInfo(label, e["nbytes"], e["dtype"], e["numel"], tuple(e["viewers"]))
                         for label, e in storages.items()}
        memory = self._memory(tensors, nodes, peak_bytes)
        return Snapshot(step, source, output, error, warnings, objects, storage_infos, graph, memory)

    # ------------------------------------------------------------------ objects
    def storage_label(self, tensor: engine.Tensor, named: bool = True) -> str:
        return self.labels.label(root_buffer(inspect.storage_buffer(tensor)), named)

    def _tensor(self, name: str, t: engine.Tensor, top_level: bool = True) -> ObjectInfo:
        values, summary = self._tensor_values(t)
        grad = inspect.grad_of(t)
        covered = inspect.covered_span(t)
        elements = inspect.covered_elements(t, COVERAGE_LIMIT)
        return ObjectInfo(
            name=name, kind="tensor", shape=tuple(t.shape), dtype=t.dtype.name,
            storage=self.storage_label(t, top_level),
            values=values, summary=summary, stride=tuple(t.stride()), storage_offset=t.storage_offset(),
            version=inspect.version(t), requires_grad=t.requires_grad, is_leaf=inspect.is_leaf(t),
            grad_fn=inspect.grad_fn_name(t), is_view=t._is_view(), is_parameter=isinstance(t, engine.nn.Parameter),
            grad=None if grad is None else self._tensor_values(grad)[0],
            grad_storage=None if grad is None else self.storage_label(grad, named=False),
            covered=covered, elements=elements,
            numel=t.numel(), nbytes=t.numel() * t.element_size(), device=inspect.device_name(t))

    def _paddle_tensor(self, name: str, value: Any, top_level: bool) -> ObjectInfo:
        """A Paddle-dialect tensor: memory from its engine tensor, flags as Paddle reports them
        (requires_grad is `not stop_gradient`, the version is `inplace_version`, grad_fn Paddle's name)."""
        paddle = _paddle_inspect()
        info = self._tensor(name, paddle.engine_tensor(value), top_level)
        grad = paddle.grad_of(value)
        return replace(info, requires_grad=paddle.requires_grad(value), version=paddle.version(value),
                       grad_fn=paddle.grad_fn_name(value), is_leaf=bool(value.is_leaf),
                       is_parameter=paddle.is_parameter(value),
                       grad=None if grad is None else self._tensor_values(grad)[0])

    def _array(self, name: str, array: np.ndarray) -> ObjectInfo:
        kept = array.size <= VALUES_LIMIT and keeps_values(array)
        return ObjectInfo(
            name=name, kind="ndarray", shape=tuple(array.shape), dtype=array.dtype.name,
            storage=self.labels.label(root_buffer(array)),
            values=self.values_of(array) if kept else None,
            summary=None if kept else array_summary(array),
            numel=int(array.size), nbytes=int(array.nbytes))

    # ------------------------------------------------------------------ graph
    def _graph(self, nodes: list[inspect.NodeInfo], tensors: dict[str, engine.Tensor]) -> tuple[NodeInfo, ...]:
        ids = {id(info.node): f"N{i}" for i, info in enumerate(nodes)}
        outputs: dict[int, list[str]] = {}
        for name, t in tensors.items():
            fn = inspect.safe_grad_fn(t)
            if fn is not None:
                outputs.setdefault(id(fn), []).append(name)
        result = []
        for info in nodes:
            saved = tuple(self._saved(s, tensors) for s in info.saved)
            variable = None
            if info.variable is not None:
                variable = next((n for n, t in tensors.items() if t is info.variable), None)
            result.append(NodeInfo(
                id=ids[id(info.node)], name=info.name,
                next=tuple((ids.get(id(child)) if child is not None else None, nr) for child, nr in info.next_functions),
                saved=saved, variable=variable, outputs=tuple(outputs.get(id(info.node), ()))))
        return tuple(result)

    def _saved(self, saved: inspect.SavedInfo, tensors: dict[str, engine.Tensor]) -> SavedInfo:
        names: tuple[str, ...] = ()
        storage = None
        if saved.tensor is not None:
            names = tuple(name for name, t in tensors.items() if inspect.same_tensor_view(t, saved.tensor))
            storage = self.storage_label(saved.tensor, named=False)
        return SavedInfo(saved.field, saved.saved_version, saved.current_version, saved.released, saved.is_output,
                         names, saved.shape, storage)

    # ------------------------------------------------------------------ memory
    def _memory(self, tensors: dict[str, engine.Tensor], nodes: list[inspect.NodeInfo],
                peak_bytes: int) -> MemoryInfo:
        """Live bytes of storages reachable from names, grads and the graph's saved tensors."""
        by_storage: dict[str, int] = {}  # host memory: live and peak count these
        on_device: dict[str, int] = {}  # the simulated device's: its allocator counts them

        def count(t: engine.Tensor, named: bool) -> None:
            place = on_device if inspect.on_device(t) else by_storage
            place.setdefault(self.storage_label(t, named), inspect.storage_nbytes(t))

        for name, t in tensors.items():
            count(t, "." not in name)
            grad = inspect.grad_of(t)
            if grad is not None:
                count(grad, False)
        for info in nodes:
            for saved in info.saved:
                if saved.tensor is not None:
                    count(saved.tensor, False)
        allocated = sum(by_storage.values())
        return MemoryInfo(allocated, max(peak_bytes, allocated), by_storage, inspect.cuda_memory(), on_device)


    def _tensor_values(self, t: engine.Tensor) -> tuple[Any, str | None]:
        if t.numel() <= VALUES_LIMIT:
            return self.values_of(inspect.values(t)), None
        return None, repr(t.detach())
