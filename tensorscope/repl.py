"""`tensorscope repl`: a line REPL on the engine that says what each statement did to memory.

On a terminal it is a prompt_toolkit prompt with history, completion and highlighting; on a pipe it
reads statements from stdin, so it can be scripted. A `with`/`def`/`class` block (or an unclosed
bracket) continues until a blank line.

Statements run in a worker process (`WorkerSession`): ctrl+c while one runs stops it (the worker
is replaced and the earlier statements replayed); ctrl+c at the prompt drops the line, and one
pressed right after Enter, before the statement started, keeps it from running. What user
code prints is shown with control characters escaped.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from tensorscope.continuation import parse_state
from tensorscope.explain import explain
from tensorscope.interpreter import UserError
from tensorscope.printable import plural, printable
from tensorscope.report import changes, table
from tensorscope.session import SessionLike, Step
from tensorscope.worker.client import WorkerError
from tensorscope.worker.limits import Limits

HELP = """\
Type PyTorch statements; `torch` is tensorscope's engine. After each statement you see what it
printed or raised, and what changed: versions that moved, storages newly shared, saved tensors
that went stale (a later backward through them will fail).

  :help        this text
  :state       the table of named tensors (shape, stride, storage, version, grad_fn)
  :undo        take back the last statement (the session is replayed without it)
  :save FILE   write the statements so far as a script (FILE.py) or a scenario (FILE.yaml)
               that replays to the same state (:save! FILE writes over a file already there)
  :quit        leave (ctrl+d and exit() work too)
"""

PROMPT, CONTINUATION = ">>> ", "... "


def history_path() -> Path:
    """Where the prompt's history lives: the user's data directory (XDG), created on demand."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "tensorscope" / "history"


# pasted code loses its blocks at their blank lines, as in Python's REPL: say so, and what runs it whole
UNEXPECTED_INDENT = ("  why: this line is indented but no block is open. Here, as in Python's REPL, a blank line "
                     "ends a block,\n       so code with blank lines inside its blocks runs whole with "
                     "`tensorscope replay FILE` (`-` reads standard input).\n")


def needs_more(lines: list[str]) -> bool:
    """Whether the lines so far are an unfinished statement: an open bracket or string, a block
    header, or a block (which goes on until a blank line, as in Python's REPL). A line that no
    continuation could mend (`def f(:`) is finished: its SyntaxError is said at once."""
    if lines[-1].strip() == "" and len(lines) > 1:
        return False
    return parse_state("\n".join(lines)) in ("incomplete", "block")


def worker_session(cuda: bool = True, limits: Limits | None = None) -> SessionLike:
    from tensorscope.worker.client import WorkerSession

    return WorkerSession(cuda=cuda, limits=limits)


