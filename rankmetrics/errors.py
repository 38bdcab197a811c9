"""The one error type for bad user data, and messages safe to print.

Messages quote values from the user's files, and files can hold anything: terminal escape
sequences (``ESC]0;...BEL`` sets a window title, ``ESC[2J`` clears the screen), C1 control
characters from Latin-1 bytes, newlines, or a header a megabyte long. :func:`printable` shows
control characters escaped (``\\x1b``) and cuts long values with an ellipsis, so a message
is one line of readable length; :class:`DataError` applies it to every message.
"""

from __future__ import annotations

import re
import unicodedata

#: Longest run of characters without a space kept whole in a message (a quoted value, a
#: header); longer runs keep their start and end around an ellipsis.
LONGEST_WORD = 100
#: Longest message; a longer one keeps its start and end around an ellipsis.
LONGEST_MESSAGE = 1000
_LONG_WORD = re.compile(rf"\S{{{LONGEST_WORD + 1},}}")
#: Unicode characters that reorder or break the text around them (bidirectional controls,
#: line and paragraph separators), shown escaped like control characters.
_INVISIBLE = frozenset("\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def printable(text: str) -> str:
    """The text as one printable line: control characters escaped, long values cut.

    >>> printable("id '\\x1b[2J' on\\nrow 2")
    "id '\\\\x1b[2J' on\\\\nrow 2"
    >>> printable("id 'a\\u200bb' and 'a\\u00a0b'")  # a zero-width and a no-break space
    "id 'a\\\\u200bb' and 'a\\\\u00a0b'"
    >>> len(printable("x" * 10_000)) <= LONGEST_WORD
    True
    """
    escaped = "".join(_escape(char) for char in text)
    cut = _LONG_WORD.sub(lambda match: _shorten(match.group(), LONGEST_WORD), escaped)
    return _shorten(cut, LONGEST_MESSAGE)


def _escape(char: str) -> str:
    if char in _INVISIBLE or _unseen(char):
        return f"\\u{ord(char):04x}"
    if unicodedata.category(char) == "Cc":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char, f"\\x{ord(char):02x}")
    return char


def _unseen(char: str) -> bool:
    """A character that shows as nothing or as a plain space: a format character (the
    zero-width space, joiners, the byte-order mark) or a space other than ' ' (no-break,
    ideographic), which would make two different ids look the same in a message."""
    if char.isascii():
        return False
    category = unicodedata.category(char)
    return category == "Cf" or category == "Zs"


def _shorten(text: str, most: int) -> str:
    """The text, or its start and end around "…" in at most ``most`` characters."""
    if len(text) <= most:
        return text
    tail = most // 4
    return text[: most - tail - 1] + "…" + text[-tail:]


class DataError(ValueError):
    """A problem with a user's file or table, in words a person can act on.

    The message names the file, the row (1-based line number in the file where known) and the
    column, says what is wrong and, where possible, how to fix it. ``file``, ``row`` and
    ``column`` are also kept as attributes so an interface can point at the culprit.

    Examples
    --------
    >>> str(DataError("score 'abc' is not a number", file="runs.csv", row=17, column="score"))
    "runs.csv, row 17, column 'score': score 'abc' is not a number"
    """

    def __init__(
        self,
        problem: str,
        *,
        file: str | None = None,
        row: int | None = None,
        column: str | None = None,
    ) -> None:
        self.problem = problem
        self.file = file
        self.row = row
        self.column = column
        super().__init__(self._format())

    def _format(self) -> str:
        where = []
        if self.file:
            where.append(str(self.file))
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column:
            where.append(f"column '{self.column}'")
        return printable(f"{', '.join(where)}: {self.problem}" if where else self.problem)
