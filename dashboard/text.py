"""Text from users' files made safe for Markdown, and numbers written as people write them.

User ids, item ids and file names reach titles, captions and messages; unescaped, ``*`` or
``$`` in an id would turn into emphasis or LaTeX, and ``[x](y)`` into a link.
"""

from __future__ import annotations

import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=])")


def literal(text: object) -> str:
    """Text from a user's file, shown literally inside Markdown (no links, emphasis, LaTeX,
    emoji shortcodes or HTML)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))


def code(text: object) -> str:
    """Text from a user's file as inline code: shown literally, as Markdown shows code."""
    text = str(text)
    if "`" in text or "\n" in text:
        return literal(text)
    return f"`{text}`"


def number(value: float) -> str:
    """A rating or grade as written: ``4`` rather than ``4.0``, ``3.5`` as is."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
