"""YAML scenarios: a narrated story of statements, with expectations checked as it runs.

A scenario is data (loaded with PyYAML's safe composer); its code only ever runs through the
sandboxed interpreter. Loading validates the structure against the node tree, so every problem is
reported with file, line and column and a hint, never a traceback. The expectation vocabulary is
documented in scenarios/README.md; `check_expectations` compares one step's Snapshot with it.
"""

from __future__ import annotations

import difflib
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from tensorscope import expectation_shapes
from tensorscope.expectation_shapes import CUDA_FIELDS
from tensorscope.safe_yaml import MAX_FILE_BYTES, YamlProblem, load_text, where
from tensorscope.snapshot import Snapshot

if TYPE_CHECKING:
    from tensorscope.session import SessionLike, SessionOptions

TOP_KEYS = {"title": str, "summary": str, "tags": list, "setup": (str, dict), "steps": list, "cuda": bool,
            "cuda_capacity_gib": (int, float), "time_limit": (int, float)}
STEP_KEYS = {"code": str, "torch": str, "paddle": str, "say": str, "expect": dict, "paddle_expect": dict}
SETUP_KEYS = {"torch": str, "paddle": str}
DIALECTS = ("torch", "paddle")


class ScenarioError(Exception):
    """A problem with a scenario file, located: `file:line:column: message (hint)`."""

    def __init__(self, path: str, line: int, column: int, message: str, hint: str = "") -> None:
        self.path, self.line, self.column, self.message, self.hint = path, line, column, message, hint
        text = f"{path}:{line}:{column}: {message}" + (f" ({hint})" if hint else "")
        super().__init__(text)


@dataclass(frozen=True)
class ScenarioStep:
    code: str  # the torch code; expectations are about it
    paddle: str = ""  # the same story in the Paddle dialect, for `tensorscope compare`
    say: str = ""
    expect: dict[str, Any] = field(default_factory=dict)
    line: int = 0
    paddle_expect: dict[str, Any] = field(default_factory=dict)  # checked on the Paddle run

    def expectations(self, dialect: str = "torch") -> dict[str, Any]:
        """What the step's run in that dialect is checked against."""
        return self.paddle_expect if dialect == "paddle" else self.expect


@dataclass(frozen=True)
class Scenario:
    path: str
    title: str
    summary: str
    steps: tuple[ScenarioStep, ...]
    tags: tuple[str, ...] = ()
    setup: str = ""
    cuda: bool = True
    cuda_capacity_gib: float = 16
    paddle_setup: str = ""
    time_limit: float | None = None  # seconds per statement in the worker; None: the command's limit

    @property
    def has_paddle(self) -> bool:
        """Every step also gives Paddle code (the loader allows all steps or none)."""
        return bool(self.steps) and all(step.paddle for step in self.steps)


# --------------------------------------------------------------------------- loading
def _type_name(expected: Any) -> str:
    names = {str: "a string", list: "a list", dict: "a mapping", bool: "true or false", int: "a number",
             float: "a number"}
    if isinstance(expected, tuple):
        return " or ".join(sorted({names[t] for t in expected}))
    return names[expected]


def _check_keys(path: str, node: yaml.MappingNode, allowed: dict[str, Any] | set[str], what: str) -> None:
    for key_node, _ in node.value:
        key = key_node.value
        if key not in allowed:
            close = difflib.get_close_matches(str(key), list(allowed), n=1)
            hint = f"did you mean '{close[0]}'?" if close else "allowed: " + ", ".join(sorted(allowed))
            raise ScenarioError(path, *where(key_node), f"unknown key '{key}' in {what}", hint)


def _is_a(value: Any, expected: Any) -> bool:
    """isinstance, except that YAML's true/false is not a number."""
    kinds = expected if isinstance(expected, tuple) else (expected,)
    return isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)


def _check_types(path: str, node: yaml.MappingNode, data: dict[str, Any], types: dict[str, Any], what: str) -> None:
    for key_node, value_node in node.value:
        expected = types.get(key_node.value)
        value = data.get(key_node.value)
        if expected is not None and not _is_a(value, expected):
            raise ScenarioError(path, *where(value_node), f"'{key_node.value}' in {what} must be {_type_name(expected)}",
                                f"got {type(value).__name__}")


