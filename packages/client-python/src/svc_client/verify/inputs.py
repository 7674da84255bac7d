"""The rules of an approved-inputs document (specification section 2), checked on the inputs a package holds.

The engine never packages a document that breaks them, so a package whose inputs do is not reproducible: the
verifier names the first problem with its path, as ``inputs.<path>``.
"""

from __future__ import annotations

import datetime
import re
from decimal import Decimal
from typing import Any, Dict, List, Optional, Tuple

from .framework import Criterion, Framework

Problem = Tuple[str, str]

PLANNER_TYPES = ("btc", "fiat", "stablecoin")
DOCUMENT_MEMBERS = ("provider", "evaluation_date", "inputs")
PROVIDER_MEMBERS = ("id", "name", "planner_type", "provider_subtype", "yield_min", "yield_max")
ITEM_MEMBERS = ("value", "as_of", "source", "approved_by", "approved_at")
MAX_SIGNIFICANT_DIGITS = 15
MAX_NAME_LENGTH = 200

UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
SUBTYPE = re.compile(r"^[a-z0-9_]{1,64}$")
DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
TIMESTAMP = re.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$")
#: Characters free text may not hold: controls, line and paragraph separators, bidi embeddings, overrides and
#: isolates, U+FFFE and U+FFFF.
NOT_PLAIN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff]")
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def calendar_date(text: Any) -> Optional[datetime.date]:
    """A ``YYYY-MM-DD`` date that exists, or None."""
    if not isinstance(text, str) or not DATE.match(text):
        return None
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        return None


def _is_timestamp(text: Any) -> bool:
    match = TIMESTAMP.match(text) if isinstance(text, str) else None
    if not match or calendar_date(match.group(1)) is None:
        return False
    return int(match.group(2)) <= 23 and int(match.group(3)) <= 59 and int(match.group(4)) <= 59


def _plain_text_problem(value: Any, min_length: int = 1, max_length: Optional[int] = None) -> Optional[str]:
    if not isinstance(value, str):
        return "must be a string"
    if len(value) < min_length:
        return "must not be empty"
    if max_length is not None and len(value) > max_length:
        return f"must be at most {max_length} characters"
    if LONE_SURROGATE.search(value):
        return "holds a lone surrogate"
    bad = NOT_PLAIN.search(value)
    if bad:
        return "holds the character U+%04X, which free text may not hold" % ord(bad.group(0))
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, Decimal)


def significant_digits(value: Decimal) -> int:
    digits = "".join(map(str, value.as_tuple().digits)).strip("0")
    return len(digits)


def _decimal_problem(value: Any) -> Optional[str]:
    if not _is_number(value):
        return "must be a JSON number"
    if significant_digits(value) > MAX_SIGNIFICANT_DIGITS:
        return f"must have at most {MAX_SIGNIFICANT_DIGITS} significant digits"
    return None


def _members_problems(obj: Any, members: Tuple[str, ...], path: str) -> List[Problem]:
    if not isinstance(obj, dict):
        return [(path, "must be a JSON object")]
    problems = [(f"{path}.{name}", "is required") for name in members if name not in obj]
    problems += [(f"{path}.{name}", "is not a member of this object") for name in obj if name not in members]
    return problems


def _value_problem(criterion: Criterion, value: Any) -> Optional[str]:
    kind = criterion.input_type
    if kind == "enum":
        allowed = [v for v, _ in criterion.entries]
        return None if isinstance(value, str) and value in allowed else "must be one of " + ", ".join(allowed)
    if kind == "boolean":
        return None if isinstance(value, bool) else "must be true or false"
    problem = _decimal_problem(value)
    if problem:
        return problem
    if kind == "integer" and value != value.to_integral_value():
        return "must be a whole number"
    if criterion.minimum is not None and value < criterion.minimum:
        return f"must be at least {criterion.minimum}"
    if criterion.maximum is not None and value > criterion.maximum:
        return f"must be at most {criterion.maximum}"
    return None


