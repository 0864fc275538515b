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
    ("{version: 3}", "'version' in step 1: must be a mapping (e.g. version: {x: 1})"),
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


# --------------------------------------------------------------------------- hostile files
HEAD = "title: t\nsummary: s\n"


@pytest.mark.parametrize(("text", "located"), [
    pytest.param(HEAD + "steps: [x = 1]\nsteps: [y = 2]\n", "f.yaml:4:1: duplicate key 'steps' (it is already given on line 3)",
                 id="duplicate key"),
    pytest.param(HEAD + "steps:\n  - code: x = 1\n    code: y = 2\n", "f.yaml:5:5: duplicate key 'code'", id="duplicate step key"),
    pytest.param(HEAD + "steps:\n  - code: x = 1\n    expect: {version: {x: 1, x: 2}}\n", "f.yaml:5:30: duplicate key 'x'",
                 id="duplicate name"),
    pytest.param(HEAD + "steps: [x = 1]\ntags: " + "[" * 10_000 + "]" * 10_000 + "\n",
                 "f.yaml:4:38: not valid YAML: nested more than 32 levels deep", id="deep flow nesting"),
    pytest.param(HEAD + "steps: [x = 1]\ntags:\n" + "".join("  " * i + "-\n" for i in range(1, 60)),
                 "not valid YAML: nested more than 32 levels deep", id="deep block nesting"),
    pytest.param(HEAD + "a: &a [x = 1]\nsteps: *a\n", "f.yaml:4:8: not valid YAML: aliases (*name) are not supported",
                 id="alias"),
    pytest.param('lol: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
                 "lol2: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nlol3: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                 "lol4: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n" + HEAD + "steps: [x = 1]\n",
                 "f.yaml:2:11: not valid YAML: aliases (*name) are not supported", id="billion laughs"),
    pytest.param(HEAD + "steps:\n  - code: x = 1\n    expect: {values: {x: [1.0, .inf]}}\n",
                 "f.yaml:5:32: not valid YAML: numbers must be finite, not .inf", id="infinity"),
    pytest.param(HEAD + "steps:\n  - code: x = 1\n    expect: {grad: {x: .NaN}}\n",
                 "f.yaml:5:24: not valid YAML: numbers must be finite, not .NaN", id="nan"),
    pytest.param(HEAD + "cuda_capacity_gib: 1.0e+999\nsteps: [x = 1]\n",
                 "f.yaml:3:20: not valid YAML: numbers must be finite, not 1.0e+999", id="overflowing float"),
    pytest.param(HEAD + "steps:\n  - code: x = 1\n    expect: {version: {x: " + "9" * 5000 + "}}\n",
                 "f.yaml:5:27: not valid YAML: a number with 5,000 digits (at most 30)", id="5000-digit integer"),
    pytest.param(HEAD + "steps:\n  - code: x = 1\n    expect: {values: {x: 0." + "1" * 5000 + "}}\n",
                 "f.yaml:5:26: not valid YAML: a number written with 5,002 characters (at most 40)", id="5000-digit float"),
    pytest.param(HEAD + "? [a, b]\n: 1\nsteps: [x = 1]\n", "f.yaml:3:3: keys must be plain names, not lists or mappings",
                 id="complex key"),
    pytest.param(HEAD + "steps: [x = 1]\n\x00", "f.yaml:4:1: not valid YAML: special characters are not allowed (U+0000)",
                 id="NUL character"),
    pytest.param(HEAD + "steps: !!python/object/apply:os.system [echo hi]\n",
                 "f.yaml:3:8: not valid YAML: could not determine a constructor for the tag", id="python tag"),
    pytest.param(HEAD + "steps: [x = 1]\n" + "#" * (1024 * 1024), "f.yaml:1:1: the file is 1,048,611 bytes; a scenario may "
                 "have at most 1,048,576", id="over the size limit"),
    pytest.param(HEAD + "tags: [[a]]\nsteps: [x = 1]\n", "f.yaml:3:8: tags must be words", id="tag not a word"),
    pytest.param(HEAD + "cuda_capacity_gib: -1\nsteps: [x = 1]\n", "f.yaml:3:20: 'cuda_capacity_gib' must be more than 0",
                 id="negative capacity"),
])
def test_a_hostile_file_is_refused_with_line_and_column(text, located):
    with pytest.raises(ScenarioError) as caught:
        loads(text, "f.yaml")
    assert str(caught.value).startswith(located) or located in str(caught.value)


