"""Mismatch classes the fuzzer still finds whose fix belongs to another stream's open work, each
named by its signature (the kind of statement and the field where the traces first part) with the
reason; `python -m tests.fuzz` reports the agreement with and without them, and the CI slice marks
the seeds that hit them as strict xfails with the reason. Empty while every class the fuzzer finds is
fixed (the backward engine's former ones are regression tests in test_autograd_repros.py).
"""

from __future__ import annotations

# signature -> reason
KNOWN: dict[str, str] = {}


def reason(signature: str) -> str | None:
    """Why a mismatch of this signature is left to another stream, or None if it is ours to fix."""
    return KNOWN.get(signature)
