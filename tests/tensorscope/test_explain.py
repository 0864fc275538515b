"""Errors explained: each autograd error gets its story, told from the session's history, and a
saved tensor that goes stale is flagged at the step that changed it, before any backward."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tensorscope.cli import main
from tensorscope.explain import explain, rewrite, stale_warning
from tensorscope.repl import Repl
from tensorscope.report import changes
from tensorscope.session import Session
from tensorscope.snapshot import Snapshot

IMPORTS = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def history(source: str) -> list[Snapshot]:
    """Run IMPORTS (statements 0-2) then source; every statement's snapshot, in order."""
    session = Session(cuda=False)
    session.run(IMPORTS + textwrap.dedent(source))
    return [step.snapshot for step in session.steps]


def story(source: str) -> str:
    """The explanation of the error the last statement of source raised."""
    snapshots = history(source)
    assert snapshots[-1].error is not None, "the last statement was meant to fail"
    text = explain(snapshots)
    assert text, f"no explanation for {snapshots[-1].error}"
    return text


# --------------------------------------------------------------------------- version mismatch
def test_plus_equals_on_a_saved_output_names_the_saving_step_the_change_and_the_rewrite():
    text = story("""\
        x = torch.ones(3, requires_grad=True)
        out = x.sigmoid()
        out += 1
        out.sum().backward()
    """)
    assert text.splitlines() == [
        "`out` was saved by SigmoidBackward0 at step 4 (`out = x.sigmoid()`) as its own result, at version 0.",
        "Step 5 `out += 1` changed it in place (version 1).",
        "Backward needs the values SigmoidBackward0 saw, so it refuses to run on the changed `out`.",
        "Write `out = out + 1` instead (a new tensor, the saved one stays intact), or make the in-place "
        "change after the last backward.",
    ]


def test_add_underscore_on_a_saved_input_is_rewritten_out_of_place():
    text = story("""\
        x = torch.ones(3, requires_grad=True)
        h = x * 2
        y = h * h
        h.add_(1)
        y.sum().backward()
    """)
    assert "`h` was saved by MulBackward0 at step 5 (`y = h * h`) as its input" in text
    assert "Step 6 `h.add_(1)` changed it in place (version 1)." in text
    assert "Write `h = h.add(1)` instead" in text


def test_inplace_true_is_rewritten_with_inplace_false():
    text = story("""\
        x = torch.tensor([-1.0, 1.0], requires_grad=True)
        s = torch.sigmoid(x)
        s = nn.ReLU(inplace=True)(s)
        s.sum().backward()
    """)
    assert "`s` was saved by SigmoidBackward0 at step 4 (`s = torch.sigmoid(x)`) as its own result, at version 0." in text
    assert "Step 5 `s = nn.ReLU(inplace=True)(s)` changed it in place (version 1)." in text
    assert "Write `s = nn.ReLU(inplace=False)(s)` instead" in text


def test_two_in_place_changes_are_both_told_and_the_last_one_is_rewritten():
    text = story("""\
        x = torch.ones(2, requires_grad=True)
        out = x.exp()
        out += 1
        out.mul_(2)
        out.sum().backward()
    """)
    assert "Step 5 `out += 1` changed it in place (version 1)." in text
    assert "Step 6 `out.mul_(2)` changed it in place (version 2)." in text
    assert "Write `out = out.mul(2)` instead" in text


def test_a_saved_tensor_with_two_names_is_told_by_the_name_it_was_saved_under():
    text = story("""\
        x = torch.tensor([-1.0, 1.0], requires_grad=True)
        s = torch.sigmoid(x)
        r = nn.ReLU(inplace=True)(s)
        r.sum().backward()
    """)
    assert "`s` was saved by SigmoidBackward0 at step 4 (`s = torch.sigmoid(x)`)" in text
    assert "Step 5 `r = nn.ReLU(inplace=True)(s)` changed it in place (version 1)." in text


@pytest.mark.parametrize(("statement", "fix"), [
    ("out += residual", "out = out + residual"),
    ("y[0] *= 2", "y[0] = y[0] * 2"),
    ("h.add_(1)", "h = h.add(1)"),
    ("w.clamp_(min=0)", "w = w.clamp(min=0)"),
    ("out = F.relu(out, inplace=True)", "out = F.relu(out, inplace=False)"),
    ("print(x)", None),
])
def test_rewrite_gives_the_out_of_place_form(statement, fix):
    assert rewrite(statement) == fix


