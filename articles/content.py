"""An article's content as safe HTML and as a short plain text (docs/decisions/publishing.md).

`render_html` makes HTML that a front-end may insert as it is: `markdown` by markdown-it-py with
raw HTML off (a `<script>` written in the Markdown is shown as text), `text` as escaped `<p>`
paragraphs with `<br>` for single newlines. Either way nh3 then drops whatever is not on the
allow-list below, so that a bug or a change in the renderer cannot let a script through.
`excerpt` is the content's first words as plain text (no markup, entities decoded).
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape

import nh3
from markdown_it import MarkdownIt

MARKDOWN = "markdown"

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
_MARKDOWN = MarkdownIt("commonmark", {"html": False})

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
    html = _MARKDOWN.render(content) if content_format == MARKDOWN else _text_html(content)
    return _CLEANER.clean(html)


_render_memo = lru_cache(maxsize=MEMO_ENTRIES)(_render)


def render_html(content: str | None, content_format: str) -> str:
    """The content as sanitised HTML ("" for no content). An unknown format is read as text."""
    if not content:
        return ""
    if len(content) <= MEMO_MAX_CHARS:
        return _render_memo(content, content_format)
    return _render(content, content_format)


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
    for token in _MARKDOWN.parse(content):
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
    text = _markdown_text(source) if content_format == MARKDOWN else source
    return _WHITESPACE.sub(" ", text).strip()
