"""`paddle_expect`: Paddle-side expectations on a dual scenario, validated like `expect`, checked on
the Paddle run and by `tensorscope check` (both dialects must pass), and true to real Paddle 3.3.1."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from scenarios import bundled
from tensorscope.cli import main
from tensorscope.scenario import ScenarioError, load, loads, run_scenario

DUAL = [path for path in bundled() if load(path).has_paddle]

STORY = """\
title: t
summary: s
setup: {torch: import torch, paddle: import paddle}
steps:
  - torch: |
      x = torch.ones(2)
      y = x
      y += 1
    paddle: |
      x = paddle.ones([2])
      y = x
      y += 1
    expect: {shares_storage: [[x, y]], version: {x: 1}}
    paddle_expect: {shares_storage: [[x], [y]], version: {x: 0}, values: {x: [1.0, 1.0], y: [2.0, 2.0]}}
"""


@pytest.fixture(scope="module")
def real_paddle():
    return pytest.importorskip("paddle")


def load_error(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        loads(textwrap.dedent(text), "dual.yaml")
    return caught.value


# --------------------------------------------------------------------------- the key
def test_paddle_expect_is_checked_on_the_paddle_run_only():
    story = loads(STORY, "dual.yaml")
    step = story.steps[0]
    assert step.paddle_expect == {"shares_storage": [["x"], ["y"]], "version": {"x": 0},
                                  "values": {"x": [1.0, 1.0], "y": [2.0, 2.0]}}
    torch_run, paddle_run = run_scenario(story), run_scenario(story, dialect="paddle")
    assert torch_run.passed and paddle_run.passed
    assert [c.key for c in torch_run.steps[0].checks] == ["shares_storage ['x', 'y']", "version.x"]
    assert [c.key for c in paddle_run.steps[0].checks] == [
        "shares_storage ['x']", "shares_storage ['y']", "version.x", "values.x", "values.y"]


def test_a_wrong_paddle_expectation_fails_the_paddle_run_with_expected_and_actual():
    story = loads(STORY.replace("version: {x: 0}, values", "version: {x: 1}, values"), "dual.yaml")
    assert run_scenario(story).passed
    run = run_scenario(story, dialect="paddle")
    assert [(i, c.describe()) for i, c in run.failures] == [(1, "FAILED: version.x: expected 1, got 0")]


def test_a_step_without_paddle_expect_checks_nothing_in_paddle():
    story = loads(STORY.split("    paddle_expect:")[0], "dual.yaml")
    assert all(step.checks == () for step in run_scenario(story, dialect="paddle").steps)


@pytest.mark.parametrize(("text", "where", "message"), [
    ("    paddle_expect: {versoin: {x: 0}}\n", (14, 21), "unknown key 'versoin' in the paddle expectations of step 1"),
    ("    paddle_expect: {version: 3}\n", (14, 30), "'version' in step 1 (paddle): must be a mapping"),
    ("    paddle_expect: [version]\n", (14, 20), "'paddle_expect' in step 1 must be a mapping"),
    ("    paddle_expect: {error: {type: ValueError, contain: x}}\n", (14, 47),
     "'error' in step 1 (paddle): unknown field 'contain'"),
    ("    paddle_expect: {shares_storage: [x, y]}\n", (14, 37), "'shares_storage' in step 1 (paddle): must be a list"),
])
def test_a_malformed_paddle_expect_is_located(text, where, message):
    base = STORY.split("    paddle_expect:")[0]
    error = load_error(base + text)
    assert (error.line, error.column) == where
    assert error.message.startswith(message)
    assert error.hint


def test_paddle_expect_needs_paddle_code():
    error = load_error("title: t\nsummary: s\nsetup: import torch\nsteps:\n"
                       "  - code: x = torch.ones(2)\n    paddle_expect: {version: {x: 0}}\n")
    assert (error.line, error.column) == (6, 5)
    assert error.message == "step 1 has 'paddle_expect' but no paddle code"


# --------------------------------------------------------------------------- tensorscope check
def test_check_passes_a_dual_scenario_only_when_both_dialects_pass(tmp_path: Path, capsys):
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(STORY, encoding="utf-8")
    bad.write_text(STORY.replace("version: {x: 0}, values", "version: {x: 1}, values"), encoding="utf-8")
    assert main(["check", str(good)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"PASS  {good}  (2 torch + 5 paddle expectations)", "1 passed, 0 failed"]
    assert main(["check", str(bad)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"FAIL  {bad}  (paddle failed)",
        "      paddle step 1: FAILED: version.x: expected 1, got 0",
        "0 passed, 1 failed",
    ]


def test_check_says_when_both_dialects_fail(tmp_path: Path, capsys):
    path = tmp_path / "both.yaml"
    path.write_text(STORY.replace("version: {x: 1}}", "version: {x: 2}}")
                    .replace("version: {x: 0}, values", "version: {x: 1}, values"), encoding="utf-8")
    assert main(["check", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"FAIL  {path}  (torch and paddle failed)"
    assert lines[1:3] == ["      torch step 1: FAILED: version.x: expected 2, got 1",
                          "      paddle step 1: FAILED: version.x: expected 1, got 0"]


def test_every_shipped_dual_scenario_pins_paddle_in_every_step():
    assert len(DUAL) >= 5
    for path in DUAL:
        story = load(path)
        assert all(step.paddle_expect for step in story.steps), path.name
        assert run_scenario(story, dialect="paddle").passed, path.name


# --------------------------------------------------------------------------- true to real Paddle
@pytest.mark.parametrize("path", DUAL, ids=[path.stem for path in DUAL])
def test_the_paddle_story_is_true_to_real_paddle(path, real_paddle):
    from tests.tensorscope.scenario_paddle import compare

    result = compare(load(path))
    assert result.mismatches == []
    assert result.compared == len(load(path).steps)


def test_the_paddle_comparison_catches_a_wrong_story(real_paddle):
    from tests.tensorscope.scenario_paddle import compare

    wrong = STORY.replace(
        "paddle_expect: {shares_storage: [[x], [y]], version: {x: 0}, values: {x: [1.0, 1.0], y: [2.0, 2.0]}}",
        "paddle_expect: {shares_storage: [[x, y]], version: {x: 1}, requires_grad: {x: true}, "
        "grad_fn: {y: ScaleGradNode}, error: ValueError}")
    result = compare(loads(wrong, "wrong.yaml"))
    assert [m.split(":")[1].strip() for m in result.mismatches] == [
        "shares_storage ['x', 'y']", "version.x", "requires_grad.x", "grad_fn.y", "error"]
    assert "step 1: version.x: expected 1, paddle gives 0" in result.mismatches