# --------------------------------------------------------------------------- the other errors
def test_leaf_in_place_names_the_tensor_and_both_idioms():
    text = story("""\
        w = torch.FloatTensor(10)
        w.requires_grad = True
        w.normal_()
    """)
    assert text.startswith("`w` is a leaf that requires grad")
    assert "`with torch.no_grad(): w.normal_()`" in text
    assert "`w.data`" in text


def test_in_place_on_a_view_of_a_leaf_says_it_would_change_the_leaf():
    text = story("""\
        w = torch.zeros(2, 3, requires_grad=True)
        row = w[0]
        row.fill_(1.0)
    """)
    assert "view of a leaf that requires grad" in text
    assert "would change the leaf in place" in text
    assert "`with torch.no_grad():`" in text


@pytest.mark.parametrize("pieces", ["a, b = y.split(3)", "a, b = y.chunk(2)", "a, b = y.view(2, 3).unbind()"])
def test_multi_output_views_suggest_out_of_place_or_clone(pieces):
    text = story(f"""\
        x = torch.arange(6.0, requires_grad=True)
        y = x * 1
        {pieces}
        a.add_(1)
    """)
    assert "split, chunk and unbind return views that share one autograd node" in text
    assert "`.clone()`" in text


def test_a_view_made_under_no_grad_and_changed_outside_says_where_both_belong():
    text = story("""\
        w = torch.zeros(2, 3, requires_grad=True)
        with torch.no_grad():
            v = w[1]
        v.add_(1)
    """)
    assert "made inside `with torch.no_grad():` and changed in place outside it" in text
    assert "both inside the no_grad block, or both outside it" in text


def test_backward_twice_suggests_retain_graph():
    text = story("""\
        x = torch.ones(3, requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()
    """)
    assert "The first backward freed what the graph had saved" in text
    assert "`retain_graph=True`" in text


def test_non_scalar_backward_suggests_reducing_or_passing_a_gradient():
    text = story("""\
        x = torch.ones(3, requires_grad=True)
        (x * 2).backward()
    """)
    assert "needs a single number (a loss)" in text
    assert "`y.sum().backward()`" in text and "torch.ones_like(y)" in text


@pytest.mark.parametrize("loss", ["x.detach().sum()", "torch.ones(3).sum()"])
def test_backward_without_a_graph_says_nothing_requires_grad(loss):
    text = story(f"""\
        x = torch.ones(3, requires_grad=True)
        {loss}.backward()
    """)
    assert text.startswith("Nothing this tensor was computed from requires grad")


def test_in_place_on_an_expanded_tensor_suggests_clone():
    text = story("""\
        e = torch.ones(3, 1).expand(3, 4)
        e.add_(1)
    """)
    assert "Several elements of this tensor are the same memory" in text
    assert "`.clone()` it first" in text


def test_partly_overlapping_copy_suggests_cloning_the_input():
    text = story("""\
        t = torch.arange(5.0)
        t[1:].copy_(t[:-1])
    """)
    assert "share part of their memory" in text


def test_errors_without_a_story_and_steps_without_errors_get_none():
    assert explain(history("y = undefined_name + 1")) is None
    assert explain(history("x = torch.ones(2)")) is None
    assert explain([]) is None


# --------------------------------------------------------------------------- warned before backward
def test_a_saved_tensor_is_flagged_stale_at_the_step_that_changed_it():
    snapshots = history("""\
        x = torch.ones(3, requires_grad=True)
        out = x.sigmoid()
        out += 1
    """)
    saved, changed = snapshots[-2], snapshots[-1]
    assert stale_warning(saved) == []
    assert stale_warning(changed) == [
        "`out` was saved by SigmoidBackward0 at version 0 and is now at version 1: "
        "a backward through SigmoidBackward0 will fail."]


def test_changing_what_nobody_saved_gives_no_warning():
    snapshots = history("""\
        x = torch.ones(3, requires_grad=True)
        out = x * 2
        out += 1
        out.sum().backward()
    """)
    assert [stale_warning(s) for s in snapshots] == [[]] * len(snapshots)
    assert snapshots[-1].error is None


