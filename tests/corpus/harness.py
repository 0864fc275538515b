"""Run a corpus program with real torch, with the engine standing in for torch, and through
`tensorscope replay --json`, and describe what each run left behind.

A corpus program is ordinary PyTorch code (`import torch`, `from torch.utils.data import
DataLoader`, ...). "With the engine" means every `torch...` import resolves to the matching
`engine...` module, which is what `import engine as torch` does for a whole program. The programs
are our own trusted test code, so `exec` is fine here (the application never execs user code).

    real = run_program(source, "torch")
    ours = run_program(source, "engine")
    assert comparable(ours) == reconcile(comparable(real), comparable(ours))
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import io
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.oracle import clean_warning, describe_tensor, is_tensor

PROGRAMS = Path(__file__).resolve().parent / "programs"
ADDRESS = re.compile(r" at 0x[0-9a-f]+>")  # <... object at 0x7f...>: differs run to run


def program_names() -> list[str]:
    return sorted(p.stem for p in PROGRAMS.glob("*.py"))


def program_source(name: str) -> str:
    return (PROGRAMS / f"{name}.py").read_text(encoding="utf-8")


def _importer(package: str) -> Any:
    """An `__import__` that resolves `torch` and `torch.*` to `package` and `package.*`."""
    real_import = builtins.__import__

    def import_(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level == 0 and (name == "torch" or name.startswith("torch.")):
            name = package + name[len("torch"):]
            module = importlib.import_module(name)
            return module if fromlist else importlib.import_module(package)
        return real_import(name, globals, locals, fromlist, level)

    return import_


@dataclass
class Run:
    """What running a whole program did."""

    stdout: str
    error: tuple[str, str] | None
    warnings: list[str]
    state: dict[str, Any]


def run_program(source: str, package: str) -> Run:
    """Execute the program with `torch` meaning `package` ("torch" or "engine")."""
    namespace: dict[str, Any] = {"__name__": "__main__",
                                 "__builtins__": {**vars(builtins), "__import__": _importer(package)}}
    out = io.StringIO()
    error = None
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        try:
            exec(compile(source, "<program>", "exec"), namespace)  # noqa: S102 - trusted test code
        except Exception as exc:  # noqa: BLE001 - the error is part of the behaviour under test
            error = (type(exc).__name__, str(exc))
    return Run(stdout=ADDRESS.sub(" at 0x…>", out.getvalue()), error=error,
               warnings=[clean_warning(w.category.__name__, str(w.message)) for w in caught],
               state=final_state(namespace))


def _is_module(value: Any) -> bool:
    """An nn.Module of either library (duck-typed: both have named_parameters and named_buffers)."""
    return not isinstance(value, type) and callable(getattr(value, "named_parameters", None)) \
        and callable(getattr(value, "named_buffers", None))


def describe(tensor: Any) -> dict[str, Any]:
    """describe_tensor, for inference tensors too (which keep no version counter: reading
    `_version` raises, and the message is what is compared)."""
    try:
        return describe_tensor(tensor)
    except RuntimeError as exc:
        if "version counter" not in str(exc):
            raise
        return {**describe_tensor(tensor.clone()), "version": str(exc), "is_inference": True}


def final_state(namespace: dict[str, Any]) -> dict[str, Any]:
    """Every tensor the program left: top-level tensors, tensors in top-level lists and tuples,
    and each module's parameters and buffers (with their gradients)."""
    state: dict[str, Any] = {}
    for name, value in sorted(namespace.items()):
        if name.startswith("_"):
            continue
        if is_tensor(value):
            state[name] = describe(value)
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                if is_tensor(item):
                    state[f"{name}[{i}]"] = describe(item)
        elif _is_module(value):
            for kind, members in (("param", value.named_parameters()), ("buffer", value.named_buffers())):
                for member, tensor in members:
                    state[f"{name}.{member} ({kind})"] = describe(tensor)
    return state


def comparable(run: Run) -> dict[str, Any]:
    return {"stdout": run.stdout, "error": run.error, "warnings": run.warnings, "state": run.state}


# --------------------------------------------------------------------------------------------- replay
RAW_ID = re.compile(r"^\d{9,}$", re.M)  # print(id(a)): differs run to run


def comparable_step(step: dict[str, Any]) -> dict[str, Any]:
    """A trace step without what is the engine's own model (memory) or differs run to run."""
    step = dict(step)
    step.pop("memory", None)
    step.pop("explanation", None)  # tensorscope's own words under an error: torch has none
    if step["output"] is not None:
        step["output"] = ADDRESS.sub(" at 0x…>", RAW_ID.sub("<id>", step["output"]))
    step["objects"] = {name: {k: v for k, v in obj.items() if k != "summary"}
                       for name, obj in step["objects"].items()}
    return step


def engine_trace(source: str, tmp_path: Path, capsys: Any) -> list[dict[str, Any]]:
    """`tensorscope replay FILE --json`, one dict per top-level statement."""
    from tensorscope.cli import main

    script = tmp_path / "program.py"
    script.write_text(source, encoding="utf-8")
    capsys.readouterr()
    status = main(["replay", str(script), "--json"])
    printed = capsys.readouterr()
    assert status == 0, printed.err
    return [json.loads(line) for line in printed.out.splitlines()]
