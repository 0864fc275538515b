"""Shared fixtures: the engine under test and, when it is installed, real PyTorch as the oracle.

Engine tests compare with real PyTorch 2.13 when it is installed (`pip install -e .[reference]`)
and skip those comparisons cleanly when it is not. Tests that need the oracle either take the
`torch` fixture or carry `@pytest.mark.needs_torch`.
"""

import importlib.util
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The project is normally pip-installed in editable mode; only a bare checkout needs the root.
if importlib.util.find_spec("engine") is None:  # pragma: no cover - depends on the install
    sys.path.insert(0, ROOT)

HAVE_TORCH = importlib.util.find_spec("torch") is not None


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_torch: compares with real PyTorch; skipped without it")


def pytest_collection_modifyitems(config, items):
    if HAVE_TORCH:
        return
    skip = pytest.mark.skip(reason="real torch (the reference) is not installed")
    for item in items:
        if "needs_torch" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def torch():
    """Real PyTorch, the reference; the test is skipped when it is not installed."""
    return pytest.importorskip("torch")


@pytest.fixture(scope="session")
def engine_modules():
    """(engine, engine.nn, engine.nn.functional): what `import torch` etc. mean for the engine."""
    import engine
    import engine.nn
    import engine.nn.functional

    return engine, engine.nn, engine.nn.functional
