"""torch.distributions and torch.testing as user code reaches them in a session: imported the ways
tutorials import them, subclassed, and refused where they would open a way into the engine."""

from __future__ import annotations

import pytest

from tensorscope.explain import explain
from tensorscope.session import Session as ReplaySession
from tests.tensorscope.conftest import Session
from tests.tensorscope.test_escapes import cases, refused


@pytest.fixture
def session() -> Session:
    s = Session()
    s.ok("import torch\nimport torch.nn as nn")
    return s


REINFORCE = """\
from torch.distributions import Categorical
torch.manual_seed(0)
policy = nn.Linear(4, 2)
dist = Categorical(logits=policy(torch.randn(3, 4)))
action = dist.sample()
loss = -(dist.log_prob(action) * torch.tensor([1.0, -1.0, 0.5])).sum()
loss.backward()
print(dist, action, loss.grad_fn.name(), loss.item(), policy.bias.grad)
"""


def test_a_reinforce_step_prints_what_torch_prints(torch, session: Session) -> None:
    import contextlib
    import io

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec("import torch\nimport torch.nn as nn\n" + REINFORCE, {})  # noqa: S102 - our own program, in torch
    assert session.ok(REINFORCE.replace("torch.manual_seed(0)", "_ = torch.manual_seed(0)")) == printed.getvalue().strip()


@pytest.mark.parametrize("imports", [
    "from torch.distributions import Normal",
    "from torch.distributions.normal import Normal",
    "import torch.distributions as D\nNormal = D.Normal",
    "Normal = torch.distributions.Normal",
    "from torch import distributions\nNormal = distributions.normal.Normal",
])
def test_the_ways_tutorials_import_a_distribution(session: Session, imports: str) -> None:
    assert session.ok(imports + "\nprint(Normal(0.0, 1.0).entropy())") == "tensor(1.4189)"


def test_constraints_kl_and_testing_are_importable(session: Session) -> None:
    printed = session.ok("""\
        from torch.distributions import constraints
        from torch.distributions.kl import kl_divergence
        from torch.testing import assert_close, make_tensor
        from torch.distributions import Normal
        assert_close(kl_divergence(Normal(0.0, 1.0), Normal(0.0, 1.0)), torch.tensor(0.0))
        _ = torch.manual_seed(0)
        print(constraints.positive, make_tensor(2, dtype=torch.float32, device="cpu"))
        """)
    assert printed == "GreaterThan(lower_bound=0.0) tensor([-0.0674,  4.8280])"


def test_constraint_factories_and_dependent_properties_are_callable(session: Session) -> None:
    """`constraints.greater_than` is the class `_GreaterThan`: calling the alias is allowed, while
    the private name itself stays unreadable."""
    printed = session.ok("""\
        from torch.distributions import Distribution, constraints
        class Positive(Distribution):
            arg_constraints = {"rate": constraints.greater_than(0.0)}
            def __init__(self, rate):
                self.rate = rate
                super().__init__(rate.shape)
            @constraints.dependent_property(is_discrete=False, event_dim=0)
            def support(self):
                return constraints.interval(0.0, self.rate)
        print(Positive(torch.ones(2)).support, constraints.independent(constraints.real, 1))
        print(isinstance(constraints.positive, constraints.greater_than))
        """)
    assert printed == ("Interval(lower_bound=0.0, upper_bound=tensor([1., 1.])) IndependentConstraint(Real(), 1)\n"
                       "True")
    error = session.outcomes("Positive(-torch.ones(2))")[-1].error
    assert error is not None and error.type == "ValueError"
    assert "constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([-1., -1.])" in error.message
    assert "private name of a module" in session.error("constraints._GreaterThan").message


SQUASHED = """\
from torch.distributions import Normal, TransformedDistribution, TanhTransform, constraints
from torch.distributions.transforms import Transform
torch.manual_seed(0)
mu = torch.zeros(2, requires_grad=True)
d = TransformedDistribution(Normal(mu, 1.0), [TanhTransform(cache_size=1)])
a = d.rsample()
lp = d.log_prob(a).sum()
lp.backward()
class Cube(Transform):
    domain = constraints.real
    codomain = constraints.real
    bijective = True
    sign = 1
    def _call(self, x):
        return x ** 3
    def _inverse(self, y):
        return y.sign() * y.abs() ** (1 / 3)
    def log_abs_det_jacobian(self, x, y):
        return (3 * x ** 2).log()
c = TransformedDistribution(Normal(0.0, 1.0), Cube())
print(a, lp, mu.grad, c.log_prob(torch.tensor(8.0)), Cube().inv(torch.tensor(8.0)))
"""


def test_a_squashed_gaussian_and_a_users_own_transform_print_what_torch_prints(torch, session: Session) -> None:
    import contextlib
    import io

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec("import torch\n" + SQUASHED, {})  # noqa: S102 - our own program, in torch
    assert session.ok(SQUASHED.replace("torch.manual_seed(0)", "_ = torch.manual_seed(0)")) == printed.getvalue().strip()


