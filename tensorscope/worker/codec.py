"""The wire format between a front end and its worker: JSON lines, never pickle.

Each message is one JSON object on one line (`ensure_ascii`, so a line never holds a raw newline
and lone surrogates travel as `\\udXXX` escapes). Snapshots travel as plain lists in the field
order of their dataclasses; both ends run the same code (the worker imports the parent's package),
so the order is shared.

An object record that equals the record of the same name in the previous snapshot sent on the
channel is sent as the string "=" instead of its fields: most objects do not change from one step
to the next. Encoder and decoder each remember the last snapshot that crossed, so they agree on
what "=" refers to; a fresh worker starts both afresh.
"""

from __future__ import annotations

import json
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


class SnapshotEncoder:
    """Snapshots to plain lists, unchanged object records as "=" (the worker's end)."""

    def __init__(self) -> None:
        self._previous: dict[str, ObjectInfo] = {}

    def encode(self, snap: Snapshot) -> dict[str, Any]:
        objects: dict[str, Any] = {}
        for name, info in snap.objects.items():
            objects[name] = UNCHANGED if self._previous.get(name) == info else _object_record(info)
        self._previous = snap.objects
        memory = snap.memory
        return {
            "step": snap.step, "source": snap.source, "output": snap.output, "error": error_record(snap.error),
            "warnings": snap.warnings, "objects": objects,
            "storages": [[s.label, s.nbytes, s.dtype, s.numel, s.viewers] for s in snap.storages.values()],
            "graph": [_node_record(node) for node in snap.graph],
            "memory": [memory.allocated_bytes, memory.peak_bytes, memory.by_storage, memory.cuda,
                       memory.device_by_storage],
        }


class SnapshotDecoder:
    """Plain lists back to Snapshots (the front end's end); "=" reuses the previous record."""

    def __init__(self) -> None:
        self._previous: dict[str, ObjectInfo] = {}

    def decode(self, record: dict[str, Any]) -> Snapshot:
        objects = {name: self._previous[name] if fields == UNCHANGED else _object_from(fields)
                   for name, fields in record["objects"].items()}
        self._previous = objects
        allocated, peak, by_storage, cuda, device_by_storage = record["memory"]
        return Snapshot(
            step=record["step"], source=record["source"], output=record["output"], error=error_from(record["error"]),
            warnings=tuple(record["warnings"]), objects=objects,
            storages={s[0]: StorageInfo(s[0], s[1], s[2], s[3], tuple(s[4])) for s in record["storages"]},
            graph=tuple(_node_from(node) for node in record["graph"]),
            memory=MemoryInfo(allocated, peak, by_storage, cuda, device_by_storage))
