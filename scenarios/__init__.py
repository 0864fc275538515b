"""The bundled scenarios: YAML stories about memory that ship with tensorscope (see README.md)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def bundled() -> list[Path]:
    """Every scenario file that ships with the package, in name order."""
    folder = Path(str(resources.files(__name__)))
    return sorted(folder.glob("*.yaml"))
