"""The commands' limits: --time-limit and --memory-limit (before or after the command's name), a
scenario's time_limit key, and `check` giving each scenario a fresh worker."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tensorscope.cli import build_parser, main, memory_size
from tensorscope.scenario import ScenarioError, loads


def test_limits_are_read_before_or_after_the_command() -> None:
    parser = build_parser()
    args = parser.parse_args(["--time-limit", "3", "replay", "--memory-limit", "512M", "f.py"])
    assert (args.time_limit, args.memory_limit, args.no_cuda) == (3.0, 512 * 1024**2, False)
    args = parser.parse_args(["--no-cuda", "replay", "f.py"])
    assert args.no_cuda and args.time_limit == 10.0 and args.memory_limit == 4 * 1024**3
    assert memory_size("2G") == memory_size("2GiB") == 2 * 1024**3


@pytest.mark.parametrize("bad", [["--time-limit", "0"], ["--time-limit", "soon"], ["--memory-limit", "1K"],
                                 ["--memory-limit", "lots"], ["--memory-limit", "128M"]])
def test_bad_limits_get_one_line(bad: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([*bad, "list"])
    assert "tensorscope: error: argument" in capsys.readouterr().err


def test_a_memory_limit_too_small_for_a_worker_to_start_is_refused_with_why(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--memory-limit", "64M", "repl"])
    assert "'64M' is outside 192M..1024G (a worker needs about 200 MB to start)" in capsys.readouterr().err


def scenario_file(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def test_a_scenarios_time_limit_stops_its_slow_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    slow = scenario_file(tmp_path, "slow.yaml", """\
        title: Slow
        summary: one step runs for minutes
        time_limit: 1
        steps:
          - code: import torch
          - code: torch.zeros(1).expand(10**7, 10**7).sum()
            expect: {error: null}
        """)
    assert main(["check", str(slow)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "TimeoutError" in out and "interrupted after 1.0 s" in out


def test_check_gives_each_scenario_a_fresh_worker(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario_file(tmp_path, "a_poison.yaml", """\
        title: Poison
        summary: changes process-wide settings
        steps:
          - code: |
              import torch
              torch.set_default_dtype(torch.float64)
              torch.set_grad_enabled(False)
        """)
    scenario_file(tmp_path, "b_victim.yaml", """\
        title: Victim
        summary: expects a fresh process
        steps:
          - code: |
              import torch
              x = torch.ones(2, requires_grad=True) * 2
            expect: {dtype: {x: float32}, requires_grad: {x: true}}
        """)
    assert main(["check", str(tmp_path)]) == 0
    assert "2 passed, 0 failed" in capsys.readouterr().out


def test_time_limit_in_a_scenario_is_validated_with_its_place() -> None:
    with pytest.raises(ScenarioError) as caught:
        loads("title: t\nsummary: s\ntime_limit: -1\nsteps: [x = 1]\n", "s.yaml")
    assert (caught.value.line, caught.value.column) == (3, 13)
    assert "'time_limit' must be between 0 and 3600 seconds" in str(caught.value)
    with pytest.raises(ScenarioError) as caught:
        loads("title: t\nsummary: s\ntime_limit: soon\nsteps: [x = 1]\n", "s.yaml")
    assert "'time_limit' in the scenario must be a number" in str(caught.value)
    assert loads("title: t\nsummary: s\ntime_limit: 2\nsteps: [x = 1]\n").time_limit == 2.0