def _check_values(path: str, root: yaml.MappingNode, data: dict[str, Any]) -> None:
    """What the types alone do not say: tags are words, the device's capacity is positive."""
    for key_node, value_node in root.value:
        if key_node.value == "tags":
            for tag in value_node.value:
                if not (isinstance(tag, yaml.ScalarNode) and tag.tag.endswith(":str")):
                    raise ScenarioError(path, *where(tag), "tags must be words", "e.g. tags: [in-place, autograd]")
        if key_node.value == "cuda_capacity_gib" and data["cuda_capacity_gib"] <= 0:
            raise ScenarioError(path, *where(value_node), "'cuda_capacity_gib' must be more than 0",
                                "e.g. cuda_capacity_gib: 16")


def load(path: str | Path) -> Scenario:
    """Read and validate a scenario file; raises ScenarioError (located) for any problem."""
    name = str(path)
    try:
        with Path(path).open("rb") as file:
            raw = file.read(MAX_FILE_BYTES + 1)  # never more: the file may be huge
            size = max(len(raw), os.fstat(file.fileno()).st_size)
    except FileNotFoundError:
        raise ScenarioError(name, 0, 0, "no such file") from None
    except OSError as exc:
        raise ScenarioError(name, 0, 0, f"cannot read it ({exc.strerror or exc})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ScenarioError(name, 1, 1, f"the file is {size:,} bytes; a scenario may have at most {MAX_FILE_BYTES:,}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(raw, exc.start)
        raise ScenarioError(name, line, column, f"not UTF-8 text (byte {raw[exc.start]:#04x})") from None
    return loads(text, name)


def _position(raw: bytes, index: int) -> tuple[int, int]:
    before = raw[:index]
    return before.count(b"\n") + 1, index - (before.rfind(b"\n") + 1) + 1


def loads(text: str, path: str = "<scenario>") -> Scenario:
    """Validate a scenario's text (tensorscope.safe_yaml says what reading it refuses)."""
    try:
        root, data = load_text(text)
    except YamlProblem as exc:
        raise ScenarioError(path, exc.line, exc.column, exc.message, exc.hint) from None
    if not isinstance(root, yaml.MappingNode) or not isinstance(data, dict):
        raise ScenarioError(path, 1, 1, "a scenario is a mapping", "start with 'title:', 'summary:' and 'steps:'")
    _check_keys(path, root, TOP_KEYS, "the scenario")
    _check_types(path, root, data, TOP_KEYS, "the scenario")
    _check_values(path, root, data)
    for required in ("title", "summary", "steps"):
        if required not in data:
            raise ScenarioError(path, 1, 1, f"missing '{required}'", "a scenario needs title, summary and steps")
    steps_node = next(v for k, v in root.value if k.value == "steps")
    if not data["steps"]:
        raise ScenarioError(path, *where(steps_node), "'steps' is empty", "add at least one step with 'code:'")
    if "time_limit" in data and not 0 < data["time_limit"] <= 3600:
        node = next(v for k, v in root.value if k.value == "time_limit")
        raise ScenarioError(path, *where(node), "'time_limit' must be between 0 and 3600 seconds",
                            f"got {data['time_limit']}")
    steps = tuple(_step(path, node, value, index) for index, (node, value) in
                  enumerate(zip(steps_node.value, data["steps"]), start=1))
    setup, paddle_setup = _setup(path, root, data.get("setup", ""))
    _check_dialects(path, steps_node, steps, paddle_setup)
    return Scenario(path=path, title=data["title"], summary=data["summary"], steps=steps,
                    tags=tuple(str(t) for t in data.get("tags", [])), setup=setup,
                    cuda=data.get("cuda", True), cuda_capacity_gib=data.get("cuda_capacity_gib", 16),
                    paddle_setup=paddle_setup,
                    time_limit=None if "time_limit" not in data else float(data["time_limit"]))


def _setup(path: str, root: yaml.MappingNode, value: str | dict[str, Any]) -> tuple[str, str]:
    """(torch setup, paddle setup): `setup:` is torch code, or a mapping with `torch:` and `paddle:`."""
    if isinstance(value, str):
        return value, ""
    node = next(v for k, v in root.value if k.value == "setup")
    _check_keys(path, node, SETUP_KEYS, "'setup'")
    _check_types(path, node, value, SETUP_KEYS, "'setup'")
    return value.get("torch", ""), value.get("paddle", "")


def _check_dialects(path: str, steps_node: yaml.SequenceNode, steps: tuple[ScenarioStep, ...],
                    paddle_setup: str) -> None:
    """Paddle code for all steps or for none: `compare` pairs the dialects step by step."""
    with_paddle = [bool(step.paddle) for step in steps]
    if any(with_paddle) and not all(with_paddle):
        index = with_paddle.index(False)
        raise ScenarioError(path, *where(steps_node.value[index]), f"step {index + 1} has no paddle code",
                            "give every step 'paddle:' when one has it")
    if paddle_setup.strip() and not any(with_paddle):
        raise ScenarioError(path, *where(steps_node), "a paddle setup but no step has 'paddle:'",
                            "give each step 'paddle:' code, or drop setup's 'paddle:'")


def _step(path: str, node: yaml.Node, value: Any, index: int) -> ScenarioStep:
    what = f"step {index}"
    if isinstance(node, yaml.ScalarNode) and isinstance(value, str):
        return ScenarioStep(code=value, line=where(node)[0])
    if not isinstance(node, yaml.MappingNode) or not isinstance(value, dict):
        raise ScenarioError(path, *where(node), f"{what} must be a mapping", "give it 'code:' and optionally 'say:'")
    _check_keys(path, node, STEP_KEYS, what)
    _check_types(path, node, value, STEP_KEYS, what)
    if "code" in value and "torch" in value:
        key_node = next(k for k, _ in node.value if k.value == "torch")
        raise ScenarioError(path, *where(key_node), f"{what} gives both 'code' and 'torch'",
                            "they are the same: the torch code; keep one")
    code = value.get("code", value.get("torch", ""))
    if not code.strip():
        raise ScenarioError(path, *where(node), f"{what} has no code", "every step needs 'code:'")
    if "paddle" in value and not value["paddle"].strip():
        key_node = next(k for k, _ in node.value if k.value == "paddle")
        raise ScenarioError(path, *where(key_node), f"{what} has empty paddle code", "give it statements or drop it")
    if "paddle_expect" in value and "paddle" not in value:
        key_node = next(k for k, _ in node.value if k.value == "paddle_expect")
        raise ScenarioError(path, *where(key_node), f"{what} has 'paddle_expect' but no paddle code",
                            "give the step 'paddle:' code, or drop 'paddle_expect'")
    expect = _expectations(path, node, value, "expect", f"the expectations of {what}", what)
    paddle_expect = _expectations(path, node, value, "paddle_expect", f"the paddle expectations of {what}",
                                  f"{what} (paddle)")
    return ScenarioStep(code=code, paddle=value.get("paddle", ""), say=value.get("say", ""), expect=expect,
                        line=where(node)[0], paddle_expect=paddle_expect)


def _expectations(path: str, node: yaml.MappingNode, value: dict[str, Any], key: str, what: str,
                  context: str) -> dict[str, Any]:
    """A step's `expect:` or `paddle_expect:`, validated against the one vocabulary
    (tensorscope.expectation_shapes)."""
    expect_node = next((v for k, v in node.value if k.value == key), None)
    if expect_node is None:
        return {}
    _check_keys(path, expect_node, expectation_shapes.KEYS, what)
    for key_node, value_node in expect_node.value:
        found = expectation_shapes.problem(key_node.value, value_node)
        if found:
            at, message, hint = found
            raise ScenarioError(path, *where(at), f"'{key_node.value}' in {context}: {message}", hint)
    return value[key]


# --------------------------------------------------------------------------- checking
@dataclass(frozen=True)
class Check:
    """One expectation's verdict: what was expected and what the step actually did."""

    key: str
    passed: bool
    expected: Any
    actual: Any

    def describe(self) -> str:
        mark = "ok" if self.passed else "FAILED"
        if self.passed:
            return f"{mark}: {self.key}"
        return f"{mark}: {self.key}: expected {self.expected!r}, got {self.actual!r}"


def _close(expected: Any, actual: Any) -> bool:
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(_close(e, a) for e, a in zip(expected, actual))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return math.isclose(expected, actual, rel_tol=1e-4, abs_tol=1e-6)
    return expected == actual


def _per_name(key: str, snap: Snapshot, wanted: dict[str, Any], read: Any) -> list[Check]:
    checks = []
    for name, expected in wanted.items():
        info = snap.objects.get(name)
        actual = read(info) if info is not None else "<no such name>"
        checks.append(Check(f"{key}.{name}", _close(expected, actual), expected, actual))
    return checks


def _error_check(snap: Snapshot, expected: Any) -> Check:
    actual = None if snap.error is None else {"type": snap.error.type, "message": snap.error.message}
    if expected is None or expected is False:
        return Check("error", actual is None, None, actual)
    if isinstance(expected, str):
        expected = {"type": expected}
    passed = actual is not None and actual["type"] == expected.get("type", actual["type"])
    if passed and "contains" in expected:
        passed = expected["contains"] in actual["message"]
    if passed and "message" in expected:
        passed = expected["message"] == actual["message"]
    return Check("error", passed, expected, actual)


def _sharing_checks(snap: Snapshot, groups: list[list[str]]) -> list[Check]:
    checks = []
    labels: dict[str, str] = {}
    for group in groups:
        found = [snap.objects[n].storage if n in snap.objects else None for n in group]
        same = None not in found and len(set(found)) == 1
        checks.append(Check(f"shares_storage {group}", same, "one storage", found))
        if same:
            labels[found[0]] = ",".join(group)
    if all(c.passed for c in checks) and len(labels) < len([g for g in groups if g]):
        checks.append(Check("shares_storage (groups apart)", False, "different storages per group", labels))
    return checks


def _saved_checks(snap: Snapshot, wanted: dict[str, Any]) -> list[Check]:
    checks = []
    for name, spec in wanted.items():
        hits = [(node.name, saved.saved_version) for node in snap.graph for saved in node.saved if name in saved.names]
        expected = (spec.get("by"), spec.get("version")) if isinstance(spec, dict) else (spec, None)
        passed = any(by == expected[0] and (expected[1] is None or version == expected[1]) for by, version in hits)
        checks.append(Check(f"saved.{name}", passed, {"by": expected[0], "version": expected[1]}, hits))
    return checks


def check_expectations(snap: Snapshot, expect: dict[str, Any]) -> list[Check]:
    """Compare one step's final Snapshot with its expectations (see scenarios/README.md)."""
    checks: list[Check] = []
    for key, wanted in expect.items():
        if key == "error":
            checks.append(_error_check(snap, wanted))
        elif key == "output":
            actual = snap.output
            passed = (wanted["contains"] in (actual or "")) if isinstance(wanted, dict) else actual == wanted
            checks.append(Check("output", passed, wanted, actual))
        elif key == "warns":
            checks.append(Check("warns", any(wanted in w for w in snap.warnings), wanted, list(snap.warnings)))
        elif key == "shares_storage":
            checks.extend(_sharing_checks(snap, wanted))
        elif key == "saved":
            checks.extend(_saved_checks(snap, wanted))
        elif key == "stale":
            stale = sorted({n for _, saved in snap.stale_saved() for n in saved.names})
            checks.append(Check("stale", sorted(wanted) == stale, sorted(wanted), stale))
        elif key == "memory":
            for field_name, expected in wanted.items():
                actual = getattr(snap.memory, field_name, "<unknown field>")
                checks.append(Check(f"memory.{field_name}", actual == expected, expected, actual))
        elif key == "cuda_memory":
            for field_name, expected in wanted.items():
                figures = snap.memory.cuda or dict.fromkeys(CUDA_FIELDS, 0)  # an unused device holds nothing
                actual = figures.get(field_name, "<unknown field>")
                checks.append(Check(f"cuda_memory.{field_name}", _close(expected, actual), expected, actual))
        else:
            read = {
                "version": lambda i: i.version, "is_leaf": lambda i: i.is_leaf,
                "requires_grad": lambda i: i.requires_grad, "grad_fn": lambda i: i.grad_fn,
                "is_view": lambda i: i.is_view, "values": lambda i: i.values, "grad": lambda i: i.grad,
                "shape": lambda i: list(i.shape), "stride": lambda i: list(i.stride), "dtype": lambda i: i.dtype,
            }[key]
            checks.extend(_per_name(key, snap, wanted, read))
    return checks


# --------------------------------------------------------------------------- running
@dataclass(frozen=True)
class StepRun:
    step: ScenarioStep
    snapshots: tuple[Snapshot, ...]  # one per top-level statement of the step's code
    checks: tuple[Check, ...]

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)


