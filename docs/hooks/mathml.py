"""MkDocs hook: math written in LaTeX shown as MathML, which browsers draw without a script.

``pymdownx.arithmatex`` (generic mode) marks ``$...$`` and ``$$...$$`` in the pages and in
the docstrings; this hook turns each marked formula into MathML with latex2mathml when the
page is built, so the site needs no JavaScript and no network to show its formulas.

It also checks every page: Sphinx markup left in the text (a role such as ``:func:`` or a
``.. math::`` that ``docs/hooks/sphinx_markup.py`` did not rewrite), ``$$`` that no formula
took, or a formula latex2mathml cannot read is a warning, which fails
``mkdocs build --strict``.
"""

from __future__ import annotations

import html
import logging
import re
from typing import Any

from latex2mathml.converter import convert

log = logging.getLogger("mkdocs.hooks.mathml")

INLINE = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.DOTALL)
DISPLAY = re.compile(r'<div class="arithmatex">\\\[(.*?)\\\]</div>', re.DOTALL)
#: What no hook rewrote: a Sphinx role, a math directive, display math left as text.
SPHINX_LEFT = re.compile(
    r":(func|class|meth|attr|data|mod|obj|exc|math):(`|<code>)|\.\. math::|\$\$")
CODE = re.compile(r"<pre.*?</pre>|<code.*?</code>", re.DOTALL)


def mathml(latex: str, display: str, page: str) -> str:
    source = html.unescape(latex).strip()
    try:
        return convert(source, display=display)
    except Exception as error:  # latex2mathml raises several kinds of errors
        log.warning("%s: cannot convert the formula %r to MathML: %s", page, source, error)
        return html.escape(source)


def on_page_content(html_text: str, page: Any, **kwargs: Any) -> str:
    where = page.file.src_uri
    html_text = DISPLAY.sub(lambda m: mathml(m[1], "block", where), html_text)
    html_text = INLINE.sub(lambda m: mathml(m[1], "inline", where), html_text)
    prose = CODE.sub("<code>", html_text)  # what code shows is not checked, a role before it is
    if left := SPHINX_LEFT.search(prose):
        start = max(left.start() - 80, 0)
        log.warning("%s: Sphinx markup or math left in the page: %r", where,
                    prose[start : left.end() + 80])
    return html_text
