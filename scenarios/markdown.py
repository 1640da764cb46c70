"""Markdown rendered to the plain text a reader takes from it (markdown-it-py, CommonMark).

Chat models write values in markdown: ``**$4.1** million``, ``$4.1 **million**``, ``**58**%``,
tables and bullet lists. A reader sees the rendered text, so :func:`render` parses the message
with `markdown-it-py <https://markdown-it-py.readthedocs.io>`_ (CommonMark with GitHub tables
and strikethrough, raw HTML off) and writes out its text:

* emphasis, strong, strikethrough, links and code marks are dropped, their text kept;
* each paragraph, heading, list item and code block ends a line; an ordered item keeps its
  number ("2026. Budget" stays as written);
* a table becomes one line per body row of ``header: cell`` pairs, so ``| IGCE ($M) |`` over
  ``| 4.1 |`` reads "IGCE ($M): 4.1";
* HTML entities are decoded (``&#36;4.1M`` is "$4.1M").

Marks CommonMark leaves as literal text (``_4.1_M``: an underscore inside a word never
emphasises) are dropped next to a digit or a currency sign ("4.1M") and read as a space
elsewhere ("key_loader" as "key loader"), as they were before this module.

The parser is imported on first use, so importing the judge stays fast; :func:`may_hold` tells
the (cheap) case of text without any markup, which is returned as it is.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

# Text without any of these renders as itself: emphasis and code marks, table pipes,
# backslash escapes, strikethrough, HTML entities and links.
_MAY_HOLD = re.compile(r"[*_`|\\]|~~|&#?[A-Za-z0-9]+;|\]\(")
_STRAY_BY_NUMBER = re.compile(r"(?<=[\d$€£])[*_`]+|[*_`]+(?=[\d$€£.,])")
_STRAY = re.compile(r"[*_`]+")
_PARSER: list[MarkdownIt] = []


def may_hold(text: str) -> bool:
    """Whether ``text`` may hold markdown that renders differently from the text itself."""
    return _MAY_HOLD.search(text) is not None


def _parser() -> MarkdownIt:
    if not _PARSER:
        from markdown_it import MarkdownIt

        md = MarkdownIt("commonmark", {"html": False})
        _PARSER.append(md.enable(["table", "strikethrough"]))
    return _PARSER[0]


@lru_cache(maxsize=16384)
def render(text: str) -> str:
    r"""``text`` as rendered markdown reads (see the module docstring).

    >>> render("The IGCE is **$4.1** million, not `$4.85M`.")
    'The IGCE is $4.1 million, not $4.85M.'
    >>> render("| Item | IGCE ($M) |\n|---|---|\n| Radios | 4.1 |")
    'Item: Radios, IGCE ($M): 4.1'
    >>> render("_4.1_M a year")
    '4.1M a year'
    """
    tokens = _parser().parse(text)
    out: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "table_open":
            end = next(j for j in range(i, len(tokens)) if tokens[j].type == "table_close")
            out.append(_table(tokens[i:end]))
            i = end + 1
            continue
        if t.type == "inline":
            out.append(_inline(t.children or []))
        elif t.type in ("fence", "code_block"):
            out.append(t.content.rstrip("\n") + "\n")
        elif t.type in ("paragraph_close", "heading_close", "hr"):
            out.append("\n")
        elif t.type == "list_item_open" and t.info:  # an ordered item keeps its number
            out.append(f"{t.info}{t.markup} ")
        i += 1
    rendered = "".join(out).strip("\n")
    if "*" in rendered or "_" in rendered or "`" in rendered:
        rendered = _STRAY.sub(" ", _STRAY_BY_NUMBER.sub("", rendered))
    return rendered


def _inline(children: list[Token]) -> str:
    parts = []
    for c in children:
        if c.type in ("text", "code_inline", "html_inline"):
            parts.append(c.content)
        elif c.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif c.type == "image":  # its alt text
            parts.append(_inline(c.children or []))
    return "".join(parts)


_UNIT_ONLY = re.compile(
    r"(?:in\s+)?(?:[$€£]|usd|eur|gbp)?\s*(?:thousands?|millions?|billions?|k|mm|mn|m|bn|b|'?000s?)"
    r"(?:\s+(?:of\s+)?(?:[$€£]|usd|eur|gbp|dollars|euros|pounds))?",
    re.I,
)


def _table(tokens: list[Token]) -> str:
    """One line per body row: "header: cell" pairs (the header row alone if it has no body)."""
    rows: list[list[str]] = []
    head_rows = 0
    for t in tokens:
        if t.type == "tr_open":
            rows.append([])
        elif t.type == "inline":
            rows[-1].append(_inline(t.children or []).strip())
        elif t.type == "thead_close":
            head_rows = len(rows)
    header = rows[head_rows - 1] if head_rows else []
    # A header that is only a unit ("€ millions", "$MM") labels its column, as "($M)" does.
    header = [f"({h})" if _UNIT_ONLY.fullmatch(h) else h for h in header]
    body = rows[head_rows:]
    if not body:
        return ", ".join(c for c in header if c) + "\n"
    lines = []
    for row in body:
        pairs = []
        for k, cell in enumerate(row):
            name = header[k] if k < len(header) else ""
            if cell:
                pairs.append(f"{name}: {cell}" if name else cell)
        lines.append(", ".join(pairs))
    return "\n".join(lines) + "\n"
