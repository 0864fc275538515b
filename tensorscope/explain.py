"""Errors explained: the story behind an autograd error, told from the snapshot history.

PyTorch says *what* failed ("modified by an inplace operation ... is at version 1; expected version
0"); this module says *why*, in a learner's words: which op saved which tensor at which step, which
statement changed it, and what to write instead. It reads only Snapshots.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tensorscope.framework_gaps import explain_gap
from tensorscope.snapshot import NodeInfo, ObjectInfo, SavedInfo, Snapshot

_MISMATCH = re.compile(r"\[(?P<type>\S+) \[(?P<shape>[^\]]*)\]\](?:, which is output \d+ of (?P<producer>[^,]+),)? "
                       r"is at version (?P<now>\d+); expected version (?P<then>\d+) instead")
_INPLACE_CALL = re.compile(r"^\s*(?P<target>[A-Za-z_][\w.]*)\s*\.\s*(?P<op>\w+)_\((?P<args>.*)\)\s*$", re.S)
_AUGMENTED = re.compile(r"^\s*(?P<target>[A-Za-z_][\w.\[\]:, ]*?)\s*(?P<op>[-+*/])=\s*(?P<value>.+?)\s*$", re.S)
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*")


def _code(text: str) -> str:
    return f"`{text.strip()}`"


def rewrite(source: str) -> str | None:
    """An out-of-place way to write an in-place statement, when one is obvious."""
    line = source.strip().splitlines()[0] if source.strip() else ""
    match = _AUGMENTED.match(line)
    if match:
        target, op, value = match["target"], match["op"], match["value"]
        return f"{target} = {target} {op} {value}"
    match = _INPLACE_CALL.match(line)
    if match:
        return f"{match['target']} = {match['target']}.{match['op']}({match['args']})"
    if "inplace=True" in line:
        return line.replace("inplace=True", "inplace=False")
    return None


def _same_tensor(info: ObjectInfo | None, storage: str | None) -> bool:
    """Whether a name is bound, at that step, to a tensor in the saved tensor's memory (a name can
    be rebound: `out = ...` twice is two tensors, and only one of them was saved)."""
    return info is not None and info.kind == "tensor" and (storage is None or info.storage == storage)


def _changed_at(history: Sequence[Snapshot], name: str, since: int, storage: str | None) -> list[Snapshot]:
    """The steps after `since` at which `name`'s version went up while it named the saved tensor."""
    steps = []
    previous = None
    for snap in history:
        info = snap.objects.get(name)
        version = info.version if _same_tensor(info, storage) else None
        if snap.step > since and previous is not None and version is not None and version > previous:
            steps.append(snap)
        previous = version
    return steps


def _saved_at(history: Sequence[Snapshot], name: str, node_name: str, storage: str | None) -> Snapshot | None:
    for snap in history:
        for node in snap.graph:
            if node.name == node_name and any(name in saved.names and (storage is None or saved.storage == storage)
                                              for saved in node.saved):
                return snap
    return None


def _name_when_saved(history: Sequence[Snapshot], names: Sequence[str], node_name: str,
                     storage: str | None) -> tuple[str, Snapshot | None]:
    """Of the names a saved tensor has now, the one it had when it was saved (an alias made later,
    like `r = nn.ReLU(inplace=True)(s)`, is not the one the story starts with)."""
    found = [(snap.step, name, snap) for name in names
             if (snap := _saved_at(history, name, node_name, storage))]
    if not found:
        return names[0], None
    _, name, snap = min(found, key=lambda item: item[0])
    return name, snap


