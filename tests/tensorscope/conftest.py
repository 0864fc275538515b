"""A session helper: runs source through one Interpreter and fails the test on any InternalError,
so every test doubles as a check that valid programs never hit an interpreter bug."""

from __future__ import annotations

import textwrap

import pytest

from tensorscope.interpreter import ErrorInfo, Interpreter, Outcome


class Session:
    """One interpreter, as a user's session would keep it between statements."""

    def __init__(self, **limits: int) -> None:
        self.interpreter = Interpreter(**limits)

    def outcomes(self, source: str) -> list[Outcome]:
        outcomes = [o for _, o in self.interpreter.run_source(textwrap.dedent(source))]
        internal = [o.error for o in outcomes if o.error is not None and o.error.type == "InternalError"]
        assert internal == []
        return outcomes

    def ok(self, source: str) -> str | None:
        """Run source that must not fail; return what it printed and echoed, joined by lines."""
        outcomes = self.outcomes(source)
        assert [o.error for o in outcomes if o.error is not None] == []
        printed = [o.output for o in outcomes if o.output is not None]
        return "\n".join(printed) if printed else None

    def error(self, source: str) -> ErrorInfo:
        """Run source whose last statement must fail with a one-line error; return that error."""
        outcomes = self.outcomes(source)
        assert [o.error for o in outcomes[:-1] if o.error is not None] == []
        error = outcomes[-1].error
        assert error is not None, outcomes[-1]
        assert "\n" not in error.message
        return error


@pytest.fixture
def session() -> Session:
    return Session()


@pytest.fixture
def torch_session() -> Session:
    s = Session()
    s.ok("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport numpy as np\nimport math")
    return s