@dataclass(frozen=True)
class ScenarioRun:
    scenario: Scenario
    setup: tuple[Snapshot, ...]
    steps: tuple[StepRun, ...]

    @property
    def passed(self) -> bool:
        return all(step.passed for step in self.steps)

    @property
    def failures(self) -> list[tuple[int, Check]]:
        return [(i, c) for i, step in enumerate(self.steps, start=1) for c in step.checks if not c.passed]


def _step_view(snapshots: tuple[Snapshot, ...]) -> Snapshot:
    """A step as expectations see it: the state after its last statement, with everything its
    statements printed and warned, and the first error any of them raised."""
    final = snapshots[-1]
    printed = [s.output for s in snapshots if s.output is not None]
    return replace(final, output="\n".join(printed) if printed else None,
                   warnings=tuple(w for s in snapshots for w in s.warnings),
                   error=next((s.error for s in snapshots if s.error is not None), None))


def step_view(run: StepRun) -> Snapshot:
    """The step as its expectations (and `compare`) see it."""
    return _step_view(run.snapshots)


def session_options(scenario: Scenario) -> SessionOptions:
    """The Session keywords a scenario asks for (its simulated device, its time limit)."""
    options: SessionOptions = {"cuda": scenario.cuda, "cuda_capacity_bytes": int(scenario.cuda_capacity_gib * 1024**3)}
    if scenario.time_limit is not None:
        options["time_limit"] = scenario.time_limit
    return options


