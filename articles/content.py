"""An article's content as safe HTML and as a short plain text (docs/decisions/publishing.md).

`render_html` makes HTML that a front-end may insert as it is: `markdown` by markdown-it-py with
raw HTML off (a `<script>` written in the Markdown is shown as text), `text` as escaped `<p>`
paragraphs with `<br>` for single newlines. Either way nh3 then drops whatever is not on the
allow-list below, so that a bug or a change in the renderer cannot let a script through.
`excerpt` is the content's first words as plain text (no markup, entities decoded).

Every Markdown parse is bounded (docs/decisions/render-budget.md): it may spend
MARKDOWN_RENDER_BUDGET_MS of the thread's CPU time. A write whose Markdown would take longer is
refused (`content_check`, ContentTooComplex); a read of content stored before the bound, or that
the machine rendered slower than the write did, shows it as `text` instead, and logs it.
"""

from __future__ import annotations

import logging
import re
import time
from functools import lru_cache
from html import escape
from typing import Any

import nh3
from django.conf import settings
from django.core.exceptions import ValidationError
from markdown_it import MarkdownIt

from articles.exceptions import ContentTooComplex

logger = logging.getLogger(__name__)

MARKDOWN = "markdown"
TEXT = "text"

# --- the allow-list -------------------------------------------------------------------------------
# What CommonMark produces, and nothing else (no tables, no style, no class but a code block's
# language, no id, no iframe, no form).
ALLOWED_TAGS = frozenset(
    {"p", "br", "hr", "blockquote", "pre", "code", "em", "strong", "ul", "ol", "li", "a", "img"}
    | {f"h{level}" for level in range(1, 7)}
)
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "ol": {"start"},
    "code": {"class"},
}
# Every URL in href and src: these schemes, or a relative URL (a path on the reader's site).
ALLOWED_URL_SCHEMES = frozenset({"http", "https", "mailto"})
# nh3 sets it on every link (any rel written in the content is dropped first).
LINK_REL = "noopener noreferrer nofollow"
# A fenced code block's info string becomes `class="language-…"`: kept when it is one such name.
_LANGUAGE_CLASS = re.compile(r"language-[A-Za-z0-9_+#.-]{1,40}")
# A start number as CommonMark allows it (at most 9 digits).
_START = re.compile(r"[0-9]{1,9}")


def _attribute_filter(tag: str, attribute: str, value: str) -> str | None:
    if attribute == "class":
        return value if _LANGUAGE_CLASS.fullmatch(value) else None
    if attribute == "start":
        return value if _START.fullmatch(value) else None
    return value


_CLEANER = nh3.Cleaner(
    tags=set(ALLOWED_TAGS),
    attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
    url_schemes=set(ALLOWED_URL_SCHEMES),
    link_rel=LINK_REL,
    attribute_filter=_attribute_filter,
    # The text inside these is dropped with them, not shown.
    clean_content_tags={"script", "style"},
    strip_comments=True,
)

# "commonmark": the specification and nothing more (no tables, no linkify, no typographer).
# html=False: raw HTML in the Markdown is text, escaped; markdown-it's own link check already drops
# javascript:, vbscript:, file: and data: (but images) URLs, and nh3 checks every URL again.
# maxNesting: how deep blocks (quotes, lists) and inline nodes (links, emphasis) may nest before
# the rest is read as text; the preset's 20, named because it is part of the bound.
MARKDOWN_MAX_NESTING = 20
_MARKDOWN = MarkdownIt("commonmark", {"html": False, "maxNesting": MARKDOWN_MAX_NESTING})


# --- the budget -----------------------------------------------------------------------------------
# markdown-it-py is linear in its input but its constant is large on some inputs: 1 MiB of `[`
# costs 10 s of CPU (its link rule tries every bracket, 20 levels deep), `![` 16 s; ordinary
# Markdown about 0.4 s a MiB (bench/render_limit.py). No limit of size or nesting tells the two
# apart, so the parse itself is metered: a rule first in each of markdown-it's rulers (core, block,
# inline) reads the thread's CPU clock every _CALLS_PER_CHECK calls and raises past the deadline.
# The inline ruler runs its rules at every position and in every lookahead (skipToken, which a
# link's label scan calls), so no single rule call runs long without one (the longest, a label
# scan over positions already cached, is measured by bench/render_limit.py as the overshoot).
_BUDGET = "render_budget"
# time.thread_time costs about 0.5 us (a system call): checked every call it would double the cost
# of the cheapest positions.
_CALLS_PER_CHECK = 256


