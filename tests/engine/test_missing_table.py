"""Every node the later-added ops put in the derivative table is reached by one of their derivative
samples (tests/engine/test_missing_*.py), so a rule added without a sample fails here."""

import pytest

from tests.engine import (
    test_missing_fold,
    test_missing_linalg,
    test_missing_products,
    test_missing_scatter_reduce,
    test_missing_statistics,
)
from tests.engine.test_derivative_table import run

pytest.importorskip("torch")
import engine  # noqa: E402
import engine.nn.functional as EF  # noqa: E402
from engine.autograd.derivatives import fold, order_statistics, products, statistics  # noqa: E402


@pytest.mark.filterwarnings("ignore:torch.(qr|cholesky|lu) is deprecated")
def test_every_node_is_exercised() -> None:
    table = set()
    for family in (products, order_statistics, statistics, fold):
        table |= set(family.DERIVATIVES)
    met: set[str] = set()
    for module in (test_missing_products, test_missing_statistics, test_missing_linalg, test_missing_scatter_reduce,
                   test_missing_fold):
        for expr, kinds in module.DERIVATIVE_SAMPLES + getattr(module, "LU_SAMPLES", []):
            met |= run(engine, EF, expr, kinds, 0)[1]
    assert sorted(table - met) == []