class Repl:
    """The command loop, independent of where lines come from (so tests can drive it)."""

    def __init__(self, write: Callable[[str], None], cuda: bool = True, limits: Limits | None = None,
                 session: SessionLike | None = None) -> None:
        self.session: SessionLike = session or worker_session(cuda, limits)
        self.write = write
        self.interrupt_on_entry = False
        """A ctrl+c reached the prompt as it closed on this entry (see on_ctrl_c): the statement is not run."""

    def handle(self, text: str) -> bool:
        """Run one entry (statement or :command); False means quit."""
        interrupted, self.interrupt_on_entry = self.interrupt_on_entry, False
        stripped = text.strip()
        if not stripped:
            return True
        if stripped.startswith(":"):
            return self._command(stripped)
        if stripped in ("exit()", "quit()"):  # Python's REPL habit: it means what it says
            return False
        if interrupted:
            self.write("KeyboardInterrupt: ctrl+c as the statement was entered; it did not run\n")
            return True
        before = len(self.session.steps)
        try:
            self._run_interruptibly(text)
        except UserError as exc:
            self.write(printable(f"{exc.info.type}: {exc.info.message}") + "\n")
            if exc.info.type == "IndentationError" and exc.info.message.startswith("unexpected indent"):
                self.write(UNEXPECTED_INDENT)
            return True
        except WorkerError as exc:  # the worker could not start or failed on its own: say so, go on
            self.write(f"tensorscope: {exc}\n")
        steps = self.session.steps
        for index in range(before, len(steps)):
            self._report(steps[index], steps[index - 1].snapshot if index else None)
        return True

    def _run_interruptibly(self, text: str) -> None:
        """Run `text`; ctrl+c (SIGINT) meanwhile stops the statement running, not the REPL."""
        if threading.current_thread() is not threading.main_thread():
            self.session.run(text)
            return
        previous = signal.signal(signal.SIGINT, lambda number, frame: self.session.interrupt())
        try:
            self.session.run(text)
        finally:
            signal.signal(signal.SIGINT, previous)

    def _report(self, step: Step, before: Any) -> None:
        snap = step.snapshot
        if snap.output is not None:
            self.write(printable(snap.output) + "\n")
        for warning in snap.warnings:
            self.write(printable(f"warning: {warning}") + "\n")
        if snap.error is not None:
            self.write(printable(f"{snap.error.type}: {snap.error.message}") + "\n")
            story = None if step.stopped else explain([s.snapshot for s in self.session.steps[:snap.step + 1]])
            if story:
                self.write(printable("".join(f"  why: {line}\n" if i == 0 else f"       {line}\n"
                                             for i, line in enumerate(story.splitlines()))))
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
                try:
                    self.session = self.session.undo()
                except WorkerError as exc:
                    self.write(f"tensorscope: {exc}\n")
                    return True
                self.write(printable(f"undid: {undone.splitlines()[0]}") + "\n")
        elif name in (":save", ":save!"):
            self._save(argument.strip(), replace=name == ":save!")
        else:
            self.write(f"unknown command {name}; :help lists the commands\n")
        return True

    def _save(self, target: str, replace: bool) -> None:
        if not target:
            self.write("usage: :save FILE\n")
            return
        if not replace and Path(target).expanduser().is_file():  # it may be the user's own script
            self.write(f"{target} exists: `:save! {target}` writes over it\n")
            return
        text = (self.session.export_scenario() if Path(target).suffix in (".yaml", ".yml")
                else self.session.export_script())
        try:
            Path(target).expanduser().write_text(text, encoding="utf-8")
        except OSError as exc:
            self.write(f"cannot write {target}: {exc.strerror}\n")
            return
        self.write(f"saved {plural(len(self.session.steps), 'statement')} to {target}\n")


def entries(read_line: Callable[[str], str]) -> Iterator[str]:
    """Group input lines into entries: one statement, a whole block, or a :command. ctrl+c while
    typing drops what was typed of the entry."""
    while True:
        try:
            first = read_line(PROMPT)
            lines = [first]
            while not first.strip().startswith(":") and needs_more(lines):
                try:
                    lines.append(read_line(CONTINUATION))
                except EOFError:
                    break
        except EOFError:
            return
        except KeyboardInterrupt:
            continue
        yield "\n".join(lines)


class Completions:
    """Names in the session, `torch.` functions, and attributes of named objects after a dot,
    as the session's worker finds them."""

    def __init__(self, repl: Repl) -> None:
        self.repl = repl

    def candidates(self, word: str) -> list[str]:
        try:
            return self.repl.session.complete(word)
        except WorkerError:  # the worker is being replaced
            return []


