"""Numbers as rankmetrics prints them: in the decision, the pair sentences, the report and the
command line.

Every difference and interval printed goes through :func:`fixed`, so a value that rounds to
zero never prints as negative zero: a bound of -0.000001 at five decimals is "0.00000", not
"-0.00000" (which a reader takes for a real, if small, negative difference).
"""

from __future__ import annotations

import re


def fixed(value: float, places: int, *, sign: bool = False) -> str:
    """``value`` with ``places`` decimals; ``sign``: always with its sign ("+0.020").

    A value that rounds to zero prints as zero, without a minus: "0.000" (or "+0.000" with
    ``sign``, as an exact zero does).

    >>> fixed(-0.000001, 5), fixed(-0.000001, 3, sign=True), fixed(-0.0042, 3)
    ('0.00000', '+0.000', '-0.004')
    >>> fixed(0.0214, 3, sign=True), fixed(float("-0.0"), 2)
    ('+0.021', '0.00')
    """
    text = f"{value:{'+' if sign else ''}.{places}f}"
    if text.startswith("-") and not text.strip("-0."):
        return ("+" if sign else "") + text[1:]
    return text


def difference_places(difference: float) -> int:
    """The decimals of a difference of means and its interval: 3, or 5 for a difference
    smaller than 0.01 (other than 0), so that it does not print as 0.000.

    >>> difference_places(0.168), difference_places(0.0053), difference_places(0.0)
    (3, 5, 3)
    """
    return 3 if abs(difference) >= 0.01 or difference == 0 else 5


def interval(low: float, high: float, places: int) -> str:
    """An interval in words, each bound through :func:`fixed`.

    >>> interval(-0.0000004, 0.0141, 5)
    '0.00000 to 0.01410'
    """
    return f"{fixed(low, places)} to {fixed(high, places)}"


def unbroken_cutoffs(text: str) -> str:
    """``text`` with each "K = 10" held together by no-break spaces, so that a line on a page
    never ends in "K =".

    >>> unbroken_cutoffs("A up to K = 5, B from K = 10.")
    'A up to K\xa0=\xa05, B from K\xa0=\xa010.'
    """
    return re.sub(r"\bK = (?=\d)", "K\u00a0=\u00a0", text)
