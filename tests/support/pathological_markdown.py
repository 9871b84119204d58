"""Markdown known to be slow to parse, at a given size: cmark's pathological_tests
(test/pathological_tests.py in commonmark/cmark) and the inputs markdown-it-py was seen to spend
seconds on (issue 40). Used by the render-budget tests (tests/rest, tests/graphql, tests/drafts)
and measured by bench/render_limit.py."""

from __future__ import annotations

import json
from collections.abc import Callable


def _repeat(unit: str) -> Callable[[int], str]:
    return lambda size: unit * (size // len(unit))


def _nested_lists(size: int) -> str:
    lines, depth = [], 0
    while sum(map(len, lines)) < size - 200:
        lines.append("  " * (depth % 200) + "- a\n")
        depth += 1
    return "".join(lines)


def _backtick_runs(size: int) -> str:
    parts, width = [], 1
    while sum(map(len, parts)) + width + 1 < size:
        parts.append("`" * width + "a")
        width += 1
    return "".join(parts)


def _reference_definitions(size: int) -> str:
    count = size // 12
    return "".join(f"[{i}]: u\n" for i in range(count)) + "[0] " * 10


def _around(unit_open: str, middle: str, unit_close: str) -> Callable[[int], str]:
    def make(size: int) -> str:
        half = (size - len(middle)) // (len(unit_open) + len(unit_close))
        return unit_open * half + middle + unit_close * half

    return make


# name -> make(size): a content of at most `size` characters.
PATTERNS: dict[str, Callable[[int], str]] = {
    "nested brackets [": _repeat("["),
    "brackets [a": _repeat("[a"),
    "closers a]": _repeat("a]"),
    "bracket pairs [ ]": _around("[", "a", "]"),
    "openers *a": _repeat("*a "),
    "openers _a": _repeat("_a "),
    "closers a*": _repeat("a* "),
    "strong nesting **": _around("**", "a", "**"),
    "emphasis mix *a **a": _repeat("*a **a "),
    "emphasis in links *[": _repeat("*["),
    "nested quotes >": _repeat("> "),
    "nested lists": _nested_lists,
    # Not a thematic break (the `a`): each level's `hr` rule scans the whole line.
    "list markers on a line - a": lambda size: "- " * (size // 2 - 1) + "a",
    "backtick runs": _backtick_runs,
    "unclosed links [a](<b": _repeat("[a](<b"),
    "unclosed links [a](b": _repeat("[a](b"),
    "link destinations [](": _repeat("[]("),
    "comment openers <!--": _repeat("<!--"),
    "less-thans <": _repeat("<"),
    "entity openers &#": _repeat("&#"),
    "ampersands &": _repeat("& "),
    "reference definitions": _reference_definitions,
    "images ![[]()": _repeat("![[]()"),
    "image openers ![": _repeat("!["),
}

# Those that markdown-it-py 4.3.0 takes several seconds over at 1 MiB, far past any budget a
# server can give one rendering: a write of them is refused wherever it runs.
REFUSED = frozenset(
    {
        "nested brackets [",
        "brackets [a",
        "bracket pairs [ ]",
        "emphasis in links *[",
        "images ![[]()",
        "image openers ![",
    }
)


def at_size(make: Callable[[int], str], body_bytes: int, overhead: int = 512) -> str:
    """The pattern at the largest size whose JSON (as a write sends it) fits in `body_bytes`
    with `overhead` bytes left for the other fields."""
    size = body_bytes - overhead
    content = make(size)
    while len(json.dumps(content).encode()) > body_bytes - overhead:
        size = size * 9 // 10
        content = make(size)
    return content