def test_a_failed_assert_close_reads_as_torchs(session: Session) -> None:
    error = session.outcomes("torch.testing.assert_close(torch.ones(2), torch.zeros(2))")[-1].error
    assert error is not None and error.type == "AssertionError"
    assert error.message.startswith("Tensor-likes are not close!\n\nMismatched elements: 2 / 2 (100.0%)")


def test_user_code_subclasses_a_distribution_and_registers_its_kl() -> None:
    session = ReplaySession()  # a runtime of its own: the validation default it changes stays in it
    session.run("""\
import torch
from torch.distributions import Distribution, Normal, constraints, kl_divergence, register_kl
class Shifted(Normal):
    pass
class Point(Distribution):
    arg_constraints = {"at": constraints.real}
    def __init__(self, at):
        self.at = at
        super().__init__(at.shape)
    def log_prob(self, value):
        return (value == self.at).float().log()
@register_kl(Shifted, Shifted)
def kl_shifted(p, q):
    return torch.tensor(7.0)
print(kl_divergence(Shifted(0.0, 1.0), Shifted(1.0, 1.0)), Point(torch.zeros(2)), Point(torch.zeros(2)).batch_shape)
Distribution.set_default_validate_args(False)
print(Normal(0.0, -1.0))
""")
    printed = "\n".join(step.snapshot.output for step in session.steps if step.snapshot.output)
    assert [step.snapshot.error for step in session.steps if step.snapshot.error] == []
    assert printed == "tensor(7.) Point(at: torch.Size([2])) torch.Size([2])\nNormal(loc: 0.0, scale: -1.0)"


def test_a_session_does_not_inherit_another_sessions_validation_default() -> None:
    first, second = ReplaySession(), ReplaySession()
    first.run("import torch\nfrom torch.distributions import Distribution\nDistribution.set_default_validate_args(False)")
    second.run("import torch\nfrom torch.distributions import Normal\nNormal(0.0, -1.0)")
    error = second.last.error
    assert error is not None and error.type == "ValueError"
    assert "to satisfy the constraint GreaterThan(lower_bound=0.0)" in error.message


def test_a_distribution_the_engine_lacks_is_explained_as_a_gap() -> None:
    session = ReplaySession()
    session.run("import torch\nd = torch.distributions.Gamma(1.0, 1.0)")
    why = explain([step.snapshot for step in session.steps])
    assert why is not None and why.startswith("PyTorch 2.13.0 has `torch.distributions.Gamma`")


@pytest.mark.parametrize(("source", "error_type", "fragment"), cases(
    ("import torch.distributions as D\nD.Normal(0.0, 1.0).__dict__", "AttributeError", "'__dict__'"),
    ("import torch.distributions as D\nD.Bernoulli(0.5)._param", "AttributeError", "private attribute"),
    ("import torch.distributions as D\nD.kl.registrations", "AttributeError", "not available in tensorscope"),
    ("import torch.distributions as D\nD.distribution.defaults", "AttributeError", "not available in tensorscope"),
    ("import torch.distributions as D\nD.Bernoulli.logits.wrapped.__globals__", "AttributeError", "'__globals__'"),
    ("import torch.distributions as D\nD.Categorical.support.fget.__code__", "AttributeError", "'__code__'"),
    ("import torch.distributions as D\nD.utils.standard_normal", "AttributeError", "not available in tensorscope"),
    ("import torch.distributions as D\nD.utils.lazy_property(f).wrapped.__code__", "AttributeError", "'__code__'"),
    ("import torch.testing as T\nT.np", "AttributeError", "not available in tensorscope"),
    ("import torch.testing as T\nT.engine", "AttributeError", "not available in tensorscope"),
    ("import torch.distributions as D\nD.Normal.expand.__globals__", "AttributeError", "'__globals__'"),
    ("import torch.distributions as D\nD.Normal(0.0, 1.0).__class__.__init__.__globals__", "AttributeError",
     "'__globals__'"),
))
def test_the_granted_modules_open_no_way_into_the_engine(source: str, error_type: str, fragment: str) -> None:
    refused(source, error_type, fragment)


@pytest.mark.parametrize("module", ["distributions", "testing"])
def test_every_granted_name_is_one_torch_has(module: str) -> None:
    """The gap catalog lists what torch has; what the engine grants must be among it, so a name is
    never both granted and explained as missing."""
    import importlib

    from tensorscope.framework_gaps import catalog

    granted = set(importlib.import_module(f"engine.{module}").__all__)
    assert granted <= set(catalog()["torch"]["names"][f"torch.{module}"])


def test_a_torch_testing_name_the_engine_lacks_is_explained_as_a_gap() -> None:
    session = ReplaySession()
    session.run("import torch\ntorch.testing.FileCheck()")
    why = explain([step.snapshot for step in session.steps])
    assert why is not None and why.startswith("PyTorch 2.13.0 has `torch.testing.FileCheck`")
