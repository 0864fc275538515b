"""`tensorscope repl`: a line REPL on the engine that says what each statement did to memory.

On a terminal it is a prompt_toolkit prompt with history, completion and highlighting; on a pipe it
reads statements from stdin, so it can be scripted. A `with`/`def`/`class` block (or an unclosed
bracket) continues until a blank line.
"""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

import engine
from tensorscope.explain import explain
from tensorscope.interpreter import Statement, UserError, parse
from tensorscope.report import changes, table
from tensorscope.session import Session

HELP = """\
Type PyTorch statements; `torch` is tensorscope's engine. After each statement you see what it
printed or raised, and what changed: versions that moved, storages newly shared, saved tensors
that went stale (a later backward through them will fail).

  :help        this text
  :state       the table of named tensors (shape, stride, storage, version, grad_fn)
  :undo        take back the last statement (the session is replayed without it)
  :save FILE   write the statements so far as a script (FILE.py) or a scenario (FILE.yaml)
               that replays to the same state
  :quit        leave (Ctrl-D works too)
"""

PROMPT, CONTINUATION = ">>> ", "... "


def history_path() -> Path:
    """Where the prompt's history lives: the user's data directory (XDG), created on demand."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "tensorscope" / "history"


def needs_more(lines: list[str]) -> bool:
    """Whether the lines so far are an unfinished statement (an open block or bracket)."""
    text = "\n".join(lines)
    if lines[-1].strip() == "" and len(lines) > 1:
        return False
    if lines[0].rstrip().endswith(":"):
        return True
    try:
        ast.parse(text)
    except SyntaxError as exc:
        return "was never closed" in str(exc) or "unexpected EOF" in str(exc)
    return False


class Repl:
    """The command loop, independent of where lines come from (so tests can drive it)."""

    def __init__(self, write: Callable[[str], None], cuda: bool = True) -> None:
        self.session = Session(cuda=cuda)
        self.write = write

    def handle(self, text: str) -> bool:
        """Run one entry (statement or :command); False means quit."""
        stripped = text.strip()
        if not stripped:
            return True
        if stripped.startswith(":"):
            return self._command(stripped)
        try:
            statements = parse(text)
        except UserError as exc:
            self.write(f"{exc.info.type}: {exc.info.message}\n")
            return True
        for statement in statements:
            self._run(statement)
        return True

    def _run(self, statement: Statement) -> None:
        before = self.session.last
        snap = self.session.run_statement(statement).snapshot
        if snap.output is not None:
            self.write(snap.output + "\n")
        for warning in snap.warnings:
            self.write(f"warning: {warning}\n")
        if snap.error is not None:
            self.write(f"{snap.error.type}: {snap.error.message}\n")
            story = explain([step.snapshot for step in self.session.steps])
            if story:
                self.write("".join(f"  why: {line}\n" if i == 0 else f"       {line}\n"
                                   for i, line in enumerate(story.splitlines())))
        for note in changes(before, snap):
            self.write(f"  * {note}\n")

    def _command(self, text: str) -> bool:
        name, _, argument = text.partition(" ")
        if name in (":quit", ":q", ":exit"):
            return False
        if name == ":help":
            self.write(HELP)
        elif name == ":state":
            snap = self.session.last
            rows = table(snap) if snap else []
            self.write("\n".join(rows) + "\n" if rows else "no tensors yet\n")
        elif name == ":undo":
            if not self.session.steps:
                self.write("nothing to undo\n")
            else:
                undone = self.session.steps[-1].statement.source
                self.session = self.session.undo()
                self.write(f"undid: {undone.splitlines()[0]}\n")
        elif name == ":save":
            self._save(argument.strip())
        else:
            self.write(f"unknown command {name}; :help lists the commands\n")
        return True

    def _save(self, target: str) -> None:
        if not target:
            self.write("usage: :save FILE\n")
            return
        text = (self.session.export_scenario() if Path(target).suffix in (".yaml", ".yml")
                else self.session.export_script())
        try:
            Path(target).write_text(text, encoding="utf-8")
        except OSError as exc:
            self.write(f"cannot write {target}: {exc.strerror}\n")
            return
        self.write(f"saved {len(self.session.steps)} statements to {target}\n")


def entries(read_line: Callable[[str], str]) -> Iterator[str]:
    """Group input lines into entries: one statement, a whole block, or a :command."""
    while True:
        try:
            first = read_line(PROMPT)
        except EOFError:
            return
        lines = [first]
        while not first.strip().startswith(":") and needs_more(lines):
            try:
                lines.append(read_line(CONTINUATION))
            except EOFError:
                break
        yield "\n".join(lines)


class Completions:
    """Names in the session, `torch.` functions, and attributes of named objects after a dot."""

    def __init__(self, repl: Repl) -> None:
        self.repl = repl

    def candidates(self, word: str) -> list[str]:
        head, dot, tail = word.rpartition(".")
        if not dot:
            names = set(self.repl.session.namespace) | {"torch", "print", "len", "range"}
            return sorted(n for n in names if n.startswith(word) and not n.startswith("__"))
        owner: Any = self.repl.session.namespace.get(head)
        if owner is None and head == "torch":
            owner = engine
        if owner is None:
            return []
        names = set(getattr(owner, "__all__", None) or dir(owner)) | {"_version", "_base", "_is_view"}
        return sorted(f"{head}.{n}" for n in names if n.startswith(tail) and not n.startswith("__")
                      and (not n.startswith("_") or n in ("_version", "_base", "_is_view")))


def _prompt_reader(repl: Repl) -> Callable[[str], str]:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import Completer, Completion
    from prompt_toolkit.history import FileHistory, InMemoryHistory
    from prompt_toolkit.lexers import PygmentsLexer
    from pygments.lexers.python import PythonLexer

    completions = Completions(repl)

    class _Completer(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Iterable[Completion]:
            word = document.get_word_before_cursor(WORD=True).lstrip("([{,=")
            for candidate in completions.candidates(word):
                yield Completion(candidate, start_position=-len(word))

    path = history_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        history: Any = FileHistory(str(path))
    except OSError:
        history = InMemoryHistory()
    prompt = PromptSession(history=history, lexer=PygmentsLexer(PythonLexer), completer=_Completer())

    def read(text: str) -> str:
        try:
            return prompt.prompt(text)
        except KeyboardInterrupt:  # Ctrl-C drops the line being typed, as Python's REPL does
            return ""

    return read


def _plain_reader(stream: TextIO) -> Callable[[str], str]:
    def read(_: str) -> str:
        line = stream.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")
    return read


def run(stdin: TextIO | None = None, stdout: TextIO | None = None, cuda: bool = True) -> int:
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    repl = Repl(lambda text: (stdout.write(text), stdout.flush()), cuda=cuda)
    interactive = stdin.isatty() and stdout.isatty()
    if interactive:
        stdout.write("tensorscope REPL: PyTorch statements on tensorscope's engine. :help for commands.\n")
        read = _prompt_reader(repl)
    else:
        read = _plain_reader(stdin)
    for entry in entries(read):
        if not repl.handle(entry):
            break
    return 0
