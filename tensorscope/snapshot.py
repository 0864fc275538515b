"""Snapshot: everything a person would want to see after one statement, as immutable plain data.

A Snapshot is taken from the interpreter's namespace through `engine.inspect` (never private engine
attributes; see `tensorscope.snapshot_taker`) and holds no engine objects, so renderers (trace,
text report, REPL, the explorer) can keep old ones for time travel. Large tensors are summarised,
never copied. Snapshots of consecutive steps share every part that did not change (records, maps,
graph nodes): treat them as read-only.

This module is plain data: reading snapshots (the front ends, the wire format) imports no engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tensorscope.interpreter.results import ErrorInfo

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
