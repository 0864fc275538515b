"""The Session runs statements one at a time and keeps a Snapshot of everything after each."""

from __future__ import annotations

import pytest

from tensorscope.interpreter import UserError
from tensorscope.session import Session


def run(source: str) -> Session:
    session = Session()
    session.run(source)
    return session


def test_each_statement_gets_a_snapshot_with_its_source_output_and_error():
    session = run("import torch\nx = torch.ones(2)\nprint(x)\ny = z\n")
    assert [s.snapshot.source for s in session.steps] == ["import torch", "x = torch.ones(2)", "print(x)", "y = z"]
    assert session.steps[2].snapshot.output == "tensor([1., 1.])"
    error = session.steps[3].snapshot.error
    assert (error.type, error.message) == ("NameError", "name 'z' is not defined")


def test_a_view_shares_its_base_storage_and_version():
    snap = run("import torch\nx = torch.arange(6.).view(2, 3)\nv = x.t()\nv.mul_(2)\n").last
    x, v = snap.objects["x"], snap.objects["v"]
    assert x.storage == v.storage and snap.storages[x.storage].viewers == ("v", "x")
    assert (x.version, v.version) == (1, 1)
    assert v.stride == (1, 3) and v.is_view


def test_stale_saved_tensors_are_named():
    snap = run("import torch\nx = torch.ones(3, requires_grad=True)\ny = x.exp()\ny.add_(1)\n").last
    [(node, saved)] = snap.stale_saved()
    assert node.name == "ExpBackward0" and saved.field == "result"
    assert saved.names == ("y",) and (saved.saved_version, saved.current_version) == (0, 1)


def test_the_graph_links_nodes_and_names_the_leaf():
    snap = run("import torch\nw = torch.ones(2, requires_grad=True)\nloss = (w * 3).sum()\n").last
    names = [node.name for node in snap.graph]
    assert names == ["SumBackward0", "MulBackward0", "AccumulateGrad"]
    assert snap.graph[-1].variable == "w" and snap.graph[0].outputs == ("loss",)


def test_memory_counts_reachable_storages_and_the_peak():
    session = run("import torch\nx = torch.zeros(1000)\ny = torch.relu(x)\ndel y\n")
    assert session.steps[1].snapshot.memory.allocated_bytes == 4000
    assert session.steps[2].snapshot.memory.allocated_bytes == 8000
    last = session.last.memory
    assert last.allocated_bytes == 4000 and last.peak_bytes == 8000


def test_relu_inplace_costs_nothing_more():
    session = run("import torch\nx = torch.zeros(1000)\ntorch.relu_(x)\n")
    assert session.last.memory.peak_bytes == 4000


def test_large_tensors_are_summarised_not_copied():
    snap = run("import torch\nbig = torch.zeros(2000, 2000)\n").last
    big = snap.objects["big"]
    assert big.values is None and "..." in big.summary and big.elements is None
    assert big.covered == (0, 4_000_000 - 1)


def test_a_numpy_bridge_shares_one_label():
    snap = run("import torch\nimport numpy as np\na = np.ones(4)\nb = torch.from_numpy(a)\nc = b.numpy()\n").last
    assert snap.objects["a"].storage == snap.objects["b"].storage == snap.objects["c"].storage


def test_module_parameters_are_listed_under_the_module_name():
    snap = run("import torch\nm = torch.nn.Linear(2, 1)\n").last
    assert {"m.weight", "m.bias"} <= set(snap.objects)
    assert snap.objects["m.weight"].is_parameter


def test_undo_replays_everything_but_the_last_statement():
    session = run("import torch\ntorch.manual_seed(1)\nx = torch.randn(3)\nx.add_(1)\n")
    undone = session.undo()
    assert len(undone.steps) == 3
    assert undone.last.objects["x"].version == 0
    assert undone.last.objects["x"].values == session.steps[2].snapshot.objects["x"].values


def test_replaying_from_the_start_is_deterministic_even_without_a_seed():
    first = run("import torch\nx = torch.randn(4)\n").last.objects["x"].values
    again = run("import torch\nx = torch.randn(4)\n").last.objects["x"].values
    assert first == again


def test_export_script_replays_to_the_same_state():
    session = run("import torch\nx = torch.ones(2)\nwith torch.no_grad():\n    x.mul_(3)\n")
    replayed = run(session.export_script())
    assert replayed.last.objects == session.last.objects


def test_a_syntax_error_runs_nothing():
    session = Session()
    with pytest.raises(UserError) as caught:
        session.run("x = 1\ny = (\n")
    assert caught.value.info.type == "SyntaxError"
    assert session.steps == []


def test_snapshots_of_earlier_steps_do_not_change():
    session = run("import torch\nx = torch.zeros(2)\nx.add_(5)\n")
    before = session.steps[1].snapshot.objects["x"]
    assert before.values == [0.0, 0.0] and before.version == 0


def test_export_scenario_replays_to_the_same_state_and_checks_itself(tmp_path):
    from tensorscope.scenario import load, run_scenario

    session = run("import torch\nx = torch.ones(3, requires_grad=True)\ny = x.exp()\ny.add_(1)\n"
                  "y.sum().backward()\n")
    path = tmp_path / "recorded.yaml"
    path.write_text(session.export_scenario(), encoding="utf-8")
    replayed = run_scenario(load(path))
    assert replayed.passed
    assert replayed.steps[-1].snapshots[-1].objects == session.last.objects
    assert replayed.steps[-1].snapshots[-1].error.message.startswith("one of the variables needed")