def _explain_mismatch(history: Sequence[Snapshot], message: str) -> str:
    match = _MISMATCH.search(message)
    then = int(match["then"]) if match else None
    now = int(match["now"]) if match else None
    before = history[-2] if len(history) > 1 else history[-1]

    def matching(snap: Snapshot) -> list[tuple[NodeInfo, SavedInfo]]:
        return [(node, saved) for node, saved in snap.stale_saved()
                if then is None or (saved.saved_version == then and saved.current_version == now)]

    candidates = matching(before)
    within = not candidates  # saved and changed by the failing statement itself (a training loop, say)
    if within:
        candidates = matching(history[-1])
    if not candidates:
        return ("A tensor that backward needs was changed in place after it was saved. Backward needs the "
                "values it saw when the operation ran: compute a new tensor instead of modifying it in place.")
    node, saved = candidates[0]
    lines = []
    if saved.names:
        name, saved_step = _name_when_saved(history, saved.names, node.name, saved.storage)
        where = f" at step {saved_step.step} ({_code(saved_step.source)})" if saved_step else ""
        role = "its own result" if saved.is_output else f"its input `{saved.field}`"
        lines.append(f"`{name}` was saved by {node.name}{where} as {role}, at version {saved.saved_version}.")
        changes = _changed_at(history, name, saved_step.step if saved_step else -1, saved.storage)
        for snap in changes:
            lines.append(f"Step {snap.step} {_code(snap.source)} changed it in place "
                         f"(version {snap.objects[name].version}).")
        after = saved_step.objects.get(name) if saved_step else None
        if saved_step and _same_tensor(after, saved.storage) and after.version > saved.saved_version:
            lines.append(f"Step {saved_step.step} itself changed it in place after that (version {after.version}): "
                         "an in-place op later in the same statement, such as `out += x` or an `inplace=True` "
                         "layer in a module's forward.")
        lines.append(f"Backward needs the values {node.name} saw, so it refuses to run on the changed `{name}`.")
        fix = rewrite(changes[-1].source) if changes else None
        if fix:
            lines.append(f"Write {_code(fix)} instead (a new tensor, the saved one stays intact), or make the "
                         "in-place change after the last backward.")
        else:
            lines.append("Make that change on a copy (`.clone()`), or after the last backward.")
    else:
        lines.append(f"A tensor of shape [{', '.join(map(str, saved.shape))}] that {node.name} saved (its "
                     f"`{saved.field}`) went from version {saved.saved_version} to {saved.current_version}: something "
                     "changed it in place after the op ran. Give it a name to follow it here, or avoid the in-place op.")
        if within:
            lines.append(f"It was saved and changed within step {history[-1].step} itself: look there for an in-place "
                         f"op after {node.name}'s op, such as `out += x` or an `inplace=True` layer in a module's "
                         "forward.")
    return "\n".join(lines)


def _subject(snap: Snapshot, want_leaf: bool) -> str | None:
    """The first name in the statement that is a tensor requiring grad (a leaf, when asked); a
    module's parameter by its dotted name (`fc.weight` in `fc.weight.normal_()`)."""
    for dotted in _DOTTED.findall(snap.source):
        parts = dotted.split(".")
        for end in range(len(parts), 0, -1):  # fc.weight.normal_, then fc.weight, then fc
            info = snap.objects.get(".".join(parts[:end]))
            if info is not None and info.kind == "tensor" and info.requires_grad and (info.is_leaf or not want_leaf):
                return ".".join(parts[:end])
    return None


def explain(history: Sequence[Snapshot]) -> str | None:
    """The explanation of the last snapshot's error, or None when there is no error to explain."""
    if not history or history[-1].error is None:
        return None
    snap = history[-1]
    message = snap.error.message
    if message.startswith("one of the variables needed for gradient computation"):
        return _explain_mismatch(history, message)
    from engine import errors  # the engine's messages, once there is an error to explain

    if message == errors.LEAF_INPLACE:
        name = _subject(snap, want_leaf=True)
        statement = snap.source.strip()
        inside = statement if "\n" not in statement and len(statement) <= 60 else f"{name or 'w'}.normal_()"
        return (f"{f'`{name}`' if name else 'This tensor'} is a leaf that requires grad, like a model weight: "
                "autograd refuses to change it in place, since its gradient must belong to the values it has. "
                f"To initialise or update it, step outside autograd: `with torch.no_grad(): {inside}` (what "
                f"optimizers and nn.init do), or work on {f'`{name}.data`' if name else 'its `.data`'}.")
    if message == errors.VIEW_OF_LEAF_INPLACE:
        return ("This tensor is a view of a leaf that requires grad (indexing like `x[0]` or `x.view(...)` gives "
                "views): writing into it would change the leaf in place, which autograd forbids. Do it under "
                "`with torch.no_grad():`, or build a new tensor (e.g. with torch.where or torch.cat).")
    if "returns multiple views" in message:
        return ("split, chunk and unbind return views that share one autograd node, so autograd cannot track an "
                "in-place change to just one of them. Use an out-of-place op (`a = a + 1`), or `.clone()` the "
                "piece first.")
    if message.startswith("A view was created in no_grad mode"):
        return ("This view was made inside `with torch.no_grad():` and changed in place outside it (or its base "
                "was). Autograd cannot tell which history the change should have: create and modify the view "
                "both inside the no_grad block, or both outside it.")
    if message == errors.BACKWARD_TWICE:
        return ("The first backward freed what the graph had saved (to save memory). To go through the same "
                "graph again, pass `retain_graph=True` to the first backward, or compute the forward again.")
    if message == errors.NON_SCALAR_BACKWARD:
        return ("backward() with no argument needs a single number (a loss). Reduce the tensor first, e.g. "
                "`y.sum().backward()`, or pass the gradient: `y.backward(torch.ones_like(y))`.")
    if message.startswith("element 0 of tensors does not require grad"):
        return ("Nothing this tensor was computed from requires grad, so there is no graph to go back through. "
                "Create the inputs with `requires_grad=True` (or call `.requires_grad_()`), and do not compute "
                "the loss under `torch.no_grad()` or from `.detach()`ed tensors.")
    if message == errors.INTERNAL_OVERLAP:
        return ("Several elements of this tensor are the same memory (it comes from expand() or a stride-0 "
                "view), so an in-place write would be ambiguous. `.clone()` it first: a clone has its own memory.")
    if message == errors.PARTIAL_OVERLAP:
        return ("The input and the tensor being written share part of their memory, so the write would read "
                "values it has already overwritten. Use a `.clone()` of the input.")
    if snap.error.type == "NameError":
        return _explain_missing_import(message)
    steps = _STEP_LIMIT.match(message)
    if steps:
        return (f"tensorscope stops a statement after {int(steps[1]):,} steps of its interpreter, so that a loop "
                "that never ends cannot hang the session; what the statement did until then stays done. For a "
                "long loop that does end, let tensor operations do the work (`torch.arange(10**6).sum()` is one "
                "step, not a million), or split the loop over several statements.")
    host = _HOST_OUT_OF_MEMORY.search(message)
    if host:
        return (f"That is {_size(int(host[1]))}: more than this session may use (the worker's memory limit, "
                "`--memory-limit`, 4 GiB unless you chose another, or the machine's free memory). A tensor takes "
                "the product of its shape times the bytes of its dtype (4 for float32): use a smaller shape, or "
                "a smaller dtype such as float16.")
    return explain_gap(snap.error.type, message, [s.source for s in history])