@pytest.mark.parametrize(("expect", "located"), [
    ("{error: [RuntimeError]}", "5:21: 'error' in step 1: must be an exception type, a mapping or null"),
    ("{error: {type: 3}}", "5:28: 'error' in step 1: 'type' must be text (got int)"),
    ("{error: {message: [a]}}", "5:31: 'error' in step 1: 'message' must be text (got a list holding str)"),
    ("{output: 3}", "5:22: 'output' in step 1: must be text or {contains: text}"),
    ("{output: {contains: [a]}}", "5:33: 'output' in step 1: 'contains' must be text"),
    ("{warns: {a: b}}", "5:21: 'warns' in step 1: must be text"),
    ("{version: {x: 1.5}}", "5:27: 'version' in step 1: x must be a whole number (got float)"),
    ("{version: {x: true}}", "5:27: 'version' in step 1: x must be a whole number (got bool)"),
    ("{shares_storage: [[x, 1]]}", "5:30: 'shares_storage' in step 1: must be a list of groups of names"),
    ("{shares_storage: x}", "5:30: 'shares_storage' in step 1: must be a list of groups of names"),
    ("{is_leaf: {x: yes please}}", "5:27: 'is_leaf' in step 1: x must be true or false (got str)"),
    ("{requires_grad: {x: 1}}", "5:33: 'requires_grad' in step 1: x must be true or false (got int)"),
    ("{is_view: [x]}", "5:23: 'is_view' in step 1: must be a mapping"),
    ("{grad_fn: {x: [MulBackward0]}}", "5:27: 'grad_fn' in step 1: x must be a node name or null"),
    ("{shape: {x: 3}}", "5:25: 'shape' in step 1: x must be a list of whole numbers (got int)"),
    ("{stride: {x: [1, a]}}", "5:26: 'stride' in step 1: x must be a list of whole numbers (got a list holding int, str)"),
    ("{dtype: {x: 32}}", "5:25: 'dtype' in step 1: x must be a dtype name (got int)"),
    ("{saved: {x: 3}}", "5:25: 'saved' in step 1: x must be a node name or {by: NodeName, version: n}"),
    ("{saved: {x: {by: MulBackward0, version: one}}}", "5:53: 'saved' in step 1: 'version' must be a whole number"),
    ("{stale: x}", "5:21: 'stale' in step 1: must be a list of names"),
    ("{stale: [[x]]}", "5:21: 'stale' in step 1: must be a list of names"),
    ("{values: {x: [1, [2, a]]}}", "5:26: 'values' in step 1: x must be numbers"),
    ("{grad: {x: {a: 1}}}", "5:24: 'grad' in step 1: x must be numbers or null (got a mapping)"),
    ("{memory: {peak_bytes: lots}}", "5:35: 'memory' in step 1: 'peak_bytes' must be a number of bytes (got str)"),
    ("{memory: 5}", "5:22: 'memory' in step 1: must be a mapping"),
    ("{cuda_memory: {allocated: [1]}}", "5:39: 'cuda_memory' in step 1: 'allocated' must be a number of bytes"),
    ("{version: {3: 1}}", "5:24: 'version' in step 1: names must be text, not int (3)"),
])
def test_every_expectation_of_the_wrong_shape_is_located(expect, located):
    with pytest.raises(ScenarioError) as caught:
        loads(f"title: t\nsummary: s\nsteps:\n  - code: x = 1\n    expect: {expect}\n", "bad.yaml")
    assert str(caught.value).startswith(f"bad.yaml:{located}")


def test_a_huge_file_is_refused_without_reading_it_whole(tmp_path: Path):
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as file:
        file.truncate(2 * 1024**3)  # 2 GiB, sparse
    with pytest.raises(ScenarioError) as caught:
        load(huge)
    assert str(caught.value) == f"{huge}:1:1: the file is 2,147,483,648 bytes; a scenario may have at most 1,048,576"


def test_a_file_that_is_not_utf8_is_located(tmp_path: Path):
    bad = tmp_path / "latin.yaml"
    bad.write_bytes(b"title: caf\xe9\nsummary: s\nsteps: [x = 1]\n")
    with pytest.raises(ScenarioError) as caught:
        load(bad)
    assert str(caught.value) == f"{bad}:1:11: not UTF-8 text (byte 0xe9)"


def test_check_reports_hostile_files_in_one_line_each(tmp_path: Path, capsys):
    files = {"bomb.yaml": "a: &a [x]\nb: [*a, *a]\n", "deep.yaml": "a: " + "[" * 5000 + "]" * 5000 + "\n",
             "dup.yaml": "title: a\ntitle: b\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert main(["check", *(str(tmp_path / name) for name in files)]) == 1
    out = capsys.readouterr().out
    assert "Traceback" not in out
    assert [line.split(": ", 1)[0] for line in out.splitlines()[:-1]] == [f"ERROR {tmp_path / n}" for n in files]
