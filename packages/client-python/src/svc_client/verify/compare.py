"""The first difference between the package as recomputed and the package as found, in the order of its bytes."""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

from .canonical import canonical_text

ABSENT = "(absent)"
#: A difference shows at most this many characters of each side.
SHOWN = 200


class Difference(NamedTuple):
    path: str
    expected: str
    found: str


def shown(value: Any) -> str:
    text = canonical_text(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def _order(name: str) -> bytes:
    return name.encode("utf-16-be", "surrogatepass")


def _join(path: str, name: str) -> str:
    return name if not path else f"{path}.{name}"


def first_difference(expected: Any, found: Any, path: str = "") -> Optional[Difference]:
    """Walks both values in canonical order; leaves are compared by their canonical text (so 7 and 7.0 are equal)."""
    if isinstance(expected, dict) and isinstance(found, dict):
        for name in sorted(set(expected) | set(found), key=_order):
            where = _join(path, name)
            if name not in found:
                return Difference(where, shown(expected[name]), ABSENT)
            if name not in expected:
                return Difference(where, ABSENT, shown(found[name]))
            difference = first_difference(expected[name], found[name], where)
            if difference:
                return difference
        return None
    if isinstance(expected, list) and isinstance(found, list):
        for index in range(max(len(expected), len(found))):
            where = f"{path}[{index}]"
            if index >= len(found):
                return Difference(where, shown(expected[index]), ABSENT)
            if index >= len(expected):
                return Difference(where, ABSENT, shown(found[index]))
            difference = first_difference(expected[index], found[index], where)
            if difference:
                return difference
        return None
    if canonical_text(expected) != canonical_text(found):
        return Difference(path or "(the package)", shown(expected), shown(found))
    return None
