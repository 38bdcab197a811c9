"""The library's messages as the dashboard says them.

The library tells a programmer how to choose a column by hand in Python
(``columns={'user': 'customer'}``, ``columns={'order': 'user,item,rating'}``); in the
dashboard the same choice is made in the form "Choose the columns or the format by hand" under
the file, so messages point there instead.
"""

from __future__ import annotations

import re

CHOOSER = "“Choose the columns or the format by hand” below"
_NAMED = re.compile(r"(another with |pass |with the column override, e\.g\. )?"
                    r"columns=\{'(\w+)': '((?:[^'\\]|\\.)*)'\}")


def in_app(message: str) -> str:
    """``message`` with each ``columns={'role': 'name'}`` told as the dashboard's chooser.

    >>> in_app("To use another, pass columns={'user': 'customer'}.")
    "To use another, choose 'customer' as the user column in “Choose the columns or the format by hand” below."
    >>> in_app("If it is the wrong column, choose another with columns={'score': '...'}.")
    'If it is the wrong column, choose another score column in “Choose the columns or the format by hand” below.'
    >>> in_app("Rename it, or choose it with the column override, e.g. columns={'user': 'who'}.")
    "Rename it, or choose it in “Choose the columns or the format by hand” below (e.g. 'who' as the user column)."
    >>> in_app("If not, name them with columns={'order': 'user,item,rating'}.")
    'If not, name them with “Columns in order” in “Choose the columns or the format by hand” below (e.g. user, item, rating).'
    """  # noqa: E501

    def told(match: re.Match) -> str:
        lead, role, name = match.group(1) or "", match.group(2), match.group(3)
        if role == "order":
            return f"{lead}“Columns in order” in {CHOOSER} (e.g. {name.replace(',', ', ')})"
        if lead.startswith("with the column override"):
            return f"in {CHOOSER} (e.g. '{name}' as the {role} column)"
        if name == "...":
            return f"another {role} column in {CHOOSER}"
        return f"{'choose ' if lead == 'pass ' else lead}'{name}' as the {role} column in {CHOOSER}"

    return _NAMED.sub(told, message)
