"""The code blocks of the three seed documents (shared/seeds), run with `torch` being the engine.

Each block is a file in tests/data/seeds/, copied from its document with only the Python
indentation (and, in 001_08, full-width spaces that are a SyntaxError) restored. A block runs as a
script whose `import torch` / `import torch as t` / `import torch.nn as nn` /
`import torch.nn.functional as F` resolve to the engine (sys.modules is pointed at the engine
while it runs, then restored). Its printed output, warnings and exception must be what real
PyTorch 2.13 gives for the same file: run live when torch is installed, else taken from
`<name>.expected`, recorded from real torch (`python -m tests.engine.test_seeds` re-records).

- `paddle_*.py`: Paddle code, kept for completeness and not run here.
- `cuda_*.py`: GPU memory statistics, which CPU-only torch cannot give: tests/engine/test_cuda_device.py
  checks them against the figures the document printed (382.0 / 0.0 MiB).
"""

import builtins
import contextlib
import io
import re
import sys
import warnings
from pathlib import Path

import pytest

from tests.oracle import clean_warning

SEEDS = Path(__file__).resolve().parents[1] / "data" / "seeds"

# Blocks that continue an earlier block of the same document (the article runs them in one
# session): the earlier block runs first in the same namespace, its own output and exception
# ignored. `w.data = w.data.normal()` comes right after the block that made `w`.
CONTINUES = {"004_02_w_data_normal": "004_01_leaf_normal_error"}

# Lines that print a raw id() differ from run to run (and from torch to the engine): they are
# replaced by this placeholder. Comparisons of ids (`print(id(y) == id_0)`) print True/False and
# are compared exactly.
RAW_ID = re.compile(r"^\d{9,}$")
ID_PLACEHOLDER = "<id() value>"

WARNINGS_MARK = "--- warnings ---"
EXCEPTION_MARK = "--- exception ---"


def seed_names():
    return sorted(p.stem for p in SEEDS.glob("*.py") if not p.stem.startswith("paddle_"))


@contextlib.contextmanager
def torch_modules_are(torch_mod, nn_mod, F_mod):
    """While active, `import torch`, `import torch.nn`, `import torch.nn.functional` give these."""
    names = {"torch": torch_mod, "torch.nn": nn_mod, "torch.nn.functional": F_mod}
    saved = {k: sys.modules.get(k) for k in names}
    sys.modules.update(names)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def normalize(stdout: str) -> str:
    return "\n".join(ID_PLACEHOLDER if RAW_ID.match(ln) else ln for ln in stdout.split("\n"))


def run_seed(name: str, modules) -> str:
    """Run a seed block as a script with torch = modules[0]; return its outcome as text:
    stdout (raw ids replaced), then the warnings and the exception if there were any."""
    torch_mod = modules[0]
    chain = [name]
    while chain[0] in CONTINUES:
        chain.insert(0, CONTINUES[chain[0]])
    with torch_modules_are(*modules):
        # The article imported torch in an earlier block; blocks that use it without importing
        # it (001_03..05) see that module.
        ns = {"__name__": "__main__", "__builtins__": builtins, "torch": torch_mod}
        for dep in chain[:-1]:
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with contextlib.suppress(Exception):
                    exec(compile((SEEDS / f"{dep}.py").read_text(), f"{dep}.py", "exec"), ns)
        path = SEEDS / f"{name}.py"
        buf = io.StringIO()
        error = None
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(buf):
            warnings.simplefilter("always")
            try:
                exec(compile(path.read_text(), path.name, "exec"), ns)
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"
    text = normalize(buf.getvalue())
    warns = [clean_warning(w.category.__name__, str(w.message)) for w in caught]
    if warns:
        text += WARNINGS_MARK + "\n" + "".join(w + "\n" for w in warns)
    if error is not None:
        text += EXCEPTION_MARK + "\n" + error + "\n"
    return text


def real_torch_modules():
    pytest.importorskip("torch")
    import torch
    import torch.nn
    import torch.nn.functional

    return torch, torch.nn, torch.nn.functional


def expected_path(name):
    return SEEDS / f"{name}.expected"


CASES = [
    pytest.param(n, id=n, marks=[pytest.mark.skip(
        reason="measures GPU memory, which CPU-only torch cannot: test_cuda_device.py checks it against the "
               "figures the document printed on a GPU")] if n.startswith("cuda_") else [])
    for n in seed_names()
]


@pytest.mark.parametrize("name", CASES)
def test_seed_block_prints_what_torch_prints(name, engine_modules):
    got = run_seed(name, engine_modules)
    try:
        expected = run_seed(name, real_torch_modules())
    except pytest.skip.Exception:  # no torch here: the recording stands in for it
        expected = expected_path(name).read_text()
    assert got == expected


@pytest.mark.needs_torch
@pytest.mark.parametrize("name", CASES)
def test_recorded_expectation_is_current(name):
    """The .expected files are what this torch prints (re-record with
    `python -m tests.engine.test_seeds` after a deliberate change)."""
    assert run_seed(name, real_torch_modules()) == expected_path(name).read_text()


def test_every_cpu_block_has_a_recording():
    missing = [n for n in seed_names() if not n.startswith("cuda_") and not expected_path(n).exists()]
    assert missing == []


if __name__ == "__main__":  # re-record the expectations from real torch
    mods = real_torch_modules()
    for n in seed_names():
        if not n.startswith("cuda_"):
            expected_path(n).write_text(run_seed(n, mods))
            print("recorded", expected_path(n).name)
