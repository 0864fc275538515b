"""The readable transcript of `tensorscope replay`: each statement, what it printed or raised, and a
compact table of the tensors after it (storage, version, grad_fn), with what changed marked."""

from __future__ import annotations

from collections.abc import Iterable

from tensorscope.snapshot import ObjectInfo, Snapshot

COLUMNS = ("name", "shape", "stride", "offset", "dtype", "storage", "ver", "grad_fn")


def _row(info: ObjectInfo) -> tuple[str, ...]:
    if info.kind == "ndarray":
        return (info.name, str(list(info.shape)), "-", "-", info.dtype, info.storage, "-", "(ndarray)")
    fn = info.grad_fn or ("leaf, requires grad" if info.requires_grad else "")
    return (info.name, str(list(info.shape)), str(list(info.stride)), str(info.storage_offset), info.dtype,
            info.storage, str(info.version), fn)


def changes(before: Snapshot | None, after: Snapshot) -> list[str]:
    """What a person should notice: versions that moved, memory newly shared, saved tensors gone stale."""
    notes: list[str] = []
    old = before.objects if before else {}
    for name, info in sorted(after.objects.items()):
        prev = old.get(name)
        if info.kind != "tensor":
            continue
        if prev is not None and prev.kind == "tensor" and prev.storage == info.storage and prev.version != info.version:
            notes.append(f"{name}: version {prev.version} -> {info.version}")
        sharing = [n for n in after.storages[info.storage].viewers if n != name]
        if sharing and (prev is None or prev.storage != info.storage):
            notes.append(f"{name} shares storage {info.storage} with {', '.join(sharing)}")
    stale_before = {(n.name, s.field, s.names) for n, s in before.stale_saved()} if before else set()
    for node, saved in after.stale_saved():
        if (node.name, saved.field, saved.names) in stale_before:
            continue
        who = f" ({', '.join(saved.names)})" if saved.names else ""
        notes.append(f"stale: {node.name} saved {saved.field}{who} at version {saved.saved_version}, "
                     f"now {saved.current_version}")
    return notes


def table(snapshot: Snapshot) -> list[str]:
    rows = [COLUMNS] + [_row(info) for info in snapshot.objects.values()]
    if len(rows) == 1:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    return ["  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]


def render(snapshots: Iterable[Snapshot]) -> str:
    lines: list[str] = []
    before: Snapshot | None = None
    for snap in snapshots:
        source = snap.source.splitlines() or [""]
        lines.append(f"[{snap.step}] >>> {source[0]}")
        lines.extend(f"    ... {line}" for line in source[1:])
        if snap.output is not None:
            lines.extend(f"    {line}" for line in snap.output.splitlines())
        for warning in snap.warnings:
            lines.append(f"    warning: {warning}")
        if snap.error is not None:
            lines.append(f"    {snap.error.type}: {snap.error.message}")
        lines.extend(f"    * {note}" for note in changes(before, snap))
        lines.extend(table(snap))
        lines.append(f"    memory: {snap.memory.allocated_bytes} bytes live, peak {snap.memory.peak_bytes}")
        lines.append("")
        before = snap
    return "\n".join(lines)
