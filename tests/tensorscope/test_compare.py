"""Scenarios in both dialects: the `torch:`/`paddle:` format, `tensorscope compare` on the shipped
side-by-side stories (their Paddle facts measured in Paddle 3.3.1), and `differences()` itself."""

from __future__ import annotations

import textwrap
from dataclasses import replace

import pytest

from scenarios import bundled
from tensorscope.cli import main
from tensorscope.compare import differences
from tensorscope.interpreter import ErrorInfo
from tensorscope.scenario import ScenarioError, load, loads, run_scenario
from tensorscope.session import Session

SIDE_BY_SIDE = [path for path in bundled() if path.name.startswith("paddle_vs_torch_")]

BOTH = """\
title: t
summary: s
setup:
  torch: import torch
  paddle: import paddle
steps:
  - torch: x = torch.ones(2)
    paddle: x = paddle.ones([2])
    expect: {version: {x: 0}}
  - code: x.add_(1)
    paddle: x.add_(paddle.ones([2]))
    expect: {values: {x: [2.0, 2.0]}}
"""


def load_error(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        loads(textwrap.dedent(text), "both.yaml")
    return caught.value


# --------------------------------------------------------------------------- the format
def test_a_step_gives_torch_and_paddle_code_and_setup_each_dialects_imports():
    story = loads(BOTH, "both.yaml")
    assert (story.setup, story.paddle_setup) == ("import torch", "import paddle")
    assert [(s.code, s.paddle) for s in story.steps] == [
        ("x = torch.ones(2)", "x = paddle.ones([2])"), ("x.add_(1)", "x.add_(paddle.ones([2]))")]
    assert story.has_paddle
    assert run_scenario(story).passed
    paddle = run_scenario(story, dialect="paddle")
    assert all(step.checks == () for step in paddle.steps)
    assert paddle.steps[-1].snapshots[-1].objects["x"].values == [2.0, 2.0]


def test_a_torch_only_scenario_has_no_paddle_run():
    story = loads("title: t\nsummary: s\nsetup: import torch\nsteps: [x = torch.ones(2)]\n", "plain.yaml")
    assert not story.has_paddle and story.paddle_setup == ""
    with pytest.raises(ScenarioError, match="no paddle code"):
        run_scenario(story, dialect="paddle")


@pytest.mark.parametrize(("text", "located"), [
    pytest.param("""\
        title: t
        summary: s
        steps:
          - code: x = 1
            torch: x = 1
        """, "both.yaml:5:5: step 1 gives both 'code' and 'torch' (they are the same: the torch code; keep one)",
        id="code and torch"),
    pytest.param("""\
        title: t
        summary: s
        steps:
          - torch: x = 1
            paddle: x = 1
          - torch: y = 2
        """, "both.yaml:6:5: step 2 has no paddle code (give every step 'paddle:' when one has it)",
        id="paddle missing in one step"),
    pytest.param("""\
        title: t
        summary: s
        steps:
          - torch: x = 1
            paddle: "  "
        """, "both.yaml:5:5: step 1 has empty paddle code (give it statements or drop it)", id="empty paddle"),
    pytest.param("""\
        title: t
        summary: s
        steps:
          - paddle: x = 1
        """, "both.yaml:4:5: step 1 has no code (every step needs 'code:')", id="paddle only"),
    pytest.param("""\
        title: t
        summary: s
        setup: {torch: import torch, padle: import paddle}
        steps: [x = 1]
        """, "both.yaml:3:30: unknown key 'padle' in 'setup' (did you mean 'paddle'?)", id="setup key"),
    pytest.param("""\
        title: t
        summary: s
        setup: {paddle: [import paddle]}
        steps: [x = 1]
        """, "both.yaml:3:17: 'paddle' in 'setup' must be a string (got list)", id="setup type"),
    pytest.param("""\
        title: t
        summary: s
        setup: {paddle: import paddle}
        steps: [x = 1]
        """, "both.yaml:4:8: a paddle setup but no step has 'paddle:' (give each step 'paddle:' code, or drop "
             "setup's 'paddle:')", id="paddle setup without paddle steps"),
    pytest.param("""\
        title: t
        summary: s
        steps:
          - torch: x = 1
            paddle: 3
        """, "both.yaml:5:13: 'paddle' in step 1 must be a string (got int)", id="paddle type"),
])
def test_malformed_dialect_keys_are_located(text, located):
    assert str(load_error(text)) == located


# --------------------------------------------------------------------------- compare on the shipped stories
KEY_LINES = {
    "paddle_vs_torch_plus_equals": ["x and y share memory in torch; in paddle they are separate copies",
                                    "x's version: torch 1, paddle 0",
                                    "x's values: torch [2.0, 2.0, 2.0], paddle [1.0, 1.0, 1.0]"],
    "paddle_vs_torch_split": ["a and x share memory in torch; in paddle they are separate copies",
                              "b and x share memory in torch; in paddle they are separate copies",
                              "x's version: torch 1, paddle 0"],
    "paddle_vs_torch_numpy_bridge": ["a and b share memory in torch; in paddle they are separate copies",
                                     "b and c share memory in torch; in paddle they are separate copies",
                                     "a's values: torch [2.0, 2.0, 2.0], paddle [1.0, 1.0, 1.0]"],
    "paddle_vs_torch_leaf_view": ["torch raises RuntimeError: a view of a leaf Variable that requires grad is "
                                  "being used in an in-place operation.; paddle runs without error",
                                  "w's version: torch 0, paddle 1",
                                  "w's values: torch [1.0, 1.0, 1.0], paddle [2.0, 2.0, 1.0]"],
    "paddle_vs_torch_optimizer_step": ["w's version: torch 1, paddle 0"],
}


def test_every_side_by_side_story_is_pinned_here():
    assert sorted(path.stem for path in SIDE_BY_SIDE) == sorted(KEY_LINES)


@pytest.mark.parametrize("path", SIDE_BY_SIDE, ids=[path.stem for path in SIDE_BY_SIDE])
def test_compare_names_the_key_differences(path, capsys):
    assert main(["compare", str(path)]) == 0
    text = capsys.readouterr().out
    for line in KEY_LINES[path.stem]:
        assert f"  * {line}" in text
    assert "GradNodeAccumulation" not in text  # a Paddle leaf's node is no difference
    assert text.rstrip().endswith("step(s) differ between torch and paddle")


def test_compare_shows_both_codes_and_the_narration(capsys):
    path = next(p for p in SIDE_BY_SIDE if p.stem == "paddle_vs_torch_optimizer_step")
    assert main(["compare", str(path)]) == 0
    text = capsys.readouterr().out
    assert "--- step 1 of 2 ---" in text and "  torch:  opt.step()" in text and "  paddle: opt.step()" in text
    assert "The same gradient in both" in text
    assert "  same in both dialects" not in text.split("--- step 2")[1]


def test_compare_refuses_a_torch_only_scenario(tmp_path, capsys):
    path = tmp_path / "plain.yaml"
    path.write_text("title: t\nsummary: s\nsetup: import torch\nsteps: [x = torch.ones(2)]\n", encoding="utf-8")
    assert main(["compare", str(path)]) == 1
    said = capsys.readouterr().err
    assert said.startswith(f"tensorscope: {path}: the scenario has no 'paddle:' code to compare; these have: ")
    assert "paddle_vs_torch_split" in said and "relu_memory_cuda" not in said  # the bundled ones that can


def test_compare_refuses_a_script_with_what_it_takes(tmp_path, capsys):
    script = tmp_path / "s.py"
    script.write_text("import torch\n", encoding="utf-8")
    assert main(["compare", str(script)]) == 1
    assert capsys.readouterr().err == (f"tensorscope: {script}: compare takes a scenario (.yaml) whose steps give "
                                       "'paddle:' code beside the torch code (see scenarios/README.md)\n")


def test_compare_has_help(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    assert "paddle" in capsys.readouterr().out


# --------------------------------------------------------------------------- differences()
def snapshot(source: str):
    session = Session()
    session.run(source)
    return session.last


def test_identical_stories_have_no_differences():
    torch_snap = snapshot("import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\n")
    paddle_snap = snapshot("import paddle\nx = paddle.ones([2])\nx.stop_gradient = False\ny = x * 2\n")
    assert differences(torch_snap, paddle_snap) == []


def test_flags_grad_fn_and_gradients_are_compared():
    torch_snap = snapshot("import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 3\ny.sum().backward()\n")
    paddle_snap = snapshot("import paddle\nx = paddle.ones([2])\ny = x * 3\n")
    assert differences(torch_snap, paddle_snap) == [
        "x requires grad in torch only (paddle: stop_gradient=True)",
        "x has a gradient in torch only",
        "y is not a leaf in torch, a leaf in paddle",
        "y requires grad in torch only (paddle: stop_gradient=True)",
        "y has a grad_fn in torch (MulBackward0) but none in paddle",
    ]


def test_values_of_a_big_tensor_are_summarised_not_dumped():
    torch_snap = snapshot("import torch\nx = torch.arange(12.).view(3, 4)\n")
    paddle_snap = snapshot("import paddle\nx = paddle.arange(12.).reshape([3, 4])\nx[0, 1] = 7.5\n")
    assert differences(torch_snap, paddle_snap) == [
        "x's version: torch 0, paddle 1",
        "x's values (1 of 12 elements differ): torch [0.0, 1.0, 2.0, 3.0, …], paddle [0.0, 7.5, 2.0, 3.0, …]"]


def test_a_paddle_layers_parameters_are_compared_like_a_modules():
    torch_snap = snapshot("import torch\nfc = torch.nn.Linear(2, 3)\nwith torch.no_grad(): fc.bias.fill_(1.)\n")
    paddle_snap = snapshot("import paddle\nfc = paddle.nn.Linear(2, 3)\nfc.bias.set_value(paddle.ones([3]))\n")
    assert set(paddle_snap.objects) == {"fc.weight", "fc.bias"}
    assert paddle_snap.objects["fc.weight"].shape == (2, 3) and paddle_snap.objects["fc.bias"].values == [1.0] * 3
    found = differences(torch_snap, paddle_snap)
    assert not [line for line in found if line.startswith("only ")]
    assert "fc.bias's version: torch 2, paddle 0" in found


def test_errors_output_and_names_only_in_one_dialect():
    torch_snap = snapshot("import torch\nx = torch.ones(2)\nprint('hi')\n")
    paddle_snap = snapshot("import paddle\nz = paddle.ones([2])\n")
    paddle_snap = replace(paddle_snap, error=ErrorInfo(type="ValueError", message="bad\nmore"))
    assert differences(torch_snap, paddle_snap) == [
        "torch runs without error; paddle raises ValueError: bad",
        "printed output: torch 'hi', paddle 'nothing'",
        "only torch has x",
        "only paddle has z",
    ]


def test_an_unknown_dialect_is_refused():
    with pytest.raises(ValueError, match="dialect must be one of"):
        run_scenario(loads(BOTH, "both.yaml"), dialect="jax")


def test_a_tensor_printed_in_each_dialect_is_not_a_difference_but_other_output_is():
    torch_snap = snapshot("import torch\nx = torch.ones(2)\nprint(x)\n")
    paddle_snap = snapshot("import paddle\nx = paddle.ones([2])\nprint(x)\n")
    assert differences(torch_snap, paddle_snap) == []
    paddle_snap = snapshot("import paddle\nx = paddle.ones([2])\nprint(None)\n")
    assert differences(torch_snap, paddle_snap) == ["printed output: torch 'tensor([1., 1.])', paddle 'None'"]


# Bundled stories told in PyTorch only, and why (every other bundled story has a Paddle side).
TORCH_ONLY = {
    "relu_memory_cuda": "GPU memory figures: the reference Paddle is the CPU wheel, and the simulated device "
                        "models PyTorch's caching allocator, not Paddle's",
    "relu_peak_4096": "the same",
    "resize_set_transpose": "resize_ and set_ swap a tensor's storage, which the Paddle dialect does not model",
    "adamw_state_memory": "GPU memory figures (the optimizer state on the simulated CUDA device)",
    "checkpoint_peak_memory": "GPU peak memory figures, and torch.utils.checkpoint's recomputation, which the "
                              "Paddle dialect does not have (paddle.distributed.fleet.utils.recompute)",
    "inference_mode_vs_no_grad": "Paddle has no inference mode: no inference tensors, every tensor keeps its "
                                 "inplace_version",
}


def test_every_bundled_story_that_paddle_can_tell_has_a_paddle_side():
    dual = {path.stem for path in bundled() if load(path).has_paddle}
    assert dual | set(TORCH_ONLY) == {path.stem for path in bundled()}
    assert not dual & set(TORCH_ONLY)


@pytest.mark.parametrize("path", [p for p in bundled() if p.stem not in TORCH_ONLY], ids=lambda p: p.stem)
def test_compare_tells_every_dual_story(path, capsys):
    assert main(["compare", str(path)]) == 0
    out = capsys.readouterr().out
    steps = len(load(path).steps)
    assert f"--- step {steps} of {steps} ---" in out and "step(s) differ between torch and paddle" in out
