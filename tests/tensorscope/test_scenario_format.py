"""The scenario format: malformed files get `file:line:column: message (hint)`, never a
traceback; a failing expectation says which one, expected and actual; and every expectation key
of scenarios/README.md works, one small example each."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from tensorscope.cli import main
from tensorscope.scenario import ScenarioError, check_expectations, load, loads, run_scenario


def scenario(body: str) -> str:
    return textwrap.dedent(body)


def load_error(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        loads(scenario(text), "lesson.yaml")
    return caught.value


# --------------------------------------------------------------------------- malformed files
@pytest.mark.parametrize(("text", "located"), [
    pytest.param("""\
        titel: Views
        summary: s
        steps: [x = 1]
        """, "lesson.yaml:1:1: unknown key 'titel' in the scenario (did you mean 'title'?)", id="unknown key"),
    pytest.param("""\
        title: Views
        summary: s
        steps:
          - code: x = 1
            sya: hello
        """, "lesson.yaml:5:5: unknown key 'sya' in step 1 (did you mean 'say'?)", id="unknown step key"),
    pytest.param("""\
        title: Views
        summary: s
        tags: in-place
        steps: [x = 1]
        """, "lesson.yaml:3:7: 'tags' in the scenario must be a list (got str)", id="wrong type"),
    pytest.param("""\
        title: Views
        summary: s
        cuda: 1
        steps: [x = 1]
        """, "lesson.yaml:3:7: 'cuda' in the scenario must be true or false (got int)", id="number for a flag"),
    pytest.param("""\
        title: Views
        summary: s
        steps:
          - code: x = 1
            say: [not, text]
        """, "lesson.yaml:5:10: 'say' in step 1 must be a string (got list)", id="wrong type in a step"),
    pytest.param("""\
        title: Views
        summary: s
        steps:
          - code: x = 1
          - say: A step that forgot its code.
        """, "lesson.yaml:5:5: step 2 has no code (every step needs 'code:')", id="step without code"),
    pytest.param("""\
        title: Views
        summary: s
        steps: []
        """, "lesson.yaml:3:8: 'steps' is empty (add at least one step with 'code:')", id="empty steps"),
    pytest.param("""\
        summary: s
        steps: [x = 1]
        """, "lesson.yaml:1:1: missing 'title' (a scenario needs title, summary and steps)", id="missing title"),
    pytest.param("""\
        title: Views
        summary: s
        steps:
          - code: x = 1
            expect: {versoin: {x: 1}}
        """, "lesson.yaml:5:14: unknown key 'versoin' in the expectations of step 1 (did you mean 'version'?)",
        id="unknown expectation"),
    pytest.param("""\
        title: Views
        summary: s
        steps:
          - code: x = 1
           say: misaligned
        """, "lesson.yaml:5:4: not valid YAML: expected <block end>, but found '<block mapping start>'", id="invalid YAML"),
    pytest.param("""\
        - title: Views
        """, "lesson.yaml:1:1: a scenario is a mapping (start with 'title:', 'summary:' and 'steps:')",
        id="not a mapping"),
])
def test_a_malformed_file_is_reported_with_line_column_and_hint(text, located):
    assert str(load_error(text)) == located


def test_an_unknown_key_far_from_any_known_one_lists_the_allowed_keys():
    error = load_error("""\
        title: Views
        summary: s
        steps: [x = 1]
        zzz: 1
        """)
    assert (error.line, error.column) == (4, 1)
    assert error.hint == "allowed: cuda, cuda_capacity_gib, setup, steps, summary, tags, time_limit, title"


def test_a_syntax_error_in_a_step_names_the_step_and_its_line():
    text = scenario("""\
        title: Views
        summary: s
        steps:
          - code: x = 1
          - code: y = (1,
        """)
    with pytest.raises(ScenarioError) as caught:
        run_scenario(loads(text, "lesson.yaml"))
    assert str(caught.value).startswith("lesson.yaml:5:1: step 2: SyntaxError: ")


def test_a_missing_file_is_a_located_error_too(tmp_path: Path):
    with pytest.raises(ScenarioError, match="no such file"):
        load(tmp_path / "nowhere.yaml")


def test_check_reports_a_malformed_file_in_one_line_without_a_traceback(tmp_path: Path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("title: Views\nsummary: s\nsteps:\n  - say: no code here\n", encoding="utf-8")
    assert main(["check", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"ERROR {bad}: {bad}:4:5: step 1 has no code (every step needs 'code:')" in out
    assert "Traceback" not in out
    assert out.rstrip().endswith("0 passed, 1 failed")


def test_replay_reports_a_malformed_file_on_stderr(tmp_path: Path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("title: Views\nsummary: s\nstep: [x = 1]\n", encoding="utf-8")
    assert main(["replay", str(bad)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == f"tensorscope: {bad}:3:1: unknown key 'step' in the scenario (did you mean 'steps'?)"


# --------------------------------------------------------------------------- failing expectations
FAILING = """\
    title: Versions
    summary: s
    setup: import torch
    steps:
      - code: x = torch.zeros(3)
      - code: x.add_(1)
        expect:
          version: {x: 2}
          values: {x: [1.0, 1.0, 1.0]}
    """


def test_a_failing_expectation_says_which_with_expected_and_actual():
    run = run_scenario(loads(scenario(FAILING), "versions.yaml"))
    assert not run.passed
    assert [(step, check.describe()) for step, check in run.failures] == [
        (2, "FAILED: version.x: expected 2, got 1")]


def test_check_prints_the_failure_and_exits_nonzero(tmp_path: Path, capsys):
    path = tmp_path / "versions.yaml"
    path.write_text(scenario(FAILING), encoding="utf-8")
    assert main(["check", str(path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"FAIL  {path}",
        "      step 2: FAILED: version.x: expected 2, got 1",
        "0 passed, 1 failed",
    ]


def test_replay_marks_the_failing_expectation_and_exits_nonzero(tmp_path: Path, capsys):
    path = tmp_path / "versions.yaml"
    path.write_text(scenario(FAILING), encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    text = capsys.readouterr().out
    assert "    expect FAILED: version.x: expected 2, got 1" in text
    assert "    expect ok: values.x" in text
    assert text.rstrip().endswith("1 expectation(s) failed")


def test_a_name_that_does_not_exist_is_reported_as_such():
    run = run_scenario(loads(scenario("""\
        title: t
        summary: s
        steps:
          - code: a = 1
            expect: {version: {ghost: 0}}
        """)))
    assert [c.describe() for _, c in run.failures] == ["FAILED: version.ghost: expected 0, got '<no such name>'"]


# --------------------------------------------------------------------------- every expectation key
SETUP = """\
import torch
x = torch.ones(2, 3, requires_grad=True)
s = x.sigmoid()
v = s[0]
"""

# (expectation key, statement run after SETUP, an expectation that holds, one that does not hold)
EXAMPLES = [
    ("error", "s.sum().backward()", "null", "RuntimeError"),
    ("error", "x.add_(1)", "RuntimeError", "ValueError"),
    ("error", "x.add_(1)", "{type: RuntimeError, contains: 'a leaf Variable'}", "{type: RuntimeError, contains: 'a view'}"),
    ("error", "x.add_(1)",
     "{type: RuntimeError, message: 'a leaf Variable that requires grad is being used in an in-place operation.'}",
     "{type: RuntimeError, message: 'a leaf Variable'}"),
    ("output", "print(x.shape)", "'torch.Size([2, 3])'", "'torch.Size([3, 2])'"),
    ("output", "x.stride()", "{contains: '(3, 1)'}", "{contains: '(1, 3)'}"),
    ("warns", "s.grad", "'is not a leaf Tensor'", "'deprecated'"),
    ("version", "s.mul_(2)", "{s: 1, v: 1, x: 0}", "{s: 0}"),
    ("shares_storage", "t = s.detach()", "[[s, v, t], [x]]", "[[s, x]]"),
    ("is_leaf", "t = s.detach()", "{x: true, s: false, t: true}", "{s: true}"),
    ("requires_grad", "t = s.detach()", "{x: true, s: true, t: false}", "{t: true}"),
    ("is_view", "t = s.view(3, 2)", "{t: true, v: true, s: false}", "{s: true}"),
    ("grad_fn", "t = s * 2", "{t: MulBackward0, v: SelectBackward0, x: null}", "{t: AddBackward0}"),
    ("shape", "t = s.t()", "{t: [3, 2]}", "{t: [2, 3]}"),
    ("stride", "t = s.t()", "{t: [1, 3]}", "{t: [3, 1]}"),
    ("dtype", "t = s.double()", "{t: float64, s: float32}", "{t: float32}"),
    ("saved", "t = s * x", "{s: {by: MulBackward0, version: 0}, x: MulBackward0}", "{s: {by: MulBackward0, version: 1}}"),
    ("stale", "s.add_(1)", "[s]", "[]"),
    ("values", "t = x.sum(0)", "{t: [2.0, 2.0, 2.0], v: [0.731059, 0.731059, 0.731059]}", "{t: [3.0, 3.0, 3.0]}"),
    ("grad", "s.sum().backward()", "{x: [[0.196612, 0.196612, 0.196612], [0.196612, 0.196612, 0.196612]], s: null}",
     "{x: null}"),
    ("memory", "del v", "{allocated_bytes: 48}", "{allocated_bytes: 24}"),
    ("memory", "t = x * 2\ndel t", "{allocated_bytes: 48, peak_bytes: 72}", "{peak_bytes: 48}"),
    ("cuda_memory", "c = torch.ones(256, device='cuda')",
     "{allocated: 1024, max_allocated: 1024, reserved: 2097152, max_reserved: 2097152}", "{allocated: 0}"),
]


def example(key: str, statement: str, expect: str) -> str:
    """A one-step scenario: SETUP, then statement with the expectation `key: expect`."""
    return (f"title: t\nsummary: s\nsetup: |\n{textwrap.indent(SETUP, '  ')}steps:\n"
            f"  - code: |\n{textwrap.indent(statement, '      ')}\n    expect:\n      {key}: {expect}\n")


@pytest.mark.parametrize(("key", "statement", "holds", "fails"), EXAMPLES,
                         ids=[f"{key}-{i}" for i, (key, *_) in enumerate(EXAMPLES)])
def test_every_expectation_key_checks_what_the_readme_says(key, statement, holds, fails):
    run = run_scenario(loads(example(key, statement, holds), f"{key}.yaml"))
    assert run.passed, [c.describe() for _, c in run.failures]
    after = run.steps[0].snapshots[-1]
    assert not all(c.passed for c in check_expectations(after, {key: yaml.safe_load(fails)}))


def test_the_examples_cover_every_expectation_key_of_the_readme():
    readme = (Path(__file__).parents[2] / "scenarios" / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Expectations", 1)[1]
    documented = {cell.strip("` ") for row in table.splitlines() if row.startswith("| `")
                  for cell in row.split("|")[1].split(",")}
    assert documented == {key for key, *_ in EXAMPLES}


def test_a_bare_string_step_is_code_without_narration():
    loaded = loads(scenario("""\
        title: t
        summary: s
        steps:
          - x = 1
          - code: y = 2
            say: Two.
        """))
    assert [(step.code, step.say, step.line) for step in loaded.steps] == [("x = 1", "", 4), ("y = 2", "Two.", 5)]


def test_a_step_error_is_the_first_of_its_statements():
    run = run_scenario(loads(scenario("""\
        title: t
        summary: s
        steps:
          - code: |
              a = undefined
              b = 1 / 0
              c = 3
            expect:
              error: {type: NameError, contains: "'undefined'"}
        """)))
    assert run.passed


@pytest.mark.parametrize(("expect", "message"), [
    ("{version: 3}", "'version' in step 1: must be a mapping (e.g. version: {x: ...})"),
    ("{shares_storage: [x, v]}", "'shares_storage' in step 1: must be a list of groups of names"),
    ("{error: {type: RuntimeError, contain: zzz}}", "'error' in step 1: unknown field 'contain'"),
    ("{saved: {x: {by: MulBackward0, versoin: 1}}}", "'saved' in step 1: unknown field 'versoin'"),
    ("{cuda_memory: {alocated: 1}}", "'cuda_memory' in step 1: unknown field 'alocated'"),
])
def test_expectation_values_are_checked_when_the_file_loads(expect, message):
    from tensorscope.scenario import ScenarioError, loads

    with pytest.raises(ScenarioError) as caught:
        loads(f"title: t\nsummary: s\nsteps:\n  - code: x = 1\n    expect: {expect}\n", "bad.yaml")
    assert message in str(caught.value) and str(caught.value).startswith("bad.yaml:5:")


def test_a_steps_output_is_everything_its_statements_printed():
    from tensorscope.scenario import loads, run_scenario

    run = run_scenario(loads("title: t\nsummary: s\nsteps:\n  - code: |\n      print(1)\n      print(2)\n"
                             "    expect: {output: \"1\\n2\"}\n"))
    assert run.passed
