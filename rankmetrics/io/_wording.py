"""The words of the messages about a table's rows: examples, counts and plurals.

A message shows at most :data:`EXAMPLES` rows or values, then the count of the rest
(``rows 2, 5, 9 ... and 41 more rows``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Rows or values a message shows before counting the rest.
EXAMPLES = 3


def named_rows(rows: np.ndarray) -> str:
    """The rows by number: ``row 4``, ``rows 2 and 5`` or ``rows 2, 5, 9 ... and 41 more rows``."""
    return (f"row{plural_s(len(rows))} "
            f"{row_examples([str(row) for row in rows[:EXAMPLES]], len(rows))}")


def row_examples(shown: list[str], total: int) -> str:
    """Up to three examples out of ``total``: ``a, b and c`` or ``a, b, c ... and 41 more rows``."""
    rest = total - len(shown)
    if rest <= 0:
        return joined_with_and(shown)
    return f"{', '.join(shown)} ... and {rest} more row{plural_s(rest)}"


def number_examples(numbers: np.ndarray) -> str:
    """``2, 5 and 9`` or, for longer lists, ``2, 5, 9 and 12 more``."""
    shown = [str(number) for number in numbers[:EXAMPLES]]
    rest = len(numbers) - len(shown)
    return joined_with_and([*shown, f"{rest} more"]) if rest else joined_with_and(shown)


def quoted_value(value: object) -> str:
    """A value as found in the file, quoted (cut after 37 characters); ``empty`` for a missing
    or blank one."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "empty"
    text = str(value)
    if not text.strip():
        return "empty"
    return f"'{text if len(text) <= 40 else text[:37] + '...'}'"


def joined_with_and(parts: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    parts = list(parts)
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def with_article(noun: str) -> str:
    """``a user id``, ``an item id``."""
    return ("an " if noun.startswith("item") else "a ") + noun


def counted(n: int, noun: str) -> str:
    """``1 row``, ``3 rows``."""
    return f"{n} {noun}{plural_s(n)}"


def plural_s(n: int) -> str:
    """The ``s`` of a plural noun: ``""`` for one, ``"s"`` for any other count."""
    return "" if n == 1 else "s"


def has_or_have(n: int) -> str:
    return "has" if n == 1 else "have"


def it_or_them(n: int) -> str:
    return "it" if n == 1 else "them"


def those_rows(n: int) -> str:
    """``that row`` or ``those rows``."""
    return "that row" if n == 1 else "those rows"


def plain_number(value: float) -> str:
    """A number as a reader writes it: ``3``, not ``3.0``; ``2.5``."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
