"""Finding the user, item, score / rank / rating and list columns by their usual names, or
by their order in a file without a header line (``columns={"order": "user,item,rating"}``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from rankmetrics.errors import DataError

# Recognised names for each role, most specific first. Matching ignores case, "_", "-" and
# spaces: "user_id", "userId" and "User ID" are the same name.
ROLE_NAMES: dict[str, tuple[str, ...]] = {
    "user": ("user", "user_id", "query", "query_id", "qid", "topic", "topic_id"),
    "item": ("item", "item_id", "movieId", "product_id", "doc", "doc_id", "docno"),
    "score": ("score", "prediction", "pred", "predicted", "similarity"),
    "rank": ("rank", "position", "pos"),
    "rating": ("rating", "relevance", "rel", "label", "grade", "judgment", "judgement"),
    "items": ("items", "item_ids", "recommendations", "recommended", "recs", "ranking", "docs",
              "doc_ids", "docnos"),
}

# The header a file of each kind would have, for the "add a header line" hint.
ROLES_FOR = {"run": ("user", "item", "score"), "truth": ("user", "item", "rating"),
             "interactions": ("user", "item")}

#: The key of ``columns=`` giving the roles of a file without a header line, by position.
ORDER = "order"
#: A role may be given for the columns of each kind.
ROLES_OF = {"run": ("user", "item", "score", "rank", "items"),
            "truth": ("user", "item", "rating", "items"),
            "interactions": ("user", "item", "rating", "items")}

ROLE_WORDS = {
    "user": "user",
    "item": "item",
    "score": "score",
    "rank": "rank",
    "rating": "rating",
    "items": "list of items",
}


def normalise(column: object) -> str:
    """``"User_ID"`` -> ``"userid"``: lower case without ``_``, ``-`` or spaces."""
    return re.sub(r"[\s_\-]+", "", str(column)).lower()


def check_overrides(columns: Mapping[str, object] | None, kind: str) -> dict[str, str]:
    """Validate the ``columns=`` argument (a programming error is a ValueError).

    It maps roles to column names, or holds only ``"order"``: the roles of a file without a
    header line by position, as text (``"user,item,rating"``) or a list; see
    :func:`order_roles`.
    """
    if columns is None:
        return {}
    if not isinstance(columns, Mapping):
        raise ValueError(
            "columns= must be a dict from role to column name, e.g. {'score': 'prediction'}, "
            "or {'order': 'user,item,score'} for a file without a header line. "
            f"Got {type(columns).__name__}."
        )
    allowed = ROLES_OF[kind]
    if ORDER in columns:
        if len(columns) > 1:
            raise ValueError(
                "columns= gives either the order of the columns of a file without a header "
                f"line ({{'order': 'user,item,rating'}}) or columns by role, not both. Got "
                f"{columns!r}."
            )
        return {ORDER: ",".join(order_roles(columns[ORDER], kind))}
    unknown = [role for role in columns if role not in allowed]
    if unknown:
        raise ValueError(
            f"columns= has unknown role(s) {', '.join(map(repr, unknown))}; a {kind} accepts "
            f"{', '.join(map(repr, allowed))}, or 'order' for a file without a header line."
        )
    return {role: str(name) for role, name in columns.items()}


def order_roles(order: object, kind: str) -> tuple[str, ...]:
    """The roles of a file's columns by position: ``"user, item, rating"`` or a list of words.

    A word that is not a role of the kind (``timestamp``, ``other``) names a column left
    unread; columns after the last word are not read either. The user and the item must be
    there, and for a run its score or its rank (not both); no role twice. A ValueError says
    what is wrong.

    >>> order_roles("user, item, rating, timestamp", "truth")
    ('user', 'item', 'rating', 'timestamp')
    """
    words = order.split(",") if isinstance(order, str) else order
    if not isinstance(words, (list, tuple)) or not all(isinstance(w, str) for w in words):
        raise ValueError(
            "the order of the columns must be text such as 'user,item,rating' or a list of "
            f"words. Got {order!r}."
        )
    roles = tuple(word.strip().lower() if word.strip().lower() in ROLE_WORDS else word.strip()
                  for word in words)
    example = ",".join(ROLES_FOR[kind])
    if not all(roles):
        raise ValueError(f"the order of the columns has an empty word: {order!r}. Give one "
                         f"word a column, separated by commas, such as '{example}'.")
    allowed = ROLES_OF[kind]
    misplaced = [role for role in roles if role in ROLE_WORDS
                 and (role not in allowed or role == "items")]
    repeated = sorted({role for role in roles if role in ROLE_WORDS and roles.count(role) > 1})
    needed = [role for role in ("user", "item") if role not in roles]
    if kind == "run" and not {"score", "rank"} & set(roles):
        needed.append("score or rank")
    problems = [f"{', '.join(misplaced)} {'is' if len(misplaced) == 1 else 'are'} not read "
                f"from a {kind} in this layout" if misplaced else "",
                f"{', '.join(repeated)} is named twice" if repeated else "",
                f"it lacks the {' and the '.join(needed)}" if needed else "",
                "it names both a score and a rank" if {"score", "rank"} <= set(roles) else ""]
    said = "; ".join(problem for problem in problems if problem)
    if said:
        raise ValueError(f"the order of the columns {', '.join(roles)}: {said}. Give each "
                         f"column's role in order, such as '{example}' (other words, such as "
                         "timestamp, name columns left unread).")
    return roles


def find_column(names: Sequence[str], role: str, taken: set[str]) -> tuple[str | None, str]:
    """The first column whose normalised name is a recognised name for ``role``.

    Returns the column (or None) and a warning ("" if none) when another column could also
    have been meant.
    """
    by_name: dict[str, list[str]] = {}
    for name in names:
        if name not in taken:
            by_name.setdefault(normalise(name), []).append(name)
    found = [by_name[key] for key in map(normalise, ROLE_NAMES[role]) if key in by_name]
    if not found:
        return None, ""
    chosen = found[0][0]
    others = [name for group in found for name in group if name != chosen]
    warning = ""
    if others:
        example = others[0]
        warning = (
            f"Used column '{chosen}' for the {ROLE_WORDS[role]}; "
            f"{', '.join(repr(o) for o in others)} could also be one. To use another, pass "
            f"columns={{'{role}': '{example}'}}."
        )
    return chosen, warning


def resolve_override(names: Sequence[str], role: str, wanted: str, file: str) -> str:
    """The file column the caller named for ``role``: exact name first, then normalised."""
    if wanted in names:
        return wanted
    matches = [name for name in names if normalise(name) == normalise(wanted)]
    if matches:
        return matches[0]
    raise DataError(
        f"the column '{wanted}' chosen for the {ROLE_WORDS[role]} is not in the file. "
        f"Its columns are: {show_names(names)}.",
        file=file,
    )


def show_names(names: Sequence[str]) -> str:
    shown = ", ".join(f"'{name}'" for name in names[:20])
    return shown + (f" and {len(names) - 20} more" if len(names) > 20 else "")


def recognised(role: str) -> str:
    """The names recognised for a role, for messages."""
    return ", ".join(ROLE_NAMES[role])


def missing_columns(
    names: Sequence[str], missing: Sequence[Sequence[str]], kind: str, found: dict[str, str],
    file: str, *, may_be_data: bool = False, hint: str = "",
) -> DataError:
    """The error for a table lacking required columns, with the way to fix it.

    ``missing`` lists groups of roles, any one of which would do (``[("score", "rank")]``).
    """
    need = " and no ".join(" or ".join(ROLE_WORDS[r] for r in group) for group in missing)
    roles = [role for group in missing for role in group]
    known = "; ".join(f"{ROLE_WORDS[role]} by {recognised(role)}" for role in roles)
    unused = [name for name in names if name not in found.values()]
    guess = _guess(unused, roles[0]) or "your_column"
    text = (
        f"no {need} column found. The file's columns are: {show_names(names)}. "
        f"Columns are recognised by their names ({known}; in any case, ignoring '_', '-' and "
        "spaces). Rename the column in the file, or choose it with the column override, "
        f"e.g. columns={{'{roles[0]}': '{guess}'}}."
    )
    if may_be_data:
        order = ",".join(ROLES_FOR[kind])
        text += (
            " The first line may be data rather than column names: if the file has no header "
            f"line, name its columns in their order with columns={{'{ORDER}': '{order}'}}, or "
            f"add a header line such as '{order}'."
        )
    if hint:
        text += " " + hint
    return DataError(text, file=file)



def _guess(unused: Sequence[str], role: str) -> str:
    """An unused column whose name contains a recognised name for the role, else the first."""
    for name in unused:
        key = normalise(name)
        if any(normalise(word) in key for word in ROLE_NAMES[role]):
            return name
    return unused[0] if unused else ""


@dataclass
class Choice:
    """The columns chosen for each role and the layout they imply."""

    columns: dict[str, str]
    layout: str  # "long" or "list"
    ranking: str | None
    implied_rating: bool = False
    warnings: list[str] = field(default_factory=list)


def choose_columns(
    names: Sequence[str],
    kind: str,
    overrides: dict[str, str],
    file: str,
    *,
    is_list_column: Callable[[str], bool],
    force_list: bool = False,
    may_be_data: bool = False,
) -> Choice:
    """Pick the columns of a run or ground truth, and whether it is in the list layout.

    Long layout: a run needs user, item and score or rank (score wins when both are there,
    unless only rank was chosen with ``columns=``); a ground truth needs user, item and
    rating, except that a file of only user and item columns gives every pair rating 1.
    List layout (one row per user, items in order): a user column and an items column whose
    values are lists (or, in text, cells holding several ids).
    """
    names = [str(name) for name in names]
    found: dict[str, str] = {}
    warnings: list[str] = []
    for role, wanted in overrides.items():
        found[role] = resolve_override(names, role, wanted, file)

    def auto(role: str) -> str | None:
        if role not in found:
            column, warning = find_column(names, role, set(found.values()))
            if column is None:
                return None
            found[role] = column
            if warning:
                warnings.append(warning)
        return found[role]

    user = auto("user")
    list_candidate = None
    if force_list or "items" in overrides:
        list_candidate = auto("items") or _only_other(names, user)
    else:
        item = auto("item")
        values = ("score", "rank") if kind == "run" else ("rating",)
        if not any(role in overrides for role in values):
            for role in values:
                auto(role)
        has_value = kind == "interactions" or any(role in found for role in values)
        if not (user and item and has_value):
            candidate = auto("items") or item or _only_other(names, user)
            if candidate is not None and is_list_column(candidate):
                list_candidate = candidate
                found.pop("item", None)
    if list_candidate is not None or force_list or "items" in overrides:
        if user is None or list_candidate is None:
            missing = [group for group, col in ((("user",), user), (("items",), list_candidate))
                       if col is None]
            raise missing_columns(names, missing, kind, found, file,
                                  may_be_data=may_be_data)
        ranking = "list_position" if kind == "run" else None
        return Choice({"user": user, "items": list_candidate}, "list", ranking,
                      implied_rating=kind == "truth", warnings=warnings)
    return _long_choice(names, kind, overrides, found, file, warnings, may_be_data)


def _long_choice(
    names: list[str], kind: str, overrides: dict[str, str], found: dict[str, str], file: str,
    warnings: list[str], may_be_data: bool,
) -> Choice:
    user, item = found.get("user"), found.get("item")
    if kind == "interactions":
        return _interactions_choice(names, found, file, warnings, may_be_data)
    if kind == "truth":
        rating = found.get("rating")
        if user and item and rating:
            return Choice({"user": user, "item": item, "rating": rating}, "long", None,
                          warnings=warnings)
        if user and item and len(names) == 2:
            return Choice({"user": user, "item": item}, "long", None, implied_rating=True,
                          warnings=warnings)
        hint = ""
        for role in ("score", "rank"):
            column, _ = find_column(names, role, set(found.values()))
            if column is not None:
                hint = (f"It has a {role} column ('{column}'), so it looks like a model's output: "
                        "load it as a model run, not as the ground truth.")
                break
        missing: list[tuple[str, ...]] = [
            group for group, col in ((("user",), user), (("item",), item), (("rating",), rating))
            if col is None]
        raise missing_columns(names, missing, kind, found, file,
                              may_be_data=may_be_data, hint=hint)
    score, rank = found.get("score"), found.get("rank")
    only_rank_chosen = "rank" in overrides and "score" not in overrides
    if user and item and score and not (rank and only_rank_chosen):
        if rank:
            warnings.append(
                f"Ranked by the score column '{score}' (higher is better); the rank column "
                f"'{rank}' is not used. To rank by it, pass columns={{'rank': '{rank}'}}."
            )
        return Choice({"user": user, "item": item, "score": score}, "long", "score",
                      warnings=warnings)
    if user and item and rank:
        return Choice({"user": user, "item": item, "rank": rank}, "long", "rank",
                      warnings=warnings)
    hint = ""
    column, _ = find_column(names, "rating", set(found.values()))
    if column is not None:
        hint = (f"It has a rating column ('{column}'), so it looks like ground truth: load it as "
                "the ground truth, not as a model run.")
    missing = [group for group, col in
               ((("user",), user), (("item",), item), (("score", "rank"), score or rank))
               if col is None]
    raise missing_columns(names, missing, kind, found, file,
                          may_be_data=may_be_data, hint=hint)


def _interactions_choice(names: list[str], found: dict[str, str], file: str,
                         warnings: list[str], may_be_data: bool) -> Choice:
    """Training interactions need a user and an item column; a rating column is read when
    there is one, and any other column (a timestamp) is left unread."""
    user, item, rating = found.get("user"), found.get("item"), found.get("rating")
    if user and item:
        columns = {"user": user, "item": item} | ({"rating": rating} if rating else {})
        return Choice(columns, "long", None, warnings=warnings)
    missing = [group for group, col in ((("user",), user), (("item",), item)) if col is None]
    raise missing_columns(names, missing, "interactions", found, file,
                          may_be_data=may_be_data)


def _only_other(names: Sequence[str], user: str | None) -> str | None:
    """The one column besides the user column, in a two-column table."""
    others = [name for name in names if name != user]
    return others[0] if user is not None and len(others) == 1 else None
