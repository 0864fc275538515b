"""Snapshots are taken step after step, keeping every record whose state did not change, and cross
to the front end as what changed. Both must be invisible: after every step of random programs and
of every bundled scenario, the snapshot equals the step described from scratch, and the one the
front end decodes equals the one the worker took."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import allocator as allocation
from scenarios import bundled
from tensorscope.interpreter import parse
from tensorscope.scenario import load, session_options
from tensorscope.session import Session, Step
from tensorscope.snapshot import Snapshot
from tensorscope.worker import codec


class Checked:
    """A Session whose every step is compared with a description from scratch and sent through the
    wire format."""

    def __init__(self, **options: object) -> None:
        self.session = Session(**options)
        self.encoder, self.decoder = codec.SnapshotEncoder(), codec.SnapshotDecoder()
        self.received: list[Snapshot] = []

    def run(self, source: str) -> list[Step]:
        steps = []
        for statement in parse(source):
            step = self.session.run_statement(statement)
            assert step.snapshot == self.afresh(step.snapshot), statement.source
            self.received.append(self.sent(step.snapshot))
            assert self.received[-1] == step.snapshot, statement.source
            steps.append(step)
        return steps

    def afresh(self, snap: Snapshot) -> Snapshot:
        session = self.session
        with session.runtime.active():
            return session.taker.afresh().take(snap.step, snap.source, session.namespace, snap.output, snap.error,
                                               snap.warnings, allocation.allocator.peak_bytes)

    def sent(self, snap: Snapshot) -> Snapshot:
        line = codec.dumps({"step": self.encoder.encode(snap)})
        return self.decoder.decode(codec.loads(line)["step"])


NAMES = ("a", "b")
STATEMENTS = {  # by kind, so that every kind comes up often whatever the mix
    "make": ("{0} = torch.randn(3, 4)", "{0} = torch.arange(12.).view(3, 4)", "{0} = torch.zeros(40, 40)",
             "{0} = torch.ones(2, 3, requires_grad=True)", "{0} = torch.ones(4, device='cuda')",
             "{0} = torch.tensor([1, 2, 3])", "n = np.zeros(2000)", "n = np.arange(6.)", "m = torch.nn.Linear(3, 2)",
             "{0} = torch.from_numpy(n)"),
    "derive": ("{0} = {1}[0]", "{0} = {1}.t()", "{0} = {1}[::2]", "{0} = {1} * 2", "{0} = {1}.sum()",
               "{0} = {1}.view(-1)", "{0} = {1}.detach()", "{0} = {1}.data", "{0} = {1}.clone()", "{0} = {1}",
               "{0} = {1}.sigmoid()", "{0} = {1}.exp()", "{0} = m({1})", "n = {0}.numpy()", "del {0}"),
    "write": ("{0}.add_(1)", "{0}.mul_(2)", "{0}.zero_()", "{0}[0] = 7", "{0}[-1] = 5", "{0}[20, 20] = 5",
              "{0}[0, 0] = 3", "{0}.data.add_(1)", "{0}.numpy()[0] = 3", "n += 1", "n[-1] = 9", "{0}.resize_(2, 2)",
              "{0}.t_()", "{0}.normal_()", "with torch.no_grad():\n    {0}.add_(1)", "{0}.mul_({1})",
              "m.weight.data.mul_(0)"),
    "grad": ("{0}.sum().backward()", "{0}.sum().backward(retain_graph=True)", "{0}.requires_grad_()",
             "{0}.retain_grad()", "{0}.grad = None", "{0}.grad.zero_()", "{0}.grad.add_(1)", "{0} = {1}.grad",
             "{0} = {1} * {1}"),
    "other": ("torch.manual_seed(0)", "k = 1", "print({0})"),
}
STATEMENT = st.one_of([st.sampled_from(kind) for kind in STATEMENTS.values()])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(STATEMENT, st.sampled_from(NAMES), st.sampled_from(NAMES)), min_size=1, max_size=30))
def test_random_programs_snapshot_as_described_from_scratch(program: list[tuple[str, str, str]]) -> None:
    checked = Checked()
    checked.run("import torch\nimport numpy as np\n")
    for template, first, second in program:
        checked.run(template.format(first, second) + "\n")


GRAD_STATEMENTS = (
    "{0} = torch.ones(2, 3, requires_grad=True)", "{0} = torch.randn(40, 40, requires_grad=True)",
    "{0} = {1} * 2", "{0} = {1}.sigmoid()", "{0} = {1}[0]", "{0} = {1}.t()", "{0}.sum().backward(retain_graph=True)",
    "({0} * {1}).sum().backward()", "{0}.grad.zero_()", "{0}.grad = None", "{0}.retain_grad()",
    "with torch.no_grad():\n    {0}.mul_(2)", "{0}.add_(1)", "{0} = {1}.detach()", "{0}.detach_()",
    "{0} = {1}.grad",
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(GRAD_STATEMENTS), st.sampled_from(NAMES), st.sampled_from(NAMES)),
                min_size=1, max_size=20))
def test_random_autograd_programs_snapshot_as_described_from_scratch(program: list[tuple[str, str, str]]) -> None:
    checked = Checked()
    checked.run("import torch\n")
    for template, first, second in program:
        checked.run(template.format(first, second) + "\n")


def scenario_sources(path: str) -> list[tuple[str, dict, list[str]]]:
    scenario = load(path)
    options = {key: value for key, value in session_options(scenario).items() if key != "time_limit"}
    runs = [("torch", options, [scenario.setup, *(step.code for step in scenario.steps)])]
    if scenario.has_paddle:
        runs.append(("paddle", options, [scenario.paddle_setup, *(step.paddle for step in scenario.steps)]))
    return runs


@pytest.mark.parametrize("path", bundled(), ids=lambda path: path.stem)
def test_bundled_scenarios_snapshot_as_described_from_scratch(path: str) -> None:
    for _dialect, options, sources in scenario_sources(path):
        checked = Checked(**options)
        for source in sources:
            if source.strip():
                checked.run(source)


def test_an_unchanged_step_shares_everything_with_the_one_before() -> None:
    checked = Checked()
    checked.run("import torch\nx = torch.ones(3)\ny = x[1:]\nw = torch.ones(2, requires_grad=True)\nz = (w * 2).sum()\n")
    before, after = checked.run("k = 1\n")[0].snapshot, None
    after = checked.session.steps[-1].snapshot
    before = checked.session.steps[-2].snapshot
    for part in ("objects", "storages", "graph", "memory"):
        assert getattr(after, part) is getattr(before, part), part
    received_before, received_after = checked.received[-2:]
    for part in ("objects", "storages", "graph", "memory"):
        assert getattr(received_after, part) is getattr(received_before, part), part


def test_a_changed_step_keeps_the_records_it_did_not_touch() -> None:
    checked = Checked()
    checked.run("import torch\nx = torch.ones(3)\ny = torch.zeros(2)\n")
    checked.run("x.add_(1)\n")
    before, after = checked.session.steps[-2].snapshot, checked.session.steps[-1].snapshot
    assert after.objects["y"] is before.objects["y"] and after.objects["x"] is not before.objects["x"]
    assert after.objects["x"].values == [2.0, 2.0, 2.0] and after.objects["x"].version == 1
    received_before, received_after = checked.received[-2:]
    assert received_after.objects["y"] is received_before.objects["y"]


def test_a_gradient_accumulated_in_place_is_seen() -> None:
    checked = Checked()
    checked.run("import torch\nw = torch.ones(2, requires_grad=True)\n(w * 3).sum().backward()\n")
    assert checked.session.last.objects["w"].grad == [3.0, 3.0]
    checked.run("(w * 3).sum().backward()\n")
    assert checked.session.last.objects["w"].grad == [6.0, 6.0]


def test_writes_that_bypass_the_version_counter_are_seen() -> None:
    """`.data` has a version counter of its own and a numpy array over the memory has none: the
    snapshot still shows the new values."""
    checked = Checked()
    checked.run("import torch\nx = torch.zeros(3)\nn = x.numpy()\n")
    after_data = checked.run("x.data.add_(1)\n")[0].snapshot
    assert after_data.objects["x"].values == [1.0, 1.0, 1.0] and after_data.objects["x"].version == 0
    after_numpy = checked.run("n[0] = 5\n")[0].snapshot
    assert after_numpy.objects["x"].values == [5.0, 1.0, 1.0] and after_numpy.objects["n"].values == [5.0, 1.0, 1.0]


def test_a_large_tensor_is_described_again_only_when_its_printed_edges_change() -> None:
    checked = Checked()
    checked.run("import torch\nbig = torch.zeros(100, 100)\n")
    first = checked.session.last.objects["big"]
    with checked.session.runtime.active():
        checked.session.namespace["big"]._numpy_view()[50, 50] = 1  # behind the engine's back: not printed
    checked.run("k = 0\n")
    assert checked.session.last.objects["big"] is first
    checked.run("big[0, 0] = 1\n")
    assert checked.session.last.objects["big"].summary.startswith("tensor([[1., 0., 0.,  ..., 0., 0., 0.],")


def test_the_worker_session_keeps_only_its_last_step() -> None:
    session = Session(history=False)
    session.run("import torch\nx = torch.ones(2)\nx.add_(1)\n")
    assert len(session.steps) == 1 and session.last.step == 2 and session.last.objects["x"].version == 1


def test_the_front_end_default_device_memory_is_the_engine_s() -> None:
    from tensorscope.session import CUDA_CAPACITY_BYTES

    assert CUDA_CAPACITY_BYTES == engine.cuda_allocator.DEFAULT_CAPACITY


def test_numpy_arrays_are_described_again_when_their_elements_change() -> None:
    checked = Checked()
    checked.run("import numpy as np\nn = np.zeros(3)\nbig = np.zeros(5000)\n")
    checked.run("n[1] = 2\nbig[-1] = 3\n")
    last = checked.session.last
    assert last.objects["n"].values == [0.0, 2.0, 0.0] and last.objects["big"].summary.endswith("0. 3.]")
    assert np.float64(0) == 0  # numpy stays the user's module


def reference_line(snap: Snapshot) -> str:
    """The trace line as the contract defines it: the whole step record dumped at once."""
    import json

    from tensorscope.trace import _escaped, step_record

    return _escaped(json.dumps(step_record(snap), ensure_ascii=False))


def test_trace_lines_made_from_kept_fragments_are_the_whole_record_dumped() -> None:
    from tensorscope.trace import step_line

    checked = Checked()
    steps = checked.run("import torch\nimport numpy as np\nx = torch.ones(2, requires_grad=True)\ny = x * 2\n"
                        "y.sum().backward()\nn = np.array(['a\\u202e', 'b'])\nbig = torch.zeros(50, 50)\n"
                        "print('\\x9b')\nm = torch.nn.Linear(2, 2)\nz = 1 / torch.zeros(1)\n")
    steps += checked.run("import paddle\np = paddle.ones([2])\n")
    for step in steps:
        assert step_line(step.snapshot) == reference_line(step.snapshot)
        assert step_line(step.snapshot) == reference_line(step.snapshot)  # again, from the kept fragments


def test_a_name_bound_to_a_grad_relabels_it_within_the_step() -> None:
    """`b = a.grad`: the grad's memory takes b's label S1 in the very step, in a's record too (a is
    described before b), and is counted once."""
    checked = Checked()
    checked.run("import torch\na = torch.ones(2, 3, requires_grad=True)\na.sum().backward(retain_graph=True)\n")
    (step,) = checked.run("b = a.grad\n")
    assert step.snapshot.objects["a"].grad_storage == step.snapshot.objects["b"].storage == "S1"
    assert step.snapshot.memory.allocated_bytes == 48
