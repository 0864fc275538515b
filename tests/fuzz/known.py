"""Mismatch classes the fuzzer still finds whose fix belongs to another stream's open work, each
named by its signature (the kind of statement and the field where the traces first part) with the
reason; `python -m tests.fuzz` reports the agreement with and without them, and the CI slice marks
the seeds that hit them as strict xfails with the reason (test_autograd_repros.py has their shrunk
repros; the backward engine's former classes are regression tests there).
"""

from __future__ import annotations

DATA_SHAPE = ("`.data =` that changes a leaf's (or a view's) shape, then backward: which AccumulateGrad and which "
              "shape torch's validate_outputs checks the gradient against (the autograd stream's backward engine)")

# signature -> reason
KNOWN: dict[str, str] = {
    "autograd.backward | error none->RuntimeError": DATA_SHAPE,
    "autograd.backward | error RuntimeError->none": DATA_SHAPE,
    "autograd.backward_grad | error RuntimeError->none": DATA_SHAPE,
    "autograd.grad | objects": DATA_SHAPE,
}


def reason(signature: str) -> str | None:
    """Why a mismatch of this signature is left to another stream, or None if it is ours to fix."""
    return KNOWN.get(signature)
