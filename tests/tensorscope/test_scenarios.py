"""The bundled scenario library: every story passes `tensorscope check`, is listed with its title,
replays with its narration, and is true to real PyTorch 2.13 wherever CPU torch can tell."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import textwrap

import pytest

from scenarios import bundled
from tensorscope.cli import main
from tensorscope.scenario import load, loads
from tests.tensorscope.scenario_torch import compare

SCENARIOS = bundled()
FOLDER = SCENARIOS[0].parent


def statement_sources(code: str) -> list[str]:
    """The top-level statements of code, as the trace shows them."""
    return [ast.get_source_segment(code, node) for node in ast.parse(code).body]


@pytest.fixture(scope="module")
def check_report() -> tuple[int, str]:
    """`tensorscope check` on the scenarios folder, run once (the CUDA story alone takes seconds)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["check", str(FOLDER)])
    return status, out.getvalue()


# --------------------------------------------------------------------------- the library
def test_the_library_has_at_least_fifteen_stories():
    assert len(SCENARIOS) >= 15
    assert all(re.fullmatch(r"[a-z0-9_]+\.yaml", path.name) for path in SCENARIOS)


def test_every_story_is_narrated_and_checks_something():
    for path in SCENARIOS:
        story = load(path)
        assert story.title and story.summary.strip() and story.tags, path.name
        assert all(step.say.strip() for step in story.steps), f"{path.name}: a step without `say:`"
        assert sum(len(step.expect) for step in story.steps) >= len(story.steps), f"{path.name}: few expectations"


def test_check_passes_every_bundled_scenario(check_report):
    status, text = check_report
    failures = [line for line in text.splitlines() if not line.startswith("PASS")][:-1]
    assert failures == []
    assert status == 0
    assert [line.split()[1] for line in text.splitlines()[:-1]] == [str(path) for path in SCENARIOS]
    assert text.splitlines()[-1] == f"{len(SCENARIOS)} passed, 0 failed"


def test_list_shows_every_bundled_scenario_with_its_title(capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(SCENARIOS)
    for line, path in zip(lines, SCENARIOS):
        name, title = line.split(maxsplit=1)
        assert (name, title) == (path.stem, load(path).title)


# --------------------------------------------------------------------------- replay
def test_replay_narrates_each_step_with_its_expectations(capsys):
    path = FOLDER / "resnet_plus_equals_trap.yaml"
    story = load(path)
    assert main(["replay", str(path)]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"{story.title}\n{'=' * len(story.title)}\n")
    for index, step in enumerate(story.steps, start=1):
        assert f"--- step {index} of {len(story.steps)} ---" in text
        for line in step.say.strip().splitlines():
            assert line in text
    assert "    expect ok: saved.out" in text
    assert "    expect ok: stale" in text
    assert "    why: `out` was saved by ReluBackward0" in text
    assert text.rstrip().endswith("all expectations hold")


def test_replay_json_prints_one_trace_line_per_statement(capsys):
    path = FOLDER / "view_inplace_normal.yaml"
    story = load(path)
    assert main(["replay", str(path), "--json"]) == 0
    steps = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    sources = [*statement_sources(story.setup), *(s for step in story.steps for s in statement_sources(step.code))]
    assert [step["source"] for step in steps] == sources
    assert [step["step"] for step in steps] == list(range(len(sources)))
    assert steps[-1]["objects"]["z"]["storage"] != steps[-1]["objects"]["x"]["storage"]


def test_replay_of_a_failing_story_exits_nonzero(tmp_path, capsys):
    path = tmp_path / "wrong.yaml"
    path.write_text("title: t\nsummary: s\nsetup: import torch\nsteps:\n"
                    "  - code: x = torch.ones(2)\n    expect: {version: {x: 1}}\n", encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    assert "1 expectation(s) failed" in capsys.readouterr().out


# --------------------------------------------------------------------------- true to real PyTorch
@pytest.mark.parametrize("path", SCENARIOS, ids=[path.stem for path in SCENARIOS])
def test_the_story_is_true_to_real_pytorch(path, torch):
    result = compare(load(path))
    assert result.mismatches == []
    if result.stopped_at is not None:
        pytest.skip(f"from step {result.stopped_at} on, the story uses CUDA, which this torch lacks "
                    f"(the {result.compared} step(s) before agree)")


WRONG = """\
title: A wrong story
summary: Every expectation here is false in PyTorch.
setup: import torch
steps:
  - code: |
      x = torch.ones(3, requires_grad=True)
      out = x.sigmoid()
    expect:
      saved: {out: {by: SigmoidBackward0, version: 1}}
      shares_storage: [[x, out]]
  - code: out += 1
    expect: {version: {out: 2}, stale: [], grad_fn: {out: MulBackward0}}
  - code: out.sum().backward()
    expect: {error: null, output: "done"}
"""


def test_the_torch_comparison_catches_a_wrong_story(torch):
    result = compare(loads(textwrap.dedent(WRONG), "wrong.yaml"))
    assert result.compared == 3
    assert [m.split(":")[0] + ":" + m.split(":")[1] for m in result.mismatches] == [
        "step 1: saved.out", "step 1: shares_storage ['x', 'out']",
        "step 2: version.out", "step 2: stale", "step 2: grad_fn.out",
        "step 3: error", "step 3: output",
    ]
    assert "step 2: stale: expected [], torch gives ['out']" in result.mismatches
    assert "step 1: saved.out: expected {'by': 'SigmoidBackward0', 'version': 1}, torch gives " \
           "[('SigmoidBackward0', 0)]" in result.mismatches