class _Budget:
    __slots__ = ("calls", "deadline")

    def __init__(self, seconds: float) -> None:
        self.calls = 0
        self.deadline = time.thread_time() + seconds


def _spend_inline(state: Any, silent: bool) -> bool:
    """First inline rule: matches nothing, raises ContentTooComplex once the budget is spent."""
    budget = state.env.get(_BUDGET)
    if budget is not None:
        budget.calls += 1
        if not budget.calls % _CALLS_PER_CHECK and time.thread_time() > budget.deadline:
            raise ContentTooComplex
    return False


def _spend(state: Any, *_: Any) -> bool:
    """First block rule (once a line and nesting level: a single call may scan a whole line, as
    `hr` does) and between the core phases: every call reads the clock."""
    budget = state.env.get(_BUDGET)
    if budget is not None and time.thread_time() > budget.deadline:
        raise ContentTooComplex
    return False


# A run of `*` or `_` is one call of the emphasis rule, which makes a token of each character:
# 1 MiB of `*` is 4 s in that call alone, out of the budget's reach. A run longer than this is
# text, as CommonMark reads it when nothing closes it (more would be 32 nested emphases).
MARKDOWN_MAX_DELIMITER_RUN = 64
_DELIMITER_RUN = re.compile(r"\*+|_+")


def _long_delimiter_run(state: Any, silent: bool) -> bool:
    run = _DELIMITER_RUN.match(state.src, state.pos, state.posMax)
    if run is None or run.end() - run.start() <= MARKDOWN_MAX_DELIMITER_RUN:
        return False
    if not silent:
        state.pending += run.group()
    state.pos = run.end()
    return True


_MARKDOWN.inline.ruler.before("emphasis", "long_delimiter_run", _long_delimiter_run)
_MARKDOWN.inline.ruler.before(_MARKDOWN.inline.ruler.get_all_rules()[0], _BUDGET, _spend_inline)
_MARKDOWN.block.ruler.before(_MARKDOWN.block.ruler.get_all_rules()[0], _BUDGET, _spend)
for _phase in ("inline", "text_join"):
    _MARKDOWN.core.ruler.before(_phase, _BUDGET, _spend)


def _budget_env() -> dict[str, Any]:
    """markdown-it's `env` for one parse: the budget travels with the state (a MarkdownIt is
    shared by the threads of a process)."""
    return {_BUDGET: _Budget(settings.MARKDOWN_RENDER_BUDGET_MS / 1000)}


_BLANK_LINE = re.compile(r"\n[ \t]*\n\s*")
_WHITESPACE = re.compile(r"\s+")


def _text_html(content: str) -> str:
    text = content.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        return ""
    paragraphs = _BLANK_LINE.split(text)
    return "".join(
        f"<p>{escape(p.strip(), quote=False).replace(chr(10), '<br>')}</p>" for p in paragraphs
    )


# markdown-it-py is pure Python (about 0.6 ms a kilobyte of Markdown): a process keeps the last
# renderings of contents up to a page item's size, so that a page rebuilt after one of its articles
# changed renders that one only: at most MEMO_ENTRIES x (10,000 characters and their HTML).
MEMO_ENTRIES = 512
MEMO_MAX_CHARS = 10_000


def _render(content: str, content_format: str) -> str:
    """Raises ContentTooComplex past the budget (never memoised: lru_cache keeps no exception)."""
    if content_format == MARKDOWN:
        html = _MARKDOWN.render(content, _budget_env())
    else:
        html = _text_html(content)
    return _clean(html)


# nh3 0.3.8 takes time quadratic in the `&` of one text node (1 MiB of `&` in a paragraph: 4 s;
# `&lt;`, `&gt;` and `&quot;` cost nothing), a text content's too: each `&amp;` passes it as `~1`
# and each `~` as `~0`, and both come back after. Safe: the swap back writes an entity and a
# character that nh3 kept as text, in text and attribute values alike (a URL's `&` included).
_AMPERSAND = "&amp;"


