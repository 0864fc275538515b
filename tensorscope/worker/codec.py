"""The wire format between a front end and its worker: JSON lines, never pickle.

Each message is one JSON object on one line (`ensure_ascii`, so a line never holds a raw newline
and lone surrogates travel as `\\udXXX` escapes). Snapshots travel as plain lists in the field
order of their dataclasses; both ends run the same code (the worker imports the parent's package),
so the order is shared.

A snapshot is sent as what changed since the previous snapshot sent on the channel: a map
(objects, storages, memory by storage) as the entries whose record differs, plus its keys in
order only when they differ; the graph as the nodes that differ, by position; a part that did not
change at all as "=". Encoder and decoder each remember the last snapshot that crossed, so they
agree on what a delta applies to (a fresh worker starts both afresh), and the decoder hands back
the previous snapshot's own records, maps and nodes for what did not change, so consecutive
snapshots share them at the front end as they do in the worker: a step costs the channel and the
front end what it changed, plus its scalars.
"""

from __future__ import annotations

import json
import sys
from dataclasses import astuple
from typing import Any

from tensorscope.interpreter import ErrorInfo, Statement
from tensorscope.snapshot import MemoryInfo, NodeInfo, ObjectInfo, SavedInfo, Snapshot, StorageInfo

UNCHANGED = "="


def dumps(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii") + b"\n"


def loads(line: bytes) -> dict[str, Any]:
    message = json.loads(line)
    if not isinstance(message, dict):
        raise ValueError("a message must be a JSON object")
    return message


# ------------------------------------------------------------------ small records
def error_record(error: ErrorInfo | None) -> list[str] | None:
    return None if error is None else [error.type, error.message]


def error_from(record: list[str] | None) -> ErrorInfo | None:
    return None if record is None else ErrorInfo(record[0], record[1])


def statement_record(statement: Statement) -> list[Any]:
    return [statement.source, statement.lineno, statement.exact]


def statement_from(record: list[Any]) -> Statement:
    return Statement(record[0], record[1], record[2])


# ------------------------------------------------------------------ snapshots
def _object_record(info: ObjectInfo) -> list[Any]:
    return [info.name, info.kind, info.shape, info.dtype, info.storage, info.values, info.summary, info.stride,
            info.storage_offset, info.version, info.requires_grad, info.is_leaf, info.grad_fn, info.is_view,
            info.is_parameter, info.grad, info.grad_storage, info.covered, info.elements, info.numel, info.nbytes,
            info.device]


def _object_from(r: list[Any]) -> ObjectInfo:
    return ObjectInfo(
        name=r[0], kind=r[1], shape=tuple(r[2]), dtype=r[3], storage=r[4], values=r[5], summary=r[6],
        stride=tuple(r[7]), storage_offset=r[8], version=r[9], requires_grad=r[10], is_leaf=r[11], grad_fn=r[12],
        is_view=r[13], is_parameter=r[14], grad=r[15], grad_storage=r[16], covered=(r[17][0], r[17][1]),
        elements=None if r[18] is None else tuple(r[18]), numel=r[19], nbytes=r[20], device=r[21])


def _node_record(node: NodeInfo) -> list[Any]:
    return [node.id, node.name, node.next, [astuple(saved) for saved in node.saved], node.variable, node.outputs]


def _saved_from(r: list[Any]) -> SavedInfo:
    return SavedInfo(r[0], r[1], r[2], r[3], r[4], tuple(r[5]), tuple(r[6]), r[7])


def _node_from(r: list[Any]) -> NodeInfo:
    return NodeInfo(r[0], r[1], tuple((child, nr) for child, nr in r[2]), tuple(_saved_from(s) for s in r[3]),
                    r[4], tuple(r[5]))


def _map_delta(new: dict[str, Any], old: dict[str, Any], record: Any) -> Any:
    """`new` as changes to `old`: "=" when it is the same map, else {"set": {key: record}} for the
    entries that differ, with "keys" (in order) when the keys or their order differ."""
    if new is old:
        return UNCHANGED
    changed = {key: record(value) for key, value in new.items()
               if key not in old or (old[key] is not value and old[key] != value)}
    delta: dict[str, Any] = {"set": changed}
    if len(new) != len(old) or any(a != b for a, b in zip(new, old, strict=False)):
        delta["keys"] = list(new)
    elif not changed:
        return UNCHANGED
    return delta


def _map_from(delta: Any, old: dict[str, Any], build: Any) -> dict[str, Any]:
    """The map `_map_delta` describes, sharing `old`'s values (and `old` itself when unchanged)."""
    if delta == UNCHANGED:
        return old
    changed = delta["set"]
    keys = map(sys.intern, delta["keys"]) if "keys" in delta else old  # one str per name, not one per step
    return {key: build(changed[key]) if key in changed else old[key] for key in keys}


def _storage_record(storage: StorageInfo) -> list[Any]:
    return [storage.label, storage.nbytes, storage.dtype, storage.numel, storage.viewers]


def _storage_from(r: list[Any]) -> StorageInfo:
    return StorageInfo(r[0], r[1], r[2], r[3], tuple(r[4]))


EMPTY = Snapshot(-1, "", None, None, (), {}, {}, (), MemoryInfo(0, 0, {}, None))  # what the first delta applies to


class SnapshotEncoder:
    """Snapshots to changes since the previous one sent (the worker's end)."""

    def __init__(self) -> None:
        self._previous = EMPTY

    def encode(self, snap: Snapshot) -> dict[str, Any]:
        before = self._previous
        self._previous = snap
        memory, old_memory = snap.memory, before.memory
        graph: Any = UNCHANGED
        if snap.graph is not before.graph and snap.graph != before.graph:
            graph = [len(snap.graph), [[index, _node_record(node)] for index, node in enumerate(snap.graph)
                                       if index >= len(before.graph) or before.graph[index] != node]]
        return {
            "step": snap.step, "source": snap.source, "output": snap.output, "error": error_record(snap.error),
            "warnings": snap.warnings,
            "objects": _map_delta(snap.objects, before.objects, _object_record),
            "storages": _map_delta(snap.storages, before.storages, _storage_record),
            "graph": graph,
            "memory": UNCHANGED if memory is old_memory or memory == old_memory else
            [memory.allocated_bytes, memory.peak_bytes, _map_delta(memory.by_storage, old_memory.by_storage, int),
             memory.cuda, _map_delta(memory.device_by_storage, old_memory.device_by_storage, int)],
        }


class SnapshotDecoder:
    """Changes back to Snapshots (the front end's end), sharing what did not change."""

    def __init__(self) -> None:
        self._previous = EMPTY

    def decode(self, record: dict[str, Any]) -> Snapshot:
        before = self._previous
        graph = before.graph
        if record["graph"] != UNCHANGED:
            length, changed = record["graph"]
            nodes = list(graph[:length]) + [None] * max(0, length - len(graph))
            for index, fields in changed:
                nodes[index] = _node_from(fields)
            graph = tuple(nodes)
        memory = before.memory
        if record["memory"] != UNCHANGED:
            allocated, peak, by_storage, cuda, on_device = record["memory"]
            memory = MemoryInfo(allocated, peak, _map_from(by_storage, memory.by_storage, int), cuda,
                                _map_from(on_device, memory.device_by_storage, int))
        snapshot = Snapshot(
            step=record["step"], source=record["source"], output=record["output"], error=error_from(record["error"]),
            warnings=tuple(record["warnings"]),
            objects=_map_from(record["objects"], before.objects, _object_from),
            storages=_map_from(record["storages"], before.storages, _storage_from),
            graph=graph, memory=memory)
        self._previous = snapshot
        return snapshot
