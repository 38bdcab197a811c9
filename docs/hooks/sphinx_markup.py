"""Griffe extension: the library's docstrings, written for Sphinx, rendered by mkdocstrings.

The docstrings are numpydoc with Sphinx markup. Before mkdocstrings renders them as Markdown,
this extension rewrites, in every object's docstring:

- the roles ``:func:`name```, ``:class:``, ``:meth:``, ``:attr:``, ``:data:``, ``:mod:``
  into cross-references (a name is resolved in the scope of the object whose docstring holds
  it, as Sphinx does); a name the site does not document, such as ``numpy.random.default_rng``,
  stays as code; ``~`` shows the last part of the name only;
- ``:math:`x``` into inline math and ``.. math:: x`` into display math (``docs/hooks/mathml.py``
  turns both into MathML);
- doctest blocks (lines starting with ``>>>`` and their output) into fenced ``pycon`` code;
- a paragraph ending in ``::`` (a literal block follows) into one ending in ``:``;
- in Parameters and Attributes sections, words written where numpydoc expects a type
  (``runs : mapping of model name -> run read by :mod:`rankmetrics.io```) into the start of
  the description, and paragraphs written after the last item before the section.
"""

from __future__ import annotations

import contextlib
import html
import re
from collections.abc import Iterator
from typing import Any

import griffe

#: ``:role:`name```, ``:role:`~name``` or ``:role:`shown text <name>```.
ROLE = re.compile(r":(func|class|meth|attr|data|mod|obj|exc):`(~?)([^`<]+?)\s*(?:<([\w.]+)>)?`",
                  re.DOTALL)
MATH_ROLE = re.compile(r":math:`([^`]+)`")
MATH_DIRECTIVE = re.compile(r"^([ \t]*)\.\. math::[ \t]*(.+)$", re.MULTILINE)
LITERAL_MARKER = re.compile(r"(\S) ?::$", re.MULTILINE)
CALLABLE_ROLES = {"func", "meth"}
NAME = re.compile(r"\*{0,2}\w+")
DASHES = re.compile(r"\s*-{3,}\s*")
ITEM_SECTIONS = {"Parameters", "Other Parameters", "Attributes"}
#: Longest type, in words, kept in the Type column (``tuple of (float, float)`` has four).
MOST_TYPE_WORDS = 4


def resolve(obj: griffe.Object, name: str) -> str | None:
    """The full path ``name`` refers to in the scope of ``obj``, or None outside the package."""
    if name.split(".")[0] == obj.package.name:
        return name
    first, _, rest = name.partition(".")
    try:
        path = obj.resolve(first)
    except griffe.NameResolutionError:
        return None
    return f"{path}.{rest}" if rest else path


def documented_path(obj: griffe.Object, path: str) -> str:
    """Where the site documents ``path``: a name the package imports from elsewhere
    (``rankmetrics.Evaluation``) is documented where it is defined, under its public name."""
    with contextlib.suppress(KeyError, ValueError, griffe.AliasResolutionError,
                             griffe.CyclicAliasError):
        path = obj.modules_collection[path].canonical_path
    return public_path(obj, path)


def public_path(obj: griffe.Object, path: str) -> str:
    """``path`` as the site shows it: an object defined in a private module is documented
    under the public package that exports it (``rankmetrics.io._readers.read_run`` is
    ``rankmetrics.io.read_run``)."""
    parts = path.split(".")
    private = [i for i, part in enumerate(parts)
               if part.startswith("_") and not part.startswith("__")]
    if not private or private[0] + 1 >= len(parts):
        return path
    package = ".".join(parts[: private[0]])
    member = parts[private[0] + 1]
    try:
        exporter = obj.modules_collection[package]
    except KeyError:
        return path
    if member in (exporter.exports or ()):
        return ".".join([package, member, *parts[private[0] + 2 :]])
    return path


