"""The text templates of specification section 12, filled as the page says each slot is written."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any, List

from .canonical import number_text

SUMMARY = "{provider_name} scores {final_score} ({risk_band}, {where}) under {framework_version}, {anchored}, {held}; {capped}."
SUMMARY_WHERE_NEXT = "{points_to_next_band} points below {next_band}"
SUMMARY_WHERE_LOWEST = "the lowest-risk band"
SUMMARY_ANCHORED = "anchored by {floor_labels}"
SUMMARY_ANCHORED_NONE = "with no criterion at {floor_min_points} points or more"
SUMMARY_HELD = "held back by {ceiling_labels}"
SUMMARY_HELD_NONE = "with nothing holding it back"
SUMMARY_CAPPED = "capped at {lowest_cap} by {binding_caps}"
SUMMARY_CAPPED_NONE = "no hard cap binds"
SUMMARY_CAP_NAMED = "{cap_id} {cap_label}"
DETAIL = "{criterion_label} {input_value} scores {points} of 100"
DETAIL_DERIVED_SPREAD_BPS = "{criterion_label} {spread_bps} bps (benchmark {input_value}%) scores {points} of 100"
DETAIL_MISSING = "{criterion_label} is missing ({input_key}) and scores 0 of 100"
OVERVIEW = (
    "Scored under {framework_version} as of {evaluation_date}: final score {final_score} ({risk_band}) from an"
    " uncapped {uncapped}; confidence {confidence} with {present} of {criteria} inputs present and {stale} older than"
    " {full_until_days} days; {publication}."
)
OVERVIEW_PUBLISHABLE = "publishable"
OVERVIEW_NOT_PUBLISHABLE = "not publishable (confidence below {min_confidence})"
MODULE = "{module_label}: {module_score} of {module_max} points{strongest}{weakest}{missing}."
MODULE_STRONGEST = "; strongest {criterion_label} ({points})"
MODULE_WEAKEST = "; weakest {criterion_label} ({points})"
MODULE_MISSING = "; missing {missing_labels}"


SLOT = re.compile(r"\{([a-z_]+)\}")


def fill(template: str, **slots: str) -> str:
    """The template with each ``{slot}`` replaced in one pass (a value holding braces is not read again)."""
    return SLOT.sub(lambda match: slots[match.group(1)], template)


def fixed(value: Decimal, places: int) -> str:
    """Fixed-place text: rounded half-even to ``places``, exactly that many digits, no exponent, zero unsigned."""
    rounded = value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)
    if rounded == 0:
        rounded = abs(rounded)
    return format(rounded, "f")


def exact(value: Decimal) -> str:
    """Exact text: the value with no exponent and no trailing zeros."""
    if value == 0:
        return "0"
    return format(value.normalize(), "f")


def input_text(value: Any) -> str:
    """An input value in a text: a number as ECMAScript's String() writes it, a boolean as true/false."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, Decimal):
        return number_text(value)
    return str(value)


def listed(items: List[str]) -> str:
    """``a``; ``a and b``; ``a, b and c``."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
