"""A scenario run told as text (`replay SCENARIO.yaml`) and judged (`check`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tensorscope.report import render_step
from tensorscope.scenario import ScenarioRun
from tensorscope.snapshot import Snapshot


def all_snapshots(run: ScenarioRun) -> list[Snapshot]:
    """Every statement's snapshot, setup included, in order (what the JSON trace prints)."""
    return [*run.setup, *(snap for step in run.steps for snap in step.snapshots)]


def render(run: ScenarioRun) -> str:
    scenario = run.scenario
    lines = [scenario.title, "=" * len(scenario.title), scenario.summary.strip(), ""]
    history: list[Snapshot] = list(run.setup)
    for index, step in enumerate(run.steps, start=1):
        lines.append(f"--- step {index} of {len(run.steps)} ---")
        if step.step.say:
            lines.extend(step.step.say.strip().splitlines())
            lines.append("")
        for snap in step.snapshots:
            lines.extend(render_step(history, snap))
            history.append(snap)
        lines.extend(f"    expect {check.describe()}" for check in step.checks)
        lines.append("")
    lines.append("all expectations hold" if run.passed else f"{len(run.failures)} expectation(s) failed")
    return "\n".join(lines)


def verdict(path: Path | str, run: ScenarioRun) -> str:
    if run.passed:
        return f"PASS  {path}  ({sum(len(s.checks) for s in run.steps)} expectations)"
    lines = [f"FAIL  {path}"]
    lines.extend(f"      step {index}: {check.describe()}" for index, check in run.failures)
    return "\n".join(lines)


def verdict_both(path: Path | str, torch_run: ScenarioRun, paddle_run: ScenarioRun) -> str:
    """One line for a scenario run in both dialects: it passes only when both do; a failure says
    which dialect failed and lists each failed expectation with its dialect."""
    runs = {"torch": torch_run, "paddle": paddle_run}
    if all(run.passed for run in runs.values()):
        counts = {d: sum(len(s.checks) for s in run.steps) for d, run in runs.items()}
        return f"PASS  {path}  ({counts['torch']} torch + {counts['paddle']} paddle expectations)"
    failed = [d for d, run in runs.items() if not run.passed]
    lines = [f"FAIL  {path}  ({' and '.join(failed)} failed)"]
    for dialect in failed:
        lines.extend(f"      {dialect} step {index}: {check.describe()}" for index, check in runs[dialect].failures)
    return "\n".join(lines)


def scenario_files(paths: Sequence[str]) -> list[Path]:
    """The scenario files named, or found in the folders named; the bundled ones when none."""
    if not paths:
        from scenarios import bundled

        return bundled()
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml")))
        else:
            files.append(path)
    return files