@contextlib.contextmanager
def between_prompts(repl: Repl) -> Iterator[None]:
    """While the REPL waits between its prompt and a statement's run, a ctrl+c (a signal then, the
    terminal no longer raw) is meant for the statement about to run: it does not run. (prompt_toolkit
    takes SIGINT while it prompts; _run_interruptibly while a statement runs.)"""
    def interrupt(number: int, frame: Any) -> None:
        repl.interrupt_on_entry = True

    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def on_ctrl_c(repl: Repl, app: Any) -> None:
    """ctrl+c at the prompt drops what is typed of the entry. One that comes as the prompt closes on
    an entry (the terminal sends it as a signal by then, and prompt_toolkit hands it over after the
    prompt ended, where its own binding fails with a traceback) is meant for the statement about to
    run, which then does not run."""
    if app.future is not None and not app.future.done():
        app.exit(exception=KeyboardInterrupt, style="class:aborting")
    else:
        repl.interrupt_on_entry = True


def ctrl_c_bindings(repl: Repl) -> Any:
    """The prompt's ctrl+c, as a key and as the signal prompt_toolkit turns into one: on_ctrl_c."""
    from prompt_toolkit.key_binding import KeyBindings

    bindings = KeyBindings()
    bindings.add("c-c")(bindings.add("<sigint>")(lambda event: on_ctrl_c(repl, event.app)))
    return bindings


def _prompt_reader(repl: Repl) -> Callable[[str], str]:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import Completer, Completion
    from prompt_toolkit.history import FileHistory, InMemoryHistory
    from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead
    from prompt_toolkit.keys import Keys
    from prompt_toolkit.lexers import PygmentsLexer
    from pygments.lexers.python import PythonLexer

    completions = Completions(repl)

    class _Completer(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Iterable[Completion]:
            word = document.get_word_before_cursor(WORD=True).lstrip("([{,=")
            for candidate in completions.candidates(word):
                yield Completion(candidate, start_position=-len(word))

    class _History(FileHistory):
        """Typed text that was not valid UTF-8 is stored with replacement characters."""

        def store_string(self, string: str) -> None:
            super().store_string(string.encode("utf-8", "replace").decode("utf-8"))

    path = history_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        history: Any = _History(str(path))
    except OSError:
        history = InMemoryHistory()
    prompt = PromptSession(history=history, lexer=PygmentsLexer(PythonLexer), completer=_Completer(),
                           key_bindings=ctrl_c_bindings(repl))

    def read(message: str) -> str:
        """A line; ctrl+c raises KeyboardInterrupt (`entries` drops what was typed of the entry).
        A ctrl+c typed right after Enter, before the prompt closed, is left over as typeahead for the
        next prompt: it is meant for the statement just entered instead."""
        line = prompt.prompt(message)
        ahead = get_typeahead(prompt.input)
        stops = [index for index, press in enumerate(ahead) if press.key == Keys.ControlC]
        if stops:
            repl.interrupt_on_entry = True
            ahead = ahead[stops[-1] + 1:]
        store_typeahead(prompt.input, ahead)
        return line

    return read


def _plain_reader(stream: TextIO) -> Callable[[str], str]:
    def read(_: str) -> str:
        line = stream.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")
    return read


def _tolerant(stream: TextIO) -> TextIO:
    """The standard stream again, reading bytes that are not UTF-8 as replacement characters."""
    if stream is sys.stdin and hasattr(stream, "buffer"):
        return io.TextIOWrapper(stream.buffer, encoding="utf-8", errors="replace")
    return stream


def run(stdin: TextIO | None = None, stdout: TextIO | None = None, cuda: bool = True,
        limits: Limits | None = None, session: SessionLike | None = None) -> int:
    stdin = _tolerant(stdin or sys.stdin)
    stdout = stdout or sys.stdout
    repl = Repl(lambda text: (stdout.write(text), stdout.flush()), cuda=cuda, limits=limits, session=session)
    try:
        interactive = stdin.isatty() and stdout.isatty()
        if interactive:
            stdout.write("tensorscope REPL: PyTorch statements on tensorscope's engine. :help for commands.\n")
            read = _prompt_reader(repl)
        else:
            read = _plain_reader(stdin)
        with between_prompts(repl) if interactive else contextlib.nullcontext():
            for entry in entries(read):
                if not repl.handle(entry):
                    break
    finally:
        repl.session.close()
    return 0