_STEP_LIMIT = re.compile(r"statement exceeded (\d+) steps \(an endless loop\?\)$")
_HOST_OUT_OF_MEMORY = re.compile(r"DefaultCPUAllocator: not enough memory: you tried to allocate (\d+) bytes")


def _size(nbytes: int) -> str:
    """`3.6 TiB (4,000,000,000,000 bytes)`."""
    value, unit = float(nbytes), "bytes"
    for larger in ("KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024:
            break
        value, unit = value / 1024, larger
    return f"{nbytes:,} bytes" if unit == "bytes" else f"{value:.1f} {unit} ({nbytes:,} bytes)"


# the names tutorials use for modules, and the import that binds each
_USUAL_IMPORTS = {
    "torch": "import torch",
    "nn": "import torch.nn as nn",
    "F": "import torch.nn.functional as F",
    "optim": "import torch.optim as optim",
    "np": "import numpy as np",
    "numpy": "import numpy",
    "math": "import math",
    "paddle": "import paddle",
}


# what Python's interactive site module adds, which people type out of habit
_INTERACTIVE = {
    "exit": "To leave, type `:quit` or press ctrl+d in the REPL, ctrl+q in the explorer.",
    "quit": "To leave, type `:quit` or press ctrl+d in the REPL, ctrl+q in the explorer.",
    "help": ("For tensorscope's own help type `:help` in the REPL or press F1 in the explorer; tab completes "
             "names, `torch.` functions and tensor methods."),
}


def _explain_missing_import(message: str) -> str | None:
    """A session starts empty, like a Python file: `torch` is unknown until imported (a pasted snippet
    often leaves its imports out). `exit()` and `help()` are not Python's builtins but its REPL's."""
    match = re.match(r"^name '(\w+)' is not defined(?: \(tensorscope does not provide it\))?$", message)
    if match is not None and match[1] in _INTERACTIVE:
        return f"`{match[1]}()` belongs to Python's own REPL, not to the statements tensorscope runs. " + \
            _INTERACTIVE[match[1]]
    if match is None or match[1] not in _USUAL_IMPORTS:
        return None
    return (f"`{match[1]}` is not imported yet: a session starts empty, like a Python file. Run "
            f"`{_USUAL_IMPORTS[match[1]]}` first, then this statement again.")


def stale_warning(snap: Snapshot) -> list[str]:
    """Warnings before backward: saved tensors whose version moved since they were saved."""
    notes = []
    for node, saved in snap.stale_saved():
        who = " / ".join(f"`{name}`" for name in saved.names) if saved.names else f"a tensor saved as `{saved.field}`"
        notes.append(f"{who} was saved by {node.name} at version {saved.saved_version} and is now at version "
                     f"{saved.current_version}: a backward through {node.name} will fail.")
    return notes