def reference(obj: griffe.Object, match: re.Match[str]) -> str:
    """A role as a cross-reference mkdocs-autorefs resolves, or as code when the name is not
    the package's (``optional``: a name the site does not render stays code, silently)."""
    role, short, written, target = match.groups()
    written = " ".join(written.split())
    if target is not None:  # :meth:`shown text <target>`
        shown, name = written, target
    else:
        name = written.removesuffix("()")
        shown = name.rsplit(".", 1)[-1] if short else name
        if role in CALLABLE_ROLES:
            shown += "()"
    code = f"<code>{html.escape(shown)}</code>"
    path = resolve(obj, name)
    if path is None:
        return code
    identifier = html.escape(documented_path(obj, path), quote=True)
    return f'<autoref identifier="{identifier}" optional>{code}</autoref>'


def fence_doctests(text: str) -> str:
    """Each run of doctest lines (``>>>``, ``...`` and the output up to a blank line)
    inside a fenced ``pycon`` block, at the indentation of its first line."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if not stripped.startswith(">>>"):
            out.append(line)
            i += 1
            continue
        indent = line[: len(line) - len(stripped)]
        if out and out[-1].strip():
            out.append("")
        out.append(f"{indent}```pycon")
        while i < len(lines) and lines[i].strip():
            out.append(lines[i])
            i += 1
        out.append(f"{indent}```")
    return "\n".join(out)


def is_item_header(line: str) -> bool:
    """Whether ``line`` names parameters or attributes (``a, b : type``), not a paragraph."""
    names = line.split(" : ", 1)[0]
    return all(NAME.fullmatch(name.strip()) for name in names.split(","))


def move_trailing_paragraphs(text: str) -> str:
    """Paragraphs written after the last item of a Parameters or Attributes section, which
    numpydoc would read as more items, moved before the section (after the description)."""
    lines = text.split("\n")
    for start in range(len(lines) - 1):
        if lines[start].strip() not in ITEM_SECTIONS or not DASHES.fullmatch(lines[start + 1]):
            continue
        end = start + 2
        while end < len(lines) and not (end + 1 < len(lines) and DASHES.fullmatch(lines[end + 1])):
            end += 1
        for i in range(start + 3, end):
            if lines[i] and not lines[i].startswith(" ") and not lines[i - 1].strip() \
                    and not is_item_header(lines[i]):
                moved = lines[i:end]
                while moved and not moved[-1].strip():
                    moved.pop()
                rest = lines[end:]
                return move_trailing_paragraphs("\n".join(
                    [*lines[:start], *moved, "", *lines[start:i], *rest]))
    return text


def is_short_type(text: str) -> bool:
    """Whether the text after ``name :`` is a type (``int``, ``str, optional``), shown as
    code in the Type column, rather than words or markup, which read well only as text."""
    return len(text.split()) <= MOST_TYPE_WORDS and "`" not in text


def types_into_descriptions(text: str) -> str:
    """In Parameters and Attributes sections, ``name : words`` that are no short type become
    ``name`` with the words first in its description (the Type column then shows the
    signature's annotation)."""
    lines = text.split("\n")
    section = None
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and DASHES.fullmatch(lines[i + 1]):
            section = line.strip()
            continue
        if section not in ITEM_SECTIONS or not line or line.startswith(" ") or " : " not in line:
            continue
        names, words = line.split(" : ", 1)
        if is_item_header(line) and not is_short_type(words):
            lines[i] = f"{names}\n    {words}"
    return "\n".join(lines)


def convert(obj: griffe.Object, text: str) -> str:
    """The docstring ``text`` of ``obj`` with its Sphinx markup rewritten."""
    text = fence_doctests(types_into_descriptions(move_trailing_paragraphs(text)))
    text = MATH_DIRECTIVE.sub(lambda m: f"{m[1]}$$\n{m[1]}{m[2]}\n{m[1]}$$", text)
    text = MATH_ROLE.sub(lambda m: f"${m[1]}$", text)
    text = LITERAL_MARKER.sub(r"\1:", text)
    return ROLE.sub(lambda m: reference(obj, m), text)


def defined_in(obj: griffe.Object) -> Iterator[griffe.Object]:
    """``obj`` and every object defined in it (not the names it imports)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from defined_in(member)


class SphinxMarkup(griffe.Extension):
    """Rewrite Sphinx markup in docstrings into what mkdocstrings renders, once the whole
    package is loaded (so that names it imports from its own modules resolve)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in defined_in(pkg):
            if obj.docstring is not None:
                obj.docstring.value = convert(obj, obj.docstring.value)
