"""The one error type for bad user data."""

from __future__ import annotations


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
        return f"{', '.join(where)}: {self.problem}" if where else self.problem