def run_scenario(scenario: Scenario, dialect: str = "torch", session: SessionLike | None = None) -> ScenarioRun:
    """Run setup and steps in one fresh session, checking each step's expectations after its last
    statement (a step's error is the first error any of its statements raised).

    With dialect="paddle" the Paddle code runs instead and each step's `paddle_expect` is checked
    (`expect` pins the torch story; `compare` shows how Paddle differs).

    `session` is a fresh session made with `session_options(scenario)` (the command line passes a
    worker's); without one the scenario runs in process."""
    from tensorscope.interpreter import UserError
    from tensorscope.session import Session

    if dialect not in DIALECTS:
        raise ValueError(f"dialect must be one of {DIALECTS}, not {dialect!r}")
    paddle = dialect == "paddle"
    if paddle and not scenario.has_paddle:
        raise ScenarioError(scenario.path, 0, 0, "no paddle code", "give every step 'paddle:' code")
    setup_code = scenario.paddle_setup if paddle else scenario.setup
    if session is None:
        session = Session(**session_options(scenario))
    try:
        setup = tuple(step.snapshot for step in session.run(setup_code)) if setup_code.strip() else ()
    except UserError as exc:
        raise ScenarioError(scenario.path, 0, 0, f"{dialect} setup: {exc.info.type}: {exc.info.message}") from None
    runs = []
    for index, step in enumerate(scenario.steps, start=1):
        try:
            snapshots = tuple(s.snapshot for s in session.run(step.paddle if paddle else step.code))
        except UserError as exc:
            raise ScenarioError(scenario.path, step.line, 1,
                                f"step {index}: {exc.info.type}: {exc.info.message}") from None
        checks = tuple(check_expectations(_step_view(snapshots), step.expectations(dialect)))
        runs.append(StepRun(step, snapshots, checks))
    return ScenarioRun(scenario, setup, tuple(runs))
