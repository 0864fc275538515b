"""PORTED.md stays true: every ported case of the view/in-place/overlap section is in its table, with
the status the suite gives it (same as torch, or the strict xfail's reason)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("torch")

from tests.upstream import test_autograd, test_torch_inplace, test_view_ops  # noqa: E402

TABLE = Path(__file__).with_name("PORTED.md")
SECTION = "## Views, in-place ops, overlap, versions and backward semantics"
ROW = re.compile(r"^\| `(?P<case>[^`]+)` \| (?P<status>.+) \|$")


def _rows() -> dict[str, str]:
    """The section's rows, case -> status (other sections may port the same upstream test apart)."""
    text = TABLE.read_text()
    section = text[text.index(SECTION):]
    end = section.find("\n## ")
    section = section if end < 0 else section[:end]
    rows = {}
    for line in section.splitlines():
        match = ROW.match(line)
        if match:
            rows[match["case"]] = match["status"]
    return rows


@pytest.mark.parametrize("module", [test_autograd, test_view_ops, test_torch_inplace],
                         ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_every_case_is_listed_with_its_status(module) -> None:
    rows = _rows()
    for param in module.CASES:
        expected = f"xfail: {module.XFAIL[param.id]}" if param.id in module.XFAIL else "same as torch"
        assert rows.get(param.id) == expected, f"PORTED.md: `{param.id}` should read {expected!r}"
