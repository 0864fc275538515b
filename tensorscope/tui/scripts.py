"""A `.py` script (or the tour) as a scenario: one step per `# %%` cell, or per statement.

In a cell, the comment lines before the first line of code are its narration (`say`); the title of
the cell (`# %% A view shares memory`) is its heading.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tensorscope.interpreter import parse

CELL = "# %%"


@dataclass(frozen=True)
class ScriptStep:
    code: str
    say: str = ""
    results: Sequence[tuple[str, bool]] = ()


@dataclass(frozen=True)
class ScriptScenario:
    title: str
    summary: str
    steps: Sequence[ScriptStep] = field(default_factory=tuple)


def _cell(lines: list[str]) -> ScriptStep:
    heading = lines[0][len(CELL):].strip() if lines and lines[0].startswith(CELL) else ""
    body = lines[1:] if lines and lines[0].startswith(CELL) else lines
    say: list[str] = []
    index = 0
    while index < len(body) and (body[index].startswith("#") or not body[index].strip()):
        line = body[index]
        say.append(line[1:].removeprefix(" ") if line.startswith("#") else "")
        index += 1
    code = "\n".join(body[index:]).strip("\n")
    text = "\n".join(say).strip()
    if heading:
        text = f"**{heading}**" + ("\n\n" + text if text else "")
    return ScriptStep(code=code + "\n" if code else "", say=text)


def script_scenario(source: str, title: str, summary: str = "") -> ScriptScenario:
    """Split a script into steps. A SyntaxError in it raises the interpreter's UserError."""
    lines = source.splitlines()
    if any(line.startswith(CELL) for line in lines):
        cells: list[list[str]] = [[]]
        for line in lines:
            if line.startswith(CELL):
                cells.append([line])
            else:
                cells[-1].append(line)
        steps = [_cell(cell) for cell in cells if any(line.strip() for line in cell)]
        intro = steps[0] if steps and not steps[0].code and not lines[0].startswith(CELL) else None
        if intro is not None:
            steps = steps[1:]
            summary = summary or intro.say
        for step in steps:
            if step.code:
                parse(step.code)  # a syntax error is reported when the script is opened
        return ScriptScenario(title, summary, tuple(steps))
    statements = parse(source)
    return ScriptScenario(title, summary, tuple(ScriptStep(code=s.source + "\n") for s in statements))