def _item_problems(criterion: Criterion, item: Any, path: str, evaluation: Optional[datetime.date]) -> List[Problem]:
    problems = _members_problems(item, ITEM_MEMBERS, path)
    if not isinstance(item, dict):
        return problems
    if "value" in item:
        problem = _value_problem(criterion, item["value"])
        if problem:
            problems.append((f"{path}.value", problem))
    if "as_of" in item:
        as_of = calendar_date(item["as_of"])
        if as_of is None:
            problems.append((f"{path}.as_of", "must be a calendar date YYYY-MM-DD"))
        elif evaluation is not None and as_of > evaluation:
            problems.append((f"{path}.as_of", "must not be after evaluation_date"))
    for name in ("source", "approved_by"):
        problem = _plain_text_problem(item[name]) if name in item else None
        if problem:
            problems.append((f"{path}.{name}", problem))
    if "approved_at" in item and not _is_timestamp(item["approved_at"]):
        problems.append((f"{path}.approved_at", "must be an ISO 8601 UTC timestamp YYYY-MM-DDTHH:MM:SS[.fraction]Z"))
    return problems


def _provider_problems(provider: Any) -> List[Problem]:
    problems = _members_problems(provider, PROVIDER_MEMBERS, "provider")
    if not isinstance(provider, dict):
        return problems
    if "id" in provider and not (isinstance(provider["id"], str) and UUID.match(provider["id"])):
        problems.append(("provider.id", "must be a UUID"))
    if "name" in provider:
        problem = _plain_text_problem(provider["name"], 1, MAX_NAME_LENGTH)
        if problem:
            problems.append(("provider.name", problem))
    if "planner_type" in provider and provider["planner_type"] not in PLANNER_TYPES:
        problems.append(("provider.planner_type", "must be one of " + ", ".join(PLANNER_TYPES)))
    subtype = provider.get("provider_subtype")
    if "provider_subtype" in provider and not (isinstance(subtype, str) and SUBTYPE.match(subtype)):
        problems.append(("provider.provider_subtype", "must be 1 to 64 characters of a-z, 0-9 and _"))
    for name in ("yield_min", "yield_max"):
        problem = _decimal_problem(provider[name]) if name in provider else None
        if problem is None and name in provider and not Decimal(0) <= provider[name] <= Decimal(100):
            problem = "must be between 0 and 100"
        if problem:
            problems.append((f"provider.{name}", problem))
    low, high = provider.get("yield_min"), provider.get("yield_max")
    if _is_number(low) and _is_number(high) and low > high:
        problems.append(("provider.yield_min", "must not be greater than yield_max"))
    return problems


def document_problems(document: Any, framework: Framework) -> List[Problem]:
    """Every problem of an approved-inputs document, as (path, message); empty when it is valid."""
    problems = _members_problems(document, DOCUMENT_MEMBERS, "")
    problems = [(path.lstrip("."), message) for path, message in problems]
    if not isinstance(document, dict):
        return problems
    if "provider" in document:
        problems += _provider_problems(document["provider"])
    evaluation = calendar_date(document.get("evaluation_date"))
    if "evaluation_date" in document and evaluation is None:
        problems.append(("evaluation_date", "must be a calendar date YYYY-MM-DD"))
    inputs = document.get("inputs")
    if "inputs" in document and not isinstance(inputs, dict):
        problems.append(("inputs", "must be a JSON object"))
    by_key: Dict[str, Criterion] = {c.input_key: c for c in framework.criteria}
    for key, item in (inputs or {}).items() if isinstance(inputs, dict) else ():
        criterion = by_key.get(key)
        if criterion is None:
            problems.append((f"inputs.{key}", "is not an input key of " + framework.framework_version))
        else:
            problems += _item_problems(criterion, item, f"inputs.{key}", evaluation)
    return problems