def _clean(html: str) -> str:
    if _AMPERSAND not in html:
        return _CLEANER.clean(html)
    encoded = html.replace("~", "~0").replace(_AMPERSAND, "~1")
    return _CLEANER.clean(encoded).replace("~1", _AMPERSAND).replace("~0", "~")


_render_memo = lru_cache(maxsize=MEMO_ENTRIES)(_render)


def _rendered(content: str, content_format: str) -> str:
    if len(content) <= MEMO_MAX_CHARS:
        return _render_memo(content, content_format)
    return _render(content, content_format)


def render_html(content: str | None, content_format: str) -> str:
    """The content as sanitised HTML ("" for no content), in bounded time: Markdown that spends
    its budget is shown as text. The one rendering every surface calls (REST, GraphQL, the feed,
    previews). An unknown format is read as text."""
    if not content:
        return ""
    try:
        return _rendered(content, content_format)
    except ContentTooComplex:
        # Content stored before the bound, or a machine slower than the one that accepted it.
        logger.warning(
            "markdown over its render budget of %s ms (%s characters): shown as text",
            settings.MARKDOWN_RENDER_BUDGET_MS,
            len(content),
        )
        return _rendered(content, TEXT)


def content_check(content: str | None, content_format: str | None) -> None:
    """For every write that stores content: ContentTooComplex when its Markdown cannot be
    rendered within the budget (the rendering is kept for the answer when the content is short
    enough to be memoised)."""
    if content and content_format == MARKDOWN:
        _rendered(content, content_format)


def content_validate(content: str | None, content_format: str | None) -> None:
    """`content_check` for a form (the admin's): a ValidationError naming `content`."""
    try:
        content_check(content, content_format)
    except ContentTooComplex as error:
        raise ValidationError({"content": str(error)}) from error


# --- excerpt --------------------------------------------------------------------------------------

EXCERPT_LENGTH = 200
# An excerpt reads the content's beginning only, about four times the excerpt's length and more
# when that held too little text, so that a long article costs no more than a short one. Markdown
# cut there may read otherwise than the whole (a reference defined further on), which the first
# words of a summary can afford; the cut is made at a line's end where there is one.
_EXCERPT_SOURCE_FACTOR = 4
_EXCERPT_SOURCE_MAX_CHARS = 16_000


def _markdown_text(content: str) -> str:
    parts: list[str] = []
    for token in _MARKDOWN.parse(content, _budget_env()):
        if token.type == "inline":
            for child in token.children or ():
                if child.type in ("text", "code_inline", "html_inline", "image"):
                    parts.append(child.content)
                elif child.type in ("softbreak", "hardbreak"):
                    parts.append(" ")
            parts.append(" ")
        elif token.type in ("code_block", "fence", "html_block"):
            parts += (token.content, " ")
    return "".join(parts)


def excerpt(content: str | None, content_format: str, length: int = EXCERPT_LENGTH) -> str:
    """The content's first `length` characters or fewer as plain text, whitespace runs made one
    space, cut at a word with "…" when there is more ("" for no content)."""
    if not content:
        return ""
    size = max(length * _EXCERPT_SOURCE_FACTOR, 200)
    while True:
        whole = len(content) <= size
        source = content if whole else _source_prefix(content, size)
        text = _plain_text(source, content_format)
        if len(text) > length or whole or size >= _EXCERPT_SOURCE_MAX_CHARS:
            break
        size *= 4
    if len(text) <= length:
        return text if whole else text + "\u2026"
    cut = text[: length + 1]
    space = cut.rfind(" ")
    # A first word longer than the excerpt is cut inside it.
    cut = cut[:space] if space > 0 else text[:length]
    return cut.rstrip(" ,;:.-") + "\u2026"


def _source_prefix(content: str, size: int) -> str:
    prefix = content[:size]
    line_end = prefix.rfind("\n")
    return prefix[:line_end] if line_end > size // 2 else prefix


@lru_cache(maxsize=MEMO_ENTRIES)
def _plain_text(source: str, content_format: str) -> str:
    text = source
    if content_format == MARKDOWN:
        try:
            text = _markdown_text(source)
        except ContentTooComplex:
            # The source as it is, as a text content's excerpt reads it.
            logger.warning("markdown over its render budget in an excerpt: read as text")
    return _WHITESPACE.sub(" ", text).strip()