# --------------------------------------------------------------------------- where learners see it
def test_replay_of_a_script_prints_the_explanation_under_the_error(tmp_path: Path, capsys):
    script = tmp_path / "trap.py"
    script.write_text("import torch\nx = torch.ones(3, requires_grad=True)\nout = x.sigmoid()\n"
                      "out += 1\nout.sum().backward()\n", encoding="utf-8")
    assert main(["replay", str(script)]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("    RuntimeError: one of the variables"))
    assert lines[at + 1] == ("    why: `out` was saved by SigmoidBackward0 at step 2 (`out = x.sigmoid()`) "
                             "as its own result, at version 0.")
    assert lines[at + 2] == "         Step 3 `out += 1` changed it in place (version 1)."
    warned = next(i for i, line in enumerate(lines) if line == "[3] >>> out += 1")
    assert lines[warned + 2].startswith("    * stale: `out` was saved by SigmoidBackward0 at version 0")


def test_replay_of_a_scenario_prints_the_explanation_under_the_error(tmp_path: Path, capsys):
    scenario = tmp_path / "leaf.yaml"
    scenario.write_text(textwrap.dedent("""\
        title: A leaf
        summary: In place on a leaf.
        setup: import torch
        steps:
          - code: w = torch.zeros(3, requires_grad=True)
          - code: w.normal_()
            expect: {error: RuntimeError}
    """), encoding="utf-8")
    assert main(["replay", str(scenario)]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("    RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.")
    assert lines[at + 1].startswith("    why: `w` is a leaf that requires grad")


def test_the_repl_prints_the_explanation_under_the_error_and_warns_at_the_change():
    written: list[str] = []
    repl = Repl(written.append, cuda=False)
    for line in ["import torch", "x = torch.ones(3, requires_grad=True)", "out = x.sigmoid()", "out += 1"]:
        repl.handle(line)
    assert "  * stale: `out` was saved by SigmoidBackward0 at version 0" in "".join(written)
    written.clear()
    repl.handle("out.sum().backward()")
    lines = "".join(written).splitlines()
    assert lines[0].startswith("RuntimeError: one of the variables needed for gradient computation")
    assert lines[1] == "  why: `out` was saved by SigmoidBackward0 at step 2 (`out = x.sigmoid()`) as its own result, at version 0."
    assert lines[2] == "       Step 3 `out += 1` changed it in place (version 1)."
    assert lines[4].startswith("       Write `out = out + 1` instead")


# --------------------------------------------------------------------------- a snippet without its imports
@pytest.mark.parametrize(("name", "statement"), [
    ("torch", "import torch"),
    ("nn", "import torch.nn as nn"),
    ("F", "import torch.nn.functional as F"),
    ("np", "import numpy as np"),
])
def test_a_usual_module_name_used_before_its_import_is_explained_with_the_import(name: str, statement: str):
    session = Session(cuda=False)
    session.run(f"x = {name}.thing")
    snapshots = [step.snapshot for step in session.steps]
    assert snapshots[-1].error.message == f"name '{name}' is not defined"
    assert explain(snapshots) == (f"`{name}` is not imported yet: a session starts empty, like a Python file. "
                                  f"Run `{statement}` first, then this statement again.")


def test_an_unknown_name_of_the_users_own_gets_no_import_advice():
    session = Session(cuda=False)
    session.run("y = x + 1")
    assert explain([step.snapshot for step in session.steps]) is None


def test_a_change_inside_the_statement_that_saved_it_is_named_as_that_step():
    text = story("""\
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.act = nn.ReLU(inplace=True)

            def forward(self, x):
                out = self.act(self.fc(x))
                out += x
                return out
        block = Block()
        x = torch.ones(2, 4, requires_grad=True)
        y = block(x)
        y.sum().backward()
    """)
    assert text.splitlines()[:2] == [
        "`y` was saved by ReluBackward0 at step 6 (`y = block(x)`) as its own result, at version 1.",
        "Step 6 itself changed it in place after that (version 2): an in-place op later in the same statement, "
        "such as `out += x` or an `inplace=True` layer in a module's forward.",
    ]


def test_a_name_rebound_to_another_saved_tensor_is_told_by_the_tensor_backward_needs():
    text = story("""\
        h = torch.ones(3, requires_grad=True)
        out = h.sigmoid()
        out += 1
        x = torch.ones(2, requires_grad=True)
        out = nn.ReLU(inplace=True)(torch.sigmoid(x))
        out.sum().backward()
    """)
    assert text.splitlines()[:2] == [
        "`out` was saved by SigmoidBackward0 at step 7 (`out = nn.ReLU(inplace=True)(torch.sigmoid(x))`) as its "
        "own result, at version 0.",
        "Step 7 itself changed it in place after that (version 1): an in-place op later in the same statement, "
        "such as `out += x` or an `inplace=True` layer in a module's forward.",
    ]
    assert "out += 1" not in text


def test_a_rebound_name_that_goes_stale_again_is_warned_again():
    snapshots = history("""\
        h = torch.ones(3, requires_grad=True)
        out = h.sigmoid()
        out += 1
        out = nn.ReLU(inplace=True)(h.sigmoid())
    """)
    rebound_stale = [note for note in changes(snapshots[-2], snapshots[-1]) if note.startswith("stale:")]
    assert rebound_stale == ["stale: `out` was saved by SigmoidBackward0 at version 0 and is now at version 1: "
                             "a backward through SigmoidBackward0 will fail."]


def test_a_tensor_saved_and_changed_inside_one_loop_is_told_as_that_steps_doing():
    text = story("""\
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                out = F.relu(self.fc(x))
                out += x
                return out
        model = Block()
        for step in range(2):
            loss = model(torch.ones(2, 4)).sum()
            loss.backward()
    """)
    assert text.splitlines() == [
        "A tensor of shape [2, 4] that ReluBackward0 saved (its `result`) went from version 0 to 1: something "
        "changed it in place after the op ran. Give it a name to follow it here, or avoid the in-place op.",
        "It was saved and changed within step 5 itself: look there for an in-place op after ReluBackward0's op, "
        "such as `out += x` or an `inplace=True` layer in a module's forward.",
    ]


@pytest.mark.parametrize("name", ["exit", "quit", "help"])
def test_the_python_repls_own_names_are_explained_with_tensorscopes_way(name: str):
    session = Session(cuda=False)
    session.run(f"{name}()")
    text = explain([step.snapshot for step in session.steps])
    assert text.startswith(f"`{name}()` belongs to Python's own REPL, not to the statements tensorscope runs. ")
    assert ("ctrl+q in the explorer" if name != "help" else "F1 in the explorer") in text


def test_exit_in_the_repl_leaves_it():
    written: list[str] = []
    repl = Repl(written.append, cuda=False, session=Session(cuda=False))
    assert repl.handle("x = 1") is True
    assert repl.handle("exit()") is False and repl.handle("  quit()  ") is False


def test_a_tensor_too_big_for_the_session_is_told_in_units_a_person_reads():
    text = story("x = torch.zeros(10**6, 10**6)")
    assert text.startswith("That is 3.6 TiB (4,000,000,000,000 bytes): more than this session may use")
    assert "`--memory-limit`" in text and "float16" in text


def test_a_modules_weight_changed_in_place_is_named_and_the_statement_itself_goes_under_no_grad():
    text = story("""\
        fc = nn.Linear(2, 2)
        fc.weight.normal_()
    """)
    assert text.startswith("`fc.weight` is a leaf that requires grad")
    assert "`with torch.no_grad(): fc.weight.normal_()`" in text and "`fc.weight.data`" in text
    assert "`with torch.no_grad(): w += 1`" in story("w = torch.ones(2, requires_grad=True)\nw += 1")


def test_a_leaf_without_a_name_is_told_without_a_placeholder():
    text = story("""\
        held = [torch.ones(2, requires_grad=True)]
        held[0].mul_(2)
    """)
    assert text.startswith("This tensor is a leaf that requires grad")
    assert "`with torch.no_grad(): held[0].mul_(2)`" in text and "its `.data`" in text
    assert "the tensor" not in text


def test_the_step_limit_says_why_it_stopped_the_loop_and_what_does_the_work_instead():
    text = story("s = 0\nwhile True: s += 1")
    assert text.startswith("tensorscope stops a statement after 1,000,000 steps of its interpreter")
    assert "`torch.arange(10**6).sum()`" in text
