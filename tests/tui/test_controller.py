"""The explorer's controller driven without a screen: jobs, undo and reset, scenario progress and
the Compare pane's state, with in-process sessions and jobs run inline."""

from __future__ import annotations

from pathlib import Path

from tensorscope.session import Session
from tensorscope.tui.controller import Controller, InlineRunner, Job, Update
from tensorscope.tui.scenario_adapter import load_yaml

from .test_explorer import SCENARIO

ROOT = Path(__file__).resolve().parents[2]


def controller() -> tuple[Controller, list[Update]]:
    updates: list[Update] = []

    def notify(update: Update) -> None:
        updates.append(update)
        ctl.apply(update)

    ctl = Controller(Session, notify, InlineRunner())
    return ctl, updates


def test_statements_run_in_order_and_report_what_is_new() -> None:
    ctl, updates = controller()
    ctl.enqueue(Job("start"))
    ctl.run_source("import torch\nxs = torch.ones(2)")
    ctl.run_source("xs.add_(1)")
    assert [u.ran for u in updates] == [0, 2, 1]
    assert not ctl.busy and [s.source for s in ctl.snapshots] == ["import torch", "xs = torch.ones(2)", "xs.add_(1)"]
    assert "xs" in ctl.complete("x") and ctl.interrupt() is False


def test_a_syntax_error_is_a_failure_and_runs_nothing() -> None:
    ctl, updates = controller()
    ctl.run_source("x = (")
    assert updates[-1].failure is not None and updates[-1].failure.startswith("SyntaxError")
    assert ctl.snapshots == []


def test_undo_and_reset_replace_the_session() -> None:
    ctl, updates = controller()
    ctl.run_source("import torch\nxs = torch.ones(2)\nxs.add_(1)")
    ctl.enqueue(Job("undo"))
    assert updates[-1].replaced and updates[-1].source == "xs.add_(1)" and len(ctl.snapshots) == 2
    ctl.enqueue(Job("reset"))
    assert updates[-1].replaced and ctl.snapshots == []
    assert "xs" not in ctl.complete("x")


def test_a_scenario_steps_forward_views_back_and_runs_to_the_end() -> None:
    ctl, _ = controller()
    ctl.open_scenario(SCENARIO)
    assert ctl.step_next() == "queued" and ctl.scenario_current == 0
    assert ctl.step_next() == "queued" and ctl.scenario_current == 1
    ctl.scenario_current = 0  # looking back
    assert ctl.step_next() == "viewed" and ctl.scenario_current == 1
    assert ctl.last_snapshot_of_step(0) == 1
    ctl.run_to_end()
    assert ctl.scenario_marks == [2, 3, 4] and ctl.scenario_current == 2
    assert ctl.step_next() == "last"
    assert [s.source for s in ctl.step_snapshots(2)] == ["v.add_(1)"]
    ctl.enqueue(Job("undo"))
    assert ctl.scenario_marks == [2, 3] and ctl.scenario_current == 1


def test_a_yaml_scenario_checks_its_expectations_and_compares_the_dialects() -> None:
    ctl, _ = controller()
    scenario = load_yaml(ROOT / "scenarios" / "paddle_vs_torch_plus_equals.yaml")
    ctl.open_scenario(scenario)
    assert ctl.compares()
    assert ctl.compare_state().waiting.startswith("not run yet")
    ctl.run_to_end()
    results = ctl.step_results()
    assert results and all(passed for _, passed in results)
    state = ctl.compare_state()
    assert state.problem is None and state.found
    assert any("share memory in torch" in line for line in state.found)


def test_a_scenarios_time_limit_reaches_its_sessions() -> None:
    from tensorscope.scenario import loads
    from tensorscope.tui.scenario_adapter import YamlScenario

    ctl, _ = controller()
    scenario = YamlScenario(loads("title: t\nsummary: s\ntime_limit: 2\ncuda: false\nsteps: [x = 1]\n"))
    ctl.open_scenario(scenario)
    assert ctl.options == {"cuda": False, "cuda_capacity_bytes": 16 * 1024**3, "time_limit": 2.0}
    ctl.step_next()
    assert "time_limit: 2.0" in ctl.export_scenario()
