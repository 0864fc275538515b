"""`tensorscope compare`: one scenario told in PyTorch and in Paddle, step by step, with the
places where the two dialects' memory and autograd behaviour part ways said in plain words.

`differences` is a pure function over two Snapshots, so the CLI, tests and any other view share it.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from tensorscope.scenario import ScenarioRun, _close, step_view
from tensorscope.snapshot import ObjectInfo, Snapshot


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


_TENSOR_TEXT = ("tensor(", "Tensor(shape=", "Parameter containing")


def _both_tensor_texts(torch_text: str, paddle_text: str) -> bool:
    """A tensor printed (or echoed) by each dialect: the formats always differ, and the values are
    compared name by name anyway."""
    return torch_text.startswith(_TENSOR_TEXT) and paddle_text.startswith(_TENSOR_TEXT)


def _error_text(snap: Snapshot) -> str | None:
    return None if snap.error is None else f"{snap.error.type}: {_first_line(snap.error.message)}"


def _sharing(torch_snap: Snapshot, paddle_snap: Snapshot, names: list[str]) -> list[str]:
    """Pairs of names that share memory in one dialect and not in the other."""
    found = []
    for a, b in combinations(names, 2):
        in_torch = torch_snap.objects[a].storage == torch_snap.objects[b].storage
        in_paddle = paddle_snap.objects[a].storage == paddle_snap.objects[b].storage
        if in_torch != in_paddle:
            shares, apart = ("torch", "paddle") if in_torch else ("paddle", "torch")
            found.append(f"{a} and {b} share memory in {shares}; in {apart} they are separate copies")
    return found


def _op_node(grad_fn: str | None) -> str | None:
    """The grad_fn that an operation made: Paddle reports a leaf's GradNodeAccumulation as its
    grad_fn where PyTorch says None (its AccumulateGrad is only in the graph), which is no difference."""
    return None if grad_fn == "GradNodeAccumulation" else grad_fn


SHOWN_IN_FULL = 8  # elements; a bigger tensor's values are summarised (randn's alone fill a screen)


def _flat(values: Any) -> list[Any]:
    return [x for v in values for x in _flat(v)] if isinstance(values, list) else [values]


def _values_differ(what: str, torch_values: Any, paddle_values: Any) -> str:
    """`x's values: torch [...], paddle [...]`, in full for a few elements; for more, how many of
    them differ and the first few of each side."""
    torch_flat, paddle_flat = _flat(torch_values), _flat(paddle_values)
    if max(len(torch_flat), len(paddle_flat)) <= SHOWN_IN_FULL:
        return f"{what}: torch {torch_values}, paddle {paddle_values}"
    if len(torch_flat) != len(paddle_flat):
        count = f"{len(torch_flat)} elements in torch, {len(paddle_flat)} in paddle"
    else:
        differing = sum(not _close(a, b) for a, b in zip(torch_flat, paddle_flat))
        count = f"{differing} of {len(torch_flat)} elements differ"
    head = SHOWN_IN_FULL // 2

    def number(x: Any) -> str:
        if not isinstance(x, float):
            return str(x)
        text = f"{x:.4g}"
        return text if any(c in text for c in ".eni") else f"{text}.0"  # a float stays one: 2.0, not 2

    def first(flat: list[Any]) -> str:
        return "[" + ", ".join(map(number, flat[:head])) + ", …]"

    return f"{what} ({count}): torch {first(torch_flat)}, paddle {first(paddle_flat)}"


def _flags(name: str, t: ObjectInfo, p: ObjectInfo) -> list[str]:
    """Version, leaf, requires_grad, grad_fn presence, values and gradient of one tensor name."""
    found = []
    if t.version != p.version:
        found.append(f"{name}'s version: torch {t.version}, paddle {p.version}")
    if t.is_leaf != p.is_leaf:
        found.append(f"{name} is {'a leaf' if t.is_leaf else 'not a leaf'} in torch, "
                     f"{'a leaf' if p.is_leaf else 'not a leaf'} in paddle")
    if t.requires_grad != p.requires_grad:
        found.append(f"{name} requires grad in {'torch' if t.requires_grad else 'paddle'} only "
                     f"(paddle: stop_gradient={not p.requires_grad})")
    torch_fn, paddle_fn = _op_node(t.grad_fn), _op_node(p.grad_fn)
    if (torch_fn is None) != (paddle_fn is None):
        found.append(f"{name} has a grad_fn in torch ({torch_fn}) but none in paddle" if paddle_fn is None
                     else f"{name} has a grad_fn in paddle ({paddle_fn}) but none in torch")
    if t.values is not None and p.values is not None and not _close(t.values, p.values):
        found.append(_values_differ(f"{name}'s values", t.values, p.values))
    if (t.grad is None) != (p.grad is None):
        found.append(f"{name} has a gradient in {'paddle' if t.grad is None else 'torch'} only")
    elif t.grad is not None and not _close(t.grad, p.grad):
        found.append(_values_differ(f"{name}'s gradient", t.grad, p.grad))
    return found


def differences(torch_snapshot: Snapshot, paddle_snapshot: Snapshot) -> list[str]:
    """Where the two dialects differ after the same step, one plain sentence each (empty: alike)."""
    found = []
    torch_error, paddle_error = _error_text(torch_snapshot), _error_text(paddle_snapshot)
    if torch_error != paddle_error:
        found.append(f"torch raises {torch_error}" if torch_error else "torch runs without error")
        found[-1] += f"; paddle raises {paddle_error}" if paddle_error else "; paddle runs without error"
    torch_output, paddle_output = (_first_line(s.output or "") for s in (torch_snapshot, paddle_snapshot))
    if torch_output != paddle_output and not _both_tensor_texts(torch_output, paddle_output):  # first lines
        found.append(f"printed output: torch {torch_output or 'nothing'!r}, paddle {paddle_output or 'nothing'!r}")
    torch_names, paddle_names = set(torch_snapshot.objects), set(paddle_snapshot.objects)
    for dialect, only in (("torch", torch_names - paddle_names), ("paddle", paddle_names - torch_names)):
        if only:
            found.append(f"only {dialect} has {', '.join(sorted(only))}")
    names = sorted(torch_names & paddle_names)
    found.extend(_sharing(torch_snapshot, paddle_snapshot, names))
    for name in names:
        t, p = torch_snapshot.objects[name], paddle_snapshot.objects[name]
        if t.kind == p.kind == "tensor":
            found.extend(_flags(name, t, p))
        elif t.values is not None and p.values is not None and not _close(t.values, p.values):
            found.append(_values_differ(f"{name}'s values", t.values, p.values))
    return found


def _indented(label: str, code: str) -> list[str]:
    lines = code.strip().splitlines()
    return [f"  {label:8}{lines[0]}", *(f"  {'':8}{line}" for line in lines[1:])]


def render(torch_run: ScenarioRun, paddle_run: ScenarioRun) -> str:
    """Both runs step by step: the code in each dialect, the narration, and what differs."""
    scenario = torch_run.scenario
    lines = [scenario.title, "=" * len(scenario.title), scenario.summary.strip(), ""]
    total = len(torch_run.steps)
    differing = 0
    for index, (t, p) in enumerate(zip(torch_run.steps, paddle_run.steps), start=1):
        lines.append(f"--- step {index} of {total} ---")
        lines.extend(_indented("torch:", t.step.code))
        lines.extend(_indented("paddle:", t.step.paddle))
        if t.step.say.strip():
            lines.extend(["", *t.step.say.strip().splitlines()])
        found = differences(step_view(t), step_view(p))
        differing += bool(found)
        lines.append("")
        lines.extend([f"  * {line}" for line in found] or ["  same in both dialects"])
        lines.append("")
    lines.append(f"{differing} of {total} step(s) differ between torch and paddle")
    return "\n".join(lines)
