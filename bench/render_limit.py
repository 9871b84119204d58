"""The CPU time of one Markdown rendering at the size limit (issue 40, point 4), per pathological
pattern (tests/support/pathological_markdown.py) and for ordinary Markdown.

    .venv/bin/python -m bench.render_limit [--size BYTES] [--budget-ms MS] [--unbounded]

For each content: the write's check (`content_check`: refused, or rendered within the budget),
the read (`render_html`: the rendering, or the budget spent and the text shown), the excerpt, and
the worst of three runs of each. `--unbounded` also times markdown-it-py and nh3 without the
budget, as they ran before it (up to 20 s a pattern). CPU time of this thread
(time.thread_time), so other processes on the machine change the figures little. Prints a
Markdown table (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = 3


def _ordinary(size: int) -> str:
    """The repository's own documentation, repeated: dense technical Markdown (code, links,
    lists, emphasis on most lines)."""
    text = "\n\n".join(p.read_text() for p in sorted((ROOT / "docs").glob("*.md")))
    return (text * (size // len(text) + 1))[:size]


def _worst(work: Callable[[], object]) -> tuple[float, object]:
    worst, result = 0.0, None
    for _ in range(RUNS):
        started = time.thread_time()
        result = work()
        worst = max(worst, time.thread_time() - started)
    return worst, result


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import django

    django.setup()
    import logging

    from django.conf import settings

    from articles import content
    from articles.exceptions import ContentTooComplex
    from tests.support.pathological_markdown import PATTERNS, at_size

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=settings.MAX_BODY_BYTES)
    parser.add_argument("--budget-ms", type=int, default=settings.MARKDOWN_RENDER_BUDGET_MS)
    parser.add_argument("--unbounded", action="store_true")
    args = parser.parse_args()
    settings.MARKDOWN_RENDER_BUDGET_MS = args.budget_ms
    # Each read over the budget logs a line: the table says it.
    logging.getLogger("articles.content").setLevel(logging.ERROR)

    def check(text: str) -> str:
        try:
            content.content_check(text, content.MARKDOWN)
        except ContentTooComplex:
            return "refused"
        return "accepted"

    cases = {"ordinary Markdown (docs/*.md)": _ordinary, **PATTERNS}
    print(f"size limit {args.size} bytes, budget {args.budget_ms} ms, worst of {RUNS} runs (s)\n")
    header = "| content | characters | write | write CPU | read CPU | excerpt CPU |"
    if args.unbounded:
        header += " unbounded CPU |"
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    for name, make in cases.items():
        text = at_size(make, args.size)
        # The memo would answer the second run of a short content: clear it each time.
        write_cpu, verdict = _worst(
            lambda t=text: (content._render_memo.cache_clear(), check(t))[1]
        )
        read_cpu, _ = _worst(lambda t=text: content.render_html(t, content.MARKDOWN))
        excerpt_cpu, _ = _worst(
            lambda t=text: (content._plain_text.cache_clear(), content.excerpt(t, "markdown"))
        )
        row = f"| {name} | {len(text)} | {verdict} | {write_cpu:.3f} | {read_cpu:.3f} |"
        row += f" {excerpt_cpu:.3f} |"
        if args.unbounded:
            started = time.thread_time()
            content._CLEANER.clean(content._MARKDOWN.render(text))
            row += f" {time.thread_time() - started:.2f} |"
        print(row, flush=True)


if __name__ == "__main__":
    main()
