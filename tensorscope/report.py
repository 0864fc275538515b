"""The readable transcript of `tensorscope replay`: each statement, what it printed or raised, and a
compact table of the tensors after it (storage, version, grad_fn), with what changed marked."""

from __future__ import annotations

from collections.abc import Iterable

from tensorscope.explain import explain, stale_warning
from tensorscope.snapshot import NodeInfo, ObjectInfo, SavedInfo, Snapshot

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
    # a saved tensor is told once, when it goes stale; one with the same name and story is news when
    # it is another tensor (the name was rebound), so they are told apart by their memory
    stale_before = {_stale_key(node, saved) for node, saved in before.stale_saved()} if before else set()
    notes.extend(f"stale: {note}" for (node, saved), note in zip(after.stale_saved(), stale_warning(after), strict=True)
                 if _stale_key(node, saved) not in stale_before)
    return notes


def _stale_key(node: NodeInfo, saved: SavedInfo) -> tuple:
    return node.name, saved.field, saved.storage, saved.saved_version, saved.current_version


def table(snapshot: Snapshot) -> list[str]:
    rows = [COLUMNS] + [_row(info) for info in snapshot.objects.values()]
    if len(rows) == 1:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    return ["  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]


def render_step(history: list[Snapshot], snap: Snapshot) -> list[str]:
    """One statement's part of the transcript; `history` holds the snapshots before it."""
    lines: list[str] = []
    source = snap.source.splitlines() or [""]
    lines.append(f"[{snap.step}] >>> {source[0]}")
    lines.extend(f"    ... {line}" for line in source[1:])
    if snap.output is not None:
        lines.extend(f"    {line}" for line in snap.output.splitlines())
    for warning in snap.warnings:
        lines.append(f"    warning: {warning}")
    if snap.error is not None:
        lines.append(f"    {snap.error.type}: {snap.error.message}")
        story = explain([*history, snap])
        if story:
            lines.extend(f"    why: {line}" if i == 0 else f"         {line}" for i, line in enumerate(story.splitlines()))
    lines.extend(f"    * {note}" for note in changes(history[-1] if history else None, snap))
    lines.extend(table(snap))
    memory = f"    memory: {snap.memory.allocated_bytes} bytes live, peak {snap.memory.peak_bytes}"
    if snap.memory.cuda:
        memory += (f"; cuda: {snap.memory.cuda['allocated']} allocated, peak {snap.memory.cuda['max_allocated']}, "
                   f"{snap.memory.cuda['reserved']} reserved")
    lines.append(memory)
    lines.append("")
    return lines


def render(snapshots: Iterable[Snapshot]) -> str:
    lines: list[str] = []
    history: list[Snapshot] = []
    for snap in snapshots:
        lines.extend(render_step(history, snap))
        history.append(snap)
    return "\n".join(lines)
