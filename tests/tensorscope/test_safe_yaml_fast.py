"""Scenario files are read by libyaml where PyYAML has it: the result must be the Python parser's,
node positions included, and anything unusual goes the careful way."""

from __future__ import annotations

import pytest
import yaml

from scenarios import bundled
from tensorscope.safe_yaml import MAX_DEPTH, careful_load, fast_load, load_text

pytestmark = pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="PyYAML without libyaml")


def positions(node: yaml.Node | None) -> list[tuple[str, int, int, int, int]]:
    """Every node's kind, value (for scalars) and start and end, depth first."""
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        if current is None:
            continue
        mark, end = current.start_mark, current.end_mark
        found.append((type(current).__name__, current.value if isinstance(current, yaml.ScalarNode) else "",
                      mark.line, mark.column, end.line))
        if isinstance(current, yaml.MappingNode):
            stack.extend(item for pair in current.value for item in pair)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)
    return found


@pytest.mark.parametrize("path", bundled(), ids=lambda path: path.stem)
def test_a_bundled_scenario_reads_the_same_both_ways(path) -> None:
    text = path.read_text(encoding="utf-8")
    fast, careful = fast_load(text), careful_load(text)
    assert fast is not None
    assert fast[1] == careful[1] and positions(fast[0]) == positions(careful[0])


@pytest.mark.parametrize("text", [
    "a: &x [1]\nb: *x\n", "a: 1\na: 2\n", "a: !!python/object:os.system x\n", "a: [\n", "\x00",
    "a: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n", "a: .inf\n", "a: " + "9" * 40 + "\n",
    "? [a]\n: 1\n",
])
def test_anything_unusual_is_left_to_the_careful_reading(text: str) -> None:
    assert fast_load(text) is None
    with pytest.raises(Exception) as fast_way:
        load_text(text)
    with pytest.raises(Exception) as careful_way:
        careful_load(text)
    assert str(fast_way.value) == str(careful_way.value)
    assert (fast_way.value.line, fast_way.value.column) == (careful_way.value.line, careful_way.value.column)
