"""CSV for people and for programs: ids that a spreadsheet would run as formulas are quoted.

User and item ids and model names come from the user's files. A cell such as
``=HYPERLINK(...)``, ``+cmd``, ``@SUM(...)`` or ``-2+3`` opened in a spreadsheet is a
formula, run on opening (CSV injection). CSV written for people therefore prefixes every text
cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return with a single
quote (the OWASP rule), which spreadsheets show as text. Numbers stay numbers: only text
cells are touched, so a negative value in a numeric column is written as it is. CSV for
programs (``formulas="raw"``) writes every value as it is.
"""

from __future__ import annotations

import pandas as pd

from rankmetrics.checks import check_choice

FORMULA_MODES = ("quoted", "raw")
#: The first characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def to_csv(frame: pd.DataFrame, *, formulas: str = "quoted",
           float_format: str = "%.10g") -> str:
    """The table as CSV text (no index, ``\\n`` line ends).

    Parameters
    ----------
    formulas : {"quoted", "raw"}
        ``quoted`` (for people): text cells that a spreadsheet would take for a formula get
        a leading single quote; ``raw`` (for programs): every cell as it is.

    >>> frame = pd.DataFrame({"user": ["=1+1", "-2+3", "ann"], "value": [-0.5, 1.0, 2.0]})
    >>> print(to_csv(frame), end="")
    user,value
    '=1+1,-0.5
    '-2+3,1
    ann,2
    >>> print(to_csv(frame, formulas="raw").splitlines()[1])
    =1+1,-0.5
    """
    check_choice("formulas", formulas, FORMULA_MODES)
    if formulas == "quoted":
        frame = neutralise_formulas(frame)
    return frame.to_csv(index=False, float_format=float_format, lineterminator="\n")


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of the table whose formula-like text cells (and column names) start with a
    single quote; numeric columns are left as they are."""
    out = frame.copy()
    out.columns = [quote_formula(name) if isinstance(name, str) else name
                   for name in out.columns]
    for position in range(out.shape[1]):
        column = out.iloc[:, position]
        if pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column):
            out.isetitem(position,
                         column.map(quote_formula, na_action="ignore").to_numpy(dtype=object))
    return out


def quote_formula(cell: object) -> object:
    """The cell with a leading single quote when it is text a spreadsheet would run.

    >>> quote_formula("@SUM(A1:A9)"), quote_formula("user 7"), quote_formula(-3)
    ("'@SUM(A1:A9)", 'user 7', -3)
    """
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell
