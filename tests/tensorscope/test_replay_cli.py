"""`tensorscope replay` (transcript and JSON trace), `tensorscope repl`, and the CLI's manners."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tensorscope.cli import main
from tensorscope.repl import Repl, entries, needs_more

SCRIPT = """import torch
x = torch.ones(2, 3, requires_grad=True)
y = x.sigmoid()
y.add_(1)
y.sum().backward()
with torch.no_grad():
    x.mul_(2)
"""


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "resnet_trap.py"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def test_json_trace_has_one_line_per_statement_in_the_contract_shape(script, capsys):
    assert main(["replay", str(script), "--json"]) == 0
    steps = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [s["step"] for s in steps] == list(range(6))
    assert steps[5]["source"] == "with torch.no_grad():\n    x.mul_(2)"
    assert set(steps[2]) >= {"step", "source", "error", "output", "objects", "memory", "warnings"}
    y = steps[2]["objects"]["y"]
    assert y == {"kind": "tensor", "shape": [2, 3], "stride": [3, 1], "storage_offset": 0, "dtype": "float32",
                 "storage": "S1", "version": 0, "requires_grad": True, "is_leaf": False,
                 "grad_fn": "SigmoidBackward0", "is_view": False,
                 "values": [[0.731059] * 3] * 2, "grad": None}
    error = steps[4]["error"]
    assert error["type"] == "RuntimeError" and "output 0 of Sigmoid, is at version 1" in error["message"]
    assert steps[4]["memory"] == {"allocated_bytes": 48, "peak_bytes": 56}  # the backward's ones_like(loss) too


def piped(data: bytes) -> io.TextIOWrapper:
    """Standard input as a pipe gives it: bytes under a text layer."""
    return io.TextIOWrapper(io.BytesIO(data))


def test_a_pasted_script_replays_from_standard_input_given_as_dash(script, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", piped(SCRIPT.encode()))
    assert main(["replay", "-", "--json"]) == 0
    from_stdin = capsys.readouterr().out
    assert main(["replay", str(script), "--json"]) == 0
    assert from_stdin == capsys.readouterr().out


def test_a_syntax_error_on_standard_input_is_reported_against_stdin(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", piped(b"x = (\n"))
    assert main(["replay", "-"]) == 1
    assert capsys.readouterr().err.startswith("<stdin>: SyntaxError: '(' was never closed")


def test_binary_on_standard_input_is_refused_as_not_utf8(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", piped(b"x = 1\n\xff\xfe junk"))
    with pytest.raises(SystemExit) as exited:
        main(["replay", "-"])
    assert exited.value.code == "tensorscope: <stdin>: not UTF-8 text (byte 0xff at line 2, column 1)"


def test_transcript_shows_output_errors_changes_and_the_table(script, capsys):
    assert main(["replay", str(script)]) == 0
    text = capsys.readouterr().out
    assert "[3] >>> y.add_(1)" in text
    assert "* y: version 0 -> 1" in text
    assert ("* stale: `y` was saved by SigmoidBackward0 at version 0 and is now at version 1: a backward "
            "through SigmoidBackward0 will fail.") in text
    assert "why: `y` was saved by SigmoidBackward0 at step 2 (`y = x.sigmoid()`)" in text
    assert "RuntimeError: one of the variables needed for gradient computation" in text
    assert "  y     [2, 3]  [3, 1]  0       float32  S1       1    AddBackward0" in text


def test_a_missing_script_gets_one_clear_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["replay", "missing.py"])
    assert "missing.py: no such file" in str(exit_info.value)


def test_a_missing_scenario_gets_one_clear_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["replay", "scenario.yaml"]) == 1
    assert capsys.readouterr().err.startswith("tensorscope: scenario.yaml: no such file")


def test_a_script_with_a_syntax_error_runs_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("x = (1,\n", encoding="utf-8")
    assert main(["replay", str(bad), "--json"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "SyntaxError" in captured.err


def test_version_and_help_work_from_a_fresh_process():
    version = subprocess.run([sys.executable, "-m", "tensorscope", "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("tensorscope ")
    usage = subprocess.run([sys.executable, "-m", "tensorscope", "--help"], capture_output=True, text=True)
    assert "replay" in usage.stdout and "repl" in usage.stdout


def test_repl_reads_statements_from_a_pipe(tmp_path):
    saved = tmp_path / "session.py"
    lines = ["import torch", "x = torch.arange(6.).view(2, 3)", "v = x.t()", "v.mul_(2)", ":state", ":undo",
             "with torch.no_grad():", "    x.add_(1)", "", "oops", f":save {saved}", ":quit"]
    result = subprocess.run([sys.executable, "-m", "tensorscope", "repl"], input="\n".join(lines) + "\n",
                            capture_output=True, text=True, timeout=60)
    out = result.stdout
    assert result.returncode == 0
    assert "* v shares storage S0 with x" in out
    assert "* x: version 0 -> 1" in out
    assert "undid: v.mul_(2)" in out
    assert "NameError: name 'oops' is not defined" in out
    assert saved.read_text() == ("import torch\nx = torch.arange(6.).view(2, 3)\nv = x.t()\n"
                                 "with torch.no_grad():\n    x.add_(1)\noops\n")


def test_repl_commands_and_help():
    written: list[str] = []
    repl = Repl(written.append)
    assert repl.handle(":help")
    assert repl.handle(":state")
    assert repl.handle(":undo")
    assert repl.handle(":nope")
    assert not repl.handle(":quit")
    text = "".join(written)
    assert ":save FILE" in text and "no tensors yet" in text and "nothing to undo" in text
    assert "unknown command :nope" in text


def test_blocks_continue_until_a_blank_line():
    assert needs_more(["with torch.no_grad():"])
    assert needs_more(["with torch.no_grad():", "    x.add_(1)"])
    assert not needs_more(["with torch.no_grad():", "    x.add_(1)", ""])
    assert needs_more(["y = torch.tensor([1,"])
    assert not needs_more(["y = torch.tensor([1, 2])"])
    stream = io.StringIO("def f(t):\n    return t * 2\n\nx = 1\n")
    lines = iter(stream.read().splitlines())

    def read(_prompt: str) -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    assert list(entries(read)) == ["def f(t):\n    return t * 2\n", "x = 1"]


def test_the_terminal_prompt_keeps_history_in_the_data_directory(tmp_path, monkeypatch):
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from tensorscope import repl as repl_module

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    written: list[str] = []
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("import torch\rx = torch.zeros(3)\rx.add_(1)\r")
        session = Repl(written.append)
        read = repl_module._prompt_reader(session)
        for _ in range(3):
            session.handle(read(">>> "))
    assert "* x: version 0 -> 1" in "".join(written)
    history = (tmp_path / "tensorscope" / "history").read_text()
    assert "x.add_(1)" in history


def test_completion_offers_names_torch_functions_and_tensor_methods():
    from tensorscope.repl import Completions

    session = Repl(lambda text: None)
    session.handle("import torch\nxs = torch.ones(2)")
    complete = Completions(session).candidates
    assert "xs" in complete("x")
    assert "torch.zeros_like" in complete("torch.zeros")
    assert "xs.add_" in complete("xs.ad") and "xs._version" in complete("xs._v")


def test_a_trace_piped_into_a_reader_that_stops_early_ends_quietly(tmp_path: Path) -> None:
    long_script = tmp_path / "long.py"
    long_script.write_text("import torch\n" + "".join(f"x{i} = torch.ones(2)\n" for i in range(400)), encoding="utf-8")
    command = [sys.executable, "-m", "tensorscope", "replay", str(long_script), "--json"]
    writer = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              cwd=Path(__file__).resolve().parents[2])
    assert json.loads(writer.stdout.readline())["step"] == 0
    writer.stdout.close()  # like `| head -1`
    assert writer.wait(timeout=120) == 141 and writer.stderr.read() == b""
    writer.stderr.close()


@pytest.mark.parametrize("command", ["replay", "open"])
@pytest.mark.parametrize(("make", "said"), [
    (lambda f: f.write_bytes(b"x = 1\n\xb4\n"), "not UTF-8 text (byte 0xb4 at line 2, column 1)"),
    (lambda f: os.truncate(f, 17 * 1024 * 1024), "too big for a script (more than 16,777,216 bytes)"),
    (lambda f: f.mkdir(), "is a directory, not a script"),
    (lambda f: None, "no such file"),
], ids=["binary", "huge", "directory", "missing"])
def test_a_script_that_cannot_be_read_is_said_in_one_line(tmp_path, capsys, command, make, said):
    script = tmp_path / "s.py"
    if said.startswith("too big"):
        script.touch()  # then made sparse and long
    make(script)
    try:
        status = main([command, str(script)])
    except SystemExit as exited:
        status, message = 1, str(exited.code)
    else:
        message = capsys.readouterr().err.strip()
    assert status == 1 and message == f"tensorscope: {script}: {said}"


def test_a_broken_scenario_given_to_open_is_said_as_replay_says_it(tmp_path, capsys):
    scenario = tmp_path / "bad.yaml"
    scenario.write_text("steps: [1, 2\n", encoding="utf-8")
    assert main(["open", str(scenario)]) == 1
    assert capsys.readouterr().err == f"tensorscope: {scenario}:2:1: not valid YAML: expected ',' or ']', but got '<stream end>'\n"


@pytest.mark.parametrize(("lines", "more"), [
    (["def f(:"], False),  # no line could mend it: its SyntaxError at once
    (["x = 1 +"], False),
    (["for i in range(3):  # each"], True),
    (["for i in range(3): i"], False),  # a one-line block runs at once
    (["if x:", "    pass", "else:"], True),
    (["s = '''doc"], True),
    (["@decorator"], True),
    (["x = 1 \\"], True),
    (["class A:", "    x = 1"], True),
    ([""], False),
])
def test_a_statement_needs_more_lines_only_where_more_lines_could_finish_it(lines, more):
    assert needs_more(lines) is more


def test_save_in_the_repl_does_not_write_over_a_file_unless_told(tmp_path):
    from tensorscope.session import Session

    mine = tmp_path / "train.py"
    mine.write_text("my training script\n", encoding="utf-8")
    written: list[str] = []
    repl = Repl(written.append, session=Session(cuda=False))
    repl.handle("x = 1")
    repl.handle(f":save {mine}")
    assert written[-1] == f"{mine} exists: `:save! {mine}` writes over it\n"
    assert mine.read_text(encoding="utf-8") == "my training script\n"
    repl.handle(f":save! {mine}")
    assert mine.read_text(encoding="utf-8") == "x = 1\n" and written[-1].startswith("saved 1 statement to")


def test_replay_goes_on_after_a_statement_past_its_time_limit(tmp_path, capsys):
    script = tmp_path / "slow.py"
    script.write_text("import torch\ntorch.zeros(1).expand(10**7, 10**7).sum()\nprint('after')\n", encoding="utf-8")
    assert main(["--time-limit", "1", "replay", str(script), "--json"]) == 0
    steps = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [step["step"] for step in steps] == [0, 1, 2]
    assert steps[1]["error"]["type"] == "TimeoutError" and steps[2]["output"] == "after"


def test_the_explorer_without_a_terminal_says_what_runs_without_one(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setattr(sys, "stdin", piped(b""))
    assert main([]) == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err.startswith("tensorscope: the explorer needs a terminal")
    assert "`tensorscope replay FILE`" in said.err and not (tmp_path / "tensorscope" / "explorer_history").exists()
