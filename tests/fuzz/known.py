"""Mismatch classes the fuzzer still finds whose fix belongs to another stream's open work, each
named by its signature (the kind of statement and the field where the traces first part) with the
reason; `python -m tests.fuzz` reports the agreement with and without them, and the CI slice marks
the seeds that hit them as strict xfails with the reason (test_autograd_repros.py has their shrunk
repros; the backward engine's former classes are regression tests there).
"""

from __future__ import annotations

# signature -> reason (none open: `.data =` then backward, the last class, is modelled now)
KNOWN: dict[str, str] = {}


def reason(signature: str) -> str | None:
    """Why a mismatch of this signature is left to another stream, or None if it is ours to fix."""
    return KNOWN.get(signature)
